import type { ModuleHost } from '../module.ts';

/**
 * The job queue: every process polls it (jobs are claimed one by one, SKIP LOCKED, so each runs
 * once); one process owns a PGlite database, so jobs it had claimed when it last stopped
 * (killed) are nobody's now.
 */
export function pollJobs({ http, scheduler, db, jobs }: Pick<ModuleHost, 'http' | 'scheduler' | 'db' | 'jobs'>): void {
  if (db.kind === 'pglite') http.addHook('onReady', async () => void (await jobs.releaseClaims()));
  scheduler.every({ name: 'jobs', intervalMs: 2_000, once: false, run: () => jobs.runDue() });
}
