import { badRequest } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { ReviewDeps, ReviewScope } from './context.ts';
import { requireQueue } from './queues.ts';
import type { AddItemsBody } from './schemas.ts';
import * as store from './store.ts';

type Source = 'traces' | 'filter' | 'experiment' | 'monitor' | 'threads';
type Ref = { traceId: string; spanId: string; threadId: string };

/**
 * Adds traces (or single spans) to a queue: a list (the traces list's selection), every trace
 * matching a search, or the traces of an experiment run's rows; or whole threads, which the
 * reviewer scores as one conversation. Each trace or span is queued
 * once; adding it again counts it in `alreadyQueued`. A trace id need not have arrived yet
 * (as with annotations): the reviewer's page waits for it.
 */
export async function addItems(deps: ReviewDeps, scope: ReviewScope, queueId: string, body: AddItemsBody): Promise<{ added: number; alreadyQueued: number }> {
  const given = [body.items, body.filter, body.experimentRun, body.threads].filter((x) => x !== undefined).length;
  if (given !== 1) throw badRequest('validation_error', 'body: send one of items (traces or spans), filter (a trace search), experimentRun or threads', 'body.items');
  const queue = await requireQueue(deps, scope.projectId, queueId, 'params.id');
  const trace = (traceId: string): Ref => ({ traceId, spanId: '', threadId: '' });
  let refs: Ref[];
  let source: Source;
  if (body.items) {
    refs = body.items.map((i) => ({ traceId: i.traceId, spanId: i.spanId ?? '', threadId: '' }));
    source = 'traces';
  } else if (body.threads) {
    refs = body.threads.map((threadId) => ({ traceId: '', spanId: '', threadId }));
    source = 'threads';
  } else if (body.filter) {
    refs = (await deps.matchingTraces(scope.projectId, body.filter, body.limit)).map(trace);
    source = 'filter';
  } else {
    const { experimentSlug, runId } = body.experimentRun!;
    refs = (await deps.experimentRunTraces(scope.projectId, experimentSlug, runId)).map(trace);
    source = 'experiment';
  }
  return enqueue(deps, scope.projectId, queue.id, refs, source);
}

/** A monitor's failure: its trace joins the queue (once). */
export async function addMonitorFailure(deps: ReviewDeps, projectId: string, queueId: string, traceId: string): Promise<void> {
  const queue = await store.findQueue(deps.db.orm, projectId, queueId);
  if (queue) await enqueue(deps, projectId, queue.id, [{ traceId, spanId: '', threadId: '' }], 'monitor');
}

async function enqueue(deps: ReviewDeps, projectId: string, queueId: string, refs: Ref[], source: Source) {
  const unique = [...new Map(refs.map((r) => [`${r.threadId}\u0000${r.traceId}\u0000${r.spanId}`, r])).values()];
  const now = deps.clock.now();
  const added = await store.insertItems(
    deps.db.orm,
    unique.map((r) => ({ id: newId('qi'), queueId, projectId, traceId: r.traceId, spanId: r.spanId, threadId: r.threadId, source, createdAt: now })),
  );
  return { added, alreadyQueued: refs.length - added };
}
