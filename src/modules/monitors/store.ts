import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';
import type { MonitorFilters, MonitorView } from './schemas.ts';

export interface MonitorRow extends MonitorView {
  organization_id: string;
}

const COLUMNS = sql.raw(`id, organization_id, project_id, name, evaluator, settings, sample, filters, enabled, created_at, updated_at`);

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
    sql`INSERT INTO monitors (id, organization_id, project_id, name, evaluator, settings, sample, filters, enabled, created_at, updated_at)
        VALUES (${m.id}, ${m.organization_id}, ${m.project_id}, ${m.name}, ${m.evaluator}, ${JSON.stringify(m.settings)}::jsonb,
          ${m.sample}, ${m.filters === null ? null : JSON.stringify(m.filters)}::jsonb, ${m.enabled}, ${at}, ${at})
        RETURNING ${COLUMNS}`,
  );
  return toRow(r);
}

export async function updateMonitor(db: Executor, m: MonitorRow, at: Date): Promise<MonitorRow> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`UPDATE monitors SET name = ${m.name}, evaluator = ${m.evaluator}, settings = ${JSON.stringify(m.settings)}::jsonb,
          sample = ${m.sample}, filters = ${m.filters === null ? null : JSON.stringify(m.filters)}::jsonb, enabled = ${m.enabled},
          updated_at = ${at}
        WHERE project_id = ${m.project_id} AND id = ${m.id} RETURNING ${COLUMNS}`,
  );
  return toRow(r);
}

export async function deleteMonitor(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await rows(db, sql`DELETE FROM monitors WHERE project_id = ${projectId} AND id = ${id} RETURNING id`);
  return deleted.length > 0;
}
