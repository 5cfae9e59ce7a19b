import { useState } from 'react';
import { Alert, Button, Group, NativeSelect, NumberInput, SegmentedControl, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconArrowLeft, IconPencil, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useScenarioChanges, useScenarios, type Scenario, type ScenarioBody } from '../api/simulations.ts';
import { usePrompts } from '../api/prompts.ts';
import { can, useSession } from '../api/session.ts';
import { ModelPicker } from '../components/ModelPicker.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { headersOf, headersText } from '../lib/header-lines.ts';
import { QueryState } from '../components/QueryState.tsx';

interface Form {
  name: string;
  scenarioSetId: string;
  description: string;
  persona: string;
  goal: string;
  /** One criterion a line. */
  criteria: string;
  maxTurns: number | string;
  type: 'http' | 'prompt';
  url: string;
  headers: string;
  output_field: string;
  timeout_ms: number | string;
  prompt: string;
  version: string;
  model: string;
}

const EMPTY: Form = {
  name: '',
  scenarioSetId: 'default',
  description: '',
  persona: '',
  goal: '',
  criteria: '',
  maxTurns: 10,
  type: 'http',
  url: '',
  headers: '',
  output_field: 'output',
  timeout_ms: 30_000,
  prompt: '',
  version: '',
  model: '',
};

function formOf(s: Scenario): Form {
  const t = s.target;
  return {
    ...EMPTY,
    name: s.name,
    scenarioSetId: s.scenarioSetId,
    description: s.description,
    persona: s.persona,
    goal: s.goal,
    criteria: s.criteria.join('\n'),
    maxTurns: s.maxTurns,
    ...(t.type === 'http'
      ? { type: 'http' as const, url: t.url, headers: headersText(t.headers), output_field: t.output_field, timeout_ms: t.timeout_ms }
      : { type: 'prompt' as const, prompt: t.prompt, version: t.version ? String(t.version) : '', model: t.model ?? '' }),
  };
}

/** A number field left empty takes the server's default; anything else is sent for the server to judge. */
const numberOr = (v: number | string) => (v === '' ? undefined : Number(v));

function bodyOf(f: Form): ScenarioBody {
  return {
    name: f.name,
    scenarioSetId: f.scenarioSetId,
    description: f.description,
    persona: f.persona,
    goal: f.goal,
    criteria: f.criteria
      .split('\n')
      .map((c) => c.trim())
      .filter(Boolean),
    maxTurns: numberOr(f.maxTurns),
    target:
      f.type === 'http'
        ? { type: 'http', url: f.url, headers: headersOf(f.headers), output_field: f.output_field || 'output', timeout_ms: numberOr(f.timeout_ms) }
        : { type: 'prompt', prompt: f.prompt, ...(f.version ? { version: Number(f.version) } : {}), ...(f.model ? { model: f.model } : {}) },
  };
}

/** The form's fields as paths of the scenario body: a refusal about one is shown next to it. */
const FIELDS = ['name', 'scenarioSetId', 'description', 'persona', 'goal', 'criteria', 'maxTurns', ...['url', 'headers', 'output_field', 'timeout_ms', 'prompt', 'version', 'model'].map((f) => `target.${f}`)];

/**
 * Scenarios the server runs: each a simulated user (persona and goal) talking to an agent (an
 * HTTP agent, as experiments call one, or a prompt) for at most so many turns, judged against
 * its criteria. Grouped by set; a set runs as a batch whose runs show as reported ones do.
 */
