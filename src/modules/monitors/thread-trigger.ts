import { AppError } from '../../platform/errors.ts';
import { IDLE_MINUTES } from './schemas.ts';

/** When a thread monitor runs: once a thread is idle this long, or on a schedule (exactly one is set). */
export interface ThreadTrigger {
  idle_minutes: number | null;
  schedule_minutes: number | null;
}

const NONE: ThreadTrigger = { idle_minutes: null, schedule_minutes: null };

function refuse(field: 'idle_minutes' | 'schedule_minutes', message: string): never {
  throw new AppError(400, 'validation_error', `body.${field}: ${message}`, { field: `body.${field}` });
}

/** A new monitor's trigger: a trace monitor has none; a thread monitor waits for idleness (default) or runs on its schedule. */
export function newTrigger(unit: 'trace' | 'thread', sent: { idle_minutes?: number | null; schedule_minutes?: number | null }): ThreadTrigger {
  const idle = sent.idle_minutes ?? null;
  const schedule = sent.schedule_minutes ?? null;
  if (unit === 'trace') {
    if (idle !== null) refuse('idle_minutes', 'only a thread monitor (unit thread) waits for its unit to go idle');
    if (schedule !== null) refuse('schedule_minutes', 'only a thread monitor (unit thread) runs on a schedule; a trace monitor runs on each trace as it arrives');
    return NONE;
  }
  if (idle !== null && schedule !== null) refuse('schedule_minutes', 'either idle_minutes (run once a thread is idle) or schedule_minutes (run on a schedule), not both');
  return schedule !== null ? { idle_minutes: null, schedule_minutes: schedule } : { idle_minutes: idle ?? IDLE_MINUTES.default, schedule_minutes: null };
}

/**
 * A monitor's trigger after a change: `schedule_minutes` puts a thread monitor on a schedule,
 * `idle_minutes` (or `schedule_minutes: null`) back to running once idle.
 */
export function changedTrigger(unit: 'trace' | 'thread', current: ThreadTrigger, patch: { idle_minutes?: number | null; schedule_minutes?: number | null }): ThreadTrigger {
  if (patch.idle_minutes === undefined && patch.schedule_minutes === undefined) return { idle_minutes: current.idle_minutes, schedule_minutes: current.schedule_minutes };
  if (unit === 'trace') return newTrigger(unit, patch);
  if (patch.schedule_minutes !== undefined && patch.schedule_minutes !== null) {
    if (patch.idle_minutes !== undefined && patch.idle_minutes !== null) return newTrigger(unit, patch);
    return { idle_minutes: null, schedule_minutes: patch.schedule_minutes };
  }
  return { idle_minutes: patch.idle_minutes ?? current.idle_minutes ?? IDLE_MINUTES.default, schedule_minutes: null };
}

/** Schedules count from a Monday (1970-01-05, 00:00 UTC): a 7-day schedule runs on Mondays, shorter ones on the clock. */
const SCHEDULE_ORIGIN = 4 * 86_400_000;

/**
 * When a thread that just changed is due: once idle (`now` + the idle time; each new turn
 * pushes it back), or at the schedule's next run after `now`.
 */
export function threadDueAt(trigger: ThreadTrigger, now: number): number {
  if (trigger.schedule_minutes === null) return now + (trigger.idle_minutes ?? IDLE_MINUTES.default) * 60_000;
  const every = trigger.schedule_minutes * 60_000;
  return SCHEDULE_ORIGIN + (Math.floor((now - SCHEDULE_ORIGIN) / every) + 1) * every;
}
