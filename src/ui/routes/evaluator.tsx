import { lazy, Suspense, useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPlayerPlay, IconRefresh } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { api } from '../api/client.ts';
import { resultColor, useCatalogue, useEvaluate, type Evaluator } from '../api/evaluators.ts';
import type { EvaluationResult } from '../api/types.ts';
import { DataForm, SchemaForm, type JsonSchema } from '../components/SchemaForm.tsx';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { Stat } from '../components/Stat.tsx';
import { TracePicker } from '../components/TracePicker.tsx';
import { formatCost } from '../lib/format.ts';
import { traceData } from '../../modules/monitors/trace-data.schema.ts';

const JsonEditor = lazy(() => import('../components/JsonEditor.tsx'));

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
    return (
      <Group justify="center" p="xl">
        <Loader size="sm" aria-label="Loading the evaluator" />
      </Group>
    );
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
    api<Parameters<typeof traceData>[0]>('GET', `/api/trace/${encodeURIComponent(trace)}`, { projectId })
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
      <div>
        {back}
        <Group gap="sm" mt={4}>
          <Title order={1} size="h3">
            {evaluator.name}
          </Title>
          <Text className="mono muted" size="sm">
            {evaluator.path}
          </Text>
          {req.llm && (
            <Badge size="sm" variant="outline" color="grape.9" tt="none">
              calls an LLM
            </Badge>
          )}
        </Group>
        <Text size="sm" maw={900} mt={4}>
          {evaluator.description}
        </Text>
      </div>
      {!evaluator.available && <Alert color="yellow" title="Not configured on this server">{evaluator.unavailable_reason}</Alert>}
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
              <SchemaForm schema={evaluator.settings} value={settings} onChange={setSettings} idPrefix="settings" />
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
        <Stack gap="sm" aria-live="polite">
          {evaluate.isError && (
            <Alert color="red" title="The request was refused">
              {evaluate.error.message}
            </Alert>
          )}
          {evaluate.data && <Result result={evaluate.data} />}
          {!evaluate.data && !evaluate.isError && (
            <Text size="sm" className="muted">
              Fill the data, then Run: the result shows here.
            </Text>
          )}
        </Stack>
      </SimpleGrid>
    </div>
  );
}

function Result({ result: r }: { result: EvaluationResult }) {
  return (
    <Paper withBorder p="md" data-testid="evaluation-result">
      <Group gap="sm" mb="sm">
        <Title order={2} size="h5">
          Result
        </Title>
        <Badge color={resultColor(r)} variant="filled" tt="none">
          {r.status}
        </Badge>
      </Group>
      <div className="result-grid">
        <Stat label="Score" value={r.score === undefined ? '–' : String(Math.round(r.score * 10_000) / 10_000)} testId="result-score" />
        <Stat label="Passed" value={r.passed === undefined ? '–' : r.passed ? 'yes' : 'no'} />
        <Stat label="Label" value={r.label ?? '–'} />
        <Stat label="Cost" value={r.cost ? formatCost(r.cost.amount) : '–'} />
      </div>
      {r.details && (
        <>
          <Text size="sm" fw={600} mt="sm">
            Details
          </Text>
          <pre className="textblock">{r.details}</pre>
        </>
      )}
      {r.error_type && (
        <>
          <Text size="sm" fw={600} mt="sm" c="red.9">
            {r.error_type}
          </Text>
          {r.traceback && <pre className="stack">{r.traceback.join('\n')}</pre>}
        </>
      )}
      {r.raw_response && (
        <>
          <Text size="sm" fw={600} mt="sm" mb={4}>
            Raw response
          </Text>
          <Suspense fallback={<pre className="json-fallback">{JSON.stringify(r.raw_response, null, 2)}</pre>}>
            <JsonEditor text={JSON.stringify(r.raw_response, null, 2)} label="Raw response" maxHeight={360} />
          </Suspense>
        </>
      )}
    </Paper>
  );
}