export default function SimulationScenariosPage() {
  const { projectId } = useParams({ from: '/p/$projectId/simulations/scenarios' });
  const scenarios = useScenarios(projectId);
  const { data: session } = useSession();
  const mayEdit = can(session, 'simulations:create');
  const [editing, setEditing] = useState<Scenario | 'new' | null>(null);
  const sets = [...new Set((scenarios.data ?? []).map((s) => s.scenarioSetId))];
  return (
    <div className="page simulations-page">
      <Link to="/p/$projectId/simulations" params={{ projectId }} className="back-link">
        <IconArrowLeft size={14} aria-hidden /> Simulations
      </Link>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h3">
          Scenarios
        </Title>
        {mayEdit && editing === null && (
          <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setEditing('new')}>
            New scenario
          </Button>
        )}
      </Group>
      {editing !== null && <ScenarioForm key={editing === 'new' ? 'new' : editing.id} projectId={projectId} scenario={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      <QueryState
        query={scenarios}
        failed="The scenarios could not be loaded"
        loading="Loading scenarios"
        empty={() =>
          sets.length === 0 && {
            title: 'No scenarios yet',
            children: (
            <>
              A scenario describes a user (who they are and what they want), the agent they talk to and what the judge checks. Define one, then run its set: Spyglass plays the user and the judge with the
          project&apos;s model providers.
            </>
          ),
          }
        }
      >
        {(list) => (
          sets.map((set) => <SetScenarios key={set} projectId={projectId} set={set} scenarios={list.filter((s) => s.scenarioSetId === set)} mayEdit={mayEdit} onEdit={setEditing} />)
        )}
      </QueryState>
    </div>
  );
}

function SetScenarios({ projectId, set, scenarios, mayEdit, onEdit }: { projectId: string; set: string; scenarios: Scenario[]; mayEdit: boolean; onEdit: (s: Scenario) => void }) {
  const changes = useScenarioChanges(projectId);
  const navigate = useNavigate();
  const [label, setLabel] = useState('');
  const [repeat, setRepeat] = useState<number | string>(1);
  const errors = formErrors(changes.run.error, ['label', 'repeat']);
  const run = () =>
    changes.run.mutate(
      { set, body: { repeat: numberOr(repeat), ...(label.trim() ? { label: label.trim() } : {}) } },
      { onSuccess: (started) => void navigate({ to: '/p/$projectId/simulations', params: { projectId }, search: { set, batch: started.batchRunId } }) },
    );
  return (
    <section className="panel sim-set" aria-label={`Scenario set ${set}`} data-scenario-set={set}>
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="xs">
        <Title order={2} size="h5" className="sim-name">
          <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set }}>
            {set}
          </Link>
        </Title>
        {mayEdit && (
          <Group gap="xs" align="flex-start" wrap="wrap">
            <TextInput size="xs" label="Agent version" placeholder="e.g. v2" value={label} onChange={(e) => setLabel(e.currentTarget.value)} error={errors.at('label')} w={140} />
            <NumberInput size="xs" label="Runs of each" min={1} value={repeat} onChange={setRepeat} error={errors.at('repeat')} w={110} />
            <Button size="xs" mt={22} leftSection={<IconPlayerPlay size={14} />} onClick={run} loading={changes.run.isPending} aria-label={`Run set ${set}`}>
              Run set
            </Button>
          </Group>
        )}
      </Group>
      {errors.elsewhere && (
        <Alert color="red" mt="xs">
          {errors.elsewhere}
        </Alert>
      )}
      <Stack gap={0} mt="xs">
        {scenarios.map((s) => (
          <div key={s.id} className="sim-scenario" data-scenario={s.name}>
            <div className="sim-scenario-text">
              <Text fw={600} size="sm" className="sim-name">
                {s.name}
              </Text>
              <Text size="xs" className="muted">
                {s.goal} · {s.criteria.length} {s.criteria.length === 1 ? 'criterion' : 'criteria'} · up to {s.maxTurns} turns · {s.target.type === 'http' ? `HTTP agent ${s.target.url}` : `prompt ${s.target.prompt}`}
              </Text>
            </div>
            {mayEdit && (
              <Group gap={4} wrap="nowrap">
                <Button size="compact-xs" variant="subtle" leftSection={<IconPencil size={14} />} onClick={() => onEdit(s)} aria-label={`Edit ${s.name}`}>
                  Edit
                </Button>
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  leftSection={<IconTrash size={14} />}
                  aria-label={`Delete ${s.name}`}
                  loading={changes.remove.isPending && changes.remove.variables === s.id}
                  onClick={() => window.confirm(`Delete the scenario "${s.name}"? Its runs stay.`) && changes.remove.mutate(s.id)}
                >
                  Delete
                </Button>
              </Group>
            )}
          </div>
        ))}
      </Stack>
    </section>
  );
}

