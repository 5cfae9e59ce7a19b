import { useState, type ReactNode } from 'react';
import { Badge, Button, CloseButton, Group, NativeSelect, Pill, Popover, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconFilter, IconSearch } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import { useScoreConfigs } from '../api/review.ts';
import type { ScoreConfig } from '../api/review.ts';
import { useTopicNames } from '../api/topics.ts';
import { activeFilterCount, formatScoreFilter, parseScoreFilter, RANGE_PRESETS, type ListSearch, type ListSort } from '../lib/list-search.ts';

const SORTS = [
  { value: 'time:desc', label: 'Newest first' },
  { value: 'time:asc', label: 'Oldest first' },
  { value: 'cost:desc', label: 'Highest cost' },
  { value: 'latency:desc', label: 'Slowest' },
  { value: 'latency:asc', label: 'Fastest' },
];

/**
 * Search box, time range, filters and sort of the traces list; every change goes to the URL.
 * The analytics dashboard shows it without sort and without "All time" (a chart has a range);
 * the threads list without sort (its table's headers sort threads).
 */
export function ListToolbar({ search, onChange, forCharts = false, sortable = !forCharts }: { search: ListSearch; onChange: (next: ListSearch) => void; forCharts?: boolean; sortable?: boolean }) {
  const [query, setQuery] = useState(search.q ?? '');
  // A search from outside (the URL: back, a link) replaces what is typed; adjusted while
  // rendering, as React recommends for state that follows a prop.
  const [shownQ, setShownQ] = useState(search.q);
  if (search.q !== shownQ) {
    setShownQ(search.q);
    setQuery(search.q ?? '');
  }
  const pushQuery = useDebouncedCallback((q: string) => onChange({ ...search, q: q || undefined }), 300);
  const sortValue = `${search.sort ?? 'time'}:${search.dir ?? 'desc'}`;
  const configs = useProjectScoreConfigs();
  // A score sort (chosen at its column's header) is offered here too, under the config's name.
  const scoreSort = search.sort?.startsWith('score:') ? configs?.find((c) => `score:${c.id}` === search.sort) : undefined;
  const sorts = scoreSort
    ? [...SORTS, { value: `score:${scoreSort.id}:desc`, label: `${scoreSort.name}: highest` }, { value: `score:${scoreSort.id}:asc`, label: `${scoreSort.name}: lowest` }]
    : SORTS;

  return (
    <Stack gap={6}>
      <div className="list-toolbar">
        <TextInput
          aria-label="Search traces"
          placeholder='Search input and output: words, "a phrase", -exclude'
          leftSection={<IconSearch size={14} aria-hidden />}
          value={query}
          onChange={(e) => {
            setQuery(e.currentTarget.value);
            pushQuery(e.currentTarget.value);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onChange({ ...search, q: query || undefined });
          }}
          rightSection={query ? <CloseButton size="sm" aria-label="Clear search" onClick={() => (setQuery(''), onChange({ ...search, q: undefined }))} /> : null}
          style={{ flex: '1 1 260px' }}
          size="sm"
        />
        <NativeSelect
          aria-label="Time range"
          size="sm"
          value={search.range ?? ''}
          onChange={(e) => {
            const range = e.currentTarget.value || undefined;
            onChange({ ...search, range, ...(range !== 'custom' ? { from: undefined, to: undefined } : {}) });
          }}
          data={[...(forCharts ? [] : [{ value: '', label: 'All time' }]), ...RANGE_PRESETS.map((p) => ({ value: p.value, label: p.label })), { value: 'custom', label: 'Custom range…' }]}
          w={150}
        />
        <FiltersPopover search={search} onChange={onChange} />
        {sortable && (
        <NativeSelect
          aria-label="Sort"
          size="sm"
          value={sorts.some((s) => s.value === sortValue) ? sortValue : 'time:desc'}
          onChange={(e) => {
            const v = e.currentTarget.value;
            const sort = v.slice(0, v.lastIndexOf(':')) as ListSort;
            const dir = v.slice(v.lastIndexOf(':') + 1) as 'asc' | 'desc';
            onChange({ ...search, sort: sort === 'time' ? undefined : sort, dir: dir === 'desc' ? undefined : dir });
          }}
          data={sorts}
          w={scoreSort ? 190 : 140}
          className="list-sort"
        />
        )}
      </div>
      {search.range === 'custom' && (
        <Group gap="xs">
          <TextInput type="datetime-local" size="xs" label="From" value={search.from ?? ''} onChange={(e) => onChange({ ...search, from: e.currentTarget.value || undefined })} />
          <TextInput type="datetime-local" size="xs" label="To" value={search.to ?? ''} onChange={(e) => onChange({ ...search, to: e.currentTarget.value || undefined })} />
        </Group>
      )}
      <ActiveFilters search={search} onChange={onChange} />
    </Stack>
  );
}

