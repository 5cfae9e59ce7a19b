/**
 * Days and weeks in a reader's IANA time zone (reports' periods), through Intl: a day starts
 * at local midnight, a week on Monday; DST days are 23 or 25 hours long.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether Intl knows the zone (Europe/Paris, America/New_York, UTC, ...). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The local calendar date at an instant, and its weekday (0: Monday). */
export function localDate(timeZone: string, ms: number): { y: number; m: number; d: number; weekday: number } {
  const parts = formatter(timeZone).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return { y: Number(get('year')), m: Number(get('month')), d: Number(get('day')), weekday: WEEKDAYS.indexOf(get('weekday')) };
}

/** Milliseconds the zone is ahead of UTC at an instant. */
function offsetAt(timeZone: string, ms: number): number {
  const parts = formatter(timeZone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(ms / 1000) * 1000;
}

/** The instant local midnight begins the date (y, m, d); m and d may overflow (Date.UTC's rules). */
export function localMidnight(timeZone: string, y: number, m: number, d: number): number {
  const wall = Date.UTC(y, m - 1, d);
  // Twice: the offset at the guess may differ from the offset at midnight across a DST change.
  const guess = wall - offsetAt(timeZone, wall);
  return wall - offsetAt(timeZone, guess);
}

/**
 * The last period (a local day, or a week from Monday) that ended at or before `ms`:
 * [start, end), end being a local midnight.
 */
export function lastEndedPeriod(timeZone: string, cadence: 'daily' | 'weekly', ms: number): { start: number; end: number } {
  const today = localDate(timeZone, ms);
  const back = cadence === 'daily' ? 0 : today.weekday;
  const end = localMidnight(timeZone, today.y, today.m, today.d - back);
  const start = localMidnight(timeZone, today.y, today.m, today.d - back - (cadence === 'daily' ? 1 : 7));
  return { start, end };
}

/** The period before [start, end) of the same cadence. */
export function previousPeriod(timeZone: string, cadence: 'daily' | 'weekly', p: { start: number; end: number }): { start: number; end: number } {
  return lastEndedPeriod(timeZone, cadence, p.start);
}
