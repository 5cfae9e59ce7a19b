import { Badge, Button, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconAlertCircle, IconPencil, IconPlus, IconScale } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { useCatalogue, type Evaluator } from '../api/evaluators.ts';
import { can, useSession } from '../api/session.ts';
import { QueryState } from '../components/QueryState.tsx';

/** Every evaluator: what it does, its data fields, what it needs (LLM, service, variables) and whether it can run here. */
export default function EvaluatorsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/evaluators' });
  const catalogue = useCatalogue(projectId);
  const { data: session } = useSession();
  return (
    <div className="page">
      <Group justify="space-between">
        <Title order={1} size="h3">
          Evaluators
        </Title>
        <Group gap="xs">
          <ButtonLink to="/p/$projectId/evaluators/alignment" params={{ projectId }} size="xs" variant="default" leftSection={<IconScale size={14} />}>
            Judge alignment
          </ButtonLink>
          {can(session, 'evaluators:manage') && (
            <ButtonLink to="/p/$projectId/evaluators/new" params={{ projectId }} size="xs" leftSection={<IconPlus size={14} />}>
              New evaluator
            </ButtonLink>
          )}
        </Group>
      </Group>
      <Text size="sm" className="muted" maw={820}>
        Try one in its playground, or make it a monitor that evaluates incoming traces by itself. Write your own LLM judge with New evaluator. An evaluator whose provider is not
        configured on this server is greyed out, with the variable to set.
      </Text>
      <QueryState
        query={catalogue}
        failed="The catalogue could not be loaded"
        loading="Loading evaluators"
      >
        {(evaluators) => (
          <div className="card-grid" role="list" aria-label="Evaluators">
            {[...evaluators].sort((a, b) => Number(b.category === 'custom') - Number(a.category === 'custom')).map((e) => (
              <EvaluatorCard key={e.path} projectId={projectId} evaluator={e} />
            ))}
          </div>
        )}
      </QueryState>
    </div>
  );
}

function EvaluatorCard({ projectId, evaluator: e }: { projectId: string; evaluator: Evaluator }) {
  const req = e.requirements;
  const available = e.available;
  const [family, name] = e.path.split('/');
  const fields = Object.keys((e.data as { properties?: object }).properties ?? {});
  const custom = e.category === 'custom';
  return (
    <Paper withBorder p="md" role="listitem" className={available ? undefined : 'card-unavailable'} data-evaluator={e.path} aria-disabled={!available || undefined}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <div style={{ minWidth: 0 }}>
            <Title order={2} size="h5" className="card-title">
              {e.name}
            </Title>
            <Text size="xs" className="mono muted">
              {e.path}
            </Text>
          </div>
          {custom ? (
            <Badge size="sm" variant="filled" color="indigo.9" tt="none">
              custom{e.version ? ` · v${e.version}` : ''}
            </Badge>
          ) : (
            <Badge size="sm" variant="light" color="gray" tt="none">
              {e.category}
            </Badge>
          )}
        </Group>
        <Text size="sm">{e.description}</Text>
        <Text size="xs">
          <b>Data:</b> <span className="mono">{fields.join(', ') || '–'}</span>
        </Text>
        <Group gap={4}>
          {req.llm && (
            <Badge size="sm" variant="outline" color="grape.9" tt="none">
              calls an LLM
            </Badge>
          )}
          {req.external_service && (
            <Badge size="sm" variant="outline" color="orange.9" tt="none">
              calls {req.external_service}
            </Badge>
          )}
          {!req.llm && !req.external_service && (
            <Badge size="sm" variant="outline" color="teal.9" tt="none">
              runs locally
            </Badge>
          )}
          {req.env.map((v) => (
            <Badge key={v} size="sm" variant="light" color="gray" tt="none" className="mono">
              {v}
            </Badge>
          ))}
        </Group>
        {!available && (
          <Text size="xs" c="red.9" style={{ display: 'flex', gap: 4, alignItems: 'center' }}>
            <IconAlertCircle size={14} aria-hidden style={{ flex: 'none', alignSelf: 'flex-start', marginTop: 2 }} /> {e.unavailable_reason ?? 'Not configured on this server.'}
          </Text>
        )}
        <Group gap="xs" mt={4}>
          {custom && (
            <ButtonLink to="/p/$projectId/evaluators/custom/$slug/edit" params={{ projectId, slug: name }} size="xs" variant="default" leftSection={<IconPencil size={14} />} aria-label={`Edit ${e.name}`}>
              Edit
            </ButtonLink>
          )}
          <Tooltip label={e.unavailable_reason ?? ''} disabled={available}>
            <ButtonLink to="/p/$projectId/evaluators/$family/$name" params={{ projectId, family, name }} size="xs" variant={available ? 'filled' : 'default'} aria-label={`Open the ${e.name} playground`}>
              Playground
            </ButtonLink>
          </Tooltip>
          {available ? (
            <ButtonLink to="/p/$projectId/monitors/new" params={{ projectId }} search={{ evaluator: e.path }} size="xs" variant="default" aria-label={`Create a ${e.name} monitor`}>
              Create monitor
            </ButtonLink>
          ) : (
            <Button size="xs" variant="default" disabled>
              Create monitor
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
