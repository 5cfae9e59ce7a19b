import { Outlet, createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, redirect } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { SESSION_KEY, fetchSession, lastProject } from './api/session.ts';
import { asText } from './lib/format.ts';
import * as z from 'zod/mini';
import { rangeAnchor, readListSearch, toSearchRequest, type ListSearch } from './lib/list-search.ts';
import { parseSearch, searchValidator, text, words } from './lib/search.ts';
import { alignmentSearch, compareSearch, dashboardSearch, datasetSearch, experimentSearch, promptSearch, threadsSearch, topicsSearch, usersSearch, type DatasetSearch } from './lib/page-searches.ts';
import { traceListQuery, traceOutlineQuery } from './api/traces.ts';
import { DATASET_PAGE, datasetQuery, prefetchRecords } from './api/datasets.ts';

interface RouterContext {
  queryClient: QueryClient;
}

const sessionOf = (queryClient: QueryClient) => queryClient.ensureQueryData({ queryKey: SESSION_KEY, queryFn: fetchSession });

const rootRoute = createRootRouteWithContext<RouterContext>()({ component: Outlet });

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: async ({ context }) => {
    const session = await sessionOf(context.queryClient);
    if (!session) throw redirect({ to: '/signin' });
    const projectId = lastProject(session);
    if (!projectId) throw redirect({ to: '/signin' });
    throw redirect({ to: '/p/$projectId/traces', params: { projectId } });
  },
});

const signinRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signin',
  validateSearch: searchValidator(z.object({ redirect: text() })),
  component: lazyRouteComponent(() => import('./routes/signin.tsx')),
});

/** What the LangWatch SDKs' login() sends people to: a project key to paste, once signed in. */
const authorizeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/authorize',
  beforeLoad: async ({ context }) => {
    const session = await sessionOf(context.queryClient);
    if (!session) throw redirect({ to: '/signin', search: { redirect: '/authorize' } });
  },
  component: lazyRouteComponent(() => import('./routes/authorize.tsx')),
});

const inviteRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invite/$token',
  component: lazyRouteComponent(() => import('./routes/set-password.tsx'), 'InvitePage'),
});

const resetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password/$token',
  component: lazyRouteComponent(() => import('./routes/set-password.tsx'), 'ResetPage'),
});

const shareRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/share/$token',
  loader: ({ context, params }) => void context.queryClient.prefetchQuery(traceOutlineQuery({ shareToken: params.token })),
  component: lazyRouteComponent(() => import('./routes/share.tsx')),
});

/** Every project page: signed in, or sent to the sign-in page and back. */
const projectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/p/$projectId',
  beforeLoad: async ({ context, location }) => {
    const session = await sessionOf(context.queryClient);
    if (!session) throw redirect({ to: '/signin', search: { redirect: location.href } });
    return { session };
  },
  component: lazyRouteComponent(() => import('./routes/shell.tsx')),
});

const projectIndexRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/p/$projectId/traces', params });
  },
});

export const tracesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/traces',
  validateSearch: (s: Record<string, unknown>): ListSearch => readListSearch(s),
  loaderDeps: ({ search }) => search,
  // The first page of traces is asked for while the page's code loads (not awaited), with the request the page makes.
  loader: ({ context, params, deps }) =>
    void context.queryClient.ensureInfiniteQueryData(traceListQuery(params.projectId, toSearchRequest(deps, rangeAnchor(deps)))).catch(() => undefined),
  component: lazyRouteComponent(() => import('./routes/traces.tsx')),
});

export const traceRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/traces/$traceId',
  validateSearch: searchValidator(z.object({ span: text() })),
  // Starts reading the trace while the page's code loads (not awaited: the page shows its own progress).
  // ensureQueryData: a span selected (the URL's search changing) must not read a big trace's outline again.
  loader: ({ context, params }) => void context.queryClient.ensureQueryData(traceOutlineQuery(params)).catch(() => undefined),
  component: lazyRouteComponent(() => import('./routes/trace.tsx')),
});

const usersRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/users',
  validateSearch: searchValidator(usersSearch),
  component: lazyRouteComponent(() => import('./routes/users.tsx')),
});

const threadsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/threads',
  validateSearch: searchValidator(threadsSearch),
  component: lazyRouteComponent(() => import('./routes/threads.tsx')),
});

const topicsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/topics',
  validateSearch: searchValidator(topicsSearch),
  component: lazyRouteComponent(() => import('./routes/topics.tsx')),
});

const threadRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/threads/$threadId',
  component: lazyRouteComponent(() => import('./routes/thread.tsx')),
});

const promptsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/prompts',
  validateSearch: searchValidator(z.object({ q: words() })),
  component: lazyRouteComponent(() => import('./routes/prompts.tsx')),
});

const promptRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/prompts/$promptId',
  validateSearch: searchValidator(promptSearch),
  component: lazyRouteComponent(() => import('./routes/prompt.tsx')),
});

const datasetsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/datasets',
  component: lazyRouteComponent(() => import('./routes/datasets.tsx')),
});

// Named, not inline: inferred inside createRoute beside loaderDeps, the type comes out empty.
const readDatasetSearch = searchValidator(datasetSearch);
const datasetRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/datasets/$datasetId',
  validateSearch: (s: Record<string, unknown>): DatasetSearch => readDatasetSearch(s),
  loaderDeps: ({ search }) => ({ version: search.version, q: search.q }),
  // The header and the first rows are asked for together, while the page's code loads (not awaited).
  loader: ({ context, params, deps }) => {
    void context.queryClient.prefetchQuery(datasetQuery(params.projectId, params.datasetId));
    prefetchRecords(params.projectId, params.datasetId, { page: 1, limit: DATASET_PAGE, version: deps.version, search: deps.q });
  },
  component: lazyRouteComponent(() => import('./routes/dataset.tsx')),
});

const queuesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/queues',
  component: lazyRouteComponent(() => import('./routes/queues.tsx')),
});
const queueReviewRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/queues/$queueId/review',
  component: lazyRouteComponent(() => import('./routes/queue-review.tsx')),
});

const evaluatorsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/evaluators',
  component: lazyRouteComponent(() => import('./routes/evaluators.tsx')),
});

const evaluatorRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/evaluators/$family/$name',
  validateSearch: searchValidator(z.object({ trace: words() })),
  component: lazyRouteComponent(() => import('./routes/evaluator.tsx')),
});

const judgeAlignmentRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/evaluators/alignment',
  validateSearch: searchValidator(alignmentSearch),
  component: lazyRouteComponent(() => import('./routes/judge-alignment.tsx')),
});

const customEvaluatorNewRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/evaluators/new',
  component: lazyRouteComponent(() => import('./routes/custom-evaluator.tsx')),
});

const customEvaluatorRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/evaluators/custom/$slug/edit',
  component: lazyRouteComponent(() => import('./routes/custom-evaluator.tsx')),
});

const monitorsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/monitors',
  component: lazyRouteComponent(() => import('./routes/monitors.tsx')),
});

const newMonitorRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/monitors/new',
  validateSearch: searchValidator(z.object({ evaluator: words() })),
  component: lazyRouteComponent(() => import('./routes/monitor-new.tsx')),
});

const monitorRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/monitors/$monitorId',
  component: lazyRouteComponent(() => import('./routes/monitor.tsx')),
});

const dashboardsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/dashboards',
  component: lazyRouteComponent(() => import('./routes/dashboards.tsx')),
});

const dashboardRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/dashboards/$dashboardId',
  validateSearch: searchValidator(dashboardSearch),
  component: lazyRouteComponent(() => import('./routes/dashboard.tsx')),
});

const alertsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/alerts',
  component: lazyRouteComponent(() => import('./routes/alerts.tsx')),
});

const newAlertRuleRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/alerts/new',
  component: lazyRouteComponent(() => import('./routes/alert-rule-edit.tsx'), 'NewAlertRulePage'),
});

const alertRuleRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/alerts/$ruleId',
  component: lazyRouteComponent(() => import('./routes/alert-rule.tsx')),
});

const editAlertRuleRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/alerts/$ruleId/edit',
  component: lazyRouteComponent(() => import('./routes/alert-rule-edit.tsx'), 'EditAlertRulePage'),
});

const experimentsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments',
  component: lazyRouteComponent(() => import('./routes/experiments.tsx')),
});

const simulationsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/simulations',
  validateSearch: searchValidator(z.object({ set: words(), batch: words() })),
  component: lazyRouteComponent(() => import('./routes/simulations.tsx')),
});

const simulationScenariosRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/simulations/scenarios',
  component: lazyRouteComponent(() => import('./routes/simulation-scenarios.tsx')),
});

const simulationCompareRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/simulations/compare',
  validateSearch: searchValidator(z.object({ set: words(), baseline: words(), candidate: words() })),
  component: lazyRouteComponent(() => import('./routes/simulation-compare.tsx')),
});

const simulationRunRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/simulations/runs/$runId',
  component: lazyRouteComponent(() => import('./routes/simulation-run.tsx')),
});

const experimentRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug',
  validateSearch: searchValidator(experimentSearch),
  component: lazyRouteComponent(() => import('./routes/experiment.tsx')),
});

