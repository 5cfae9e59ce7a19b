/**
 * The one client of Azure AI Content Safety (AZURE_CONTENT_SAFETY_ENDPOINT and _KEY): its URL,
 * key header, retries of 408/429/5xx (Retry-After honoured) and its error shape. The
 * evaluators that call it (jailbreak, prompt injection, content safety) read its answers.
 */
import { retryAfterHeaders } from '../../../platform/retry-after.ts';
import { EvaluatorError, ProviderError } from '../errors.ts';
import { truncate } from '../llm/provider.ts';
import type { EvaluatorContext } from '../types.ts';

export const CONTENT_SAFETY_API_VERSION = '2024-09-01';

/** The URL of an operation (`text:shieldPrompt`, `text:analyze`) on the configured resource, and its key. */
export function contentSafetyUrl(ctx: EvaluatorContext, operation: string): { url: string; key: string } {
  const endpoint = (ctx.env.AZURE_CONTENT_SAFETY_ENDPOINT ?? '').trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(endpoint)) {
    throw new EvaluatorError(
      'InvalidConfiguration',
      `AZURE_CONTENT_SAFETY_ENDPOINT must be the resource's URL, e.g. https://<resource>.cognitiveservices.azure.com; it is "${truncate(endpoint, 100)}"`,
    );
  }
  return { url: `${endpoint}/contentsafety/${operation}?api-version=${CONTENT_SAFETY_API_VERSION}`, key: ctx.env.AZURE_CONTENT_SAFETY_KEY ?? '' };
}

/** POSTs `payload`; the parsed JSON answer (and its text, for error messages). */
export async function contentSafetyCall(url: string, key: string, payload: unknown, ctx: EvaluatorContext): Promise<{ body: unknown; text: string }> {
  const maxRetries = ctx.maxRetries ?? 2;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Ocp-Apim-Subscription-Key': key },
        body: JSON.stringify(payload),
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? err;
      if (attempt < maxRetries) {
        await pause(backoffMs(attempt, null), ctx.signal);
        continue;
      }
      throw new ProviderError(`Azure AI Content Safety (${new URL(url).origin}) could not be reached: ${(err as Error).message}`, undefined, {
        cause: err,
      });
    }
    const text = await res.text();
    if (res.ok) {
      try {
        return { body: JSON.parse(text) as unknown, text };
      } catch {
        throw new EvaluatorError('InvalidProviderResponse', `Azure AI Content Safety answered ${res.status} with a body that is not JSON: ${truncate(text, 200)}`);
      }
    }
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    if (retryable && attempt < maxRetries) {
      await pause(backoffMs(attempt, res.headers), ctx.signal);
      continue;
    }
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (parsed.error?.message) message = `${parsed.error.code ? `${parsed.error.code}: ` : ''}${parsed.error.message}`;
    } catch {
      /* keep the text */
    }
    throw new ProviderError(
      `Azure AI Content Safety answered HTTP ${res.status}${attempt ? ` after ${attempt + 1} attempts` : ''}: ${truncate(message, 500)}`,
      res.status,
    );
  }
}

/** Retry-After(-ms) when the service sends one (capped at 10 s), else 0.5 s, 1 s, 2 s, ... */
function backoffMs(attempt: number, headers: Headers | null): number {
  const wait = retryAfterHeaders(headers, Date.now());
  return wait !== null ? Math.min(wait, 10_000) : 500 * 2 ** attempt;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  // An abort's reason is an Error (abort() without one gives a DOMException AbortError).
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
