import type * as z from 'zod/mini';
import { oneOf, words } from './search.ts';
import type { SearchFilters } from '../api/types.ts';

/**
 * The trace filter as the web app has it: one entry per filter, keyed by its name in the URL
 * (`?user=u1&error=yes`). Each says its label, how its URL text is read (`url`), what it sets in
 * the server's filter (`apply`) and, for the filters a monitor or an alert rule keeps, how a
 * stored filter reads back as URL text (`read`). The traces list's URL, its toolbar, chips,
 * count and "clear", and the monitor form, are all made from this table; each filter's editor
 * is in components/filter-editors.tsx under the same key. A new filter is one entry here and
 * one there.
 *
 * React-free: index.html's early request bundles it (early.ts).
 */
export interface TraceFilterDescriptor {
  /** What the chip and the monitor's chips call it. */
  label: string;
  /** How its URL text is read (lib/search.ts): absent when it does not fit. */
  url: UrlField;
  /** The server's filter with this filter's URL text applied. */
  apply(text: string, filters: SearchFilters): void;
  /** A stored filter (a monitor's, an alert rule's) as this filter's URL text: the chips of a stored filter, the monitor form. */
  read(filters: SearchFilters): string | undefined;
  /** Whether a monitor's filter takes it (what a trace summary decides). */
  monitors: boolean;
  /** The server's key it sets (the field a refusal names: `filters.<key>`). */
  serverKey: keyof SearchFilters;
}

/** A URL field: optional text (the URL is text); one of some values is text too. */
type UrlField = z.ZodMiniCatch<z.ZodMiniOptional<z.ZodMiniType<string>>>;

const list = (v: string | undefined) => {
  const items = (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
};
const joined = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : v);

export function parseMeta(meta: string | undefined): Record<string, string> | undefined {
  const pairs = list(meta)
    ?.map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()] as const)
    .filter(([k]) => k.length > 0);
  return pairs?.length ? Object.fromEntries(pairs) : undefined;
}

/** The score filter of the URL: a config and a range (numeric) or a value (boolean, categorical). */
export interface ScoreFilterText {
  configId: string;
  min?: number;
  max?: number;
  value?: string;
}

export function parseScoreFilter(text: string | undefined): ScoreFilterText | null {
  if (!text) return null;
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  const configId = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (rest.startsWith('=')) return rest.length > 1 ? { configId, value: rest.slice(1) } : { configId };
  const [lo, hi] = rest.split('..');
  const num = (v: string | undefined) => (v === undefined || v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));
  const out: ScoreFilterText = { configId };
  if (num(lo) !== undefined) out.min = num(lo);
  if (num(hi) !== undefined) out.max = num(hi);
  return out;
}

export function formatScoreFilter(f: ScoreFilterText): string {
  if (f.value !== undefined) return `${f.configId}:=${f.value}`;
  return `${f.configId}:${f.min ?? ''}..${f.max ?? ''}`;
}

type ListKey = 'user_id' | 'thread_id' | 'customer_id' | 'labels' | 'model' | 'span_type' | 'topic';

/** A comma-separated list: any of these values. */
function anyOf(label: string, serverKey: ListKey, monitors = true): TraceFilterDescriptor {
  return {
    label,
    url: words(),
    serverKey,
    apply(text, filters) {
      const values = list(text);
      if (values) filters[serverKey] = values;
    },
    read: (filters) => joined(filters[serverKey]),
    monitors,
  };
}

/** yes / no: whether traces have it. */
function yesNo(label: string, serverKey: 'has_error' | 'has_annotation', monitors: boolean): TraceFilterDescriptor {
  return {
    label,
    url: oneOf(['yes', 'no']),
    serverKey,
    apply(text, filters) {
      filters[serverKey] = text === 'yes';
    },
    read: (filters) => (filters[serverKey] === undefined ? undefined : filters[serverKey] ? 'yes' : 'no'),
    monitors,
  };
}