function ScenarioForm({ projectId, scenario, onDone }: { projectId: string; scenario: Scenario | null; onDone: () => void }) {
  const [form, setForm] = useState<Form>(scenario ? formOf(scenario) : EMPTY);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const changes = useScenarioChanges(projectId);
  const prompts = usePrompts(projectId);
  const saving = scenario ? changes.replace : changes.create;
  const errors = formErrors(saving.error, FIELDS);
  const save = () => {
    const body = bodyOf(form);
    if (scenario) changes.replace.mutate({ id: scenario.id, body }, { onSuccess: onDone });
    else changes.create.mutate(body, { onSuccess: onDone });
  };
  const text = (field: keyof Form) => ({ value: form[field] as string, onChange: (e: { currentTarget: { value: string } }) => set({ [field]: e.currentTarget.value }) });
  return (
    <form
      className="panel sim-form"
      aria-label={scenario ? `Edit ${scenario.name}` : 'New scenario'}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <Title order={2} size="h5">
        {scenario ? `Edit ${scenario.name}` : 'New scenario'}
      </Title>
      <div className="sim-form-grid">
        <TextInput label="Name" required {...text('name')} error={errors.at('name')} />
        <TextInput label="Scenario set" description="`spyglass simulation run --set NAME` runs a set" {...text('scenarioSetId')} error={errors.at('scenarioSetId')} />
      </div>
      <Textarea label="Description" autosize minRows={1} {...text('description')} error={errors.at('description')} />
      <div className="sim-form-grid">
        <Textarea label="Persona" description="Who the simulated user is" required autosize minRows={2} {...text('persona')} error={errors.at('persona')} />
        <Textarea label="Goal" description="What the user wants from the agent" required autosize minRows={2} {...text('goal')} error={errors.at('goal')} />
      </div>
      <Textarea label="Criteria" description="One a line; the run succeeds when the judge finds every one met" required autosize minRows={3} {...text('criteria')} error={errors.at('criteria')} />
      <NumberInput label="Maximum turns" description="A user message and the agent's answer make a turn" value={form.maxTurns} onChange={(v) => set({ maxTurns: v })} error={errors.at('maxTurns')} w={220} />
      <fieldset className="sim-target">
        <legend>Agent</legend>
        <SegmentedControl
          aria-label="Agent kind"
          value={form.type}
          onChange={(v) => set({ type: v === 'prompt' ? 'prompt' : 'http' })}
          data={[
            { value: 'http', label: 'HTTP agent' },
            { value: 'prompt', label: 'Prompt' },
          ]}
          w="fit-content"
        />
        {form.type === 'http' ? (
          <>
            <TextInput label="URL" placeholder="https://agent.example.com/chat" description="POSTed {messages, thread_id, scenario} each turn" {...text('url')} error={errors.at('target.url')} />
            <div className="sim-form-grid">
              <TextInput label="Output field" description="The answer's field holding the reply; . for all of it" {...text('output_field')} error={errors.at('target.output_field')} />
              <NumberInput label="Timeout (ms)" value={form.timeout_ms} onChange={(v) => set({ timeout_ms: v })} error={errors.at('target.timeout_ms')} />
            </div>
            <Textarea
              label="Headers"
              description="One Name: value a line; stored encrypted, shown masked (a masked value keeps the stored one)"
              autosize
              minRows={2}
              {...text('headers')}
              error={errors.at('target.headers')}
            />
          </>
        ) : (
          <>
            <NativeSelect
              label="Prompt"
              {...text('prompt')}
              data={[{ value: '', label: 'Choose a prompt' }, ...(prompts.data ?? []).map((p) => ({ value: p.handle ?? p.id, label: `${p.handle ?? p.name} (v${p.version}, ${p.model})` }))]}
              error={errors.at('target.prompt')}
            />
            <div className="sim-form-grid">
              <TextInput label="Version" description="Empty: the newest when a batch starts" inputMode="numeric" value={form.version} onChange={(e) => set({ version: e.currentTarget.value.replace(/\D/g, '') })} error={errors.at('target.version')} />
              <ModelPicker projectId={projectId} label="Model" description="Empty: the version's" value={form.model} onChange={(model) => set({ model })} error={errors.at('target.model')} />
            </div>
          </>
        )}
      </fieldset>
      {errors.elsewhere && <Alert color="red">{errors.elsewhere}</Alert>}
      <Group gap="xs">
        <Button type="submit" loading={saving.isPending}>
          {scenario ? 'Save' : 'Create scenario'}
        </Button>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}
