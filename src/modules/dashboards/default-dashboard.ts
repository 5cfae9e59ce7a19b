import type { Chart, DashboardDefinition } from './schemas.ts';

/** The id of every project's default dashboard: built in until the project saves its own version. */
export const DEFAULT_DASHBOARD_ID = 'default';

const chart = (id: string, title: string, metric: Chart['metric'], display: Chart['display'], [x, y, w, h]: [number, number, number, number]): Chart => ({
  id,
  title,
  metric,
  display,
  groupBy: null,
  interval: 'auto',
  layout: { x, y, w, h },
});

/**
 * The default dashboard, what the web app's Analytics page opens: every measure the analytics
 * API gives (totals first, then one chart per measure, review scores last) as a definition, so a
 * team starts from it and rearranges it. Group by on the page splits each chart that can be split.
 */
export const DEFAULT_DASHBOARD: DashboardDefinition = {
  name: 'Overview',
  description: 'Traces, cost, tokens, latency, errors, evaluations, thumbs and review scores of the whole project.',
  timeRange: { last: '24h' },
  charts: [
    chart('total-traces', 'Total traces', 'traces', 'number', [0, 0, 2, 2]),
    chart('total-spans', 'Total spans', 'spans', 'number', [2, 0, 2, 2]),
    chart('total-errors', 'Errors', 'errors', 'number', [4, 0, 2, 2]),
    chart('total-error-rate', 'Error rate', 'error_rate', 'number', [6, 0, 2, 2]),
    chart('total-cost', 'Total cost', 'cost', 'number', [8, 0, 2, 2]),
    chart('total-tokens', 'Total tokens', 'tokens', 'number', [10, 0, 2, 2]),
    // Traces and spans differ by orders of magnitude: a chart each, so neither flattens the other.
    chart('traces', 'Traces', 'traces', 'bar', [0, 2, 6, 4]),
    chart('spans', 'Spans', 'spans', 'bar', [6, 2, 6, 4]),
    chart('cost', 'Cost (USD)', 'cost', 'line', [0, 6, 6, 4]),
    chart('tokens', 'Tokens', 'tokens', 'bar', [6, 6, 6, 4]),
    chart('latency-p50', 'Latency p50', 'latency_p50', 'line', [0, 10, 4, 4]),
    chart('latency', 'Latency p95', 'latency_p95', 'line', [4, 10, 4, 4]),
    chart('latency-p99', 'Latency p99', 'latency_p99', 'line', [8, 10, 4, 4]),
    chart('error-rate', 'Error rate over time', 'error_rate', 'line', [0, 14, 6, 4]),
    chart('evaluations', 'Evaluation pass rate', 'evaluation_pass_rate', 'line', [6, 14, 6, 4]),
    chart('thumbs', 'Thumbs up', 'thumbs_up', 'bar', [0, 18, 6, 4]),
    chart('thumbs-down', 'Thumbs down', 'thumbs_down', 'bar', [6, 18, 6, 4]),
    chart('scores', 'Review scores (mean)', 'score_mean', 'line', [0, 22, 6, 4]),
    chart('score-counts', 'Review scores given', 'score_count', 'bar', [6, 22, 6, 4]),
  ],
};