/** Every filter of the traces list, in the order the toolbar and the chips show them. */
export const TRACE_FILTERS = {
  user: anyOf('User', 'user_id'),
  thread: anyOf('Thread', 'thread_id'),
  customer: anyOf('Customer', 'customer_id'),
  labels: anyOf('Labels', 'labels'),
  model: anyOf('Model', 'model'),
  type: anyOf('Span type', 'span_type'),
  error: yesNo('Error', 'has_error', true),
  annotated: yesNo('Annotated', 'has_annotation', false),
  eval: {
    label: 'Evaluation',
    url: oneOf(['passed', 'failed']),
    serverKey: 'evaluation',
    apply(text, filters) {
      filters.evaluation = { ...filters.evaluation, passed: text === 'passed' };
    },
    read: (filters) => (filters.evaluation?.passed === undefined ? undefined : filters.evaluation.passed ? 'passed' : 'failed'),
    monitors: false,
  },
  evaluator: {
    label: 'Evaluator',
    url: words(),
    serverKey: 'evaluation',
    apply(text, filters) {
      filters.evaluation = { ...filters.evaluation, evaluator: text };
    },
    read: (filters) => filters.evaluation?.evaluator,
    monitors: false,
  },
  /** key=value pairs, comma-separated */
  meta: {
    label: 'Metadata',
    url: words(),
    serverKey: 'metadata',
    apply(text, filters) {
      const meta = parseMeta(text);
      if (meta) filters.metadata = meta;
    },
    read: (filters) =>
      filters.metadata === undefined
        ? undefined
        : Object.entries(filters.metadata)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(', ') || undefined,
    monitors: true,
  },
  /** A review score (parseScoreFilter): `<config id>:<min>..<max>` or `<config id>:=<value>` */
  score: {
    label: 'Score',
    url: words(),
    serverKey: 'score',
    apply(text, filters) {
      const score = parseScoreFilter(text);
      if (!score) return;
      // Boolean configs take true/false; the server compares a categorical value as text.
      const value = score.value === 'true' ? true : score.value === 'false' ? false : score.value;
      filters.score = { configId: score.configId, ...(score.min !== undefined ? { min: score.min } : {}), ...(score.max !== undefined ? { max: score.max } : {}), ...(value !== undefined ? { value } : {}) };
    },
    read: (filters) => (filters.score ? formatScoreFilter({ ...filters.score, value: filters.score.value === undefined ? undefined : String(filters.score.value) }) : undefined),
    monitors: false,
  },
  /** Topic ids (GET /api/topics), comma-separated */
  topic: anyOf('Topic', 'topic', false),
} satisfies Record<string, TraceFilterDescriptor>;

export type TraceFilterKey = keyof typeof TRACE_FILTERS;
export const TRACE_FILTER_KEYS = Object.keys(TRACE_FILTERS) as TraceFilterKey[];

/** The URL text of each filter. */
export type TraceFilterText = { [K in TraceFilterKey]?: string };

/** The URL's schema of the filters (list-search.ts adds search, range, sort and columns). */
export const traceFilterUrl = Object.fromEntries(TRACE_FILTER_KEYS.map((k) => [k, TRACE_FILTERS[k].url])) as { [K in TraceFilterKey]: UrlField };

/** The server's filter of the filters' URL text. */
export function toSearchFilters(text: TraceFilterText): SearchFilters {
  const filters: SearchFilters = {};
  for (const key of TRACE_FILTER_KEYS) {
    const value = text[key];
    if (value) TRACE_FILTERS[key].apply(value, filters);
  }
  return filters;
}

/** How many filters have a value: the filter button's badge. */
export const filterCount = (text: TraceFilterText) => TRACE_FILTER_KEYS.filter((k) => text[k]).length;

/** The search with no filter set (search text, range, sort and columns kept): "Clear filters". */
export function withoutFilters<S extends TraceFilterText>(search: S): S {
  const out = { ...search };
  for (const key of TRACE_FILTER_KEYS) delete out[key];
  return out;
}

/** The filters a monitor or an alert rule keeps (what a trace summary decides), in table order. */
export const MONITOR_FILTER_KEYS = TRACE_FILTER_KEYS.filter((k) => TRACE_FILTERS[k].monitors);

/** A stored filter (an alert rule's may have any) as URL text, every filter it sets. */
export function filterTextOf(filters: SearchFilters | null | undefined, keys: readonly TraceFilterKey[] = TRACE_FILTER_KEYS): TraceFilterText {
  const text: TraceFilterText = {};
  for (const key of keys) {
    const d: TraceFilterDescriptor = TRACE_FILTERS[key];
    const value = filters ? d.read(filters) : undefined;
    if (value) text[key] = value;
  }
  return text;
}

/** The monitor filter the form's text says; null: every trace. */
export function monitorFilters(text: TraceFilterText): SearchFilters | null {
  const only: TraceFilterText = {};
  for (const key of MONITOR_FILTER_KEYS) if (text[key]) only[key] = text[key];
  const filters = toSearchFilters(only);
  return Object.keys(filters).length ? filters : null;
}
