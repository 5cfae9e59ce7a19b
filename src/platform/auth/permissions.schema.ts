/**
 * The permission vocabulary: `resource:action`, where `resource:manage` implies every action
 * on the resource. Shared by the server (permissions.ts, the api-keys schemas) and the web
 * app's key form, which imports it at run time: plain TypeScript, no imports.
 */
export const RESOURCES = [
  'organization',
  'project',
  'traces',
  'annotations',
  'prompts',
  'evaluations',
  // Custom evaluators (their definitions and versions); running any evaluator is evaluations:create.
  'evaluators',
  'monitors',
  // Alert rules and their history.
  'alerts',
  // Dashboards: named pages of charts shared with the project.
  'dashboards',
  // Agent simulations: scenario runs reported by LangWatch's Scenario package.
  'simulations',
  // Model providers set in the app (API keys of LLM providers): administrators manage them.
  'modelProviders',
  'agentCache',
  // Score configs (what reviewers score) and annotation queues (review work lists).
  'scoreConfigs',
  'reviewQueues',
  'datasets',
  'experiments',
  'apiKeys',
  'webhookEndpoints',
  // GET /metrics: the process's figures (every organization's traffic counted together).
  'metrics',
] as const;
export const ACTIONS = ['view', 'create', 'update', 'delete', 'manage', 'share'] as const;

export type Resource = (typeof RESOURCES)[number];
export type Action = (typeof ACTIONS)[number];
export type Permission = `${Resource}:${Action}`;

export function isPermission(value: string): value is Permission {
  const [r, a, extra] = value.split(':');
  return extra === undefined && (RESOURCES as readonly string[]).includes(r) && (ACTIONS as readonly string[]).includes(a);
}
