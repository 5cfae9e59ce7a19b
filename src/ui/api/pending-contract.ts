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
