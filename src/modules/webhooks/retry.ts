/**
 * The retry policy of webhook deliveries: attempt 1 at once, then after each failure the
 * delay below (+-10% jitter, so receivers coming back are not hit by every sender in the
 * same second): 10 attempts over about three days (65 h nominal). The schedule, jitter
 * included, ends before 72 hours (at most ~71 h), so a batch always gets all its attempts
 * before the 72-hour rule can disable its endpoint.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n - 1]: the wait after failed attempt n. */
export const RETRY_DELAYS_MS = [5 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR, 20 * HOUR, 24 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.1;

/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 72 * HOUR;
/** Attempt log rows (and finished batches) older than this are pruned. */
export const LOG_RETENTION_MS = 30 * 24 * HOUR;
/**
 * Outbox events the dispatcher has fanned out are deleted this long after they were
 * written: batches carry their own copies, and ingestion writes one per new trace.
 */
export const OUTBOX_RETENTION_MS = 24 * HOUR;
/** Hard deadline of one attempt: connect, response and body. */
export const REQUEST_TIMEOUT_MS = 10 * SECOND;
/** Receivers' response bodies are read up to this many bytes, then the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Statuses worth retrying: the receiver may answer differently later. Everything else non-2xx is final. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed; null when the
 * attempts are used up. A receiver's Retry-After is honoured when it asks for longer,
 * up to a day.
 */
export function nextAttemptDelayMs(attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attempt - 1];
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs !== null ? Math.max(jittered, Math.min(retryAfterMs, 24 * HOUR)) : jittered;
}

