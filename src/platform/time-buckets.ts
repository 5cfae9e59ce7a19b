import { sql, type SQL } from 'drizzle-orm';
import { AppError, badRequest } from './errors.ts';
import { epochMs } from './date-input.ts';

/** Bucket widths of time series (analytics, monitor pass rates). */
export const INTERVAL_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
export type Interval = keyof typeof INTERVAL_MS;
export const INTERVALS = Object.keys(INTERVAL_MS) as Interval[];

/** `auto` picks the finest interval giving at most this many buckets (a chart stays readable). */
export const MAX_AUTO_BUCKETS = 200;
/** An explicit interval may give at most this many (an hour by minute is fine, a month by minute is not). */
export const MAX_BUCKETS = 2_000;
/**
 * Buckets align to the epoch in the caller's time zone, given as its offset from UTC (0: UTC):
 * days start at its midnight; weeks start on Monday (1970-01-05 was one).
 */
const WEEK_ORIGIN = 4 * 86_400_000;


/**
 * Buckets of epoch-ms times as data: `widthMs` wide, aligned to `origin` (a time's bucket is
 * named by its start). Modules pass this to each other; the store of the module whose column
 * is bucketed turns it into SQL (bucketSql).
 */
export interface BucketSpec {
  origin: number;
  widthMs: number;
}

/**
 * The SQL expression of the bucket start (epoch ms, float8) of a bigint epoch-ms column. Integer
 * division of positive bigints floors (times are past 1970-01-02, beyond any offset); the float8
 * cast reads as a number from PGlite and pg alike.
 */
export function bucketSql(spec: BucketSpec, column: SQL): SQL {
  const o = Math.trunc(spec.origin);
  const ms = Math.trunc(spec.widthMs);
  return sql`((((${column}) - ${sql.raw(String(o))}::bigint) / ${sql.raw(String(ms))}::bigint) * ${sql.raw(String(ms))}::bigint + ${sql.raw(String(o))}::bigint)::float8`;
}

export interface Bucketing {
  interval: Interval;
  intervalMs: number;
  /** Bucket starts, oldest first, covering [start, end]. */
  starts: number[];
  /** The buckets as data (what one module passes another; the store of the bucketed column turns it into SQL). */
  spec: BucketSpec;
}

/** Epoch ms of a date sent as epoch ms or ISO 8601; 400 naming the field when it is not one. */
export function toMillis(v: number | string, field: string): number {
  const ms = epochMs(v);
  if (Number.isNaN(ms)) throw badRequest('invalid_date', `${field}: not a date: ${v}`, field);
  return ms;
}

export function bucketing(start: number, end: number, requested: Interval | 'auto', field = 'interval', utcOffsetMinutes = 0): Bucketing {
  // Local midnight is UTC midnight minus the offset: every origin moves back by it.
  const origin = (iv: Interval) => (iv === 'week' ? WEEK_ORIGIN : 0) - utcOffsetMinutes * 60_000;
  const floorTo = (t: number, iv: Interval) => Math.floor((t - origin(iv)) / INTERVAL_MS[iv]) * INTERVAL_MS[iv] + origin(iv);
  const count = (iv: Interval) => Math.floor((floorTo(end, iv) - floorTo(start, iv)) / INTERVAL_MS[iv]) + 1;
  const interval = requested === 'auto' ? (INTERVALS.find((iv) => count(iv) <= MAX_AUTO_BUCKETS) ?? 'week') : requested;
  const n = count(interval);
  if (n > MAX_BUCKETS) {
    throw new AppError(400, 'too_many_buckets', `${field}: ${interval} over this range gives ${n} buckets (at most ${MAX_BUCKETS}); choose a longer interval or auto`, { field });
  }
  const ms = INTERVAL_MS[interval];
  const first = floorTo(start, interval);
  const o = origin(interval);
  return {
    interval,
    intervalMs: ms,
    starts: Array.from({ length: n }, (_, i) => first + i * ms),
    spec: { origin: o, widthMs: ms },
  };
}
