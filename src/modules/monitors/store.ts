import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';
import type { MonitorFilters, MonitorView } from './schemas.ts';

export interface MonitorRow extends MonitorView {
  organization_id: string;
}

const COLUMNS = sql.raw(`id, organization_id, project_id, name, evaluator, settings, sample, filters, enabled, review_queue_id, unit, idle_minutes, schedule_minutes, created_at, updated_at`);

function toRow(r: Record<string, unknown>): MonitorRow {
  return {
    id: r.id as string,
    organization_id: r.organization_id as string,
    project_id: r.project_id as string,
    name: r.name as string,
    evaluator: r.evaluator as string,
    settings: (r.settings as Record<string, unknown>) ?? {},
    sample: Number(r.sample),
    filters: (r.filters as MonitorFilters | null) ?? null,
    enabled: !!r.enabled,
    review_queue_id: (r.review_queue_id as string | null) ?? null,
    unit: r.unit === 'thread' ? 'thread' : 'trace',
    idle_minutes: r.idle_minutes === null || r.idle_minutes === undefined ? null : Number(r.idle_minutes),
    schedule_minutes: r.schedule_minutes === null || r.schedule_minutes === undefined ? null : Number(r.schedule_minutes),
    created_at: new Date(r.created_at as string).toISOString(),
    updated_at: new Date(r.updated_at as string).toISOString(),
  };
}

export async function listMonitors(db: Executor, projectId: string, onlyEnabled = false): Promise<MonitorRow[]> {
  const result = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${COLUMNS} FROM monitors WHERE project_id = ${projectId} ${onlyEnabled ? sql`AND enabled` : sql``} ORDER BY created_at, id`,
  );
  return result.map(toRow);
}

export async function findMonitor(db: Executor, projectId: string, id: string): Promise<MonitorRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${COLUMNS} FROM monitors WHERE project_id = ${projectId} AND id = ${id}`);
  return r ? toRow(r) : null;
}

export async function insertMonitor(db: Executor, m: Omit<MonitorRow, 'created_at' | 'updated_at'>, at: Date): Promise<MonitorRow> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`INSERT INTO monitors (id, organization_id, project_id, name, evaluator, settings, sample, filters, enabled, review_queue_id, unit, idle_minutes, schedule_minutes, created_at, updated_at)
        VALUES (${m.id}, ${m.organization_id}, ${m.project_id}, ${m.name}, ${m.evaluator}, ${JSON.stringify(m.settings)}::jsonb,
          ${m.sample}, ${m.filters === null ? null : JSON.stringify(m.filters)}::jsonb, ${m.enabled}, ${m.review_queue_id}, ${m.unit}, ${m.idle_minutes}, ${m.schedule_minutes}, ${at}, ${at})
        RETURNING ${COLUMNS}`,
  );
  return toRow(r);
}

export async function updateMonitor(db: Executor, m: MonitorRow, at: Date): Promise<MonitorRow> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`UPDATE monitors SET name = ${m.name}, evaluator = ${m.evaluator}, settings = ${JSON.stringify(m.settings)}::jsonb,
          sample = ${m.sample}, filters = ${m.filters === null ? null : JSON.stringify(m.filters)}::jsonb, enabled = ${m.enabled},
          review_queue_id = ${m.review_queue_id}, idle_minutes = ${m.idle_minutes}, schedule_minutes = ${m.schedule_minutes}, updated_at = ${at}
        WHERE project_id = ${m.project_id} AND id = ${m.id} RETURNING ${COLUMNS}`,
  );
  return toRow(r);
}

export async function deleteMonitor(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await rows(db, sql`DELETE FROM monitors WHERE project_id = ${projectId} AND id = ${id} RETURNING id`);
  return deleted.length > 0;
}

export type BackfillState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface BackfillRow {
  id: string;
  organization_id: string;
  project_id: string;
  monitor_id: string;
  state: BackfillState;
  request: { startDate: number; endDate: number; filters: MonitorFilters | null; limit: number };
  trace_ids: string[];
  position: number;
  total: number;
  evaluated: number;
  skipped: number;
  failed: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

const BACKFILL_COLUMNS = sql.raw(`id, organization_id, project_id, monitor_id, state, request, trace_ids, position, total, evaluated, skipped, failed, error, created_at, updated_at`);

function toBackfill(r: Record<string, unknown>): BackfillRow {
  return {
    ...(r as unknown as BackfillRow),
    position: Number(r.position),
    total: Number(r.total),
    evaluated: Number(r.evaluated),
    skipped: Number(r.skipped),
    failed: Number(r.failed),
    error: (r.error as string | null) ?? null,
    created_at: new Date(r.created_at as string).toISOString(),
    updated_at: new Date(r.updated_at as string).toISOString(),
  };
}

export async function insertBackfill(db: Executor, b: Pick<BackfillRow, 'id' | 'organization_id' | 'project_id' | 'monitor_id' | 'request'>, at: Date): Promise<BackfillRow> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`INSERT INTO monitor_backfills (id, organization_id, project_id, monitor_id, state, request, created_at, updated_at)
        VALUES (${b.id}, ${b.organization_id}, ${b.project_id}, ${b.monitor_id}, 'queued', ${JSON.stringify(b.request)}::jsonb, ${at}, ${at})
        RETURNING ${BACKFILL_COLUMNS}`,
  );
  return toBackfill(r);
}

export async function findBackfill(db: Executor, projectId: string, monitorId: string, id: string): Promise<BackfillRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${BACKFILL_COLUMNS} FROM monitor_backfills WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND id = ${id}`);
  return r ? toBackfill(r) : null;
}

export async function backfillById(db: Executor, id: string): Promise<BackfillRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${BACKFILL_COLUMNS} FROM monitor_backfills WHERE id = ${id}`);
  return r ? toBackfill(r) : null;
}

/** The monitor's backfills, newest first. */
export async function listBackfills(db: Executor, projectId: string, monitorId: string, limit: number): Promise<BackfillRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${BACKFILL_COLUMNS} FROM monitor_backfills WHERE project_id = ${projectId} AND monitor_id = ${monitorId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
  );
  return found.map(toBackfill);
}

export async function activeBackfill(db: Executor, projectId: string, monitorId: string): Promise<BackfillRow | null> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${BACKFILL_COLUMNS} FROM monitor_backfills WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND state IN ('queued', 'running') LIMIT 1`,
  );
  return r ? toBackfill(r) : null;
}

/** Changes a backfill unless it ended (completed, failed, cancelled) meanwhile; null when it had. */
export async function updateBackfill(
  db: Executor,
  id: string,
  patch: Partial<Pick<BackfillRow, 'state' | 'trace_ids' | 'position' | 'total' | 'evaluated' | 'skipped' | 'failed' | 'error'>>,
  at: Date,
): Promise<BackfillRow | null> {
  const sets = [sql`updated_at = ${at}`];
  for (const [key, value] of Object.entries(patch)) {
    sets.push(key === 'trace_ids' ? sql`trace_ids = ${JSON.stringify(value)}::jsonb` : sql`${sql.raw(key)} = ${value}`);
  }
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`UPDATE monitor_backfills SET ${sql.join(sets, sql`, `)} WHERE id = ${id} AND state IN ('queued', 'running') RETURNING ${BACKFILL_COLUMNS}`,
  );
  return r ? toBackfill(r) : null;
}
