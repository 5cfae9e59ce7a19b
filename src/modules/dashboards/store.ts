/** The dashboards module's SQL: the one table `dashboards` (migrations/0050_dashboards.sql). */
import { sql } from 'drizzle-orm';
import { jsonParam, rows, type Executor } from '../../db/index.ts';

export interface DashboardRow {
  id: string;
  name: string;
  definition: Record<string, unknown>;
  version: number;
  updated_by: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = sql.raw('id, name, definition, version, updated_by, created_at, updated_at');
const toRow = (r: Record<string, unknown>): DashboardRow => ({
  ...(r as unknown as DashboardRow),
  version: Number(r.version),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

export async function listDashboards(db: Executor, projectId: string): Promise<DashboardRow[]> {
  return (await rows<Record<string, unknown>>(db, sql`SELECT ${COLUMNS} FROM dashboards WHERE project_id = ${projectId} ORDER BY lower(name), id`)).map(toRow);
}

export async function findDashboard(db: Executor, projectId: string, id: string): Promise<DashboardRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${COLUMNS} FROM dashboards WHERE project_id = ${projectId} AND id = ${id}`);
  return r ? toRow(r) : null;
}

export async function countDashboards(db: Executor, projectId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM dashboards WHERE project_id = ${projectId}`);
  return Number(r.n);
}

/** Writes a whole definition: a new row, or the next version of the stored one. */
export async function saveDashboard(
  db: Executor,
  d: { organizationId: string; projectId: string; id: string; name: string; definition: unknown; userId: string | null; now: number },
): Promise<DashboardRow> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`INSERT INTO dashboards (project_id, id, organization_id, name, definition, created_by, updated_by, created_at, updated_at)
        VALUES (${d.projectId}, ${d.id}, ${d.organizationId}, ${d.name}, ${jsonParam(d.definition)}::jsonb, ${d.userId}, ${d.userId}, ${d.now}, ${d.now})
        ON CONFLICT (project_id, id) DO UPDATE SET name = EXCLUDED.name, definition = EXCLUDED.definition, updated_by = EXCLUDED.updated_by,
          updated_at = EXCLUDED.updated_at, version = dashboards.version + 1
        RETURNING ${COLUMNS}`,
  );
  return toRow(r);
}

/**
 * Writes a whole definition only over the version the writer read (`expected`; 0: the built-in
 * default, never saved): null when another write came first (or the dashboard is gone).
 */
export async function saveDashboardIfVersion(
  db: Executor,
  d: { organizationId: string; projectId: string; id: string; name: string; definition: unknown; userId: string | null; now: number; expected: number },
): Promise<DashboardRow | null> {
  const [r] =
    d.expected === 0
      ? await rows<Record<string, unknown>>(
          db,
          sql`INSERT INTO dashboards (project_id, id, organization_id, name, definition, created_by, updated_by, created_at, updated_at)
              VALUES (${d.projectId}, ${d.id}, ${d.organizationId}, ${d.name}, ${jsonParam(d.definition)}::jsonb, ${d.userId}, ${d.userId}, ${d.now}, ${d.now})
              ON CONFLICT (project_id, id) DO NOTHING
              RETURNING ${COLUMNS}`,
        )
      : await rows<Record<string, unknown>>(
          db,
          sql`UPDATE dashboards SET name = ${d.name}, definition = ${jsonParam(d.definition)}::jsonb, updated_by = ${d.userId}, updated_at = ${d.now}, version = version + 1
              WHERE project_id = ${d.projectId} AND id = ${d.id} AND version = ${d.expected}
              RETURNING ${COLUMNS}`,
        );
  return r ? toRow(r) : null;
}

export async function deleteDashboard(db: Executor, projectId: string, id: string): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM dashboards WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)).length > 0;
}

export async function deleteProjectDashboards(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM dashboards WHERE project_id = ${projectId}`);
}