const FILTER_LABELS: [keyof ListSearch, string][] = [
  ['user', 'User'],
  ['thread', 'Thread'],
  ['customer', 'Customer'],
  ['labels', 'Labels'],
  ['model', 'Model'],
  ['type', 'Span type'],
  ['error', 'Error'],
  ['annotated', 'Annotated'],
  ['eval', 'Evaluation'],
  ['evaluator', 'Evaluator'],
  ['meta', 'Metadata'],
  ['score', 'Score'],
  ['topic', 'Topic'],
];

/** The project's score configs, on pages under /p/<projectId> (the list and analytics). */
function useProjectScoreConfigs(): ScoreConfig[] | undefined {
  const { projectId } = useParams({ strict: false });
  const configs = useScoreConfigs(projectId ?? '');
  return projectId ? configs.data : undefined;
}

/** A score filter as people read it: "Quality 3..5", "Tone = rude". */
function describeScoreFilter(text: string, configs: ScoreConfig[] | undefined): string {
  const f = parseScoreFilter(text);
  if (!f) return text;
  const name = configs?.find((c) => c.id === f.configId)?.name ?? f.configId;
  if (f.value !== undefined) return `${name} = ${f.value}`;
  if (f.min !== undefined && f.max !== undefined) return `${name} ${f.min}..${f.max}`;
  if (f.min !== undefined) return `${name} ≥ ${f.min}`;
  if (f.max !== undefined) return `${name} ≤ ${f.max}`;
  return `${name}: any`;
}

/** The project's topics' names by id, read only when a topic filter is shown. */
function useProjectTopicNames(wanted: boolean): Map<string, string> | undefined {
  const { projectId } = useParams({ strict: false });
  const names = useTopicNames(projectId ?? '', wanted && !!projectId);
  return names;
}

/** Topic ids as their names ("Refunds, Shipping"); an id whose topic is gone stays an id. */
function describeTopics(ids: string, names: Map<string, string> | undefined): string {
  return ids
    .split(',')
    .map((id) => names?.get(id.trim()) ?? id.trim())
    .join(', ');
}

function ActiveFilters({ search, onChange }: { search: ListSearch; onChange: (next: ListSearch) => void }) {
  const configs = useProjectScoreConfigs();
  const topicNames = useProjectTopicNames(!!search.topic);
  const active = FILTER_LABELS.filter(([k]) => search[k]);
  if (!active.length) return null;
  return (
    <Group gap={6} aria-label="Active filters">
      {active.map(([k, label]) => (
        <Pill key={k} withRemoveButton onRemove={() => onChange({ ...search, [k]: undefined })} removeButtonProps={{ 'aria-label': `Remove filter ${label}` }}>
          {label}: {k === 'score' ? describeScoreFilter(search.score!, configs) : k === 'topic' ? describeTopics(search.topic!, topicNames) : String(search[k])}
        </Pill>
      ))}
      <Button
        size="compact-xs"
        variant="subtle"
        onClick={() => onChange({ q: search.q, range: search.range, from: search.from, to: search.to, sort: search.sort, dir: search.dir })}
      >
        Clear filters
      </Button>
    </Group>
  );
}