/** A platform-run experiment's setup (a slug without one: a new experiment). */
const experimentSetupRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug/setup',
  /** `name`: the name typed for a new experiment. */
  validateSearch: searchValidator(z.object({ name: words() })),
  component: lazyRouteComponent(() => import('./routes/experiment-setup.tsx')),
});

const compareRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug/compare',
  validateSearch: searchValidator(compareSearch),
  component: lazyRouteComponent(() => import('./routes/experiment-compare.tsx')),
});

/** Analytics: the project's default dashboard, at its own address. */
const analyticsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/analytics',
  validateSearch: searchValidator(dashboardSearch),
  component: lazyRouteComponent(() => import('./routes/analytics.tsx')),
});

/** Settings: organization-wide pages (and the project's webhooks) under the current project's frame. */
const settingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./routes/settings/layout.tsx')),
});
const settingsIndexRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/p/$projectId/settings/projects', params });
  },
});
const settingsProjectsRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/projects',
  component: lazyRouteComponent(() => import('./routes/settings/projects.tsx')),
});
const settingsMembersRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/members',
  component: lazyRouteComponent(() => import('./routes/settings/members.tsx')),
});
const settingsApiKeysRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/api-keys',
  component: lazyRouteComponent(() => import('./routes/settings/api-keys.tsx')),
});
const settingsWebhooksRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/webhooks',
  // ?endpoint=<id>: the endpoint whose delivery log is open.
  validateSearch: searchValidator(z.object({ endpoint: text() })),
  component: lazyRouteComponent(() => import('./routes/settings/webhooks.tsx')),
});
const settingsModelProvidersRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/model-providers',
  component: lazyRouteComponent(() => import('./routes/settings/model-providers.tsx')),
});
const settingsPrivacyRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/privacy',
  component: lazyRouteComponent(() => import('./routes/settings/privacy.tsx')),
});
const settingsOrganizationRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/organization',
  component: lazyRouteComponent(() => import('./routes/settings/organization.tsx')),
});
const settingsAccountRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/account',
  component: lazyRouteComponent(() => import('./routes/settings/account.tsx')),
});
const settingsRoutes = settingsRoute.addChildren([
  settingsIndexRoute,
  settingsProjectsRoute,
  settingsMembersRoute,
  settingsApiKeysRoute,
  settingsWebhooksRoute,
  settingsModelProvidersRoute,
  settingsPrivacyRoute,
  settingsOrganizationRoute,
  settingsAccountRoute,
]);

const routeTree = rootRoute.addChildren([
  indexRoute,
  signinRoute,
  authorizeRoute,
  inviteRoute,
  resetRoute,
  shareRoute,
  projectRoute.addChildren([
    projectIndexRoute,
    tracesRoute,
    traceRoute,
    usersRoute,
    threadsRoute,
    topicsRoute,
    threadRoute,
    promptsRoute,
    promptRoute,
    datasetsRoute,
    datasetRoute,
    queuesRoute,
    queueReviewRoute,
    evaluatorsRoute,
    evaluatorRoute,
    customEvaluatorNewRoute,
    customEvaluatorRoute,
    judgeAlignmentRoute,
    monitorsRoute,
    newMonitorRoute,
    monitorRoute,
    alertsRoute,
    dashboardsRoute,
    dashboardRoute,
    newAlertRuleRoute,
    alertRuleRoute,
    editAlertRuleRoute,
    experimentsRoute,
    experimentRoute,
    compareRoute,
    experimentSetupRoute,
    simulationsRoute,
    simulationRunRoute,
    simulationScenariosRoute,
    simulationCompareRoute,
    analyticsRoute,
    settingsRoutes,
  ]),
]);

/** Plain `?key=value` search strings (shareable, readable), not JSON-encoded values. */
function stringifySearch(search: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (v !== undefined && v !== null && v !== '') params.set(k, asText(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * Starts loading the code of the page at the browser's address at once, beside the session
 * check: the router asks for a page's code only after every `beforeLoad` (the session) has
 * answered, and the page's own imports only then. `/` lands on the traces list once signed in.
 */
export function preloadPageCode(router: ReturnType<typeof createAppRouter>) {
  const { pathname } = router.latestLocation;
  const routes = pathname === '/' ? [projectRoute, tracesRoute] : router.getMatchedRoutes(pathname)[0];
  for (const route of routes) void (route.options.component as { preload?: () => Promise<void> } | undefined)?.preload?.();
}

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    parseSearch,
    stringifySearch,
    defaultPreload: 'intent',
    defaultNotFoundComponent: NotFound,
  });
}

function NotFound() {
  return (
    <main className="center-page">
      <h1>Page not found</h1>
      <a href="/">Go to Spyglass</a>
    </main>
  );
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
