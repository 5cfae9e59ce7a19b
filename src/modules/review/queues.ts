import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { ReviewDeps, ReviewScope } from './context.ts';
import { reviewerOf } from './context.ts';
import type { CreateQueueBody, QueueProgress, QueueView, UpdateQueueBody } from './schemas.ts';
import * as store from './store.ts';
import type { QueueRow } from './store.ts';

/** Annotation queues: a name, the score configs reviewers fill in, and the members assigned. */
export async function listQueues(deps: ReviewDeps, scope: ReviewScope, mine: boolean): Promise<QueueView[]> {
  const queues = await store.listQueues(deps.db.orm, scope.projectId, mine ? reviewerOf(scope) : undefined);
  return presentQueues(deps, scope.organizationId, queues);
}

export async function getQueue(deps: ReviewDeps, scope: ReviewScope, id: string): Promise<QueueView> {
  return (await presentQueues(deps, scope.organizationId, [await requireQueue(deps, scope.projectId, id)]))[0];
}

export async function createQueue(deps: ReviewDeps, scope: ReviewScope, input: CreateQueueBody): Promise<QueueView> {
  await checkRefs(deps, scope, input.scoreConfigIds, input.memberUserIds);
  const now = deps.clock.now();
  const row = await store.insertQueue(deps.db.orm, {
    id: newId('queue'),
    projectId: scope.projectId,
    name: input.name,
    description: input.description ?? null,
    scoreConfigIds: input.scoreConfigIds,
    memberUserIds: input.memberUserIds,
    createdAt: now,
    updatedAt: now,
  });
  if (!row) throw nameTaken(input.name);
  return (await presentQueues(deps, scope.organizationId, [row]))[0];
}

export async function updateQueue(deps: ReviewDeps, scope: ReviewScope, id: string, input: UpdateQueueBody): Promise<QueueView> {
  const current = await requireQueue(deps, scope.projectId, id);
  await checkRefs(deps, scope, input.scoreConfigIds ?? [], input.memberUserIds ?? []);
  if (input.name !== undefined && input.name !== current.name) {
    const clash = (await store.listQueues(deps.db.orm, scope.projectId)).some((q) => q.name === input.name);
    if (clash) throw nameTaken(input.name);
  }
  const row = await store.updateQueue(deps.db.orm, scope.projectId, id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.scoreConfigIds !== undefined ? { scoreConfigIds: input.scoreConfigIds } : {}),
    ...(input.memberUserIds !== undefined ? { memberUserIds: input.memberUserIds } : {}),
    updatedAt: deps.clock.now(),
  });
  if (!row) throw queueNotFound(id);
  return (await presentQueues(deps, scope.organizationId, [row]))[0];
}

export async function deleteQueue(deps: ReviewDeps, scope: ReviewScope, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteQueue(deps.db.orm, scope.projectId, id))) throw queueNotFound(id);
  return { id, deleted: true };
}

/** The queue `id`; a 404 otherwise, naming `field` when the caller chose the queue in a form (adding items to it). */
export async function requireQueue(deps: Pick<ReviewDeps, 'db'>, projectId: string, id: string, field?: string): Promise<QueueRow> {
  const row = await store.findQueue(deps.db.orm, projectId, id);
  if (!row) throw field ? new AppError(404, 'queue_not_found', `${field}: no queue ${id} in this project (deleted?); choose another`, { field }) : queueNotFound(id);
  return row;
}

/** Score configs of the project and members of the organization; duplicates refused. */
async function checkRefs(deps: ReviewDeps, scope: ReviewScope, configIds: string[], memberIds: string[]): Promise<void> {
  if (new Set(configIds).size !== configIds.length) throw badRequest('validation_error', 'body.scoreConfigIds: a config is named twice', 'body.scoreConfigIds');
  if (new Set(memberIds).size !== memberIds.length) throw badRequest('validation_error', 'body.memberUserIds: a member is named twice', 'body.memberUserIds');
  await deps.scoreConfigs.require(deps.db.orm, scope.projectId, configIds, 'body.scoreConfigIds');
  if (memberIds.length === 0) return;
  const members = new Set((await deps.members(scope.organizationId)).map((m) => m.userId));
  memberIds.forEach((id, i) => {
    if (!members.has(id)) throw badRequest('unknown_member', `body.memberUserIds.${i}: ${id} is not a member of this organization`, `body.memberUserIds.${i}`);
  });
}

/** Queues with their members' e-mails and their progress, counted in two queries for all of them. */
export async function presentQueues(deps: ReviewDeps, organizationId: string, queues: QueueRow[]): Promise<QueueView[]> {
  const progress = await progressOf(deps, organizationId, queues);
  const emails = await emailsOf(deps, organizationId);
  return queues.map((q) => ({
    id: q.id,
    projectId: q.projectId,
    name: q.name,
    description: q.description,
    scoreConfigIds: q.scoreConfigIds,
    members: q.memberUserIds.map((userId) => ({ userId, email: emails.get(userId) ?? null })),
    progress: progress.get(q.id)!,
    createdAt: q.createdAt.toISOString(),
    updatedAt: q.updatedAt.toISOString(),
  }));
}

async function emailsOf(deps: ReviewDeps, organizationId: string): Promise<Map<string, string>> {
  return new Map((await deps.members(organizationId)).map((m) => [m.userId, m.email]));
}

export async function progressOf(deps: ReviewDeps, organizationId: string, queues: QueueRow[]): Promise<Map<string, QueueProgress>> {
  const { totals, reviewers } = await store.progressCounts(
    deps.db.orm,
    queues.map((q) => q.id),
    deps.clock.now(),
  );
  const emails = await emailsOf(deps, organizationId);
  const out = new Map<string, QueueProgress>();
  for (const q of queues) {
    const t = totals.find((x) => x.queue_id === q.id);
    const counted = reviewers.filter((r) => r.queue_id === q.id);
    const byReviewer = [
      ...q.memberUserIds.map((m) => counted.find((r) => r.reviewer === m) ?? { reviewer: m, completed: 0, skipped: 0, claimed: 0 }),
      ...counted.filter((r) => !q.memberUserIds.includes(r.reviewer)),
    ].map((r) => ({ reviewer: r.reviewer, email: emails.get(r.reviewer) ?? null, completed: Number(r.completed), skipped: Number(r.skipped), claimed: Number(r.claimed) }));
    out.set(q.id, {
      total: Number(t?.total ?? 0),
      pending: Number(t?.pending ?? 0),
      claimed: Number(t?.claimed ?? 0),
      completed: Number(t?.completed ?? 0),
      skipped: Number(t?.skipped ?? 0),
      byReviewer,
    });
  }
  return out;
}

export const queueNotFound = (id: string) => notFound('queue_not_found', `no queue ${id} in this project`);
const nameTaken = (name: string) => conflict('queue_exists', `body.name: a queue named "${name}" exists in this project`, 'body.name');

/** Monitors check the queue they send failures to. */
export async function queueExists(deps: Pick<ReviewDeps, 'db'>, projectId: string, id: string): Promise<boolean> {
  return (await store.findQueue(deps.db.orm, projectId, id)) !== null;
}
