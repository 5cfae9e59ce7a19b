import { Alert, Group, Switch, Table, Title } from '@mantine/core';
import { TimeCell } from '../components/TimeCell.tsx';
import { IconPlus } from '@tabler/icons-react';
import { Link, useParams } from '@tanstack/react-router';
import { monitorTrigger, useEvaluatorName, useMonitorMutations, useMonitors } from '../api/evaluators.ts';
import { can, useSession } from '../api/session.ts';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { FilterChips } from '../components/FilterChips.tsx';
import { QueryState } from '../components/QueryState.tsx';

/** The project's monitors: evaluators that run by themselves on matching incoming traces. */
export default function MonitorsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/monitors' });
  const monitors = useMonitors(projectId);
  const evaluatorName = useEvaluatorName(projectId);
  const { update } = useMonitorMutations(projectId);
  const { data: session } = useSession();
  const allowed = can(session, 'monitors:manage');
  return (
    <div className="page">
      <Group justify="space-between">
        <Title order={1} size="h3">
          Monitors
        </Title>
        {allowed && (
          <ButtonLink to="/p/$projectId/monitors/new" params={{ projectId }} size="sm" leftSection={<IconPlus size={14} />}>
            New monitor
          </ButtonLink>
        )}
      </Group>
      {update.isError && <Alert color="red">{update.error.message}</Alert>}
      <QueryState
        query={monitors}
        failed="The monitors could not be loaded"
        loading="Loading monitors"
        empty={(list) =>
          list.length === 0 && {
            title: 'No monitors yet',
            children: 'A monitor runs an evaluator on incoming traces (all of them, a sample, or those matching filters) and puts the result on each trace.',
          }
        }
      >
        {(list) => (
          <div className="panel">
            <Table striped highlightOnHover verticalSpacing={6} aria-label="Monitors">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Evaluator</Table.Th>
                  <Table.Th>Runs on</Table.Th>
                  <Table.Th>Sample</Table.Th>
                  <Table.Th>Filters</Table.Th>
                  <Table.Th>Enabled</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((m) => (
                  <Table.Tr key={m.id}>
                    <Table.Td>
                      <Link to="/p/$projectId/monitors/$monitorId" params={{ projectId, monitorId: m.id }}>
                        {m.name}
                      </Link>
                    </Table.Td>
                    <Table.Td title={m.evaluator}>{evaluatorName(m.evaluator)}</Table.Td>
                    <Table.Td data-testid="monitor-trigger">{monitorTrigger(m)}</Table.Td>
                    <Table.Td>{Math.round(m.sample * 1000) / 10}%</Table.Td>
                    <Table.Td>
                      <FilterChips filters={m.filters} />
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        aria-label={`${m.name} enabled`}
                        checked={m.enabled}
                        disabled={!allowed}
                        onChange={(e) => update.mutate({ id: m.id, body: { enabled: e.currentTarget.checked } })}
                      />
                    </Table.Td>
                    <TimeCell at={m.created_at} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </QueryState>
    </div>
  );
}
