import type { Database } from '../db/index.ts';
import type { JobQueue } from './jobs/index.ts';
import type { Metrics } from './metrics.ts';
import type { ReadPriority } from './read-priority.ts';

/** What the process-wide gauges read: ingest's queues (the traces module), the job queue, reads in progress and the database. */
export interface GaugeSources {
  db: Database;
  jobs: JobQueue;
  readPriority: ReadPriority;
  /** The traces module's ingestion. */
  ingest: {
    /** Requests and spans of this process waiting for their transaction (group commit). */
    ingestQueue(): { requests: number; spans: number };
    /** The admission queue: spans admitted and not yet committed, and its bound. */
    readonly ingestLoad: { queued: number; limit: number };
  };
}

/** Gauges read when /metrics is scraped: queues, reads in progress, the connection pool. */
export function registerGauges(metrics: Metrics, s: GaugeSources): void {
  metrics.gauge('spyglass_ingest_queue_requests', 'Ingest requests of this process waiting for their transaction (group commit)', [], () => [
    { value: s.ingest.ingestQueue().requests },
  ]);
  metrics.gauge('spyglass_ingest_queue_spans', 'Spans of this process waiting for their transaction (group commit)', [], () => [
    { value: s.ingest.ingestQueue().spans },
  ]);
  metrics.gauge('spyglass_ingest_admitted_spans', 'Spans admitted to ingest and not yet committed (the admission queue); past spyglass_ingest_admission_limit_spans ingest answers 503', [], () => [
    { value: s.ingest.ingestLoad.queued },
  ]);
  metrics.gauge('spyglass_reads_in_progress', 'Read requests working on their answer now (not counting a download waiting for its client); while any are, or were within 1 s, ingest commits in fewer, shorter transactions', [], () => [
    { value: s.readPriority.inProgress },
  ]);
  metrics.gauge('spyglass_ingest_admission_limit_spans', 'The bound of the admission queue (SPYGLASS_INGEST_QUEUE_SPANS)', [], () => [{ value: s.ingest.ingestLoad.limit }]);
  metrics.gauge('spyglass_jobs', 'Background jobs in the database by queue and state: queued (due or later), running (claimed), failed (kept after the last attempt)', ['queue', 'state'], async () =>
    (await s.jobs.counts()).flatMap((c) => [
      { labels: { queue: c.queue, state: 'queued' }, value: c.queued },
      { labels: { queue: c.queue, state: 'running' }, value: c.running },
      { labels: { queue: c.queue, state: 'failed' }, value: c.failed },
    ]),
  );
  metrics.gauge('spyglass_db_replica_lag_seconds', 'How far each read replica (DATABASE_READ_URL) was behind the primary at its last check, once a second; absent while it does not answer', ['replica'], () =>
    s.db.reads.status().flatMap((r) => (r.lagMs === null ? [] : [{ labels: { replica: r.name }, value: r.lagMs / 1000 }])),
  );
  metrics.gauge('spyglass_db_replica_up', 'Whether each read replica takes reads now: 1 when it answers and lags within SPYGLASS_READ_MAX_LAG_MS, else 0', ['replica'], () =>
    s.db.reads.status().map((r) => ({ labels: { replica: r.name }, value: r.usable ? 1 : 0 })),
  );
  metrics.gauge('spyglass_db_statements', 'Statements this process has sent, per connection pool (primary, each read replica), with read replicas configured', ['pool'], () =>
    s.db.reads.statements().map((st) => ({ labels: { pool: st.pool }, value: st.count })),
  );
  metrics.gauge('spyglass_db_pool_connections', 'Database connections of this process by state (PGlite: one, in the process)', ['state'], () => {
    const pool = s.db.pool;
    if (!pool) return [{ labels: { state: 'total' }, value: 1 }, { labels: { state: 'max' }, value: 1 }];
    return [
      { labels: { state: 'total' }, value: pool.totalCount },
      { labels: { state: 'idle' }, value: pool.idleCount },
      { labels: { state: 'waiting' }, value: pool.waitingCount },
      { labels: { state: 'max' }, value: pool.options.max ?? 10 },
    ];
  });
}
