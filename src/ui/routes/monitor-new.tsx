import { useState } from 'react';
import { Alert, Button, Fieldset, Group, NativeSelect, NumberInput, Paper, SegmentedControl, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useCatalogue, useMonitorMutations, type Evaluator } from '../api/evaluators.ts';
import type { Monitor } from '../api/evaluators.ts';
import type { MonitorFilters } from '../api/types.ts';
import { SchemaForm, type JsonSchema } from '../components/SchemaForm.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { FILTER_FIELDS, FilterFields, filterText, filtersOf } from '../components/FilterFields.tsx';
import { Loading } from '../components/QueryState.tsx';

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
    return <Loading label="Loading evaluators" />;
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

/** The form of a new monitor, or of one being edited (`editing`: saved with PATCH, then `onSaved`). */
/** The request body's fields the monitor form shows a refusal next to; each of the evaluator's settings at its own control besides. */
const MONITOR_FIELDS = ['name', 'sample', 'unit', 'idle_minutes', 'schedule_minutes', ...FILTER_FIELDS];

export function MonitorForm({ projectId, evaluator, editing, onSaved, onCancel }: { projectId: string; evaluator: Evaluator; editing?: Monitor; onSaved?: () => void; onCancel?: () => void }) {
  const navigate = useNavigate();
  const { create, update } = useMonitorMutations(projectId);
  const [name, setName] = useState(editing?.name ?? evaluator.name);
  const [settings, setSettings] = useState<Record<string, unknown>>(() => structuredClone(editing?.settings ?? evaluator.defaultSettings));
  const [samplePercent, setSamplePercent] = useState<number>(editing ? Math.round(editing.sample * 1000) / 10 : 100);
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [unit, setUnit] = useState<'trace' | 'thread'>(editing?.unit ?? 'trace');
  const [idleMinutes, setIdleMinutes] = useState<number | string>(editing?.idle_minutes ?? 30);
  const [trigger, setTrigger] = useState<'idle' | 'schedule'>(editing?.schedule_minutes ? 'schedule' : 'idle');
  const [scheduleMinutes, setScheduleMinutes] = useState<number | string>(editing?.schedule_minutes ?? 60);
  const [filter, setFilter] = useState(() => filterText(editing?.filters));
  const saving = editing ? update : create;
  const errors = formErrors(saving.error, [...MONITOR_FIELDS, ...Object.keys((evaluator.settings as JsonSchema).properties ?? {}).map((key) => `settings.${key}`)]);

  const submit = async () => {
    const filters: MonitorFilters = filtersOf(filter) ?? {};
    // A filter the form does not show (a thread id set through the API) is kept as it was.
    if (editing?.filters?.thread_id) filters.thread_id = editing.filters.thread_id;
    const body = { name: name.trim(), evaluator: evaluator.path, settings, sample: samplePercent / 100, filters: Object.keys(filters).length ? filters : null, enabled };
    // A time the field cannot hold as a number goes as typed: the server names the field.
    const asSent = (v: number | string) => (v === '' ? null : Number(v)) as number;
    const idle = unit !== 'thread' ? {} : trigger === 'schedule' ? { schedule_minutes: asSent(scheduleMinutes) } : { idle_minutes: asSent(idleMinutes) };
    if (editing) {
      await update.mutateAsync({ id: editing.id, body: { ...body, ...idle } });
      onSaved?.();
      return;
    }
    const monitor = await create.mutateAsync({ ...body, unit, ...idle });
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
        <TextInput label="Name" description="Shown on each trace's evaluations and in the dashboard" value={name} onChange={(e) => setName(e.currentTarget.value)} required error={errors.at('name')} />
        <Paper withBorder p="md">
          <Title order={2} size="h5" mb="xs">
            Settings
          </Title>
          {Object.keys((evaluator.settings as JsonSchema).properties ?? {}).length === 0 ? (
            <Text size="sm" className="muted">
              This evaluator has no settings.
            </Text>
          ) : (
            <SchemaForm schema={evaluator.settings} value={settings} onChange={setSettings} idPrefix="monitor-settings" projectId={projectId} errorAt={(key) => errors.at(`settings.${key}`)} />
          )}
        </Paper>
        <Fieldset legend="What it evaluates">
          <Stack gap="sm">
            {editing ? (
              <Text size="sm">{unit === 'thread' ? 'Whole threads (conversations)' : 'Each trace as it arrives'}</Text>
            ) : (
              <SegmentedControl
                aria-label="Unit"
                value={unit}
                onChange={(v) => setUnit(v)}
                data={[
                  { value: 'trace', label: 'Each trace' },
                  { value: 'thread', label: 'Whole threads' },
                ]}
                maw={320}
              />
            )}
            {unit === 'thread' && (
              <SegmentedControl
                aria-label="When it runs"
                value={trigger}
                onChange={(v) => setTrigger(v)}
                data={[
                  { value: 'idle', label: 'Once a thread is idle' },
                  { value: 'schedule', label: 'On a schedule' },
                ]}
                maw={420}
              />
            )}
            {unit === 'thread' && trigger === 'idle' && (
              <NumberInput
                label="Idle time (minutes)"
                description="A thread is evaluated once it has had no new turn for this long (1 to 10080), and again after new turns. The evaluator sees {{conversation}}, {{turns}}, {{first_input}}, {{last_output}}."
                value={idleMinutes}
                min={1}
                max={10_080}
                allowDecimal={false}
                clampBehavior="none"
                onChange={setIdleMinutes}
                maw={420}
                error={errors.at('idle_minutes')}
              />
            )}
            {unit === 'thread' && trigger === 'schedule' && (
              <NumberInput
                label="Every (minutes)"
                description="Runs on the UTC clock (60: on the hour; 1440: at midnight UTC) and evaluates the threads that got turns since their last result. A length that divides a day (5, 15, 30, 60, 360, 720, 1440) or whole days up to 10080 (a week, on Mondays)."
                value={scheduleMinutes}
                min={5}
                max={10_080}
                allowDecimal={false}
                clampBehavior="none"
                onChange={setScheduleMinutes}
                maw={420}
                error={errors.at('schedule_minutes')}
              />
            )}
            {errors.at('unit') && (
              <Text size="sm" c="red">
                {errors.at('unit')}
              </Text>
            )}
          </Stack>
        </Fieldset>
        <Fieldset legend={unit === 'thread' ? 'Which threads (by their turns)' : 'Which traces'}>
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
              error={errors.at('sample')}
            />
            <FilterFields value={filter} onChange={setFilter} idPrefix="monitor" errorAt={(key) => errors.at(`filters.${key}`)} />
          </Stack>
        </Fieldset>
        <Switch label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        {errors.elsewhere && (
          <Alert color="red" role="alert">
            {errors.elsewhere}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={saving.isPending}>
            {editing ? 'Save changes' : 'Create monitor'}
          </Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}
