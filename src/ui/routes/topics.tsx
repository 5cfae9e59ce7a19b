import { useState } from 'react';
import { Alert, Badge, Button, Card, Group, NumberInput, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useTopicMutations, useTopics, useTopicSettings, type Topic, type TopicSettings } from '../api/topics.ts';
import { ModelPicker } from '../components/ModelPicker.tsx';
import { Sparkline } from '../components/Sparkline.tsx';
import { formatCost, formatFullTime, formatRelative } from '../lib/format.ts';
import { formErrors } from '../lib/form-errors.ts';
import { useRangeAnchor } from '../lib/use-range-anchor.ts';
import type { TopicsSearch } from '../lib/page-searches.ts';
import { Unloaded } from '../components/QueryState.tsx';

const RANGES = [
  { value: '24h', label: '24 hours', ms: 86_400_000 },
  { value: '7d', label: '7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: '30 days', ms: 30 * 86_400_000 },
] as const;

const percent = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(v > 0 && v < 0.01 ? 1 : 0)} %`);

/** What users ask about: traces grouped by their input's meaning, with what happened in each group. */
export default function TopicsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/topics' });
  const search = useSearch({ from: '/p/$projectId/topics' });
  const navigate = useNavigate({ from: '/p/$projectId/topics' });
  const range = RANGES.find((r) => r.value === search.range) ?? RANGES[1];
  // The range's end is taken when the range changes, so the query stays the same between renders.
  const endDate = useRangeAnchor({ range: range.value, from: undefined, to: undefined });
  const topics = useTopics(projectId, { startDate: endDate - range.ms, endDate });
  const settings = useTopicSettings(projectId);
  const { rebuild } = useTopicMutations(projectId);
  const status = topics.data?.status ?? settings.data?.status;

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Topics
        </Title>
        <Group gap="xs" wrap="wrap">
          <SegmentedControl
            size="xs"
            aria-label="Time range"
            value={range.value}
            onChange={(v) => void navigate({ search: { ...search, range: v === '7d' ? undefined : (v as TopicsSearch['range']) }, replace: true })}
            data={RANGES.map((r) => ({ value: r.value, label: r.label }))}
          />
          {status?.enabled && (
            <Button size="xs" variant="default" leftSection={<IconRefresh size={14} aria-hidden />} loading={rebuild.isPending} disabled={!!status.rebuildRequestedAt} onClick={() => rebuild.mutate()}>
              {status.rebuildRequestedAt ? 'Finding topics…' : 'Find topics again'}
            </Button>
          )}
        </Group>
      </Group>
      <Text size="sm" className="muted">
        What your users ask about: each trace&apos;s input is embedded by the model you choose below, similar inputs are grouped, and each group is named. New traces join the nearest topic within a
        minute; the topics are found again on the schedule below.
      </Text>
      {status && <BuildStatus status={status} />}
      {rebuild.isError && (
        <Alert color="red" title="The topics could not be found again">
          {rebuild.error.message}
        </Alert>
      )}
      {!topics.isSuccess ? (
        <Unloaded query={topics} failed="The topics could not be loaded" loading="Loading topics" />
      ) : topics.data.topics.length === 0 ? (
        status?.enabled ? (
          <Alert color="gray" title="No topics yet">
            Topics are found once at least 10 traces with an input have been embedded ({status.embeddedTraces.toLocaleString()} so far).
          </Alert>
        ) : null
      ) : (
        <TopicList projectId={projectId} topics={topics.data.topics} range={range.value} />
      )}
      {settings.data && <TopicSettingsCard projectId={projectId} settings={settings.data} />}
    </div>
  );
}

function BuildStatus({ status }: { status: TopicSettings['status'] }) {
  if (!status.enabled) {
    return (
      <Alert color="blue" title="Topics are off">
        Choose an embeddings model below (a model provider set in Settings, OpenAI or OpenAI-compatible) to group your traces by what users ask.
      </Alert>
    );
  }
  return (
    <Stack gap={6}>
      <Text size="sm" data-testid="topics-built">
        {status.builtAt ? (
          <>
            Found from {status.builtTraces?.toLocaleString()} traces <span title={formatFullTime(status.builtAt)}>{formatRelative(status.builtAt)}</span>; {status.embeddedTraces.toLocaleString()} traces embedded.
          </>
        ) : (
          <>Not found yet: {status.embeddedTraces.toLocaleString()} traces embedded.</>
        )}
      </Text>
      {status.lastError && (
        <Alert color="yellow" title={status.builtAt ? `Not updated since ${formatRelative(status.builtAt)}` : 'Topics could not be found'} data-testid="topics-error" classNames={{ title: 'alert-title' }}>
          {status.lastError} ({status.lastErrorAt ? formatRelative(status.lastErrorAt) : ''}). Traces keep arriving as usual; they are embedded once the model answers again.
        </Alert>
      )}
    </Stack>
  );
}

function TopicList({ projectId, topics, range }: { projectId: string; topics: Topic[]; range: string }) {
  const tracesLink = (t: Topic) => (
    <Link to="/p/$projectId/traces" params={{ projectId }} search={{ topic: t.id, range }} title={`The traces of ${t.name}`}>
      {t.name}
    </Link>
  );
  const evaluations = (t: Topic) =>
    t.evaluations.length === 0 ? (
      <span className="muted">–</span>
    ) : (
      <Group gap={4} wrap="wrap">
        {t.evaluations.map((e) => (
          <Badge key={e.evaluator} size="sm" variant="light" color={e.pass_rate !== null && e.pass_rate < 0.8 ? 'red' : 'gray'} title={`${e.passed} passed, ${e.failed} failed`}>
            {e.evaluator} {percent(e.pass_rate)}
          </Badge>
        ))}
      </Group>
    );
  return (
    <>
      <div className="panel" data-testid="topics-table">
        <Table striped verticalSpacing={6} aria-label="Topics" visibleFrom="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Topic</Table.Th>
              <Table.Th className="num">Traces</Table.Th>
              <Table.Th>Per day</Table.Th>
              <Table.Th className="num">Errors</Table.Th>
              <Table.Th className="num">Cost</Table.Th>
              <Table.Th className="num">Thumbs</Table.Th>
              <Table.Th>Evaluations</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {topics.map((t) => (
              <Table.Tr key={t.id} data-topic-id={t.id}>
                <Table.Td style={{ maxWidth: 320 }}>
                  {tracesLink(t)}
                  <Text size="xs" className="muted">
                    {t.keywords.join(' · ')}
                  </Text>
                </Table.Td>
                <Table.Td className="num">
                  {t.traces.toLocaleString()}
                  <Text size="xs" className="muted">
                    {percent(t.share)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Sparkline values={t.trend.map((d) => d.traces)} label={`Traces per day of ${t.name}`} width={110} height={24} />
                </Table.Td>
                <Table.Td className="num" style={{ color: t.errors ? '#c92a2a' : undefined }}>
                  {percent(t.error_rate)}
                </Table.Td>
                <Table.Td className="num">{formatCost(t.cost)}</Table.Td>
                <Table.Td className="num nowrap">
                  {t.thumbs_up} / {t.thumbs_down}
                </Table.Td>
                <Table.Td>{evaluations(t)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <Stack gap="xs" hiddenFrom="sm" aria-label="Topics">
        {topics.map((t) => (
          <Card key={t.id} withBorder padding="sm" data-topic-id={t.id}>
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <div style={{ minWidth: 0 }}>
                {tracesLink(t)}
                <Text size="xs" className="muted">
                  {t.keywords.join(' · ')}
                </Text>
              </div>
              <Sparkline values={t.trend.map((d) => d.traces)} label={`Traces per day of ${t.name}`} width={80} height={22} />
            </Group>
            <Text size="sm" mt={4}>
              {t.traces.toLocaleString()} traces ({percent(t.share)}) · errors {percent(t.error_rate)} · {formatCost(t.cost)}
            </Text>
            {t.evaluations.length > 0 && <div style={{ marginTop: 4 }}>{evaluations(t)}</div>}
          </Card>
        ))}
      </Stack>
    </>
  );
}

function TopicSettingsCard({ projectId, settings }: { projectId: string; settings: TopicSettings }) {
  const { save } = useTopicMutations(projectId);
  const [embeddingsModel, setEmbeddingsModel] = useState(settings.embeddingsModel ?? '');
  const [namingModel, setNamingModel] = useState(settings.namingModel ?? '');
  const [reclusterHours, setReclusterHours] = useState<number | string>(settings.reclusterHours);
  const errors = formErrors(save.error, ['embeddingsModel', 'namingModel', 'reclusterHours']);
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="topic-settings-title">
      <Title order={2} size="h5" id="topic-settings-title" mb="xs">
        Settings
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ embeddingsModel: embeddingsModel.trim() || null, namingModel: namingModel.trim() || null, reclusterHours: typeof reclusterHours === 'number' ? reclusterHours : Number(reclusterHours) });
        }}
      >
        <Stack gap="sm" maw={520}>
          <ModelPicker
            projectId={projectId}
            label="Embeddings model"
            description="Embeds each trace's input; empty turns topics off"
            value={embeddingsModel}
            onChange={setEmbeddingsModel}
            error={errors.at('embeddingsModel')}
          />
          <ModelPicker projectId={projectId} label="Naming model" description="A chat model that names each topic; empty names topics by their keywords" value={namingModel} onChange={setNamingModel} error={errors.at('namingModel')} />
          <NumberInput label="Find topics again every (hours)" min={1} max={720} value={reclusterHours} onChange={setReclusterHours} error={errors.at('reclusterHours')} maw={240} />
          {errors.elsewhere && (
            <Alert color="red" title="Not saved">
              {errors.elsewhere}
            </Alert>
          )}
          <Group gap="sm">
            <Button type="submit" size="sm" loading={save.isPending}>
              Save
            </Button>
            {save.isSuccess && (
              <Text size="sm" className="muted" role="status">
                Saved. It applies from the next round (within a minute).
              </Text>
            )}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
