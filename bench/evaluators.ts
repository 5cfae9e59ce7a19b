import { piiDetection } from '../src/modules/evaluators/pii/index.ts';
import { contextPrecisionEvaluator, contextRecallEvaluator } from '../src/modules/evaluators/rag/index.ts';
import type { EvaluatorDefinition } from '../src/modules/evaluators/types.ts';
import { percentile } from './lib.ts';

const SENTENCES = [
  'Hi, this is Maria Gonzalez from the billing team in Denver.',
  'Please call me back at (303) 555-0147 or write to maria.gonzalez@example.com.',
  'The refund for order 88231 was issued to the card ending 4242 on March 3rd.',
  'Our office at 1600 Pennsylvania Avenue will be closed on Friday.',
  'Customers can reach support through the help center any time of day.',
  'The IBAN on file is DE89 3704 0044 0532 0130 00 and the server IP is 192.168.10.23.',
  'We reviewed the logs and found no further issues with the account.',
];

/** About 2 KB of support-chat English with a realistic share of personal data. */
export function text2kb(seed = 0): string {
  let out = '';
  for (let i = seed; out.length < 2048; i++) out += SENTENCES[i % SENTENCES.length] + ' ';
  return out.slice(0, 2048);
}

async function measure(def: EvaluatorDefinition, inputs: { data: unknown; settings: unknown }[], seconds: number) {
  const ctx = { env: {}, fetch, now: () => new Date() };
  const parsed = inputs.map((i) => ({ data: def.data.parse(i.data), settings: def.settings.parse(i.settings) }));
  for (let i = 0; i < 20; i++) await def.evaluate({ ...parsed[i % parsed.length], ctx }); // warm-up
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  let n = 0;
  while (performance.now() < deadline) {
    const s = performance.now();
    const r = await def.evaluate({ ...parsed[n % parsed.length], ctx });
    latencies.push(performance.now() - s);
    if (r.status !== 'processed') throw new Error(`${def.path}: ${r.status} ${r.details}`);
    n++;
  }
  const elapsed = (performance.now() - t0) / 1000;
  return { evaluations: n, perSecond: n / elapsed, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

export async function benchEvaluators(seconds = 5) {
  const pii = await measure(
    piiDetection as EvaluatorDefinition,
    Array.from({ length: 7 }, (_, i) => ({ data: { input: text2kb(i) }, settings: {} })),
    seconds,
  );
  const contexts = (seed: number) => [text2kb(seed).slice(0, 700), text2kb(seed + 2).slice(0, 700), text2kb(seed + 4).slice(0, 648)];
  const ragInputs = Array.from({ length: 5 }, (_, i) => ({ data: { contexts: contexts(i), expected_contexts: contexts(i + 1).slice(0, 2) }, settings: {} }));
  const recall = await measure(contextRecallEvaluator as EvaluatorDefinition, ragInputs, seconds);
  const precision = await measure(contextPrecisionEvaluator as EvaluatorDefinition, ragInputs, seconds);
  return { pii, recall, precision };
}