function FiltersPopover({ search, onChange }: { search: ListSearch; onChange: (next: ListSearch) => void }) {
  const [opened, setOpened] = useState(false);
  const [draft, setDraft] = useState<ListSearch>(search);
  // Opening starts the draft from the current search: edits abandoned by closing are dropped.
  const open = (next: boolean) => {
    if (next) setDraft(search);
    setOpened(next);
  };
  const count = activeFilterCount({ ...search, range: undefined });
  const text = (key: keyof ListSearch, label: string, placeholder: string, description?: ReactNode) => (
    <TextInput
      size="xs"
      label={label}
      description={description}
      placeholder={placeholder}
      value={draft[key] ?? ''}
      onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value || undefined })}
    />
  );
  const tri = (key: 'error' | 'annotated', label: string) => (
    <div>
      <Text size="xs" fw={500} mb={4} id={`f-${key}`}>
        {label}
      </Text>
      <SegmentedControl
        size="xs"
        aria-labelledby={`f-${key}`}
        value={draft[key] ?? 'any'}
        onChange={(v) => setDraft({ ...draft, [key]: v === 'any' ? undefined : v })}
        data={[
          { value: 'any', label: 'Any' },
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ]}
      />
    </div>
  );

  return (
    <Popover opened={opened} onChange={open} position="bottom-end" width={440} shadow="md" trapFocus withinPortal>
      <Popover.Target>
        <Button
          size="sm"
          variant="default"
          className="list-filters"
          leftSection={<IconFilter size={14} aria-hidden />}
          rightSection={count > 0 ? <Badge size="xs" circle aria-label={`${count} active`}>{count}</Badge> : null}
          onClick={() => open(!opened)}
        >
          Filters
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onChange(draft);
            setOpened(false);
          }}
        >
          <Stack gap="xs">
            <SimpleGrid cols={2} spacing="xs">
              {text('user', 'User id', 'user-1, user-2')}
              {text('thread', 'Thread id', 'thread id')}
              {text('customer', 'Customer id', 'customer id')}
              {text('labels', 'Labels', 'any of: a, b')}
              {text('model', 'Model', 'gpt-4o-mini')}
              {text('type', 'Span type', 'llm, tool, rag')}
            </SimpleGrid>
            <Group gap="lg">
              {tri('error', 'Has error')}
              {tri('annotated', 'Has annotation')}
              <div>
                <Text size="xs" fw={500} mb={4} id="f-eval">
                  Evaluation
                </Text>
                <SegmentedControl
                  size="xs"
                  aria-labelledby="f-eval"
                  value={draft.eval ?? 'any'}
                  onChange={(v) => setDraft({ ...draft, eval: v === 'any' ? undefined : v })}
                  data={[
                    { value: 'any', label: 'Any' },
                    { value: 'passed', label: 'Passed' },
                    { value: 'failed', label: 'Failed' },
                  ]}
                />
              </div>
            </Group>
            {text('evaluator', 'Evaluator', 'e.g. pii/pii_detection or its name')}
            {text('meta', 'Metadata', 'key=value, key2=value2', 'Traces whose metadata has every pair')}
            <ScoreFilterInput value={draft.score} onChange={(score) => setDraft({ ...draft, score })} />
            <Group justify="space-between" mt={4}>
              <Button size="xs" variant="subtle" onClick={() => setDraft({ q: search.q, range: search.range, from: search.from, to: search.to, sort: search.sort, dir: search.dir })}>
                Reset
              </Button>
              <Group gap="xs">
                <Button size="xs" variant="default" onClick={() => setOpened(false)}>
                  Cancel
                </Button>
                <Button size="xs" type="submit">
                  Apply
                </Button>
              </Group>
            </Group>
          </Stack>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}

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
