import type { Executor } from '../../../db/index.ts';
import type { MonitorsContext } from '../context.ts';
import * as store from '../store.ts';

/**
 * How long a process trusts its copy of a project's enabled monitors. Every ingest
 * transaction needs them and they rarely change; this process forgets its copy the moment
 * it changes a monitor, other processes within this time.
 */
export const ENABLED_MONITORS_TTL_MS = 2_000;

/** After a change of the project's monitors: this process reads them again. */
export function forgetEnabled(ctx: MonitorsContext, projectId: string): void {
  ctx.enabledMonitors.delete(projectId);
  ctx.generations.set(projectId, (ctx.generations.get(projectId) ?? 0) + 1);
}

/** The project's enabled monitors, read with `tx` (PGlite would wait on its own transaction otherwise) unless recently read. */
export async function enabledMonitors(ctx: Pick<MonitorsContext, 'enabledMonitors' | 'generations'>, tx: Executor, projectId: string): Promise<store.MonitorRow[]> {
  const cached = ctx.enabledMonitors.get(projectId);
  if (cached && cached.until > performance.now()) return cached.monitors;
  const generation = ctx.generations.get(projectId) ?? 0;
  const monitors = await store.listMonitors(tx, projectId, true);
  if ((ctx.generations.get(projectId) ?? 0) === generation) {
    ctx.enabledMonitors.set(projectId, { until: performance.now() + ENABLED_MONITORS_TTL_MS, monitors });
  }
  return monitors;
}
