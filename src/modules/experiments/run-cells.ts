import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { emitEvents } from '../../platform/events/index.ts';
import { RescheduleJob, type ClaimedJob, type JobQueue } from '../../platform/jobs/index.ts';
import type { NormalizedSpan } from '../traces/index.ts';
import type { StoredDefinition, StoredTarget } from './define-experiment.ts';
import type { PlatformDeps, PlatformScope, PreparedPrompt } from './platform-context.ts';
import { RunBus, runKey, type RunEvent } from './run-bus.ts';
import { runStatus } from './run-status.ts';
import { runRedaction } from './redaction.ts';
import { backoff, callHttpAgent, sleep } from './http-target.ts';
import { resolveSource } from './sources.ts';
import * as store from './store.ts';

export const RUN_QUEUE = 'experiment-run';
export const runJobPayload = z.object({ experimentId: z.string().min(1), runId: z.string().min(1) });
export type RunJobPayload = z.output<typeof runJobPayload>;

/** What a run runs: the definition as it was when the run started (prompt versions pinned). */
export interface RunPlan {
  slug: string;
  /** a definition's targets, or a judge (judge-run.ts) */
  targets: StoredTarget[];
  /** Custom evaluators pinned at their version when the run started (settings.version, and `version`). */
  evaluators: (StoredDefinition['evaluators'][number] & { version?: number | null })[];
  concurrency: number;
  /** each row runs this many times on each target (repetition 0..k-1); absent in plans made before repetitions: 1 */
  repetitions?: number;
  dataset: { id: string; version: number } | null;
  userId: string | null;
  /** The origin of the start request, for runUrl when no SPYGLASS_PUBLIC_URL is set. */
  origin: string;
}

export interface RunRow {
  index: number;
  entry: Record<string, unknown>;
}

type Target = RunPlan['targets'][number];

interface CellOutcome {
  output: unknown;
  cost: number | null;
  duration: number;
  traceId: string | null;
  error: string | null;
  /** Settles when the call's trace is stored (a prompt's trace is recorded while the next cell runs). */
  recorded?: Promise<unknown>;
}

/** A run's prompt targets, each version looked up once (by target id). */
type PreparedPrompts = Map<string, Promise<PreparedPrompt>>;

/** Platform runs a process works on at once (each with its own concurrency of cells). */
const MAX_PARALLEL_RUNS = 4;
/** How often a running run renews its claim and looks for a stop made by another process. */
const HEARTBEAT_MS = 5_000;
/** The claim of a run job: another process takes a run over this long after its runner died. */
export const RUN_LEASE_MS = 30_000;

/**
 * Runs platform runs as jobs of the database queue (RUN_QUEUE): a job runs every cell (row,
 * target) of its run that has no result row yet, so a run taken over after a crash or a
 * restart goes on where it was; a cell is stored once (its row, evaluations and progress in
 * one transaction, keyed by the result row).
 */
