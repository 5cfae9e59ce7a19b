/**
 * PROVISIONAL: the answers of the part-2 routes (notes/CONTRACT-part2.md) whose zod schemas
 * are not on this branch yet. Replaced by imports from the modules' schemas.ts when they land.
 */
export interface CatalogueAvailability {
  requirements?: { llm: boolean; external_service: string | null; env: string[] };
  available?: boolean;
  unavailable_reason?: string | null;
}

export interface PromptRunResult {
  output: { role: 'assistant'; content: string };
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  cost: { currency: 'USD'; amount: number } | null;
  latency_ms: number;
  trace_id: string;
}

export interface MonitorResult {
  evaluation_id: string;
  trace_id: string;
  status: 'processed' | 'skipped' | 'error';
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
  inserted_at: number | string;
}
export interface MonitorResultsPage {
  data: MonitorResult[];
  next_cursor: string | null;
}
export interface MonitorStats {
  buckets: { start: number; passed: number; failed: number; errors: number; skipped: number }[];
  intervalMs: number;
}

interface Tokens {
  prompt: number;
  completion: number;
  cached: number;
  reasoning: number;
}
export interface TimeseriesBucket {
  start: number;
  traces: number;
  spans: number;
  errors: number;
  error_rate: number | null;
  cost: number;
  tokens: Tokens;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null } | null;
  thumbs_up: number;
  thumbs_down: number;
}
export interface TimeseriesRequest {
  startDate: number;
  endDate: number;
  interval?: 'auto' | 'minute' | 'hour' | 'day' | 'week';
  query?: string;
  filters?: Record<string, unknown>;
  groupBy?: 'model' | 'label' | 'user' | null;
}
export interface TimeseriesResponse {
  interval: string;
  intervalMs: number;
  startDate: number;
  endDate: number;
  series: { group: string | null; buckets: TimeseriesBucket[] }[];
  evaluations: { evaluator: string; buckets: { start: number; passed: number; failed: number; pass_rate: number | null }[] }[];
  totals: { traces: number; spans: number; errors: number; cost: number; tokens: Tokens; thumbs_up: number; thumbs_down: number };
}
