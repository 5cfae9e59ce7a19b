/**
 * A redaction worker (entry: redaction-worker.entry.mjs; the main thread's side:
 * redaction-pool.ts): privacy at ingest for a run of span rows, off the main thread. It takes
 * the rows as they wait for their transaction and the project's redaction as plain data, and
 * gives back the rows redacted and what to count in /metrics. Detection is the CPU of ingest
 * with privacy on (milliseconds per 2 KB of text): on worker threads it runs on every core,
 * and the main thread stays free for reads and the transactions' work.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ENTITY_TYPES } from '../evaluators/index.ts';
import { portableRedactor } from '../privacy/index.ts';
import { redactRows } from './redact-rows.ts';
import { REDACTION_WORKER_ROLE, type RedactionAnswer, type RedactionJob } from './redaction-protocol.ts';

export function answer(job: RedactionJob): RedactionAnswer {
  try {
    const { redactor, events } = portableRedactor(job.redaction);
    return { id: job.id, rows: redactRows(job.rows, redactor), events };
  } catch (err) {
    return { id: job.id, failed: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

// Only in a thread started as a redaction worker, not in any worker that imports this file (a test runner's).
if (parentPort && (workerData as { role?: string } | null)?.role === REDACTION_WORKER_ROLE) {
  // Detection loads its lists and libraries on first use (seconds on a busy machine): done before
  // the first job, outside any value's time budget, so no value is stored as [redaction failed]
  // for the loading alone. Jobs posted meanwhile wait in the port.
  const { redactor } = portableRedactor({
    policy: { mode: 'mask', entities: [...ENTITY_TYPES], untouchedKeys: [], patterns: [] },
    version: 'warm-up',
    hashKey: '',
    budgetMs: Number.POSITIVE_INFINITY,
    path: 'warm-up',
  });
  redactor.text('Maria Gonzalez from Denver wrote to maria@example.com, call +1 303 555 0147.', 'warm-up');
  const port = parentPort;
  port.on('message', (job: RedactionJob) => {
    const message = answer(job);
    port.postMessage(message, 'rows' in message ? [message.rows.ends.buffer as ArrayBuffer] : []);
  });
}
