import { useState } from 'react';
import { Badge, Button, CloseButton, Group, NativeSelect, Pill, Popover, Stack, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconFilter, IconSearch } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import type { ScoreConfig } from '../api/review.ts';
import { useTopicNames } from '../api/topics.ts';
import { RANGE_PRESETS, type ListSearch, type ListSort } from '../lib/list-search.ts';
import { filterCount, parseScoreFilter, TRACE_FILTER_KEYS, TRACE_FILTERS, withoutFilters, type TraceFilterKey } from '../lib/trace-filters.ts';
import { localInputValue } from '../lib/format.ts';
import { FilterEditors, useProjectScoreConfigs } from './filter-editors.tsx';

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
          <TextInput type="datetime-local" size="xs" label="From" value={inputValue(search.from)} onChange={(e) => onChange({ ...search, from: e.currentTarget.value || undefined })} />
          <TextInput type="datetime-local" size="xs" label="To" value={inputValue(search.to)} onChange={(e) => onChange({ ...search, to: e.currentTarget.value || undefined })} />
        </Group>
      )}
      <ActiveFilters search={search} onChange={onChange} />
    </Stack>
  );
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
  const active = TRACE_FILTER_KEYS.filter((k) => search[k]);
  if (!active.length) return null;
  const shown = (k: TraceFilterKey, text: string) => (k === 'score' ? describeScoreFilter(text, configs) : k === 'topic' ? describeTopics(text, topicNames) : text);
  return (
    <Group gap={6} aria-label="Active filters">
      {active.map((k) => (
        <Pill key={k} withRemoveButton onRemove={() => onChange({ ...search, [k]: undefined })} removeButtonProps={{ 'aria-label': `Remove filter ${TRACE_FILTERS[k].label}` }}>
          {TRACE_FILTERS[k].label}: {shown(k, search[k]!)}
        </Pill>
      ))}
      <Button size="compact-xs" variant="subtle" onClick={() => onChange(withoutFilters(search))}>
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
  const count = filterCount(search);

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
            <FilterEditors keys={TRACE_FILTER_KEYS} value={draft} onChange={(next) => setDraft({ ...draft, ...next })} size="xs" idPrefix="f" />
            <Group justify="space-between" mt={4}>
              <Button size="xs" variant="subtle" onClick={() => setDraft(withoutFilters(search))}>
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

/** A custom range's end in its field: a full time (as a chart's point links it, 2026-11-29T20:00:00.000Z) shown in the browser's zone, to the minute. */
function inputValue(at: string | undefined): string {
  if (!at) return '';
  const ms = Date.parse(at);
  return /[zZ]|[+-]\d\d:?\d\d$/.test(at) && Number.isFinite(ms) ? localInputValue(ms) : at;
}
