import { Badge, Group, Text } from '@mantine/core';
import type { SearchFilters } from '../api/types.ts';
import { filterTextOf, TRACE_FILTER_KEYS, TRACE_FILTERS } from '../lib/trace-filters.ts';

/** A stored trace filter (a monitor's, an alert rule's), one chip per filter as the traces list names it; "every trace" without any. */
export function FilterChips({ filters }: { filters: SearchFilters | null | undefined }) {
  const text = filterTextOf(filters);
  const shown = TRACE_FILTER_KEYS.filter((k) => text[k]);
  if (!shown.length)
    return (
      <Text size="sm" className="muted">
        every trace
      </Text>
    );
  return (
    <Group gap={4}>
      {shown.map((k) => (
        <Badge key={k} size="sm" variant="light" color="gray" tt="none">
          {TRACE_FILTERS[k].label}: {text[k]}
        </Badge>
      ))}
    </Group>
  );
}
