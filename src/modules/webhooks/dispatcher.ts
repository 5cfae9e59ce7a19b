import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/index.ts';
import { DAY_MS, DayPartitions, dayOf } from '../../db/day-partitions.ts';
import type { WebhookEventPayload } from '../../db/schema/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { EVENTS_CHANNEL } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { parseRetryAfter } from '../../platform/retry-after.ts';
import { subscribes } from './catalogue.ts';
import { deliver, type DeliveryResult } from './delivery.ts';
import {
  DISABLE_AFTER_FAILING_MS,
  isRetryableStatus,
  LOG_RETENTION_MS,
  OUTBOX_RETENTION_MS,
  nextAttemptDelayMs,
  REQUEST_TIMEOUT_MS,
} from './retry.ts';
import type { EndpointSecrets } from './secrets.ts';
import { signedHeaders } from './signing.ts';
import * as store from './store.ts';

export interface DispatcherOptions {
  /** How often the background loop looks for work (ms); 0: no background loop in this process. */
  pollMs: number;
  allowPrivateDestinations: boolean;
  requestTimeoutMs?: number;
  /** Attempts in flight at once in this process. */
  maxInFlight?: number;
  /** Events read from the outbox per fan-out transaction. */
  fanOutChunk?: number;
  /** How long a claimed batch belongs to this process before another may take it over. */
  leaseMs?: number;
  /** Counts delivery outcomes. */
  metrics?: Metrics;
}

export interface PassResult {
  /** Outbox events fanned out to batches. */
  fannedOut: number;
  /** Batches claimed and attempted. */
  attempted: number;
  /**
   * Committed events wait behind a transaction still open elsewhere (or another process is
   * fanning out): their commit notified already, so the loop looks again soon instead of at
   * the next poll.
   */
  waiting?: boolean;
}

/**
 * The first look again for events waiting behind an open transaction (on PostgreSQL, any
 * transaction of the cluster that began before they committed); it doubles up to
 * WAITING_RETRY_MAX_MS (or the poll interval when shorter).
 */
const WAITING_RETRY_MS = 10;
const WAITING_RETRY_MAX_MS = 200;

const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** The outbox's days made ahead of today (and back): events are written in the day of their time. */
const OUTBOX_DAYS_AHEAD = 3;
const OUTBOX_DAYS_BACK = 1;

/**
 * Moves events from the outbox to receivers, off the request path:
 * 1. fan-out: settled outbox events after the cursor go into per-endpoint batches (one
 *    transaction with the cursor move, so an event is batched exactly once);
 * 2. claim: due batches are claimed with FOR UPDATE SKIP LOCKED and a lease, so several
 *    processes on one PostgreSQL send each batch once;
 * 3. send: signed POST, 10 s deadline, no redirects, body read up to 64 KiB;
 * 4. settle: the attempt is logged, the batch delivered, retried later or failed, and the
 *    endpoint disabled after 72 hours of nothing but failures.
 * Every time decision uses the injected clock.
 */
