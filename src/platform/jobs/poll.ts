import type { ModuleHost } from '../module.ts';

/**
 * The job queue: every process polls it (jobs are claimed one by one, SKIP LOCKED, so each runs
 * once), unless its poll is 0 (an API-only process; another process on the database runs the
 * jobs); one process owns a PGlite database, so jobs it had claimed when it last stopped
 * (killed) are nobody's now.
 */
export function pollJobs({ http, scheduler, db, jobs, config }: Pick<ModuleHost, 'http' | 'scheduler' | 'db' | 'jobs' | 'config'>): void {
  if (db.kind === 'pglite') http.addHook('onReady', async () => void (await jobs.releaseClaims()));
  const intervalMs = config.intervals.jobPollMs;
  if (intervalMs > 0) scheduler.every({ name: 'jobs', intervalMs, once: false, run: () => jobs.runDue() });
}
