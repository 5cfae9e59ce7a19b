import type { TestApp } from './harness.ts';

/** The app's reads in progress, from /metrics: the scrape is one itself, so 1 is the scrape alone. */
export async function readsInProgress(t: TestApp): Promise<number> {
  const text = (await t.request('GET', '/metrics', { token: t.creds.adminApiKey })).text;
  return Number(/^spyglass_reads_in_progress (\d+)$/m.exec(text)![1]);
}

/**
 * The count the app settles at before a test's download: a worker's app is shared with the files
 * before this one, whose last requests (a browser page's) may still be ending. 1 once they have;
 * after 5 s, what is left. A download under test must add nothing to it once it holds back.
 */
export async function idleReads(t: TestApp): Promise<number> {
  let reads = await readsInProgress(t);
  for (let i = 0; i < 100 && reads !== 1; i++) {
    await new Promise((r) => setTimeout(r, 50));
    reads = await readsInProgress(t);
  }
  return reads;
}
