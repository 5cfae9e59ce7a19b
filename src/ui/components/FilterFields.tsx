import type { MonitorFilters } from '../api/types.ts';
import { filterTextOf, MONITOR_FILTER_KEYS, monitorFilters, TRACE_FILTERS, type TraceFilterText } from '../lib/trace-filters.ts';
import { FilterEditors } from './filter-editors.tsx';

/** The filters a monitor or an alert rule keeps, as a form edits them: each filter's URL text (lib/trace-filters.ts). */
export type FilterText = TraceFilterText;

/** A stored filter as the form's text. */
export const filterText = (f: MonitorFilters | null | undefined): FilterText => filterTextOf(f, MONITOR_FILTER_KEYS);

/** The request fields a refusal of the stored filter names (`filters.<server key>`), one per field of the form. */
export const FILTER_FIELDS = MONITOR_FILTER_KEYS.map((k) => `filters.${TRACE_FILTERS[k].serverKey}`);

/** The filter a form's text says; null: every trace. */
export const filtersOf = (text: FilterText): MonitorFilters | null => monitorFilters(text);

/**
 * Which traces: the fields of a monitor's or an alert rule's trace filter (the table's filters a
 * trace summary decides, thread among them). `errorAt` names the refusal of a filter key
 * (`has_error`, `metadata`...) to show next to its field.
 */
export function FilterFields({ value, onChange, idPrefix, errorAt }: { value: FilterText; onChange: (next: FilterText) => void; idPrefix: string; errorAt?: (key: string) => string | undefined }) {
  return <FilterEditors keys={MONITOR_FILTER_KEYS} value={value} onChange={onChange} size="sm" idPrefix={idPrefix} errorAt={errorAt} />;
}
