import { useState } from 'react';
import { Alert, Button, Fieldset, Group, Loader, NativeSelect, NumberInput, Paper, SegmentedControl, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useCatalogue, useMonitorMutations, type Evaluator } from '../api/evaluators.ts';
import type { MonitorFilters } from '../api/types.ts';
import { SchemaForm, type JsonSchema } from '../components/SchemaForm.tsx';
import { parseMeta } from '../lib/list-search.ts';

/** A monitor: an evaluator with its settings form, a sample share and trace filters. */
export default function NewMonitorPage() {
  const { projectId } = useParams({ from: '/p/$projectId/monitors/new' });
  const { evaluator: initial } = useSearch({ from: '/p/$projectId/monitors/new' });
  const navigate = useNavigate({ from: '/p/$projectId/monitors/new' });
  const catalogue = useCatalogue(projectId);
  const back = (
    <Link to="/p/$projectId/monitors" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Monitors
    </Link>
  );
  if (catalogue.isPending)
    return (
      <Group justify="center" p="xl">
        <Loader size="sm" aria-label="Loading evaluators" />
      </Group>
    );
  if (catalogue.isError) return <Alert color="red">{catalogue.error.message}</Alert>;
  const evaluators = catalogue.data;
  const chosen = evaluators.find((e) => e.path === initial) ?? evaluators.find((e) => e.available) ?? evaluators[0];
  return (
    <div className="page">
      {back}
      <Title order={1} size="h3">
        New monitor
      </Title>
      <NativeSelect
        label="Evaluator"
        value={chosen.path}
        onChange={(e) => void navigate({ search: { evaluator: e.currentTarget.value }, replace: true })}
        data={evaluators.map((e) => ({ value: e.path, label: `${e.name} (${e.path})${!e.available ? ' — not configured' : ''}`, disabled: !e.available }))}
        maw={520}
      />
      <MonitorForm key={chosen.path} projectId={projectId} evaluator={chosen} />
    </div>
  );
}

const list = (v: string) => {
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
};

function MonitorForm({ projectId, evaluator }: { projectId: string; evaluator: Evaluator }) {
  const navigate = useNavigate();
  const { create } = useMonitorMutations(projectId);
  const [name, setName] = useState(evaluator.name);
  const [settings, setSettings] = useState<Record<string, unknown>>(() => structuredClone(evaluator.defaultSettings));
  const [samplePercent, setSamplePercent] = useState<number>(100);
  const [enabled, setEnabled] = useState(true);
  const [filter, setFilter] = useState({ labels: '', user_id: '', model: '', span_type: '', customer_id: '', metadata: '', has_error: 'any' });
  const text = (key: keyof typeof filter, label: string, placeholder: string) => (
    <TextInput size="sm" label={label} placeholder={placeholder} value={filter[key]} onChange={(e) => setFilter({ ...filter, [key]: e.currentTarget.value })} />
  );

  const submit = async () => {
    const filters: MonitorFilters = {};
    for (const key of ['labels', 'user_id', 'model', 'span_type', 'customer_id'] as const) {
      const values = list(filter[key]);
      if (values) filters[key] = values;
    }
    if (filter.has_error !== 'any') filters.has_error = filter.has_error === 'yes';
    const metadata = parseMeta(filter.metadata);
    if (metadata) filters.metadata = metadata;
    const monitor = await create.mutateAsync({ name: name.trim(), evaluator: evaluator.path, settings, sample: samplePercent / 100, filters: Object.keys(filters).length ? filters : null, enabled });
    await navigate({ to: '/p/$projectId/monitors/$monitorId', params: { projectId, monitorId: monitor.id } });
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit().catch(() => undefined);
      }}
    >
      <Stack gap="md" maw={880}>
        <Text size="sm">{evaluator.description}</Text>
        <TextInput label="Name" description="Shown on each trace's evaluations and in the dashboard" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
        <Paper withBorder p="md">
          <Title order={2} size="h5" mb="xs">
            Settings
          </Title>
          {Object.keys((evaluator.settings as JsonSchema).properties ?? {}).length === 0 ? (
            <Text size="sm" className="muted">
              This evaluator has no settings.
            </Text>
          ) : (
            <SchemaForm schema={evaluator.settings} value={settings} onChange={setSettings} idPrefix="monitor-settings" />
          )}
        </Paper>
        <Fieldset legend="Which traces">
          <Stack gap="sm">
            <NumberInput
              label="Sample (%)"
              description="The share of matching traces evaluated; a trace is always in or always out"
              value={samplePercent}
              min={0}
              max={100}
              step={5}
              onChange={(v) => setSamplePercent(typeof v === 'number' ? v : 0)}
              maw={420}
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {text('labels', 'Labels', 'any of: production, beta')}
              {text('user_id', 'User id', 'user-1, user-2')}
              {text('model', 'Model', 'gpt-4o-mini')}
              {text('span_type', 'Span type', 'llm, rag')}
              {text('customer_id', 'Customer id', 'acme')}
              {text('metadata', 'Metadata', 'key=value, key2=value2')}
            </SimpleGrid>
            <div>
              <Text size="sm" fw={500} mb={4} id="monitor-has-error">
                Has error
              </Text>
              <SegmentedControl
                size="xs"
                aria-labelledby="monitor-has-error"
                value={filter.has_error}
                onChange={(v) => setFilter({ ...filter, has_error: v })}
                data={[
                  { value: 'any', label: 'Any' },
                  { value: 'yes', label: 'Yes' },
                  { value: 'no', label: 'No' },
                ]}
              />
            </div>
          </Stack>
        </Fieldset>
        <Switch label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        {create.isError && <Alert color="red">{create.error.message}</Alert>}
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create monitor
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
