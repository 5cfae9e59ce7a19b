import { z } from 'zod';
import { EvaluatorError, ProviderError } from '../errors.ts';
import { truncate } from '../llm/provider.ts';
import type { EvaluatorContext, EvaluatorDefinition } from '../types.ts';

export const SHIELD_API_VERSION = '2024-09-01';
/**
 * Prompt Shields accepts a user prompt of at most 10,000 characters ("Input requirements" of
 * Azure AI Content Safety). Chunks are cut at 10,000 UTF-16 units without splitting a
 * surrogate pair, so they stay within the limit however the service counts characters.
 */
export const MAX_CHUNK_CHARS = 10_000;
/** A chunk ends at the last whitespace within this many characters of the limit, when there is one. */
const SOFT_BREAK_WINDOW = 1_000;
const PARALLEL_REQUESTS = 4;

const data = z.object({
  input: z.string().nullish().describe('The user message to check for a jailbreak or prompt-injection attempt.'),
});

const settings = z.object({});

/** Splits text into pieces of at most `max` UTF-16 units, preferring to break after whitespace. */
export function splitForShield(text: string, max = MAX_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let end = start + max;
    // Never cut between the two halves of a surrogate pair.
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    const window = text.slice(Math.max(start, end - SOFT_BREAK_WINDOW), end);
    const lastSpace = window.search(/\s\S*$/);
    if (lastSpace >= 0) end = end - window.length + lastSpace + 1;
    chunks.push(text.slice(start, end));
    start = end;
  }
  chunks.push(text.slice(start));
  return chunks;
}

interface ShieldAnswer {
  userPromptAnalysis?: { attackDetected?: boolean };
}

async function shieldChunk(url: string, key: string, chunk: string, ctx: EvaluatorContext): Promise<boolean> {
  const maxRetries = ctx.maxRetries ?? 2;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Ocp-Apim-Subscription-Key': key },
        body: JSON.stringify({ userPrompt: chunk, documents: [] }),
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
      let body: ShieldAnswer;
      try {
        body = JSON.parse(text) as ShieldAnswer;
      } catch {
        throw new EvaluatorError('InvalidProviderResponse', `Azure AI Content Safety answered ${res.status} with a body that is not JSON: ${truncate(text, 200)}`);
      }
      const detected = body.userPromptAnalysis?.attackDetected;
      if (typeof detected !== 'boolean') {
        throw new EvaluatorError('InvalidProviderResponse', `Azure AI Content Safety answered without userPromptAnalysis.attackDetected: ${truncate(text, 200)}`);
      }
      return detected;
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
  const ms = Number(headers?.get('retry-after-ms'));
  if (headers?.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.min(ms, 10_000);
  const seconds = Number(headers?.get('retry-after'));
  if (headers?.get('retry-after') && Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 10_000);
  return 500 * 2 ** attempt;
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

/**
 * langevals' azure/jailbreak on the current Prompt Shields API (`text:shieldPrompt`, which
 * replaced the `detectJailbreak` preview langevals calls). Long input is split into chunks
 * within the service's limit, checked up to 4 at a time; once a chunk is flagged no further
 * chunk is sent. score = 1 when an attack was detected, else 0; passed = no chunk flagged.
 */
export const jailbreak: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'cloud/jailbreak',
  name: 'Azure Jailbreak Detection',
  description:
    "Checks the input for a jailbreak or prompt-injection attempt with Azure AI Content Safety's Prompt Shields. Passes when no attack is detected.",
  category: 'safety',
  data,
  settings,
  requiredEnv: ['AZURE_CONTENT_SAFETY_ENDPOINT', 'AZURE_CONTENT_SAFETY_KEY'],
  externalService: 'Azure AI Content Safety (Prompt Shields)',
  isCostly: true,
  isGuardrail: true,
  async evaluate({ data: entry, ctx }) {
    const content = entry.input ?? '';
    if (!content.trim()) return { status: 'skipped', details: 'Input is empty.' };

    const endpoint = (ctx.env.AZURE_CONTENT_SAFETY_ENDPOINT ?? '').trim().replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]/i.test(endpoint)) {
      throw new EvaluatorError(
        'InvalidConfiguration',
        `AZURE_CONTENT_SAFETY_ENDPOINT must be the resource's URL, e.g. https://<resource>.cognitiveservices.azure.com; it is "${truncate(endpoint, 100)}"`,
      );
    }
    const url = `${endpoint}/contentsafety/text:shieldPrompt?api-version=${SHIELD_API_VERSION}`;
    const key = ctx.env.AZURE_CONTENT_SAFETY_KEY as string;

    const chunks = splitForShield(content);
    const flagged: number[] = [];
    let checked = 0;
    let next = 0;
    const worker = async () => {
      while (flagged.length === 0 && next < chunks.length) {
        const index = next++;
        if (await shieldChunk(url, key, chunks[index], ctx)) flagged.push(index);
        checked++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_REQUESTS, chunks.length) }, worker));

    const detected = flagged.length > 0;
    flagged.sort((a, b) => a - b);
    return {
      status: 'processed',
      score: detected ? 1 : 0,
      passed: !detected,
      details: detected
        ? chunks.length === 1
          ? 'Jailbreak attempt detected.'
          : `Jailbreak attempt detected (in part ${flagged.map((i) => i + 1).join(', ')} of ${chunks.length} of the input).`
        : 'No jailbreak attempt detected.',
      raw_response: { chunks: chunks.length, chunks_checked: checked, attack_detected_in_chunks: flagged },
    };
  },
};
