import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import type { TraceEvaluation } from '../api/traces.ts';
import { formatCost, formatFullTime } from '../lib/format.ts';

/** The trace's evaluation results: score, passed, label, details, cost. */
export function Evaluations({ evaluations }: { evaluations: TraceEvaluation[] }) {
  if (!evaluations.length) {
    return (
      <Text size="sm" className="muted" p="md">
        No evaluation ran on this trace. Monitors and the evaluate API with a trace_id add results here.
      </Text>
    );
  }
  return (
    <Stack gap="xs" p="md" data-testid="evaluations">
      {evaluations.map((e) => (
        <Paper key={e.evaluation_id} withBorder p="sm" radius="sm">
          <Group justify="space-between" gap="xs" wrap="nowrap">
            <Group gap={8} wrap="nowrap" style={{ minWidth: 0 }}>
              <Text fw={600} size="sm" className="ellipsis">
                {e.name}
              </Text>
              <Text size="xs" className="muted mono ellipsis">
                {e.type}
              </Text>
            </Group>
            <Group gap={6} wrap="nowrap">
              {e.passed !== null && (
                <Badge color={e.passed ? 'green' : 'red'} variant="light">
                  {e.passed ? 'passed' : 'failed'}
                </Badge>
              )}
              {e.status !== 'processed' && (
                <Badge color={e.status === 'error' ? 'orange' : 'gray'} variant="outline">
                  {e.status}
                </Badge>
              )}
            </Group>
          </Group>
          <dl className="kv" style={{ marginTop: 6 }}>
            {e.score !== null && (
              <>
                <dt>Score</dt>
                <dd>{Number(e.score.toFixed(4))}</dd>
              </>
            )}
            {e.label && (
              <>
                <dt>Label</dt>
                <dd>{e.label}</dd>
              </>
            )}
            {e.details && (
              <>
                <dt>Details</dt>
                <dd style={{ whiteSpace: 'pre-wrap' }}>{e.details}</dd>
              </>
            )}
            {e.cost && (
              <>
                <dt>Cost</dt>
                <dd>{e.cost.currency === 'USD' ? formatCost(e.cost.amount) : `${e.cost.amount} ${e.cost.currency}`}</dd>
              </>
            )}
            <dt>When</dt>
            <dd>{formatFullTime(e.timestamps.inserted_at)}</dd>
            {e.error && (
              <>
                <dt>Error</dt>
                <dd style={{ color: '#c92a2a' }}>{e.error.message}</dd>
              </>
            )}
          </dl>
        </Paper>
      ))}
    </Stack>
  );
}