export class WebhookDispatcher {
  private readonly requestTimeoutMs: number;
  private readonly maxInFlight: number;
  private readonly fanOutChunk: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private passes: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** A background pass is running; a wake meanwhile sets `again` instead of queueing another. */
  private passing = false;
  private again = false;
  /**
   * The next pass must fan out and claim whatever there is; when false, it was asked for by a
   * commit's NOTIFY alone, and checks first that an endpoint could want the events (below).
   */
  private fullPassWanted = true;
  private lastFullPassAt = -Infinity;
  private stopListening: (() => Promise<void>) | null = null;
  private waitingRetryMs = WAITING_RETRY_MS;
  private abort: AbortController;
  private lastPruneAt: number | null = null;
  /** The outbox partitioned by the day events are written on (migration 0070). */
  private readonly outboxDays: DayPartitions;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly secrets: EndpointSecrets,
    private readonly options: DispatcherOptions,
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.maxInFlight = options.maxInFlight ?? 16;
    this.fanOutChunk = options.fanOutChunk ?? 500;
    this.leaseMs = options.leaseMs ?? Math.max(60_000, this.requestTimeoutMs * 3);
    this.abort = this.newAbortController();
    this.outboxDays = new DayPartitions(db, ['events'], logger);
  }

  /**
   * Runs the background loop while the app is up (when pollMs > 0), woken by every commit that
   * wrote outbox events (LISTEN: this process's and, on PostgreSQL, other processes'); the poll
   * is the fallback (retries coming due, a lost notification). Stops when the app closes.
   */
  attach(app: FastifyInstance): void {
    let madeDays: Promise<void> = Promise.resolve();
    app.addHook('onReady', async () => {
      // Every process writes events: the days around today get their partitions, off the start
      // (an event written before they exist goes to the default partition, pruned row by row).
      madeDays = this.makeOutboxDays();
      if (this.options.pollMs <= 0) return;
      // One process owns a PGlite database: batches it was sending when it last stopped (killed) are nobody's now.
      if (this.db.kind === 'pglite') await store.releaseClaims(this.db.orm, this.clock.now());
      this.start();
      try {
        this.stopListening = await this.db.listen(EVENTS_CHANNEL, () => this.eventsCommitted());
      } catch (err) {
        this.logger.warn({ err }, 'webhook dispatcher cannot LISTEN for new events: it polls only');
      }
    });
    app.addHook('onClose', async () => {
      await madeDays;
      await this.stop();
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = this.newAbortController();
    this.schedule(0);
  }

  /** Stops the loop; attempts in flight are cut short and logged as retryable. */
  async stop(): Promise<void> {
    this.running = false;
    await this.stopListening?.();
    this.stopListening = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.passes.catch(() => {});
    await Promise.allSettled([...this.inFlight]);
    this.abort = this.newAbortController();
  }

  /** Every attempt in flight listens to the one signal: up to maxInFlight listeners is expected, not a leak. */
  private newAbortController(): AbortController {
    const controller = new AbortController();
    setMaxListeners(this.maxInFlight + 8, controller.signal);
    return controller;
  }

  /** Asks the loop to look for work now (events were committed, an attempt ended, a test event was queued). */
  wake(): void {
    this.fullPassWanted = true;
    this.eventsCommitted();
  }

  /**
   * A commit wrote events (NOTIFY). Under ingest that is every transaction: a whole pass
   * each time (backlog check, fan-out transaction with its flush to disk, claim) took the
   * database from ingest when no endpoint could want the events. Such a pass asks first
   * whether an endpoint is enabled and stops there if none is; the cursor then moves past the
   * events at the next full pass (the poll, at least every pollMs).
   */
  private eventsCommitted(): void {
    if (!this.running) return;
    if (this.passing) this.again = true;
    else this.schedule(0);
  }

  /**
   * One pass (fan out, claim, send, prune), waiting until every attempt it started is
   * settled. Tests call it instead of waiting for the loop.
   */
  async runOnce(): Promise<PassResult> {
    const result = await this.serialized(() => this.pass());
    await Promise.allSettled([...this.inFlight]);
    return result;
  }

  /**
   * Passes until nothing is left to do now: every outbox event fanned out and no batch
   * due. Waits (up to `timeoutMs`) for events of transactions still open elsewhere.
   */
  async drain(timeoutMs = 15_000): Promise<PassResult> {
    const total: PassResult = { fannedOut: 0, attempted: 0 };
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const r = await this.runOnce();
      total.fannedOut += r.fannedOut;
      total.attempted += r.attempted;
      if (r.fannedOut || r.attempted) continue;
      if (!(await store.hasOutboxBacklog(this.db.orm))) return total;
      if (performance.now() > deadline) throw new Error('webhook drain: outbox events stayed unsettled (a long transaction is open)');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** `poll`: the pass is the regular poll's, a full one (see eventsCommitted). */
  private schedule(delayMs: number, poll = false): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.passing = true;
      this.again = false;
      const full = poll || this.fullPassWanted || performance.now() - this.lastFullPassAt >= this.options.pollMs;
      this.fullPassWanted = false;
      void this.serialized(() => (full ? this.pass() : this.passIfEndpoints()))
        .catch((err): PassResult => {
          this.logger.error({ err }, 'webhook dispatcher pass failed');
          return { fannedOut: 0, attempted: 0 };
        })
        .then((r) => {
          this.passing = false;
          // Work found, or events waiting for an open transaction: the next look is a full one.
          if (r.fannedOut > 0 || r.attempted > 0 || r.waiting) this.fullPassWanted = true;
          if (r.fannedOut > 0 || r.attempted > 0 || this.again) {
            this.waitingRetryMs = WAITING_RETRY_MS;
            return this.schedule(0);
          }
          if (r.waiting) {
            this.schedule(Math.min(this.waitingRetryMs, this.options.pollMs));
            this.waitingRetryMs = Math.min(this.waitingRetryMs * 2, WAITING_RETRY_MAX_MS);
            return;
          }
          this.waitingRetryMs = WAITING_RETRY_MS;
          this.schedule(this.options.pollMs, true);
        });
    }, delayMs);
    this.timer.unref();
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.passes.catch(() => {}).then(fn);
    this.passes = next;
    return next;
  }

  /** A pass, when an endpoint is enabled (a commit's NOTIFY asked for it). */
  private async passIfEndpoints(): Promise<PassResult> {
    if (!(await store.anyEnabledEndpoint(this.db.orm))) return { fannedOut: 0, attempted: 0 };
    return this.pass();
  }

  private async pass(): Promise<PassResult> {
    this.lastFullPassAt = performance.now();
    let fannedOut = 0;
    let waiting = false;
    for (;;) {
      const n = await this.fanOut();
      if (n === 'waiting') waiting = true;
      else fannedOut += n;
      if (n === 'waiting' || n < this.fanOutChunk) break;
    }
    const attempted = await this.claimAndSend();
    await this.pruneIfDue();
    return { fannedOut, attempted, waiting };
  }

  /** Fans out one chunk of settled outbox events; returns how many, or 'waiting' when there are only unsettled ones. */
  private async fanOut(): Promise<number | 'waiting'> {
    // An idle poll only reads: locking the cursor row would write (and assign a transaction id) every tick.
    if (!(await store.hasOutboxBacklog(this.db.orm))) return 0;
    return this.db.orm.transaction(async (tx) => {
      const cursor = await store.lockCursor(tx);
      if (!cursor) return 'waiting'; // another process is fanning out
      const events = await store.settledEventsAfter(tx, cursor, this.fanOutChunk);
      if (events.length === 0) return 'waiting';
      const now = this.clock.now();

      const projectIds = [...new Set(events.flatMap((e) => (e.projectId ? [e.projectId] : [])))];
      const organizationIds = [...new Set(events.filter((e) => !e.projectId).map((e) => e.organizationId))];
      const endpoints = await store.candidateEndpoints(tx, projectIds, organizationIds);
      for (const endpoint of endpoints) {
        const matching = events.filter(
          (e) =>
            BigInt(e.txid) > BigInt(endpoint.createdTxid) &&
            (e.projectId ? e.projectId === endpoint.projectId : endpoint.receivesOrganizationEvents && e.organizationId === endpoint.organizationId) &&
            subscribes(endpoint.enabledEvents, e.type),
        );
        if (matching.length) await this.batch(tx, endpoint, matching.map(toPayload), now);
      }
      const last = events[events.length - 1];
      await store.advanceCursor(tx, { txid: last.txid, seq: last.seq }, now);
      return events.length;
    });
  }

  /** Adds events to the endpoint's open batch, then to new ones, `max_batch_size` at most each. */
  private async batch(tx: Executor, endpoint: store.EndpointRow, events: WebhookEventPayload[], now: Date): Promise<void> {
    let rest = events;
    const open = await store.lockOpenDispatch(tx, endpoint.id);
    if (open) {
      const room = Math.max(0, endpoint.maxBatchSize - open.eventCount);
      const taken = rest.slice(0, room);
      if (taken.length) {
        const full = open.eventCount + taken.length >= endpoint.maxBatchSize;
        await store.appendToDispatch(tx, open.id, taken, full ? now : null, now);
        rest = rest.slice(taken.length);
      }
    }
    while (rest.length) {
      const chunk = rest.slice(0, endpoint.maxBatchSize);
      rest = rest.slice(chunk.length);
      const full = chunk.length >= endpoint.maxBatchSize;
      await store.insertDispatch(tx, {
        id: newId('msg'),
        endpointId: endpoint.id,
        status: 'open',
        events: chunk,
        eventCount: chunk.length,
        nextAttemptAt: full ? now : new Date(now.getTime() + endpoint.maxBatchDelayMs),
        createdAt: now,
        updatedAt: now,
      });
    }
  }

  /** Claims as many due batches as there is room for and starts sending them; returns how many. */
  private async claimAndSend(): Promise<number> {
    const room = this.maxInFlight - this.inFlight.size;
    if (room <= 0) return 0;
    const now = this.clock.now();
    const claimed = await store.claimDue(this.db.orm, now, new Date(now.getTime() + this.leaseMs), room);
    if (claimed.length === 0) return 0;
    const endpoints = new Map((await store.endpointsByIds(this.db.orm, [...new Set(claimed.map((c) => c.endpointId))])).map((e) => [e.id, e]));
    for (const dispatch of claimed) {
      const endpoint = endpoints.get(dispatch.endpointId);
      if (!endpoint) continue; // deleted meanwhile: its batches went with it
      const attempt = this.attempt(endpoint, dispatch)
        .catch((err) => this.logger.error({ err, dispatchId: dispatch.id }, 'webhook attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  private async attempt(endpoint: store.EndpointRow, dispatch: store.ClaimedDispatch): Promise<void> {
    const payload =
      dispatch.payload ?? (await store.fixPayload(this.db.orm, dispatch.id, JSON.stringify({ batch: dispatch.events.map(orderedEvent) })));
    const firedAt = this.clock.now();
    const secrets = [this.secrets.open(endpoint.id, { keyId: endpoint.secretKeyId, sealed: endpoint.secretSealed })];
    if (
      endpoint.previousSecretSealed &&
      endpoint.previousSecretKeyId &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt.getTime() > firedAt.getTime()
    ) {
      secrets.push(this.secrets.open(endpoint.id, { keyId: endpoint.previousSecretKeyId, sealed: endpoint.previousSecretSealed }));
    }
    const result = await deliver({
      url: endpoint.url,
      headers: signedHeaders(secrets, dispatch.id, firedAt, payload),
      body: payload,
      timeoutMs: this.requestTimeoutMs,
      allowPrivateDestinations: this.options.allowPrivateDestinations,
      signal: this.abort.signal,
    });
    await this.settle(endpoint, dispatch, firedAt, result);
  }

  private async settle(endpoint: store.EndpointRow, dispatch: store.ClaimedDispatch, firedAt: Date, result: DeliveryResult): Promise<void> {
    const now = this.clock.now();
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const retryable = !delivered && (result.status !== null ? isRetryableStatus(result.status) : result.failure !== 'refused_destination');
    // One value: Node keeps the first Retry-After of a response and discards repeats.
    const delay = retryable ? nextAttemptDelayMs(dispatch.attempt, parseRetryAfter(result.headers['retry-after'], now.getTime())) : null;
    const outcome = delivered ? 'delivered' : delay !== null ? 'retrying' : 'failed';
    this.options.metrics?.webhookDelivery(outcome);
    const nextAttemptAt = delay !== null ? new Date(now.getTime() + delay) : null;
    let error = result.error;
    if (outcome === 'failed' && retryable) error = `${error}; no attempts left`;

    await this.db.orm.transaction(async (tx) => {
      const current = await store.findEndpointById(tx, endpoint.id, true);
      if (!current) return; // deleted while the attempt ran
      await store.insertAttempt(tx, {
        id: newId('atmpt'),
        endpointId: endpoint.id,
        dispatchId: dispatch.id,
        attempt: dispatch.attempt,
        eventCount: dispatch.eventCount,
        responseStatus: result.status,
        latencyMs: result.latencyMs,
        error,
        outcome,
        nextAttemptAt,
        firedAt,
      });
      await store.settleDispatch(tx, dispatch.id, dispatch.attempt, { status: outcome, nextAttemptAt }, now);
      if (delivered) {
        await store.updateEndpoint(tx, endpoint.id, { failingSince: null, lastSuccessAt: now });
        return;
      }
      const failingSince = current.failingSince ?? firedAt;
      const disable = current.enabled && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
      await store.updateEndpoint(tx, endpoint.id, {
        failingSince,
        ...(disable
          ? {
              enabled: false,
              disabledAt: now,
              disabledReason: `disabled after 72 hours in which every delivery attempt failed (since ${failingSince.toISOString()}); last error: ${error ?? 'unknown'}`,
              updatedAt: now,
            }
          : {}),
      });
      if (disable) this.logger.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after 72 hours of failures');
    });
  }

  private async pruneIfDue(): Promise<void> {
    const now = this.clock.now().getTime();
    if (this.lastPruneAt !== null && now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    await store.prune(this.db.orm, new Date(now - LOG_RETENTION_MS));
    await this.makeOutboxDays();
    await this.dropOutboxDays(now - OUTBOX_RETENTION_MS);
    await store.pruneOutbox(this.db.orm, new Date(now - OUTBOX_RETENTION_MS));
  }

  /** Makes the outbox's partitions of the days around today (on start, and with each prune). */
  async makeOutboxDays(): Promise<void> {
    const today = dayOf(this.clock.now().getTime());
    try {
      await this.outboxDays.ensure(Array.from({ length: OUTBOX_DAYS_BACK + OUTBOX_DAYS_AHEAD + 1 }, (_, i) => today - OUTBOX_DAYS_BACK + i));
    } catch (err) {
      // Events of a day without its partition go to the default one (pruned row by row): never fatal.
      this.logger.warn({ err }, "the outbox's day partitions could not be made");
    }
  }

  /**
   * Drops the outbox's days that ended before `beforeMs` and whose every event the cursor has
   * passed (fanned out: each batch keeps its own copy), each in one short transaction. An event
   * is kept from a day (its day ended after it) to two days (it opened its day).
   */
  private async dropOutboxDays(beforeMs: number): Promise<void> {
    for (const day of await this.outboxDays.days()) {
      if ((day + 1) * DAY_MS > beforeMs) break;
      await this.outboxDays.drop(day, (tx) => store.outboxDayPassed(tx, day));
    }
  }
}

function toPayload(e: store.OutboxEvent): WebhookEventPayload {
  return { id: e.id, type: e.type, schema_version: e.schemaVersion, timestamp: e.createdAt.toISOString(), data: e.data };
}

/** jsonb reorders keys; receivers read the documented order. */
function orderedEvent(e: WebhookEventPayload): WebhookEventPayload {
  return { id: e.id, type: e.type, schema_version: e.schema_version, timestamp: e.timestamp, data: e.data };
}
