import { detectPii, type DetectOptions, type Finding } from '../../src/modules/evaluators/pii/index.ts';

export interface PruningDifference {
  text: string;
  settings: string;
  pruned: string;
  full: string;
}

/**
 * Each text detected under each of `settings` twice: as detection runs (pruning on) and with
 * nothing left out (`prune: false`). Returns where the two differ; `each` sees every full
 * detection, for a test's proof that the comparison is not vacuous. The event loop gets a turn
 * every 100 texts, so that the test worker keeps answering its runner during a long comparison.
 */
export async function prunedAgainstFull(
  texts: Iterable<string>,
  settings: readonly DetectOptions[],
  each: (full: Finding[], settings: DetectOptions) => void = () => {},
): Promise<PruningDifference[]> {
  const differ: PruningDifference[] = [];
  let n = 0;
  for (const text of texts) {
    if (n++ % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    for (const s of settings) {
      const pruned = JSON.stringify(detectPii(text, s));
      const full = detectPii(text, { ...s, prune: false });
      if (pruned !== JSON.stringify(full)) differ.push({ text, settings: JSON.stringify(s), pruned, full: JSON.stringify(full) });
      each(full, s);
    }
  }
  return differ;
}
