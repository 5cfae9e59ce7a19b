/**
 * One call of an HTTP agent target: POST the body as JSON, wait at most `timeout_ms`, read the
 * output at `output_field`; retries of what may pass (429, 5xx, network) with backoff. Every way
 * it can go wrong (a timeout, a refusal, an answer that is not JSON or lacks the field) is an
 * `error` naming the reason, never a throw. Experiments' platform runs and server-run
 * simulations call agents through it.
 */
import { performance } from 'node:perf_hooks';
import { parseRetryAfter } from '../../platform/retry-after.ts';

export interface HttpAgentTarget {
  url: string;
  output_field: string;
  timeout_ms: number;
}

export interface HttpAgentDeps {
  fetch: typeof fetch;
  retry: { attempts: number; baseMs: number; maxRetryAfterMs: number };
}

export interface HttpAgentAnswer {
  /** The parsed answer (null when none could be read). */
  answer: unknown;
  output: unknown;
  error: string | null;
  duration: number;
  /** The caller's signal ended the call (a stop, the server closing): nothing to keep. */
  aborted: boolean;
}

export async function callHttpAgent(
  deps: HttpAgentDeps,
  target: HttpAgentTarget,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<HttpAgentAnswer> {
  const t0 = performance.now();
  const aborted = (): HttpAgentAnswer => ({ answer: null, output: null, error: 'aborted', duration: Math.round(performance.now() - t0), aborted: true });
  let answer: unknown = null;
  let error: string | null;
  let output: unknown = null;
  for (let attempt = 1; ; attempt++) {
    const deadline = AbortSignal.timeout(target.timeout_ms);
    let retryAfter: number | undefined;
    let retryable = false;
    try {
      const res = await deps.fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, deadline]),
        redirect: 'error',
      });
      const text = await res.text();
      if (!res.ok) {
        error = `http_${res.status}: the agent answered ${res.status}${text ? ` (${text.slice(0, 200)})` : ''}`;
        retryable = res.status === 429 || res.status >= 500;
        const header = res.headers.get('retry-after');
        if (header) retryAfter = parseRetryAfter(header, Date.now()) ?? undefined;
      } else {
        try {
          answer = JSON.parse(text) as unknown;
          error = null;
          output = target.output_field === '.' ? answer : getPath(answer, target.output_field);
          if (output === undefined) {
            output = null;
            error = `missing_output: the agent's answer has no field "${target.output_field}"`;
          }
        } catch {
          error = `invalid_json: the agent's answer is not JSON (${text.slice(0, 200)})`;
        }
      }
    } catch (err) {
      if (signal.aborted) return aborted();
      if (deadline.aborted) error = `timeout: the agent did not answer within ${target.timeout_ms} ms`;
      else {
        error = `network_error: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`;
        retryable = true;
      }
    }
    if (!retryable || attempt >= deps.retry.attempts) break;
    await sleep(backoff(deps.retry.baseMs, attempt, retryAfter, deps.retry.maxRetryAfterMs), signal);
    if (signal.aborted) return aborted();
  }
  return { answer, output, error, duration: Math.round(performance.now() - t0), aborted: false };
}

export function getPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Exponential backoff with jitter, or the server's Retry-After in ms (capped). */
export function backoff(baseMs: number, attempt: number, retryAfter: number | undefined, maxRetryAfterMs: number): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, maxRetryAfterMs);
  return Math.round(baseMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4));
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
