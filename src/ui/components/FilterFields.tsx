import { SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { MonitorFilters } from '../api/types.ts';
import { parseMeta } from '../lib/list-search.ts';

/** The trace filter's summary keys as a form edits them: comma lists, key=value pairs, any / yes / no. */
export interface FilterText {
  labels: string;
  user_id: string;
  model: string;
  span_type: string;
  customer_id: string;
  metadata: string;
  has_error: string;
}

const joined = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : (v ?? ''));
const list = (v: string) => {
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
};

export function filterText(f: MonitorFilters | null | undefined): FilterText {
  const g = f ?? {};
  return {
    labels: joined(g.labels),
    user_id: joined(g.user_id),
    model: joined(g.model),
    span_type: joined(g.span_type),
    customer_id: joined(g.customer_id),
    metadata: Object.entries(g.metadata ?? {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', '),
    has_error: g.has_error === undefined ? 'any' : g.has_error ? 'yes' : 'no',
  };
}

/** The filter a form's text says; null: every trace. */
export function filtersOf(text: FilterText): MonitorFilters | null {
  const filters: MonitorFilters = {};
  for (const key of ['labels', 'user_id', 'model', 'span_type', 'customer_id'] as const) {
    const values = list(text[key]);
    if (values) filters[key] = values;
  }
  if (text.has_error !== 'any') filters.has_error = text.has_error === 'yes';
  const metadata = parseMeta(text.metadata);
  if (metadata) filters.metadata = metadata;
  return Object.keys(filters).length ? filters : null;
}

/**
 * Which traces: the fields of a monitor's or an alert rule's trace filter. `errorAt` names the
 * refusal of a filter key (`has_error`, `metadata`...) to show next to its field.
 */
export function FilterFields({
  value,
  onChange,
  idPrefix,
  errorAt,
}: {
  value: FilterText;
  onChange: (next: FilterText) => void;
  idPrefix: string;
  errorAt?: (key: keyof FilterText) => string | undefined;
}) {
  const text = (key: keyof FilterText, label: string, placeholder: string) => (
    <TextInput size="sm" label={label} placeholder={placeholder} value={value[key]} onChange={(e) => onChange({ ...value, [key]: e.currentTarget.value })} error={errorAt?.(key)} />
  );
  const hasErrorRefused = errorAt?.('has_error');
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {text('labels', 'Labels', 'any of: production, beta')}
        {text('user_id', 'User id', 'user-1, user-2')}
        {text('model', 'Model', 'gpt-4o-mini')}
        {text('span_type', 'Span type', 'llm, rag')}
        {text('customer_id', 'Customer id', 'acme')}
        {text('metadata', 'Metadata', 'key=value, key2=value2')}
      </SimpleGrid>
      <div>
        <Text size="sm" fw={500} mb={4} id={`${idPrefix}-has-error`}>
          Has error
        </Text>
        <SegmentedControl
          size="xs"
          aria-labelledby={`${idPrefix}-has-error`}
          value={value.has_error}
          onChange={(v) => onChange({ ...value, has_error: v })}
          data={[
            { value: 'any', label: 'Any' },
            { value: 'yes', label: 'Yes' },
            { value: 'no', label: 'No' },
          ]}
        />
        {hasErrorRefused && (
          <Text size="xs" c="red.9" role="alert">
            {hasErrorRefused}
          </Text>
        )}
      </div>
    </Stack>
  );
}
