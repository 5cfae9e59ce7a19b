import { Outlet, createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, redirect } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { SESSION_KEY, fetchSession, lastProject } from './api/session.ts';
import { asText } from './lib/format.ts';
import { parseListSearch, type ListSearch } from './lib/list-search.ts';
import { traceOutlineQuery } from './api/traces.ts';
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
  validateSearch: (s: Record<string, unknown>): { redirect?: string } => (typeof s.redirect === 'string' ? { redirect: s.redirect } : {}),
  component: lazyRouteComponent(() => import('./routes/signin.tsx')),
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
  validateSearch: parseListSearch,
  component: lazyRouteComponent(() => import('./routes/traces.tsx')),
});

export const traceRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/traces/$traceId',
  validateSearch: (s: Record<string, unknown>): { span?: string } => (typeof s.span === 'string' ? { span: s.span } : {}),
  // Starts reading the trace while the page's code loads (not awaited: the page shows its own progress).
  // ensureQueryData: a span selected (the URL's search changing) must not read a big trace's outline again.
  loader: ({ context, params }) => void context.queryClient.ensureQueryData(traceOutlineQuery(params)).catch(() => undefined),
  component: lazyRouteComponent(() => import('./routes/trace.tsx')),
});

export interface UsersSearch {
  q?: string;
  sort?: 'user_id' | 'traces' | 'cost' | 'tokens' | 'errors' | 'thumbs_up' | 'thumbs_down' | 'first_seen' | 'last_seen';
  dir?: 'asc' | 'desc';
  page?: number;
}
const USER_SORTS = ['user_id', 'traces', 'cost', 'tokens', 'errors', 'thumbs_up', 'thumbs_down', 'first_seen', 'last_seen'] as const;
const usersRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/users',
  validateSearch: (s: Record<string, unknown>): UsersSearch => {
    const out: UsersSearch = {};
    if (typeof s.q === 'string' && s.q) out.q = s.q;
    if (USER_SORTS.includes(s.sort as never)) out.sort = s.sort as UsersSearch['sort'];
    if (s.dir === 'asc' || s.dir === 'desc') out.dir = s.dir;
    const page = Number(s.page);
    if (Number.isInteger(page) && page > 1) out.page = page;
    return out;
  },
  component: lazyRouteComponent(() => import('./routes/users.tsx')),
});

const threadRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/threads/$threadId',
  component: lazyRouteComponent(() => import('./routes/thread.tsx')),
});

const promptsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/prompts',
  validateSearch: (s: Record<string, unknown>): { q?: string } => (typeof s.q === 'string' && s.q ? { q: s.q } : {}),
  component: lazyRouteComponent(() => import('./routes/prompts.tsx')),
});

export interface PromptSearch {
  tab?: 'edit' | 'history' | 'preview' | 'code';
  /** The two versions the history compares. */
  a?: number;
  b?: number;
}
const promptRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/prompts/$promptId',
  validateSearch: (s: Record<string, unknown>): PromptSearch => {
    const tab = ['edit', 'history', 'preview', 'code'].includes(s.tab as string) ? (s.tab as PromptSearch['tab']) : undefined;
    const version = (v: unknown) => (Number.isInteger(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
    return Object.fromEntries(Object.entries({ tab, a: version(s.a), b: version(s.b) }).filter(([, v]) => v !== undefined));
  },
  component: lazyRouteComponent(() => import('./routes/prompt.tsx')),
});

const datasetsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/datasets',
  component: lazyRouteComponent(() => import('./routes/datasets.tsx')),
});

export interface DatasetSearch {
  /** View the dataset as of this version (read-only). */
  version?: number;
  /** Only rows containing this text. */
  q?: string;
  /** Rows just uploaded (a notice). */
  uploaded?: number;
}
const datasetRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/datasets/$datasetId',
  validateSearch: (s: Record<string, unknown>): DatasetSearch => {
    const int = (v: unknown) => (v !== undefined && v !== '' && Number.isInteger(Number(v)) && Number(v) >= 0 ? Number(v) : undefined);
    const q = typeof s.q === 'string' && s.q ? s.q : undefined;
    return Object.fromEntries(Object.entries({ version: int(s.version), q, uploaded: int(s.uploaded) }).filter(([, v]) => v !== undefined));
  },
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
  validateSearch: (s: Record<string, unknown>): { trace?: string } => (typeof s.trace === 'string' && s.trace ? { trace: s.trace } : {}),
  component: lazyRouteComponent(() => import('./routes/evaluator.tsx')),
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
  validateSearch: (s: Record<string, unknown>): { evaluator?: string } => (typeof s.evaluator === 'string' && s.evaluator ? { evaluator: s.evaluator } : {}),
  component: lazyRouteComponent(() => import('./routes/monitor-new.tsx')),
});

const monitorRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/monitors/$monitorId',
  component: lazyRouteComponent(() => import('./routes/monitor.tsx')),
});

const experimentsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments',
  component: lazyRouteComponent(() => import('./routes/experiments.tsx')),
});

/** The experiment page; with `runId` the run page (the SDKs print this URL), sorted and filtered by column. */
export interface ExperimentSearch {
  runId?: string;
  sort?: string;
  dir?: 'asc' | 'desc';
  /** Filter: a column id and what to match (`>0.5`, `fail`, words). */
  col?: string;
  f?: string;
}
const experimentRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug',
  validateSearch: (s: Record<string, unknown>): ExperimentSearch => {
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    const dir = s.dir === 'asc' || s.dir === 'desc' ? s.dir : undefined;
    return Object.fromEntries(Object.entries({ runId: str(s.runId), sort: str(s.sort), dir, col: str(s.col), f: str(s.f) }).filter(([, v]) => v !== undefined));
  },
  component: lazyRouteComponent(() => import('./routes/experiment.tsx')),
});

/** A platform-run experiment's setup (a slug without one: a new experiment). */
const experimentSetupRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug/setup',
  /** `name`: the name typed for a new experiment. */
  validateSearch: (s: Record<string, unknown>): { name?: string } => (typeof s.name === 'string' && s.name ? { name: s.name } : {}),
  component: lazyRouteComponent(() => import('./routes/experiment-setup.tsx')),
});

/** Runs compared: `runs` is a comma-separated list; the baseline is the experiment's, else `baseline`, else the first. */
export interface CompareSearch {
  runs?: string;
  /** Compare with this run instead of the experiment's baseline (for a viewer, who cannot mark one). */
  baseline?: string;
  view?: 'rows' | 'regressions';
}
const compareRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/experiments/$slug/compare',
  validateSearch: (s: Record<string, unknown>): CompareSearch => {
    const runs = typeof s.runs === 'string' && s.runs ? s.runs : undefined;
    const view = s.view === 'regressions' || s.view === 'rows' ? s.view : undefined;
    const baseline = typeof s.baseline === 'string' && s.baseline ? s.baseline : undefined;
    return Object.fromEntries(Object.entries({ runs, baseline, view }).filter(([, v]) => v !== undefined));
  },
  component: lazyRouteComponent(() => import('./routes/experiment-compare.tsx')),
});

export type AnalyticsSearch = ListSearch & { group?: 'model' | 'label' | 'user' };
const analyticsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/analytics',
  validateSearch: (s: Record<string, unknown>): AnalyticsSearch => {
    const group = ['model', 'label', 'user'].includes(s.group as string) ? (s.group as AnalyticsSearch['group']) : undefined;
    return { ...parseListSearch(s), ...(group ? { group } : {}) };
  },
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
  validateSearch: (s: Record<string, unknown>): { endpoint?: string } => (typeof s.endpoint === 'string' ? { endpoint: s.endpoint } : {}),
  component: lazyRouteComponent(() => import('./routes/settings/webhooks.tsx')),
});
const settingsModelProvidersRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/model-providers',
  component: lazyRouteComponent(() => import('./routes/settings/model-providers.tsx')),
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
  settingsOrganizationRoute,
  settingsAccountRoute,
]);

const routeTree = rootRoute.addChildren([
  indexRoute,
  signinRoute,
  inviteRoute,
  resetRoute,
  shareRoute,
  projectRoute.addChildren([
    projectIndexRoute,
    tracesRoute,
    traceRoute,
    usersRoute,
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
    monitorsRoute,
    newMonitorRoute,
    monitorRoute,
    experimentsRoute,
    experimentRoute,
    compareRoute,
    experimentSetupRoute,
    analyticsRoute,
    settingsRoutes,
  ]),
]);

/** Plain `?key=value` search strings (shareable, readable), not JSON-encoded values. */
function parseSearch(search: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(search.startsWith('?') ? search.slice(1) : search));
}
function stringifySearch(search: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (v !== undefined && v !== null && v !== '') params.set(k, asText(v));
  const s = params.toString();
  return s ? `?${s}` : '';
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
