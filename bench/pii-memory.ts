/**
 * Run by bench/pii.ts in a fresh process: the RSS and heap a version of the PII evaluator
 * (argv[2], its index.ts) adds once imported (what a server that has not run it yet pays)
 * and once everything it loads lazily is loaded (one evaluation with every entity on).
 * Prints one JSON line.
 */
import { pathToFileURL } from 'node:url';
import type { EvaluatorDefinition } from '../src/modules/evaluators/types.ts';
import { text2kb } from './text2kb.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
};

await settle();
const rss0 = process.memoryUsage().rss;
const heap0 = process.memoryUsage().heapUsed;
const mod = (await import(pathToFileURL(process.argv[2]).href)) as { piiDetection: EvaluatorDefinition; ENTITY_TYPES: readonly string[] };
await settle();
const imported = process.memoryUsage().rss - rss0;
const settings = mod.piiDetection.settings.parse({ entities: Object.fromEntries(mod.ENTITY_TYPES.map((t) => [t.toLowerCase(), true])) });
const ctx = { env: {}, fetch, now: () => new Date() };
const sample = text2kb(0) + ' Maria lives in Lappeenranta, Finland, at Koskikatu 25; call +358 40 123 4567. she grew up in kiel';
await mod.piiDetection.evaluate({ data: mod.piiDetection.data.parse({ input: sample }), settings, ctx });
await settle();
const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
console.log(JSON.stringify({ importRssMiB: mib(imported), rssMiB: mib(process.memoryUsage().rss - rss0), heapMiB: mib(process.memoryUsage().heapUsed - heap0) }));
