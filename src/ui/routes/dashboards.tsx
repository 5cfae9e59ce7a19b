import { useState } from 'react';
import { Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useDashboardMutations, useDashboards } from '../api/dashboards.ts';
import { fieldError } from '../lib/form-errors.ts';
import { QueryState } from '../components/QueryState.tsx';

/** The project's dashboards, shared with everyone in it: the default one first, then a form for a new one. */
export default function DashboardsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/dashboards' });
  const list = useDashboards(projectId);
  const { create } = useDashboardMutations(projectId);
  const navigate = useNavigate();
  const [name, setName] = useState('');

  const submit = () =>
    create.mutate(
      { name, charts: [] },
      { onSuccess: (d) => void navigate({ to: '/p/$projectId/dashboards/$dashboardId', params: { projectId, dashboardId: d.id } }) },
    );

  return (
    <div className="page">
      <Title order={1} size="h3">
        Dashboards
      </Title>
      <Text size="sm" className="muted">
        Charts of the project&apos;s traces, arranged by your team and seen by everyone in the project.
      </Text>
      <QueryState
        query={list}
        failed="The dashboards could not be loaded"
        loading="Loading the dashboards"
        inline
      >
        {(dashboards) => (
          <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
            {dashboards.map((d) => (
              <Paper withBorder p="sm" component="li" key={d.id} data-dashboard-id={d.id}>
                <Link to="/p/$projectId/dashboards/$dashboardId" params={{ projectId, dashboardId: d.id }}>
                  {d.name}
                </Link>
                <Text size="xs" className="muted">
                  {d.charts} chart{d.charts === 1 ? '' : 's'}
                  {d.builtIn ? ' · the default dashboard' : ''}
                  {d.description ? ` · ${d.description}` : ''}
                </Text>
              </Paper>
            ))}
          </Stack>
        )}
      </QueryState>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput label="New dashboard" placeholder="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} maxLength={200} />
          <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
            Create dashboard
          </Button>
        </Group>
      </form>
    </div>
  );
}
