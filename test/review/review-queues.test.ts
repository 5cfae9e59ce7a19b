import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { CLAIM_MS } from '../../src/modules/review/index.ts';
import { databaseKinds, startApp, useProjectApp, type ProjectApp, type RequestOptions, type TestApp } from '../support/harness.ts';
import { asBrowser, inviteAndAccept, type BrowserSession } from '../support/sessions.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');

/** Score configs, scores on annotations, annotation queues and the reviewer's flow, over HTTP. */
describe.each(databaseKinds)('human review (%s)', (kind) => {
  let a: ProjectApp;
  const clock = useProjectApp(kind, (x) => (a = x), { fresh: true });
  let t: TestApp;
  const as = (opts: RequestOptions) => ({ ...opts, projectId: opts.token || opts.headers ? a.t.creds.project.id : undefined });
  const call = (method: string, url: string, body?: unknown, opts: RequestOptions = { authToken: a.key }) => t.request(method, url, { ...as(opts), body });
  const reviewerA = {} as BrowserSession & { userId: string };
  const reviewerB = {} as BrowserSession & { userId: string };
  const asA = () => asBrowser(reviewerA, { projectId: a.t.creds.project.id });
  const asB = () => asBrowser(reviewerB, { projectId: a.t.creds.project.id });
  const configs: Record<string, string> = {};
  const ingest = async (id: string, answer: string) => {
    const res = await t.request('POST', '/api/collector', {
      authToken: a.key,
      body: {
        trace_id: id,
        metadata: { labels: ['review'] },
        spans: [{ span_id: `${id}-llm`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: 'Which vendor?' }, output: { type: 'text', value: answer }, timestamps: { started_at: T0, finished_at: T0 + 100 } }],
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  const eventsOf = (type: string) => rows<{ data: Record<string, any> }>(t.db.orm, sql`SELECT data FROM events WHERE type = ${type} ORDER BY created_at, id`);

  it('score configs: created, listed, changed and deleted; bad input is a 400 naming the field', async () => {
    t = a.t;
    const post = (body: object) => call('POST', '/api/score-configs', body);
    const quality = await post({ name: 'Quality', description: 'How good is the answer', kind: 'numeric', min: 1, max: 5 });
    expect(quality.status, quality.text).toBe(201);
    expect(quality.body.data).toMatchObject({ name: 'Quality', kind: 'numeric', min: 1, max: 5, categories: [], description: 'How good is the answer' });
    configs.quality = quality.body.data.id;
    configs.correct = (await post({ name: 'Correct', kind: 'boolean' })).body.data.id;
    const tone = await post({ name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] });
    expect(tone.status).toBe(201);
    configs.tone = tone.body.data.id;
    const scratch = await post({ name: 'Scratch', kind: 'numeric' });
    expect(scratch.body.data).toMatchObject({ min: 0, max: 1 });

    const field = async (body: object) => {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      return res.body.error.meta?.field;
    };
    expect(await field({ name: 'Bad range', kind: 'numeric', min: 5, max: 1 })).toBe('body.max');
    expect(await field({ name: 'No categories', kind: 'categorical' })).toBe('body.categories');
    expect(await field({ name: 'Twice', kind: 'categorical', categories: ['a', 'a'] })).toBe('body.categories');
    expect(await field({ name: 'Range on boolean', kind: 'boolean', min: 0 })).toBe('body.min');
    expect(await field({ name: 'Categories on numeric', kind: 'numeric', categories: ['a', 'b'] })).toBe('body.categories');
    expect(await field({ name: 'Bad kind', kind: 'stars' })).toBe('body.kind');
    expect(await field({ kind: 'boolean' })).toBe('body.name');
    const taken = await post({ name: 'Quality', kind: 'boolean' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.meta.field).toBe('body.name');

    expect((await call('GET', '/api/score-configs')).body.data.map((c: { name: string }) => c.name)).toEqual(['Correct', 'Quality', 'Scratch', 'Tone']);
    const renamed = await call('PATCH', `/api/score-configs/${scratch.body.data.id}`, { name: 'Scratch 2', max: 10 });
    expect(renamed.body.data).toMatchObject({ name: 'Scratch 2', min: 0, max: 10 });
    expect((await call('PATCH', `/api/score-configs/${scratch.body.data.id}`, { min: 20 })).body.error.meta.field).toBe('body.max');
    expect((await call('DELETE', `/api/score-configs/${scratch.body.data.id}`)).body).toEqual({ id: scratch.body.data.id, deleted: true });
    expect((await call('GET', `/api/score-configs/${scratch.body.data.id}`)).status).toBe(404);
    // Another organization sees none of them.
    expect((await call('GET', `/api/score-configs/${configs.quality}`, undefined, { authToken: a.other.projectToken })).status).toBe(404);
    expect((await call('GET', '/api/score-configs', undefined, { authToken: a.other.projectToken })).body.data).toEqual([]);
  });

  it('annotations carry scores checked against their configs; without scores they answer as before', async () => {
    const annotate = (body: object) => call('POST', '/api/annotations/trace/scored-1', body);
    const plain = await annotate({ comment: 'plain', isThumbsUp: true });
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body.data).sort()).toEqual(['anchorId', 'anchorKind', 'anchorPath', 'comment', 'createdAt', 'email', 'id', 'isThumbsUp', 'projectId', 'traceId', 'updatedAt', 'userId']);

    const scored = await annotate({
      comment: 'good but curt',
      isThumbsUp: true,
      scores: [
        { configId: configs.quality, value: 4 },
        { configId: configs.correct, value: true },
        { configId: configs.tone, value: 'neutral' },
      ],
    });
    expect(scored.status, scored.text).toBe(200);
    expect(scored.body.data.scores).toEqual([
      { configId: configs.quality, name: 'Quality', kind: 'numeric', value: 4 },
      { configId: configs.correct, name: 'Correct', kind: 'boolean', value: true },
      { configId: configs.tone, name: 'Tone', kind: 'categorical', value: 'neutral' },
    ]);
    const listed = await call('GET', '/api/annotations/trace/scored-1');
    const byComment = (c: string) => listed.body.data.find((x: { comment: string }) => x.comment === c);
    expect(byComment('plain').scores).toBeUndefined();
    expect(byComment('good but curt').scores.map((s: { name: string }) => s.name).sort()).toEqual(['Correct', 'Quality', 'Tone']);
    const events = await eventsOf('score.created');
    expect(events.map((e) => e.data.score.name).sort()).toEqual(['Correct', 'Quality', 'Tone']);
    expect(events[0].data.score).toMatchObject({ traceId: 'scored-1', annotationId: scored.body.data.id });

    const rejected = async (scores: object[], field: string, code: string) => {
      const res = await annotate({ comment: 'x', isThumbsUp: false, scores });
      expect(res.status, JSON.stringify(scores)).toBe(400);
      // Annotation routes answer the shared Error object.
      expect(res.body).toMatchObject({ error: code, field });
      expect(res.body.message).toContain(field);
    };
    await rejected([{ configId: configs.quality, value: 6 }], 'body.scores.0.value', 'invalid_score');
    await rejected([{ configId: configs.quality, value: 'five' }], 'body.scores.0.value', 'invalid_score');
    await rejected([{ configId: configs.correct, value: true }, { configId: configs.correct, value: 1 }], 'body.scores.1.configId', 'duplicate_score');
    await rejected([{ configId: configs.tone, value: 'angry' }], 'body.scores.0.value', 'invalid_score');
    await rejected([{ configId: configs.correct, value: 'yes' }], 'body.scores.0.value', 'invalid_score');
    await rejected([{ configId: 'score_nope', value: 1 }], 'body.scores.0.configId', 'unknown_score_config');
    // A config of another organization is unknown here.
    const theirs = await call('POST', '/api/score-configs', { name: 'Theirs', kind: 'boolean' }, { authToken: a.other.projectToken });
    await rejected([{ configId: theirs.body.data.id, value: true }], 'body.scores.0.configId', 'unknown_score_config');
    // Nothing of a rejected annotation was kept.
    expect((await call('GET', '/api/annotations/trace/scored-1')).body.data).toHaveLength(2);
  });

  let queueId: string;
  it('queues: created with configs and members; items from a list, a search and an experiment run, each once', async () => {
    Object.assign(reviewerA, await inviteAndAccept(t, t.creds.adminApiKey, { email: 'ann@review.test', role: 'MEMBER' }));
    Object.assign(reviewerB, await inviteAndAccept(t, t.creds.adminApiKey, { email: 'bob@review.test', role: 'MEMBER' }));
    for (let i = 1; i <= 5; i++) await ingest(`rq-${i}`, `answer ${i}`);

    const bad = async (body: object, field: string) => {
      const res = await call('POST', '/api/queues', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.meta.field).toBe(field);
    };
    await bad({ name: 'Q', scoreConfigIds: ['score_nope'] }, 'body.scoreConfigIds.0');
    // A queue without a score would collect reviews that say nothing.
    await bad({ name: 'Q' }, 'body.scoreConfigIds');
    await bad({ name: 'Q', scoreConfigIds: [] }, 'body.scoreConfigIds');
    await bad({ name: 'Q', scoreConfigIds: [configs.quality], memberUserIds: [reviewerA.userId, 'user_nope'] }, 'body.memberUserIds.1');
    await bad({ name: '', scoreConfigIds: [configs.quality] }, 'body.name');
    const created = await call('POST', '/api/queues', {
      name: 'Support answers',
      description: 'Weekly review',
      scoreConfigIds: [configs.quality, configs.tone],
      memberUserIds: [reviewerA.userId, reviewerB.userId],
    });
    expect(created.status, created.text).toBe(201);
    queueId = created.body.data.id;
    expect(created.body.data).toMatchObject({
      name: 'Support answers',
      scoreConfigIds: [configs.quality, configs.tone],
      members: [
        { userId: reviewerA.userId, email: 'ann@review.test' },
        { userId: reviewerB.userId, email: 'bob@review.test' },
      ],
      progress: { total: 0, pending: 0, completed: 0, skipped: 0, claimed: 0 },
    });
    expect((await call('POST', '/api/queues', { name: 'Support answers', scoreConfigIds: [configs.quality] })).status).toBe(409);

    const add = (body: object) => call('POST', `/api/queues/${queueId}/items`, body);
    expect((await add({ items: [{ traceId: 'rq-1' }, { traceId: 'rq-2' }] })).body).toEqual({ added: 2, alreadyQueued: 0 });
    expect((await add({ items: [{ traceId: 'rq-2' }, { traceId: 'rq-2', spanId: 'rq-2-llm' }] })).body).toEqual({ added: 1, alreadyQueued: 1 });
    expect((await add({ filter: { filters: { labels: ['review'] } }, limit: 100 })).body).toEqual({ added: 3, alreadyQueued: 2 });
    expect((await add({})).body.error.meta.field).toBe('body.items');
    expect((await add({ items: [{ traceId: 'rq-1' }], filter: {} })).status).toBe(400);
    expect((await add({ items: [{ traceId: 'bad id!' }] })).body.error.meta.field).toBe('body.items.0.traceId');

    const logged = await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'review-exp',
      run_id: 'run-1',
      dataset: [
        { index: 0, entry: { q: 'a' }, trace_id: 'exp-trace-1' },
        { index: 1, entry: { q: 'b' }, trace_id: 'exp-trace-2' },
        { index: 2, entry: { q: 'c' } },
      ],
      timestamps: { created_at: T0 },
    });
    expect(logged.status, logged.text).toBe(200);
    const other = await call('POST', '/api/queues', { name: 'Experiment rows', scoreConfigIds: [configs.quality] });
    const fromRun = await call('POST', `/api/queues/${other.body.data.id}/items`, { experimentRun: { experimentSlug: 'review-exp', runId: 'run-1' } });
    expect(fromRun.body).toEqual({ added: 2, alreadyQueued: 0 });
    expect((await call('POST', `/api/queues/${other.body.data.id}/items`, { experimentRun: { experimentSlug: 'review-exp', runId: 'nope' } })).status).toBe(404);
    const items = await call('GET', `/api/queues/${other.body.data.id}/items`);
    expect(items.body.data.map((i: { traceId: string; source: string }) => [i.traceId, i.source])).toEqual([
      ['exp-trace-1', 'experiment'],
      ['exp-trace-2', 'experiment'],
    ]);

    const listed = await call('GET', '/api/queues');
    expect(listed.body.data.map((q: { name: string; progress: { total: number } }) => [q.name, q.progress.total])).toEqual([
      ['Experiment rows', 2],
      ['Support answers', 6],
    ]);
    expect((await t.request('GET', '/api/queues?mine=true', asA())).body.data.map((q: { name: string }) => q.name)).toEqual(['Support answers']);
    // Another organization: not found, and nothing listed.
    expect((await call('GET', `/api/queues/${queueId}`, undefined, { authToken: a.other.projectToken })).status).toBe(404);
    expect((await call('POST', `/api/queues/${queueId}/next`, undefined, { authToken: a.other.projectToken })).status).toBe(404);
    expect((await call('GET', '/api/queues', undefined, { authToken: a.other.projectToken })).body.data).toEqual([]);
  });

  it('two reviewers claiming at once never get the same item; the one held comes back; non-members are refused', async () => {
    const next = (who: () => RequestOptions) => t.request('POST', `/api/queues/${queueId}/next`, who());
    const [x, y] = await Promise.all([next(asA), next(asB)]);
    expect(x.status, x.text).toBe(200);
    expect(y.status).toBe(200);
    expect(x.body.data.id).not.toBe(y.body.data.id);
    expect(x.body.data.claimedBy).toBe(reviewerA.userId);
    expect(x.body.claimMs).toBe(CLAIM_MS);
    expect((await next(asA)).body.data.id).toBe(x.body.data.id);
    // Many claims at once from both: still all distinct.
    const more = await Promise.all([next(asA), next(asB), next(asA), next(asB)]);
    expect(new Set(more.map((r) => r.body.data.id)).size).toBe(2);
    expect(more.map((r) => r.body.data.id).sort()).toEqual([x.body.data.id, x.body.data.id, y.body.data.id, y.body.data.id].sort());
    const queue = await call('GET', `/api/queues/${queueId}`);
    expect(queue.body.data.progress).toMatchObject({ total: 6, pending: 6, claimed: 2 });
    // A queue with members: the project key (no user) may not review it.
    const refused = await call('POST', `/api/queues/${queueId}/next`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('not_a_member');
    // B cannot complete, skip or release A's item.
    const body = { scores: [{ configId: configs.quality, value: 3 }, { configId: configs.tone, value: 'friendly' }] };
    expect((await t.request('POST', `/api/queues/${queueId}/items/${x.body.data.id}/complete`, { ...asB(), body })).status).toBe(409);
    expect((await t.request('POST', `/api/queues/${queueId}/items/${x.body.data.id}/skip`, asB())).status).toBe(409);
  });

  it('completing takes a score per config of the queue, writes the annotation and the events; skip and release', async () => {
    const next = (who: () => RequestOptions) => t.request('POST', `/api/queues/${queueId}/next`, who());
    const held = (await next(asA)).body.data;
    const complete = (body: object, who = asA) => t.request('POST', `/api/queues/${queueId}/items/${held.id}/complete`, { ...who(), body });
    const missing = await complete({ scores: [{ configId: configs.quality, value: 3 }] });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'score_required' });
    expect(missing.body.error.meta.field).toBe('body.scores');
    const notInQueue = await complete({ scores: [{ configId: configs.correct, value: true }] });
    expect(notInQueue.body.error.meta.field).toBe('body.scores.0.configId');
    const outOfRange = await complete({ scores: [{ configId: configs.quality, value: 9 }, { configId: configs.tone, value: 'friendly' }] });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.error.meta.field).toBe('body.scores.0.value');

    const done = await complete({ scores: [{ configId: configs.quality, value: 5 }, { configId: configs.tone, value: 'friendly' }], comment: 'spot on' });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'completed', doneBy: reviewerA.userId, claimedBy: null, annotationId: done.body.annotation.id });
    expect(done.body.annotation).toMatchObject({ traceId: held.traceId, comment: 'spot on', userId: reviewerA.userId, email: 'ann@review.test' });
    // No thumb given: none stored, and the traces list counts neither up nor down.
    expect(done.body.annotation.isThumbsUp).toBeNull();
    const listed = await call('POST', '/api/trace/search', { filters: { has_annotation: true } });
    expect(listed.body.traces.find((x: { trace_id: string }) => x.trace_id === held.traceId).annotations).toEqual({ thumbs_up: 0, thumbs_down: 0 });
    expect(done.body.annotation.scores.map((s: { value: unknown }) => s.value)).toEqual([5, 'friendly']);
    expect((await complete({ scores: [{ configId: configs.quality, value: 5 }, { configId: configs.tone, value: 'friendly' }] })).status).toBe(409);
    const completed = await eventsOf('queue_item.completed');
    expect(completed.at(-1)!.data).toMatchObject({ queue: { id: queueId, name: 'Support answers' }, item: { id: held.id, status: 'completed' }, annotationId: done.body.annotation.id });
    const detail = await call('GET', `/api/queues/${queueId}/items/${held.id}`);
    expect(detail.body.annotation.scores).toHaveLength(2);
    // The trace's annotations show the scores.
    const onTrace = await call('GET', `/api/annotations/trace/${held.traceId}`);
    expect(onTrace.body.data.at(-1).scores).toHaveLength(2);

    // The trace search filters by a score (its SQL interpreter; the other module's table).
    const search = async (score: object) =>
      (await call('POST', '/api/trace/search', { filters: { score } })).body.traces.map((x: { trace_id: string }) => x.trace_id);
    expect(await search({ configId: configs.quality, min: 5 })).toEqual([held.traceId]);
    expect(await search({ configId: configs.quality, max: 4 })).toEqual([]);
    expect(await search({ configId: configs.tone, value: 'friendly' })).toEqual([held.traceId]);
    expect((await call('POST', '/api/trace/search', { filters: { score: { min: 1 } } })).status).toBe(400);

    const second = (await next(asA)).body.data;
    expect(second.id).not.toBe(held.id);
    const skipped = await t.request('POST', `/api/queues/${queueId}/items/${second.id}/skip`, asA());
    expect(skipped.body.data).toMatchObject({ status: 'skipped', doneBy: reviewerA.userId });
    const third = (await next(asA)).body.data;
    const released = await t.request('POST', `/api/queues/${queueId}/items/${third.id}/release`, asA());
    expect(released.body.data).toMatchObject({ status: 'pending', claimedBy: null });
    const mine = await t.request('GET', `/api/queues/${queueId}/items?doneBy=me`, asA());
    expect(mine.body.data.map((i: { id: string }) => i.id)).toEqual([second.id, held.id]);

    const progress = (await call('GET', `/api/queues/${queueId}`)).body.data.progress;
    expect(progress).toMatchObject({ total: 6, pending: 4, completed: 1, skipped: 1, claimed: 1 });
    expect(progress.byReviewer).toEqual([
      { reviewer: reviewerA.userId, email: 'ann@review.test', completed: 1, skipped: 1, claimed: 0 },
      { reviewer: reviewerB.userId, email: 'bob@review.test', completed: 0, skipped: 0, claimed: 1 },
    ]);
  });

  it("a claim lapses after its time (the app's clock): another reviewer gets the item", async () => {
    const next = (who: () => RequestOptions) => t.request('POST', `/api/queues/${queueId}/next`, who());
    const bHolds = (await next(asB)).body.data;
    clock.advance(CLAIM_MS - 1000);
    const aGets = (await next(asA)).body.data;
    expect(aGets.id).not.toBe(bHolds.id);
    await t.request('POST', `/api/queues/${queueId}/items/${aGets.id}/release`, asA());
    clock.advance(2000);
    // B's claim expired: the first free item in queue order is B's old one again.
    const after = (await next(asA)).body.data;
    expect(after.id).toBe(bHolds.id);
    expect(after.claimedBy).toBe(reviewerA.userId);
    // B, whose claim lapsed, cannot complete it now that A holds it.
    const late = await t.request('POST', `/api/queues/${queueId}/items/${bHolds.id}/skip`, asB());
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('item_claimed');
  });

  it('claims survive a restart of the app on the same database', async () => {
    const before = (await t.request('POST', `/api/queues/${queueId}/next`, asA())).body.data;
    await t.stop();
    t = await startApp(kind, { clock, reopen: a.t });
    const bGets = await t.request('POST', `/api/queues/${queueId}/next`, asB());
    expect(bGets.status, bGets.text).toBe(200);
    expect(bGets.body.data.id).not.toBe(before.id);
    expect((await t.request('POST', `/api/queues/${queueId}/next`, asA())).body.data.id).toBe(before.id);
  });

  it("a monitor sends the traces its evaluator fails to a queue", async () => {
    const queue = await call('POST', '/api/queues', { name: 'Competitor mentions', scoreConfigIds: [configs.quality] });
    const bad = await call('POST', '/api/monitors', { name: 'x', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] }, review_queue_id: 'queue_nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field).toBe('body.review_queue_id');
    const monitor = await call('POST', '/api/monitors', {
      name: 'Competitor watch',
      evaluator: 'llm/competitor_blocklist',
      settings: { competitors: ['Acme'] },
      review_queue_id: queue.body.data.id,
    });
    expect(monitor.status, monitor.text).toBe(200);
    expect(monitor.body.review_queue_id).toBe(queue.body.data.id);
    await ingest('mon-fail', 'Try Acme instead.');
    await ingest('mon-pass', 'We are the best.');
    clock.advance(31_000);
    await t.app.services.jobs.runDue();
    const items = await call('GET', `/api/queues/${queue.body.data.id}/items`);
    expect(items.body.data.map((i: { traceId: string; source: string }) => [i.traceId, i.source])).toEqual([['mon-fail', 'monitor']]);
    // With no members, any reviewer of the project (here the project key) reviews.
    const next = await call('POST', `/api/queues/${queue.body.data.id}/next`);
    expect(next.body.data.traceId).toBe('mon-fail');
    expect(next.body.data.claimedBy).toMatch(/^key:/);
    await call('DELETE', `/api/monitors/${monitor.body.id}`);
  });

  it('deleting a queue deletes its items, not the annotations made', async () => {
    const before = (await call('GET', '/api/annotations')).body.data.length;
    expect((await call('DELETE', `/api/queues/${queueId}`)).body).toEqual({ id: queueId, deleted: true });
    expect((await call('GET', `/api/queues/${queueId}`)).status).toBe(404);
    expect((await call('GET', '/api/annotations')).body.data.length).toBe(before);
    await t.close();
  });
});
