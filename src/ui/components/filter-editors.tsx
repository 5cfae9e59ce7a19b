import type { ReactNode } from 'react';
import { Group, NativeSelect, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useParams } from '@tanstack/react-router';
import { useScoreConfigs, type ScoreConfig } from '../api/review.ts';
import { formatScoreFilter, parseScoreFilter, TRACE_FILTERS, type TraceFilterKey, type TraceFilterText } from '../lib/trace-filters.ts';

/**
 * How each trace filter is edited, keyed as lib/trace-filters.ts's table is: the traces
 * list's Filters popover and the monitor form draw these. `layout` places it: a text field in
 * the grid, a choice in the row of choices, or a wide field on a line of its own. A filter
 * without an editor (topic: chosen on the Topics page) is shown and removed as a chip only.
 */
export interface FilterEditorProps {
  value: string | undefined;
  onChange: (next: string | undefined) => void;
  size: 'xs' | 'sm';
  /** Makes ids unique on the page (a choice's label points at its control). */
  idPrefix: string;
  /** A refusal of this filter by the server, shown next to it. */
  error?: string;
}
export interface FilterEditor {
  layout: 'field' | 'choice' | 'wide';
  render(props: FilterEditorProps): ReactNode;
}

function textEditor(label: string, placeholder: string, layout: 'field' | 'wide' = 'field', description?: string): FilterEditor {
  return {
    layout,
    render: ({ value, onChange, size, error }) => (
      <TextInput size={size} label={label} description={description} placeholder={placeholder} value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value || undefined)} error={error} />
    ),
  };
}

function choiceEditor(label: string, choices: { value: string; label: string }[]): FilterEditor {
  return {
    layout: 'choice',
    render: ({ value, onChange, size, idPrefix, error }) => {
      const id = `${idPrefix}-${label.toLowerCase().replace(/\W+/g, '-')}`;
      return (
        <div>
          <Text size={size} fw={500} mb={4} id={id}>
            {label}
          </Text>
          <SegmentedControl size="xs" aria-labelledby={id} value={value ?? 'any'} onChange={(v) => onChange(v === 'any' ? undefined : v)} data={[{ value: 'any', label: 'Any' }, ...choices]} />
          {error && (
            <Text size="xs" c="red.9" role="alert">
              {error}
            </Text>
          )}
        </div>
      );
    },
  };
}

const YES_NO = [
  { value: 'yes', label: 'Yes' },
  { value: 'no', label: 'No' },
];

export const FILTER_EDITORS: Record<TraceFilterKey, FilterEditor | null> = {
  user: textEditor('User id', 'user-1, user-2'),
  thread: textEditor('Thread id', 'thread id'),
  customer: textEditor('Customer id', 'customer id'),
  labels: textEditor('Labels', 'any of: a, b'),
  model: textEditor('Model', 'gpt-4o-mini'),
  type: textEditor('Span type', 'llm, tool, rag'),
  error: choiceEditor('Has error', YES_NO),
  annotated: choiceEditor('Has annotation', YES_NO),
  eval: choiceEditor('Evaluation', [
    { value: 'passed', label: 'Passed' },
    { value: 'failed', label: 'Failed' },
  ]),
  evaluator: textEditor('Evaluator', 'e.g. pii/pii_detection or its name', 'wide'),
  meta: textEditor('Metadata', 'key=value, key2=value2', 'wide', 'Traces whose metadata has every pair'),
  score: { layout: 'wide', render: ({ value, onChange }) => <ScoreFilterInput value={value} onChange={onChange} /> },
  topic: null,
};

/** The project's score configs, on pages under /p/<projectId> (the list and analytics). */
export function useProjectScoreConfigs(): ScoreConfig[] | undefined {
  const { projectId } = useParams({ strict: false });
  const configs = useScoreConfigs(projectId ?? '');
  return projectId ? configs.data : undefined;
}

