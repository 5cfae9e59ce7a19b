import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPlayerPlay, IconRefresh } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { fetchTrace } from '../api/traces.ts';
import { useCatalogue, useEvaluate, type Evaluator } from '../api/evaluators.ts';
import { DataForm, SchemaForm, type JsonSchema } from '../components/SchemaForm.tsx';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { EvaluationOutcome, EvaluatorHeading } from '../components/EvaluatorPage.tsx';
import { TracePicker } from '../components/TracePicker.tsx';
import { traceData } from '../../modules/monitors/trace-data.schema.ts';
import { Loading } from '../components/QueryState.tsx';

/** One evaluator's playground: settings from its JSON Schema, data pasted or taken from a trace, Run, the result. */
export default function EvaluatorPage() {
  const { projectId, family, name } = useParams({ from: '/p/$projectId/evaluators/$family/$name' });
  const catalogue = useCatalogue(projectId);
  const path = `${family}/${name}`;
  const evaluator = catalogue.data?.find((e) => e.path === path);
  const back = (
    <Link to="/p/$projectId/evaluators" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Evaluators
    </Link>
  );
  if (catalogue.isPending)
    return <Loading label="Loading the evaluator" />;
  if (!evaluator)
    return (
      <div className="page">
        {back}
        <Alert color="gray" title="No such evaluator">
          {catalogue.error?.message ?? `${path} is not in the catalogue.`}
        </Alert>
      </div>
    );
  return <Playground key={path} projectId={projectId} evaluator={evaluator} back={back} />;
}

function Playground({ projectId, evaluator, back }: { projectId: string; evaluator: Evaluator; back: React.ReactNode }) {
  const { trace } = useSearch({ from: '/p/$projectId/evaluators/$family/$name' });
  const navigate = useNavigate({ from: '/p/$projectId/evaluators/$family/$name' });
  const [settings, setSettings] = useState<Record<string, unknown>>(() => structuredClone(evaluator.defaultSettings));
  const [data, setData] = useState<Record<string, unknown>>({});
  const [fillError, setFillError] = useState<string | null>(null);
  const evaluate = useEvaluate(projectId, evaluator.path);
  const dataSchema = evaluator.data as JsonSchema;
  const req = evaluator.requirements;

  // A trace chosen (here or by link, ?trace=): its input, output, contexts and conversation fill the fields it has.
  // A new one starts without the last one's error (set while rendering, before the fetch below).
  const [filling, setFilling] = useState({ trace, projectId, dataSchema });
  if (filling.trace !== trace || filling.projectId !== projectId || filling.dataSchema !== dataSchema) {
    setFilling({ trace, projectId, dataSchema });
    if (trace) setFillError(null);
  }
  // New data from a trace: the last run's result or error was about other data.
  const resetRun = evaluate.reset;
  useEffect(() => {
    if (trace) resetRun();
  }, [trace, resetRun]);
  useEffect(() => {
    if (!trace) return;
    let cancelled = false;
    fetchTrace(projectId, trace)
      .then((detail) => {
        if (cancelled) return;
        const offered = traceData(detail);
        const fields = Object.keys(dataSchema.properties ?? {});
        setData((d) => ({ ...d, ...Object.fromEntries(fields.filter((f) => f in offered).map((f) => [f, offered[f]])) }));
      })
      .catch((e: Error) => !cancelled && setFillError(e.message));
    return () => {
      cancelled = true;
    };
  }, [trace, projectId, dataSchema]);

  return (
    <div className="page">
      <EvaluatorHeading
        back={back}
        name={evaluator.name}
        path={evaluator.path}
        description={evaluator.description}
        badges={
          req.llm && (
            <Badge size="sm" variant="outline" color="grape.9" tt="none">
              calls an LLM
            </Badge>
          )
        }
      />
      {!evaluator.available && <Alert color="yellow" title="Not configured on this server" styles={{ title: { color: '#7c4a03' } }}>{evaluator.unavailable_reason}</Alert>}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Stack gap="md">
          <Paper withBorder p="md">
            <Group justify="space-between" mb="xs">
              <Title order={2} size="h5">
                Data
              </Title>
              <TracePicker projectId={projectId} onPick={(id) => void navigate({ search: { trace: id }, replace: true })} />
            </Group>
            {trace && (
              <Text size="xs" className="muted" mb="xs">
                Filled from trace{' '}
                <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: trace }}>
                  {trace}
                </Link>
              </Text>
            )}
            {fillError && <Alert color="red" mb="xs">{fillError}</Alert>}
            <DataForm schema={dataSchema} value={data} onChange={setData} />
          </Paper>
          <Paper withBorder p="md">
            <Group justify="space-between" mb="xs">
              <Title order={2} size="h5">
                Settings
              </Title>
              <Button size="compact-xs" variant="subtle" leftSection={<IconRefresh size={12} />} onClick={() => setSettings(structuredClone(evaluator.defaultSettings))}>
                Defaults
              </Button>
            </Group>
            {Object.keys((evaluator.settings as JsonSchema).properties ?? {}).length === 0 ? (
              <Text size="sm" className="muted">
                This evaluator has no settings.
              </Text>
            ) : (
              <SchemaForm schema={evaluator.settings} value={settings} onChange={setSettings} idPrefix="settings" projectId={projectId} />
            )}
          </Paper>
          <Group>
            <Button leftSection={<IconPlayerPlay size={14} />} onClick={() => evaluate.mutate({ data, settings })} loading={evaluate.isPending}>
              Run
            </Button>
            <ButtonLink to="/p/$projectId/monitors/new" params={{ projectId }} search={{ evaluator: evaluator.path }} variant="default">
              Create a monitor
            </ButtonLink>
          </Group>
        </Stack>
        <EvaluationOutcome run={evaluate} hint="Fill the data, then Run: the result shows here." />
      </SimpleGrid>
    </div>
  );
}
