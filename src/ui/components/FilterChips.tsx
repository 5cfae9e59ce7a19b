import { Badge, Group, Text } from '@mantine/core';
import type { Monitor } from '../api/evaluators.ts';

/** A monitor's trace filters, one chip each; "every trace" without any. */
export function FilterChips({ filters }: { filters: Monitor['filters'] }) {
  const entries = Object.entries(filters ?? {});
  if (!entries.length)
    return (
      <Text size="sm" className="muted">
        every trace
      </Text>
    );
  return (
    <Group gap={4}>
      {entries.map(([k, v]) => (
        <Badge key={k} size="sm" variant="light" color="gray" tt="none">
          {k}: {typeof v === 'object' && !Array.isArray(v) ? Object.entries(v).map(([a, b]) => `${a}=${String(b)}`).join(', ') : String(v)}
        </Badge>
      ))}
    </Group>
  );
}
