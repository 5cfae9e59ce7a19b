import { z } from 'zod';
import { EvaluatorError } from '../errors.ts';
import { contentSafetyCall, contentSafetyUrl } from './content-safety-client.ts';
import { truncate } from '../llm/provider.ts';
import type { EvaluatorContext, EvaluatorDefinition } from '../types.ts';

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

async function shieldChunk(url: string, key: string, chunk: string, ctx: EvaluatorContext): Promise<boolean> {
  const { body, text } = await contentSafetyCall(url, key, { userPrompt: chunk, documents: [] }, ctx);
  const detected = (body as ShieldAnswer).userPromptAnalysis?.attackDetected;
  if (typeof detected !== 'boolean') {
    throw new EvaluatorError('InvalidProviderResponse', `Azure AI Content Safety answered without userPromptAnalysis.attackDetected: ${truncate(text, 200)}`);
  }
  return detected;
}

interface ShieldAnswer {
  userPromptAnalysis?: { attackDetected?: boolean };
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

    const { url, key } = contentSafetyUrl(ctx, 'text:shieldPrompt');

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
