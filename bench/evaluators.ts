import { piiDetection } from '../src/modules/evaluators/pii/index.ts';
import { contextPrecisionEvaluator, contextRecallEvaluator } from '../src/modules/evaluators/rag/index.ts';
import type { EvaluatorDefinition } from '../src/modules/evaluators/types.ts';
import { percentile } from './lib.ts';
import { text2kb } from './text2kb.ts';

export { text2kb };

export async function measure(def: EvaluatorDefinition, inputs: { data: unknown; settings: unknown }[], seconds: number) {
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
    piiDetection,
    Array.from({ length: 7 }, (_, i) => ({ data: { input: text2kb(i) }, settings: {} })),
    seconds,
  );
  const contexts = (seed: number) => [text2kb(seed).slice(0, 700), text2kb(seed + 2).slice(0, 700), text2kb(seed + 4).slice(0, 648)];
  const ragInputs = Array.from({ length: 5 }, (_, i) => ({ data: { contexts: contexts(i), expected_contexts: contexts(i + 1).slice(0, 2) }, settings: {} }));
  const recall = await measure(contextRecallEvaluator, ragInputs, seconds);
  const precision = await measure(contextPrecisionEvaluator, ragInputs, seconds);
  return { pii, recall, precision };
}
