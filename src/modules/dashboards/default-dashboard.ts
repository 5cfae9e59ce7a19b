import type { DashboardDefinition } from './schemas.ts';

/** The id of every project's default dashboard: built in until the project saves its own version. */
export const DEFAULT_DASHBOARD_ID = 'default';

/**
 * The default dashboard: the analytics page's charts (totals first, then one chart per measure)
 * as a definition, so a team starts from it and rearranges it.
 */
export const DEFAULT_DASHBOARD: DashboardDefinition = {
  name: 'Overview',
  description: 'Traces, cost, tokens, latency, errors, evaluations and thumbs of the whole project.',
  timeRange: { last: '24h' },
  charts: [
    { id: 'total-traces', title: 'Traces', metric: 'traces', display: 'number', groupBy: null, interval: 'auto', layout: { x: 0, y: 0, w: 3, h: 2 } },
    { id: 'total-errors', title: 'Error rate', metric: 'error_rate', display: 'number', groupBy: null, interval: 'auto', layout: { x: 3, y: 0, w: 3, h: 2 } },
    { id: 'total-cost', title: 'Cost (USD)', metric: 'cost', display: 'number', groupBy: null, interval: 'auto', layout: { x: 6, y: 0, w: 3, h: 2 } },
    { id: 'total-tokens', title: 'Tokens', metric: 'tokens', display: 'number', groupBy: null, interval: 'auto', layout: { x: 9, y: 0, w: 3, h: 2 } },
    { id: 'traces', title: 'Traces over time', metric: 'traces', display: 'bar', groupBy: null, interval: 'auto', layout: { x: 0, y: 2, w: 6, h: 4 } },
    { id: 'spans', title: 'Spans', metric: 'spans', display: 'bar', groupBy: null, interval: 'auto', layout: { x: 6, y: 2, w: 6, h: 4 } },
    { id: 'cost', title: 'Cost by model', metric: 'cost', display: 'line', groupBy: 'model', interval: 'auto', layout: { x: 0, y: 6, w: 6, h: 4 } },
    { id: 'tokens', title: 'Tokens by model', metric: 'tokens', display: 'bar', groupBy: 'model', interval: 'auto', layout: { x: 6, y: 6, w: 6, h: 4 } },
    { id: 'latency', title: 'Latency p95', metric: 'latency_p95', display: 'line', groupBy: null, interval: 'auto', layout: { x: 0, y: 10, w: 6, h: 4 } },
    { id: 'error-rate', title: 'Error rate over time', metric: 'error_rate', display: 'line', groupBy: null, interval: 'auto', layout: { x: 6, y: 10, w: 6, h: 4 } },
    { id: 'evaluations', title: 'Evaluation pass rate', metric: 'evaluation_pass_rate', display: 'line', groupBy: null, interval: 'auto', layout: { x: 0, y: 14, w: 6, h: 4 } },
    { id: 'thumbs', title: 'Thumbs up', metric: 'thumbs_up', display: 'bar', groupBy: null, interval: 'auto', layout: { x: 6, y: 14, w: 6, h: 4 } },
  ],
};
