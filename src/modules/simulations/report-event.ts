/**
 * POST /api/scenario-events: one event of a scenario run, as `@langwatch/scenario` posts it.
 * Events may come late, twice or out of order (the package posts from a queue that keeps going
 * when a post fails): the run's row is made by whichever event comes first, a snapshot older
 * than the stored one is ignored, and a repeated event changes nothing it has not already set.
 */
import type { Executor } from '../../db/index.ts';
import { AppError } from '../../platform/errors.ts';
import type { SimulationsContext } from './context.ts';
import { MAX_EVENTS_PER_RUN, STREAMING_EVENTS, type ScenarioEvent } from './schemas.ts';
import * as store from './store.ts';

const STREAMING: ReadonlySet<string> = new Set(STREAMING_EVENTS);

export async function reportEvent(ctx: SimulationsContext, scope: { organizationId: string; projectId: string }, event: ScenarioEvent): Promise<{ success: true }> {
  // Pieces of a message being streamed: LangWatch only relays them to open pages; the snapshot that follows carries the message.
  if (STREAMING.has(event.type)) return { success: true };
  // Read before the transaction (PGlite has one connection).
  const redact = await redactionFor(ctx, scope.projectId);
  const now = ctx.clock.now().getTime();
  await ctx.db.orm.transaction((tx) => applyEvent(tx, scope, event, redact, now));
  return { success: true };
}

export type Redact = <T>(value: T, field: string) => T;

/** The project's privacy at ingest for what runs say (read before a transaction: PGlite has one connection). */
export async function redactionFor(ctx: SimulationsContext, projectId: string): Promise<Redact> {
  const redaction = await ctx.redactor?.(projectId, 'simulations');
  return <T>(value: T, field: string): T => {
    if (!redaction?.active) return value;
    const out = redaction.value(value, field);
    redaction.take();
    return out;
  };
}

/**
 * One event stored in the caller's transaction: the path every run takes, reported by the
 * package or run by the server, so both read back the same.
 */
export async function applyEvent(tx: Executor, scope: { organizationId: string; projectId: string }, event: ScenarioEvent, redact: Redact, now: number): Promise<void> {
  if (STREAMING.has(event.type)) return;
  const key: store.RunKey = { ...scope, scenarioRunId: event.scenarioRunId, scenarioSetId: event.scenarioSetId, batchRunId: event.batchRunId, scenarioId: event.scenarioId };
  const before = await store.countEvent(tx, key, event.timestamp, now);
  if (before >= MAX_EVENTS_PER_RUN) {
    // The transaction rolls the count back with the refusal.
    throw new AppError(400, 'too_many_events', `a run takes at most ${MAX_EVENTS_PER_RUN} events; run ${event.scenarioRunId} has them all`, {
      field: 'body.scenarioRunId',
      meta: { limit: 'eventsPerRun', max: MAX_EVENTS_PER_RUN },
    });
  }
  if (event.type === 'SCENARIO_RUN_STARTED') {
    const { name, description, ...rest } = event.metadata;
    await store.recordStart(tx, scope.projectId, event.scenarioRunId, {
      name: name ?? null,
      description: redact(description ?? null, 'description'),
      metadata: redact(rest, 'metadata'),
      at: event.timestamp,
    });
  } else if (event.type === 'SCENARIO_MESSAGE_SNAPSHOT') {
    const traceIds = [...new Set(event.messages.map((m) => m.trace_id).filter((id): id is string => typeof id === 'string' && id.length > 0))];
    await store.recordSnapshot(tx, scope.projectId, event.scenarioRunId, redact(event.messages, 'messages'), traceIds, event.timestamp);
  } else if (event.type === 'SCENARIO_RUN_FINISHED') {
    const r = event.results ?? null;
    await store.recordFinish(tx, scope.projectId, event.scenarioRunId, {
      status: event.status,
      verdict: r?.verdict ?? null,
      reasoning: redact(r?.reasoning ?? null, 'reasoning'),
      met: r?.metCriteria ?? [],
      unmet: r?.unmetCriteria ?? [],
      error: redact(r?.error ?? null, 'error'),
      at: event.timestamp,
    });
  }
}
