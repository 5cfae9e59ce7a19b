import { AppError } from './errors.ts';

/**
 * Admission control for writes that wait for a commit (ingest). Work is admitted only while
 * what waits stays within two bounds: one for the process and one per key (a project), so
 * one noisy project can fill at most its own share and never starve the others. Past a
 * bound the caller answers 503 with Retry-After: OTLP exporters retry on it, so nothing
 * acknowledged is lost and nothing is acknowledged that will not be written.
 */
export interface AdmissionLimits {
  /** Weight (spans) admitted and not yet committed, for the whole process. */
  total: number;
  /** The same, per key. */
  perKey: number;
  /** What is full, as the 503's message says it; by default the ingest queue (of the server, of this project). */
  full?: (who: 'the server' | 'this project') => string;
}

export class Admission {
  private queued = 0;
  private readonly byKey = new Map<string, number>();
  /** Weight committed per second, smoothed: what Retry-After is estimated from. */
  private rate = 0;
  private lastRelease = 0;
  shed = 0;
  admitted = 0;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get load(): { queued: number; limit: number } {
    return { queued: this.queued, limit: this.limits.total };
  }

  /** Whether the process's queue is at its bound (readiness reports it). */
  get full(): boolean {
    return this.queued >= this.limits.total;
  }

  /**
   * Refuses at once when a bound is already reached: called before a request's body is read,
   * so a shed request costs neither the memory nor the decoding of its body.
   */
  checkRoom(key: string): void {
    if (this.queued >= this.limits.total) throw this.refuse('the server');
    if ((this.byKey.get(key) ?? 0) >= this.limits.perKey) throw this.refuse('this project');
  }

  /**
   * Admits `weight` for `key`, or throws the 503. A single piece heavier than a bound is
   * admitted when nothing else of its kind waits, or it could never be written. The returned
   * function gives the room back once the work is committed (or has failed).
   */
  admit(key: string, weight: number): () => void {
    const mine = this.byKey.get(key) ?? 0;
    if (this.queued > 0 && this.queued + weight > this.limits.total) throw this.refuse('the server');
    if (mine > 0 && mine + weight > this.limits.perKey) throw this.refuse('this project');
    this.queued += weight;
    this.byKey.set(key, mine + weight);
    this.admitted += weight;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.queued -= weight;
      const left = (this.byKey.get(key) ?? weight) - weight;
      if (left > 0) this.byKey.set(key, left);
      else this.byKey.delete(key);
      this.observe(weight);
    };
  }

  private observe(weight: number) {
    const t = this.now();
    const dt = (t - this.lastRelease) / 1000;
    this.lastRelease = t;
    if (dt <= 0 || dt > 10) return;
    const instant = weight / dt;
    this.rate = this.rate === 0 ? instant : 0.9 * this.rate + 0.1 * instant;
  }

  /** Seconds until the queue has drained at the rate commits are going: 1..30. */
  retryAfterSeconds(): number {
    if (this.rate <= 0) return 1;
    return Math.min(30, Math.max(1, Math.ceil(this.queued / this.rate)));
  }

  private refuse(who: 'the server' | 'this project'): AppError {
    this.shed++;
    const retryAfterSeconds = this.retryAfterSeconds();
    const full = this.limits.full?.(who) ?? `the ingest queue of ${who} is full`;
    return new AppError(503, 'ingest_queue_full', `${full}: retry after ${retryAfterSeconds} s (nothing of this request was stored)`, {
      retryAfterSeconds,
    });
  }
}

/**
 * Requests per second per key (an API key), as a token bucket that holds one second's
 * worth: past it the caller answers 429 with Retry-After. 0 turns it off.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(key: string): void {
    if (this.perSecond <= 0) return;
    const t = this.now();
    const burst = Math.max(1, this.perSecond);
    const b = this.buckets.get(key) ?? { tokens: burst, at: t };
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    if (b.tokens < 1) {
      this.buckets.set(key, b);
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
      throw new AppError(429, 'rate_limited', `this API key sends more than ${this.perSecond} ingest requests per second: retry after ${retryAfterSeconds} s`, {
        retryAfterSeconds,
      });
    }
    b.tokens -= 1;
    this.buckets.set(key, b);
    // Full buckets carry no state: forget them, so the map holds only keys being limited.
    if (this.buckets.size > 10_000) for (const [k, v] of this.buckets) if (v.tokens + ((t - v.at) / 1000) * this.perSecond >= burst) this.buckets.delete(k);
  }
}
