import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/platform/group-commit.ts';

/** A writer that records each transaction's items and fails any transaction holding a poisoned item. */
function recordingWriter(delayMs = 5) {
  const transactions: string[][] = [];
  let running = 0;
  let maxRunning = 0;
  const write = async (items: string[]) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((r) => setTimeout(r, delayMs));
    running--;
    if (items.some((i) => i.startsWith('bad'))) throw new Error(`rejected ${items.join(',')}`);
    transactions.push(items);
  };
  return { write, transactions, maxRunning: () => maxRunning };
}

const options = { maxConcurrent: 1, maxWeight: 100, weight: (item: string) => (item.startsWith('big') ? 60 : 1) };

describe('group commit', () => {
  it('submissions made while a transaction runs share the next one; each settles after its own commit', async () => {
    const w = recordingWriter(20);
    const gc = new GroupCommit(w.write, options);
    const settled: string[] = [];
    const first = gc.submit('p', 'a').then(() => settled.push('a'));
    await new Promise((r) => setTimeout(r, 5)); // 'a' is being written now
    const rest = ['b', 'c', 'd'].map((i) => gc.submit('p', i).then(() => settled.push(i)));
    await first;
    expect(settled).toEqual(['a']);
    await Promise.all(rest);
    expect(w.transactions).toEqual([['a'], ['b', 'c', 'd']]);
    expect(settled).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a failing merged transaction is retried one submission at a time: only the bad one fails', async () => {
    const w = recordingWriter();
    const gc = new GroupCommit(w.write, options);
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((i) => gc.submit('p', i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('rejected bad');
    expect(w.transactions).toEqual([['a'], ['c']]);
  });

  it('keys never share a transaction, a transaction stops at maxWeight, and maxConcurrent bounds transactions per key', async () => {
    const w = recordingWriter();
    const gc = new GroupCommit(w.write, { ...options, maxConcurrent: 2 });
    await Promise.all([gc.submit('p', 'big1'), gc.submit('p', 'big2'), gc.submit('q', 'x'), gc.submit('p', 'small')]);
    expect(w.transactions.filter((tx) => tx.includes('x'))).toEqual([['x']]);
    for (const tx of w.transactions) expect(tx.filter((i) => i.startsWith('big')).length).toBeLessThanOrEqual(1);
    expect(w.transactions.flat().sort()).toEqual(['big1', 'big2', 'small', 'x']);
    expect(w.maxRunning()).toBeLessThanOrEqual(3); // two for p, one for q

    const serial = recordingWriter();
    const one = new GroupCommit(serial.write, options);
    await Promise.all(Array.from({ length: 10 }, (_, i) => one.submit('p', `big${i}`)));
    expect(serial.maxRunning()).toBe(1);
    expect(serial.transactions.flat()).toHaveLength(10);
  });

  it('maxWeight given as a function is asked as each transaction starts', async () => {
    const w = recordingWriter(10);
    let max = 100;
    const gc = new GroupCommit(w.write, { ...options, maxWeight: () => max });
    const first = gc.submit('p', 'a');
    await new Promise((r) => setTimeout(r, 2)); // 'a' is being written now
    max = 1; // e.g. reads are in progress: the next transactions take one submission each
    await Promise.all([first, ...['b', 'c', 'd'].map((i) => gc.submit('p', i))]);
    expect(w.transactions).toEqual([['a'], ['b'], ['c'], ['d']]);
  });
});
