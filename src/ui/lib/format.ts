/** Display formats: compact, fixed-width friendly, never "NaN". */

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms === 0) return '0 ms';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '–';
  if (usd === 0) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatTokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * One time zone for every time the app shows: the browser's own, or UTC when the user chose
 * it (the account menu; kept in this browser). One format too: the browser locale's clock
 * (12- or 24-hour as the locale has it), never a fixed hour cycle on one page and not another.
 */
export type TimeZoneChoice = 'local' | 'UTC';
const TZ_KEY = 'spyglass.timeZone';
export function timeZoneChoice(): TimeZoneChoice {
  try {
    return globalThis.localStorage?.getItem(TZ_KEY) === 'UTC' ? 'UTC' : 'local';
  } catch {
    return 'local';
  }
}
export function setTimeZoneChoice(choice: TimeZoneChoice): void {
  try {
    if (choice === 'UTC') localStorage.setItem(TZ_KEY, 'UTC');
    else localStorage.removeItem(TZ_KEY);
  } catch {
    /* private mode: the choice lasts this page */
  }
  formats.clear();
}
/** The IANA zone of the choice, for Intl (undefined: the browser's). */
export const timeZone = (): string | undefined => (timeZoneChoice() === 'UTC' ? 'UTC' : undefined);
/** Minutes the chosen time zone is ahead of UTC now: the server starts chart days at its midnight. */
export const utcOffsetMinutes = (): number => (timeZoneChoice() === 'UTC' ? 0 : -new Date().getTimezoneOffset());

const formats = new Map<string, Intl.DateTimeFormat>();
/** An Intl formatter in the chosen time zone (cached per options). */
export function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let f = formats.get(key);
  if (!f) {
    const zone = timeZone();
    f = new Intl.DateTimeFormat(undefined, { ...options, ...(zone ? { timeZone: zone } : {}) });
    formats.set(key, f);
  }
  return f;
}
/** " UTC" after a time when the user chose UTC (local times go without a suffix). */
const zoneSuffix = () => (timeZoneChoice() === 'UTC' ? ' UTC' : '');

export const formatTime = (ms: number) => dateFormat({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit' }).format(ms);
export const formatFullTime = (ms: number | string) => dateFormat({ dateStyle: 'medium', timeStyle: 'medium' }).format(typeof ms === 'string' ? Date.parse(ms) : ms) + zoneSuffix();
/** A date and a time to the minute (settings lists, monitor results). */
export const formatShortDateTime = (ms: number | string) => dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(typeof ms === 'string' ? Date.parse(ms) : ms);

export function formatRelative(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return formatTime(ms);
}

/** One line of a long text for a table cell. */
export const oneLine = (text: string | null | undefined, max = 300) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, max);

/**
 * A value as text: a string as it is, another scalar as String() writes it, nothing for null
 * or undefined, anything else as JSON (never "[object Object]").
 */
export function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** A datetime-local input's value for a time (the browser's time zone, to the minute); `Date.parse` of it gives the time back. */
export function localInputValue(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
