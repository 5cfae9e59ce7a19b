import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * `items.map(f)` a slice at a time, letting the event loop turn between slices: work on
 * thousands of spans (ingest) then holds the main thread, and with it /healthz and every
 * read, for a few ms at a time instead of its whole length (docs/operating.md: Overload).
 */
export async function mapInTurns<T, U>(items: readonly T[], perTurn: number, f: (item: T) => U): Promise<U[]> {
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % perTurn === 0) await nextTurn();
    out[i] = f(items[i]);
  }
  return out;
}