/** The score filter: a config, then a range (numeric) or a value (boolean, categorical). */
/** The score filter: a config, then a range (numeric) or a value (boolean, categorical). The threads list uses it for thread scores. */
export function ScoreFilterInput({ value, onChange, label = 'Review score' }: { value: string | undefined; onChange: (next: string | undefined) => void; label?: string }) {
  const configs = useProjectScoreConfigs();
  const f = parseScoreFilter(value);
  const config = configs?.find((c) => c.id === f?.configId);
  if (!configs?.length) return null;
  const set = (next: { min?: number; max?: number; value?: string }) => config && onChange(formatScoreFilter({ configId: config.id, ...next }));
  const bound = (text: string) => (text.trim() === '' || !Number.isFinite(Number(text)) ? undefined : Number(text));
  return (
    <Group gap="xs" align="flex-end" wrap="nowrap">
      <NativeSelect
        size="xs"
        label={label}
        value={config?.id ?? ''}
        onChange={(e) => {
          const id = e.currentTarget.value;
          onChange(id ? formatScoreFilter({ configId: id }) : undefined);
        }}
        data={[{ value: '', label: 'Any' }, ...configs.map((c) => ({ value: c.id, label: c.name }))]}
        style={{ flex: '1 1 0', minWidth: 0 }}
      />
      {config?.kind === 'numeric' && (
        <>
          <TextInput size="xs" label="At least" inputMode="decimal" placeholder={String(config.min ?? '')} value={f?.min ?? ''} onChange={(e) => set({ min: bound(e.currentTarget.value), max: f?.max })} w={80} />
          <TextInput size="xs" label="At most" inputMode="decimal" placeholder={String(config.max ?? '')} value={f?.max ?? ''} onChange={(e) => set({ min: f?.min, max: bound(e.currentTarget.value) })} w={80} />
        </>
      )}
      {config && config.kind !== 'numeric' && (
        <NativeSelect
          size="xs"
          label="Value"
          value={f?.value ?? ''}
          onChange={(e) => set(e.currentTarget.value ? { value: e.currentTarget.value } : {})}
          data={[{ value: '', label: 'Any' }, ...(config.kind === 'boolean' ? ['true', 'false'] : config.categories).map((v) => ({ value: v, label: v }))]}
          style={{ flex: '1 1 0', minWidth: 0 }}
        />
      )}
    </Group>
  );
}

/**
 * The editors of `keys`, in table order: text fields in a grid, choices in a row, wide fields
 * each on a line. `errorAt` names the server's refusal of a filter (by its server key).
 */
export function FilterEditors({
  keys,
  value,
  onChange,
  size,
  idPrefix,
  errorAt,
}: {
  keys: readonly TraceFilterKey[];
  value: TraceFilterText;
  onChange: (next: TraceFilterText) => void;
  size: 'xs' | 'sm';
  idPrefix: string;
  errorAt?: (serverKey: string) => string | undefined;
}) {
  const shown = keys.flatMap((key) => {
    const editor = FILTER_EDITORS[key];
    return editor ? [{ key, editor }] : [];
  });
  const draw = ({ key, editor }: (typeof shown)[number]) => (
    <div key={key} data-filter={key}>
      {editor.render({ value: value[key], onChange: (next) => onChange({ ...value, [key]: next }), size, idPrefix, error: errorAt?.(TRACE_FILTERS[key].serverKey) })}
    </div>
  );
  return (
    <Stack gap={size}>
      <SimpleGrid cols={size === 'xs' ? 2 : { base: 1, sm: 2 }} spacing={size}>
        {shown.filter((e) => e.editor.layout === 'field').map(draw)}
      </SimpleGrid>
      <Group gap="lg">{shown.filter((e) => e.editor.layout === 'choice').map(draw)}</Group>
      {shown.filter((e) => e.editor.layout === 'wide').map(draw)}
    </Stack>
  );
}
