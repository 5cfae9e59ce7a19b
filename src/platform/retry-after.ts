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