export class PlatformRunner {
  readonly bus = new RunBus();
  private readonly active = new Map<string, AbortController>();
  private readonly closing = new AbortController();
  private pumping = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: PlatformDeps,
    private readonly queue: JobQueue,
    private readonly log: { error(obj: unknown, msg: string): void } = console,
  ) {
    queue.handle(RUN_QUEUE, runJobPayload, (job) => this.runJob(job));
  }

  /** Polls the queue while the app is up; stops the runs of this process when it closes (they resume later). */
  attach(http: FastifyInstance, pollMs = 1_000): void {
    http.addHook('onReady', (done) => {
      const tick = () => {
        this.kick();
        this.timer = setTimeout(tick, pollMs).unref();
      };
      this.timer = setTimeout(tick, pollMs).unref();
      done();
    });
    http.addHook('onClose', async () => {
      if (this.timer) clearTimeout(this.timer);
      this.closing.abort(new Error('the server is closing'));
      await Promise.allSettled([...this.inFlight]);
    });
  }

  /** Claims a due run job, if a slot is free (called on start and every poll). */
  kick(): void {
    if (this.closing.signal.aborted || this.pumping >= MAX_PARALLEL_RUNS) return;
    this.pumping++;
    const p = this.queue
      .runDue(1)
      .then((ran) => {
        this.pumping--;
        if (ran > 0) this.kick();
      })
      .catch((err: unknown) => {
        this.pumping--;
        this.log.error({ err }, 'experiment run queue failed');
      });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** Aborts a run this process is running (the stop route ended it in the database already). */
  stopLocal(experimentId: string, runId: string): void {
    this.active.get(runKey(experimentId, runId))?.abort(new Error('stopped'));
  }

  private async runJob(job: ClaimedJob<RunJobPayload>): Promise<void> {
    const { db } = this.deps;
    const { experimentId, runId } = job.payload;
    const run = await store.findPlatformRun(db.orm, experimentId, runId);
    if (!run || run.status !== 'running') return;
    const plan = run.plan as unknown as RunPlan;
    const rows = await store.platformRunRows(db.orm, experimentId, runId);
    const done = new Set((await store.doneCells(db.orm, experimentId, runId)).map((c) => `${c.idx}\u0000${c.targetId}\u0000${c.repetition}`));
    const repetitions = Array.from({ length: plan.repetitions ?? 1 }, (_, r) => r);
    const total = rows.length * plan.targets.length * repetitions.length;
    // a row's repetitions one after another, so a stopped run has whole rows rather than one try of each
    const cells = rows
      .flatMap((row) => plan.targets.flatMap((target) => repetitions.map((repetition) => ({ row, target, repetition }))))
      .filter((c) => !done.has(`${c.row.index}\u0000${c.target.id}\u0000${c.repetition}`));

    const key = runKey(experimentId, runId);
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, this.closing.signal]);
    // Every cell in flight listens to it (its fetch, its backoff): up to the run's concurrency, more than Node's default 10.
    setMaxListeners(4 * plan.concurrency + 10, signal);
    this.active.set(key, stop);
    const emit = (e: RunEvent) => this.bus.emit(key, e);
    const scope: PlatformScope = { organizationId: run.organizationId, projectId: run.projectId, userId: plan.userId };
    const redaction = await runRedaction(this.deps, run.projectId);
    emit({ type: 'execution_started', runId, total });
    let completed = done.size;
    const heartbeat = setInterval(() => {
      void (async () => {
        await this.queue.extendLease(job.id);
        if ((await store.platformRunStatus(db.orm, experimentId, runId)) !== 'running') stop.abort(new Error('stopped'));
      })().catch((err: unknown) => this.log.error({ err }, 'experiment run heartbeat failed'));
    }, HEARTBEAT_MS);
    const prompts: PreparedPrompts = new Map();
    /**
     * Cells called and not yet stored (trace, evaluations, row). A worker goes on to its next
     * call meanwhile, so the target is kept busy at the run's concurrency while the database
     * catches up; at most `concurrency` wait at once, and the run ends when all are stored.
     */
    const finishing = new Set<Promise<void>>();
    let failure: { error: unknown } | null = null;
    try {
      let next = 0;
      const finish = async (row: RunRow, target: Target, repetition: number, called: CellOutcome) => {
        let outcome = called;
        if (outcome.recorded) {
          try {
            await outcome.recorded;
          } catch (err) {
            // The call was made but its trace could not be stored: the cell keeps its output, without a trace.
            outcome = { ...outcome, traceId: null, error: outcome.error ?? `trace_not_recorded: ${err instanceof Error ? err.message : String(err)}` };
          }
        }
        if (signal.aborted) return; // not stored: the cell runs again when the run resumes
        const evaluations = outcome.error === null ? await this.evaluate(scope, plan, row, target, repetition, outcome, signal) : [];
        if (signal.aborted) return;
        const stored = await db.orm.transaction((tx) =>
          store.storeCell(
            tx,
            experimentId,
            runId,
            redaction.result({
              idx: row.index,
              targetId: target.id,
              repetition,
              entry: row.entry,
              predicted: outcome.error === null ? { output: outcome.output } : null,
              cost: outcome.cost,
              duration: outcome.duration,
              error: outcome.error,
              traceId: outcome.traceId,
            }),
            evaluations.map((e) => redaction.evaluation(e.stored)),
            this.deps.clock.now().getTime(),
          ),
        );
        if (!stored) return;
        completed++;
        emit({
          type: 'target_result',
          rowIndex: row.index,
          targetId: target.id,
          output: outcome.output,
          ...(outcome.cost !== null ? { cost: outcome.cost } : {}),
          duration: outcome.duration,
          ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
          ...(outcome.error ? { error: outcome.error } : {}),
        });
        if (outcome.error) emit({ type: 'error', message: outcome.error.split(':')[0], rowIndex: row.index, targetId: target.id, ...(outcome.traceId ? { traceId: outcome.traceId } : {}) });
        for (const e of evaluations) emit(e.event);
        emit({ type: 'progress', completed, total });
      };
      const worker = async () => {
        while (!signal.aborted && !failure && next < cells.length) {
          const { row, target, repetition } = cells[next++];
          emit({ type: 'cell_started', rowIndex: row.index, targetId: target.id });
          const outcome = await this.callTarget(scope, plan, experimentId, runId, row, target, prompts, signal);
          if (signal.aborted) break; // not stored: the cell runs again when the run resumes
          const done: Promise<void> = finish(row, target, repetition, outcome).then(
            () => void finishing.delete(done),
            (error: unknown) => {
              finishing.delete(done);
              failure ??= { error };
            },
          );
          finishing.add(done);
          while (finishing.size >= plan.concurrency) await Promise.race(finishing);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, cells.length)) }, worker));
      await Promise.all(finishing);
      if (failure) throw (failure as { error: unknown }).error;
    } finally {
      clearInterval(heartbeat);
      this.active.delete(key);
    }
    if (this.closing.signal.aborted) throw new RescheduleJob(this.deps.clock.now().getTime());
    if (stop.signal.aborted) {
      emit({ type: 'stopped', reason: 'user' });
      return;
    }
    await this.finish(scope, plan, experimentId, runId);
    const status = await runStatus(this.deps, run.projectId, runId, plan.slug, this.deps.publicUrl ?? plan.origin);
    if (status.status === 'stopped') emit({ type: 'stopped', reason: 'user' });
    else if (status.summary) emit({ type: 'done', summary: status.summary });
  }

  private async finish(scope: PlatformScope, plan: RunPlan, experimentId: string, runId: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.orm.transaction(async (tx) => {
      const ended = await store.endRun(tx, experimentId, runId, { finishedAt: now.getTime() }, now.getTime());
      if (!ended) return; // stopped meanwhile
      await store.setPlatformRunStatus(tx, experimentId, runId, 'completed');
      await emitEvents(tx, [finishedEvent(scope, { id: experimentId, slug: plan.slug }, ended, 'completed')], now);
    });
  }

  private async callTarget(
    scope: PlatformScope,
    plan: RunPlan,
    experimentId: string,
    runId: string,
    row: RunRow,
    target: Target,
    prompts: PreparedPrompts,
    signal: AbortSignal,
  ): Promise<CellOutcome> {
    if (target.type === 'prompt') return this.callPrompt(scope, row, target, prompts, signal);
    if (target.type === 'evaluator') return this.callJudge(scope, row, target, signal);
    return this.callHttp(scope, plan, experimentId, runId, row, target, signal);
  }

  /**
   * A judge as the target: the row's data to the evaluator at its pinned version; its answer
   * (status, passed, score, label, details) is the output, an error answer the cell's error.
   * The cell links to the trace the row judges, when the target names its column.
   */
  private async callJudge(scope: PlatformScope, row: RunRow, target: Extract<Target, { type: 'evaluator' }>, signal: AbortSignal): Promise<CellOutcome> {
    const data = Object.fromEntries(Object.entries(target.mapping).map(([k, src]) => [k, resolveSource(src, row.entry, null)]));
    const traced = target.trace ? resolveSource(target.trace, row.entry, null) : null;
    const traceId = typeof traced === 'string' && traced ? traced : null;
    const t0 = performance.now();
    let result: Awaited<ReturnType<PlatformDeps['evaluators']['run']>>;
    try {
      result = await this.deps.evaluators.run(scope, target.evaluator, data, target.settings, signal);
    } catch (err) {
      if (signal.aborted) return aborted(t0);
      result = { status: 'error', details: err instanceof Error ? err.message : String(err), error_type: err instanceof AppError ? err.code : 'Error' };
    }
    if (signal.aborted) return aborted(t0);
    const duration = Math.round(performance.now() - t0);
    const cost = result.cost?.amount ?? null;
    if (result.status === 'error') return { output: null, cost, duration, traceId, error: `judge_error: ${result.details ?? result.error_type ?? 'the judge failed'}` };
    const output = { status: result.status, passed: result.passed ?? null, score: result.score ?? null, label: result.label ?? null, details: result.details ?? null };
    return { output, cost, duration, traceId, error: null };
  }

  private async callPrompt(scope: PlatformScope, row: RunRow, target: Extract<Target, { type: 'prompt' }>, prompts: PreparedPrompts, signal: AbortSignal): Promise<CellOutcome> {
    const variables = Object.fromEntries(Object.entries(target.variables ?? {}).map(([name, src]) => [name, resolveSource(src, row.entry, null)]));
    const t0 = performance.now();
    let prepared = prompts.get(target.id);
    if (!prepared) {
      prepared = this.deps.prompts.prepare(scope, target.prompt, { version: target.version });
      prepared.catch(() => undefined); // each cell reports it
      prompts.set(target.id, prepared);
    }
    // Every attempt's trace (a failed call is recorded too) is stored before the cell.
    const recordings: Promise<void>[] = [];
    const recorded = () => Promise.all(recordings);
    for (let attempt = 1; ; attempt++) {
      try {
        const call = (await prepared)({ variables, model: target.model }, signal);
        recordings.push(call.recorded);
        const answer = await call.answer;
        return { output: answer.output.content, cost: answer.cost?.amount ?? null, duration: answer.latency_ms, traceId: answer.trace_id, error: null, recorded: recorded() };
      } catch (err) {
        if (signal.aborted) return aborted(t0);
        if (err instanceof AppError && (err.status === 502 || err.status === 429) && attempt < this.deps.retry.attempts) {
          const seconds = err.retryAfterSeconds;
          await sleep(backoff(this.deps.retry.baseMs, attempt, seconds === undefined ? undefined : seconds * 1000, this.deps.retry.maxRetryAfterMs), signal);
          continue;
        }
        const traceId = err instanceof AppError && typeof err.meta?.trace_id === 'string' ? err.meta.trace_id : null;
        const message = err instanceof AppError ? `${err.code}: ${err.message}` : `target_error: ${err instanceof Error ? err.message : String(err)}`;
        return { output: null, cost: null, duration: Math.round(performance.now() - t0), traceId, error: message, recorded: recorded() };
      }
    }
  }

  private async callHttp(scope: PlatformScope, plan: RunPlan, experimentId: string, runId: string, row: RunRow, target: Extract<Target, { type: 'http' }>, signal: AbortSignal): Promise<CellOutcome> {
    const started = this.deps.clock.now().getTime();
    const t0 = performance.now();
    let headers: Record<string, string> = {};
    try {
      if (target.sealed_headers) headers = this.deps.targetHeaders.open(experimentId, target.id, target.sealed_headers);
    } catch (err) {
      // A key removed from SPYGLASS_ENCRYPTION_KEY: say so, never call the agent without its credentials.
      return { output: null, cost: null, duration: 0, traceId: null, error: `headers_unreadable: the target's headers do not open (${err instanceof Error ? err.message : String(err)}); save them again` };
    }
    const called = await callHttpAgent(this.deps, target, headers, row.entry, signal);
    if (called.aborted) return aborted(t0);
    const { answer, output, error, duration } = called;
    // Stored before the cell (as a prompt's trace is): a trace that cannot be stored is the cell's error.
    const { traceId, recorded } = this.recordAgentTrace(scope, plan, runId, row, target, { started, duration, answer, output, error });
    return { output, cost: null, duration, traceId, error, recorded };
  }

  /** The agent call as a trace of the project (through trace ingest): its id, and its recording. */
  private recordAgentTrace(
    scope: PlatformScope,
    plan: RunPlan,
    runId: string,
    row: RunRow,
    target: Extract<Target, { type: 'http' }>,
    call: { started: number; duration: number; answer: unknown; output: unknown; error: string | null },
  ): { traceId: string; recorded: Promise<void> } {
    const traceId = randomBytes(16).toString('hex');
    const span: NormalizedSpan = {
      trace_id: traceId,
      span_id: randomBytes(8).toString('hex'),
      parent_id: null,
      name: `agent ${target.name}`,
      type: 'agent',
      model: null,
      vendor: null,
      started_at: call.started,
      finished_at: call.started + call.duration,
      first_token_at: null,
      params: {},
      metrics: { prompt_tokens: null, completion_tokens: null, cached_input_tokens: null, reasoning_tokens: null, tokens_estimated: false, cost: null },
      input: { type: 'json', value: row.entry },
      output: call.error === null ? (typeof call.output === 'string' ? { type: 'text', value: call.output } : { type: 'json', value: call.output }) : null,
      error: call.error === null ? null : { has_error: true, message: call.error, stacktrace: [] },
      trace_metadata: {
        labels: ['experiment-run'],
        ...(plan.userId ? { user_id: plan.userId } : {}),
        extra: { experiment_slug: plan.slug, run_id: runId, row_index: row.index, target_id: target.id },
      },
      attributes: { 'spyglass.experiment.slug': plan.slug, 'spyglass.experiment.run_id': runId, 'http.url': target.url },
      resource: { 'service.name': 'spyglass' },
      scope: { name: 'spyglass.experiments', version: null },
      events: [],
      links: [],
      status: call.error === null ? { code: 'ok', message: null } : { code: 'error', message: call.error },
      kind: 'client',
    };
    return { traceId, recorded: this.deps.record(scope, [span]) };
  }

  private async evaluate(scope: PlatformScope, plan: RunPlan, row: RunRow, target: Target, repetition: number, outcome: CellOutcome, signal: AbortSignal) {
    return Promise.all(
      plan.evaluators.map(async (e) => {
        const data = Object.fromEntries(Object.entries(e.mapping).map(([k, src]) => [k, resolveSource(src, row.entry, outcome.output)]));
        const t0 = performance.now();
        let result: Awaited<ReturnType<PlatformDeps['evaluators']['run']>>;
        try {
          result = await this.deps.evaluators.run(scope, e.evaluator, data, e.settings, signal);
        } catch (err) {
          result = { status: 'error', details: err instanceof Error ? err.message : String(err), error_type: err instanceof AppError ? err.code : 'Error' };
        }
        const duration = Math.round(performance.now() - t0);
        const details = result.details ?? (result.status === 'error' ? (result.error_type ?? 'error') : undefined);
        const stored: store.EvaluationIn = {
          idx: row.index,
          targetId: target.id,
          repetition,
          evaluator: e.id,
          name: e.name,
          status: result.status,
          score: result.score ?? null,
          label: result.label ?? null,
          passed: result.passed ?? null,
          details: details ?? null,
          cost: result.cost?.amount ?? null,
          duration,
          inputs: data,
        };
        const event: RunEvent = {
          type: 'evaluator_result',
          rowIndex: row.index,
          targetId: target.id,
          evaluatorId: e.id,
          evaluatorName: e.name,
          result: {
            status: result.status,
            ...(result.score !== undefined ? { score: result.score } : {}),
            ...(result.passed !== undefined ? { passed: result.passed } : {}),
            ...(result.label !== undefined ? { label: result.label } : {}),
            ...(details !== undefined ? { details } : {}),
            ...(result.cost ? { cost: result.cost.amount } : {}),
          },
          duration,
          inputs: data,
        };
        return { stored, event };
      }),
    );
  }
}

export function finishedEvent(
  scope: { organizationId: string; projectId: string },
  experiment: { id: string; slug: string; name?: string | null },
  run: store.RunRow,
  status: 'completed' | 'stopped',
) {
  return {
    organizationId: scope.organizationId,
    projectId: scope.projectId,
    type: 'experiment_run.finished' as const,
    data: {
      experiment: { id: experiment.id, slug: experiment.slug, name: experiment.name ?? null },
      run: {
        runId: run.runId,
        status,
        createdAt: run.createdAt,
        finishedAt: run.finishedAt,
        stoppedAt: run.stoppedAt,
        progress: run.progress,
        total: run.total,
      },
    },
  };
}

const aborted = (t0: number): CellOutcome => ({ output: null, cost: null, duration: Math.round(performance.now() - t0), traceId: null, error: 'aborted' });
