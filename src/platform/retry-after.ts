/**
 * A Retry-After header as milliseconds from `nowMs`: delay seconds (a decimal fraction is
 * accepted) or an HTTP date (a date passed is 0). Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * How long a model or cloud service asks to be left alone, in milliseconds: its `retry-after-ms`
 * header when readable, else its Retry-After (`parseRetryAfter`). Null when it sends neither.
 */
export function retryAfterHeaders(headers: Pick<Headers, 'get'> | null | undefined, nowMs: number): number | null {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  return parseRetryAfter(headers?.get('retry-after'), nowMs);
}
