import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rows, type Database } from '../../db/index.ts';
import { listMigrations } from '../../db/migrate.ts';
import { DatabaseProbe } from '../readiness.ts';
import { META_TAG } from '../metrics.ts';
import { tagged } from './route-group.ts';

/** The ingest admission queue as readiness sees it: full means ingest answers 503. */
export interface IngestLoad {
  full: boolean;
  queued: number;
  limit: number;
}

/**
 * Liveness and readiness, answered within 100 ms under any load (neither waits in the
 * database's queue). /healthz: the process answers. /readyz: the database answers, the
 * migrations this version knows are applied, and the ingest queue is below its bound.
 */
export function installHealthRoutes(http: FastifyInstance, db: Database, ingest: { readonly ingestLoad: IngestLoad }): void {
  const known = listMigrations().length;
  const probe = new DatabaseProbe(
    async () => {
      const [row] = await rows<{ n: number }>(db.orm, sql`SELECT count(*)::int AS n FROM schema_migrations`);
      return Number(row?.n ?? 0) >= known ? null : `migrations are not done (${row?.n ?? 0} of ${known} applied)`;
    },
    { budgetMs: 80, refreshMs: 500, freshMs: 2_000 },
  );
  const r = http.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/healthz',
    {
      config: { auth: { scope: 'public' } },
      schema: { ...tagged(META_TAG), summary: 'Liveness: answers 200 while the process serves requests (it never waits for the database)', response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    () => Promise.resolve({ status: 'ok' as const }),
  );
  const check = z.object({ ok: z.boolean(), detail: z.string() });
  const readiness = z.object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      database: check,
      ingestQueue: check.extend({ queuedSpans: z.number().int(), limit: z.number().int() }),
      readReplicas: z
        .array(check.extend({ name: z.string(), lagMs: z.number().int().nullable() }))
        .describe('Each read replica (DATABASE_READ_URL): whether it takes reads and how far behind the primary it is; reads go to the primary while none does, so these never make the server not ready'),
    }),
  });
  r.get(
    '/readyz',
    {
      config: { auth: { scope: 'public' } },
      schema: {
        ...tagged(META_TAG),
        summary: 'Readiness: 200 when the database answers, migrations are done and the ingest queue is below its bound; else 503',
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_req, reply) => {
      const database = await probe.status();
      const load = ingest.ingestLoad;
      const ingestQueue = {
        ok: !load.full,
        detail: load.full ? 'the ingest queue is full: ingest answers 503' : 'below its bound',
        queuedSpans: load.queued,
        limit: load.limit,
      };
      const ready = database.ok && ingestQueue.ok;
      if (!ready) void reply.status(503).header('retry-after', '1');
      const readReplicas = db.reads.status().map((r) => ({ name: r.name, ok: r.usable, detail: r.detail, lagMs: r.lagMs }));
      return { status: ready ? ('ready' as const) : ('not_ready' as const), checks: { database, ingestQueue, readReplicas } };
    },
  );
}
