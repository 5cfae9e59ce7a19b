import { useMemo, useState } from 'react';
import { Alert, Breadcrumbs, Button, Group, NativeSelect, NumberInput, Paper, SegmentedControl, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { useDatasets, useFirstRecord } from '../api/datasets.ts';
import { useCatalogue, type Evaluator } from '../api/evaluators.ts';
import { useDefinition, useExperiments, useSaveDefinition, useStartRun } from '../api/experiments.ts';
import { usePrompts } from '../api/prompts.ts';
import type { DefinitionBody } from '../api/types.ts';
import type { ExperimentDefinition } from '../api/experiments.ts';
import { VariableMapping } from '../components/VariableMapping.tsx';
import { ModelPicker } from '../components/ModelPicker.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { headersOf, headersText } from '../lib/header-lines.ts';
import { asText } from '../lib/format.ts';
import './experiments.css';
import { Loading } from '../components/QueryState.tsx';

/**
 * `/p/<projectId>/experiments/<slug>/setup`: what a platform run runs, edited in the app and
 * saved with PUT /api/experiments/{slug}/definition: the dataset (and version), targets (a
 * prompt, or an agent over HTTP), evaluators with their settings and the mapping of their data
 * keys, previewed on the dataset's first row; then Save, or Save and run.
 */

interface TargetForm {
  id: string;
  type: 'prompt' | 'http';
  prompt: string;
  version: string;
  model: string;
  url: string;
  /** One `Name: value` a line; a masked value (as the server answers it) keeps the stored one. */
  headers: string;
  output_field: string;
  /** A prompt's variables chosen in the form: `dataset.<column>` or `constant:<text>` (the rest: the column of the same name). */
  variables: Record<string, string>;
}
interface EvaluatorForm {
  id: string;
  evaluator: string;
  settings: string;
  mapping: Record<string, string>;
}
interface Form {
  name: string;
  dataset: string;
  datasetVersion: string;
  targets: TargetForm[];
  evaluators: EvaluatorForm[];
  concurrency: number;
}

const newTarget = (n: number): TargetForm => ({ id: `target-${n}`, type: 'prompt', prompt: '', version: '', model: '', url: '', headers: '', output_field: 'output', variables: {} });
const EMPTY: Form = { name: '', dataset: '', datasetVersion: '', targets: [newTarget(1)], evaluators: [], concurrency: 8 };

function formOf(d: ExperimentDefinition): Form {
  return {
    name: d.name ?? '',
    // A deleted dataset is no choice: the field is empty and says which one is gone.
    dataset: d.dataset && !d.dataset.deleted ? d.dataset.slug : '',
    datasetVersion: d.dataset?.version === null || d.dataset === null ? '' : String(d.dataset.version),
    targets: d.targets.map((t) =>
      t.type === 'prompt'
        ? { ...newTarget(0), id: t.id, type: 'prompt', prompt: t.prompt, version: t.version ? String(t.version) : '', model: t.model ?? '', variables: t.variables ?? {} }
        : { ...newTarget(0), id: t.id, type: 'http', url: t.url, headers: headersText(t.headers), output_field: t.output_field },
    ),
    evaluators: d.evaluators.map((e) => ({ id: e.id, evaluator: e.evaluator, settings: Object.keys(e.settings).length ? JSON.stringify(e.settings, null, 2) : '', mapping: e.mapping })),
    concurrency: d.concurrency,
  };
}

/** The body of PUT definition; a field it cannot read (settings that are not JSON) throws naming it. */
function bodyOf(f: Form): DefinitionBody {
  return {
    ...(f.name ? { name: f.name } : {}),
    ...(f.dataset ? { dataset: { id: f.dataset, ...(f.datasetVersion ? { version: Number(f.datasetVersion) } : {}) } } : {}),
    targets: f.targets.map((t) =>
      t.type === 'prompt'
        ? { id: t.id, type: 'prompt' as const, prompt: t.prompt, ...(t.version ? { version: Number(t.version) } : {}), ...(t.model ? { model: t.model } : {}), ...(Object.keys(t.variables).length ? { variables: t.variables } : {}) }
        : {
            id: t.id,
            type: 'http' as const,
            url: t.url,
            output_field: t.output_field || 'output',
            timeout_ms: 30_000,
            headers: headersOf(t.headers),
          },
    ),
    evaluators: f.evaluators.map((e, i) => {
      let settings: Record<string, unknown> | undefined;
      try {
        settings = e.settings.trim() ? (JSON.parse(e.settings) as Record<string, unknown>) : undefined;
      } catch {
        throw new ApiError(400, 'validation_error', `body.evaluators.${i}.settings: not JSON`, `body.evaluators.${i}.settings`);
      }
      return { id: e.id, evaluator: e.evaluator, ...(settings ? { settings } : {}), mapping: Object.fromEntries(Object.entries(e.mapping).filter(([, v]) => v)) };
    }),
    concurrency: f.concurrency,
  };
}

/** The fields of the form, as paths of the PUT definition body: a refusal about one is shown next to it. */
const SETUP_FIELDS = [
  'name',
  'dataset.id',
  'dataset.version',
  'concurrency',
  ...['id', 'prompt', 'version', 'model', 'url', 'output_field', 'headers', 'variables.*'].map((f) => `targets.*.${f}`),
  ...['id', 'evaluator', 'settings', 'mapping'].map((f) => `evaluators.*.${f}`),
];

/** An evaluator's data keys (its data schema's properties) and which of them it requires. */
function dataKeys(e: Evaluator | undefined): { key: string; required: boolean }[] {
  const schema = (e?.data ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.keys(schema.properties ?? {}).map((key) => ({ key, required: (schema.required ?? []).includes(key) }));
}

export default function ExperimentSetupPage() {
  const { projectId, slug } = useParams({ from: '/p/$projectId/experiments/$slug/setup' });
  const { name } = useSearch({ from: '/p/$projectId/experiments/$slug/setup' });
  const definition = useDefinition(projectId, slug);
  const isNew = definition.error instanceof ApiError && definition.error.status === 404;
  const experiments = useExperiments(projectId);
  const existing = experiments.data?.find((e) => e.slug === slug);
  // An SDK's experiment: its runs come from code, and a setup under its slug would be refused.
  const loggedBySdk = existing && existing.type !== 'EVALUATIONS_V3' ? existing : null;
  return (
    <div className="page setup-page">
      <Breadcrumbs separator="/">
        <Link to="/p/$projectId/experiments" params={{ projectId }}>
          Experiments
        </Link>
        {existing ? (
          <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }}>
            {existing.name ?? slug}
          </Link>
        ) : (
          <Text size="sm">{name ?? slug}</Text>
        )}
        <Text size="sm">Setup</Text>
      </Breadcrumbs>
      <Title order={1} size="h3">
        {loggedBySdk ? (loggedBySdk.name ?? slug) : isNew ? `New experiment ${slug}` : `Set up ${definition.data?.name ?? slug}`}
      </Title>
      {loggedBySdk ? (
        <Alert color="gray" title="Logged by an SDK">
          {loggedBySdk.name ?? slug} gets its runs from your code through the SDK, so the app has no setup to run for it. To run a prompt over a dataset from the
          app, name a new experiment on the{' '}
          <Link to="/p/$projectId/experiments" params={{ projectId }}>
            experiments page
          </Link>
          .
        </Alert>
      ) : definition.isPending ? (
        <Loading label="Loading the setup" />
      ) : definition.isError && !isNew ? (
        <Alert color="red" title="The setup could not be loaded">
          {definition.error.message}
        </Alert>
      ) : (
        <SetupForm
          projectId={projectId}
          slug={slug}
          initial={definition.data ? formOf(definition.data) : { ...EMPTY, name: name ?? slug }}
          deletedDataset={definition.data?.dataset?.deleted ? definition.data.dataset.name : null}
        />
      )}
    </div>
  );
}

function SetupForm({ projectId, slug, initial, deletedDataset }: { projectId: string; slug: string; initial: Form; deletedDataset: string | null }) {
  const [form, setForm] = useState<Form>(initial);
  const [error, setError] = useState<ApiError | null>(null);
  // The form as last saved: 'Saved.' holds until the form changes.
  const [savedForm, setSavedForm] = useState<Form | null>(null);
  const saved = savedForm === form;
  const datasets = useDatasets(projectId);
  const prompts = usePrompts(projectId);
  const catalogue = useCatalogue(projectId);
  const save = useSaveDefinition(projectId, slug);
  const start = useStartRun(projectId, slug);
  const navigate = useNavigate();
  const dataset = datasets.data?.data.find((d) => d.slug === form.dataset || d.id === form.dataset);
  const columns = useMemo(() => dataset?.columnTypes.map((c) => c.name) ?? [], [dataset]);
  const firstRow = useFirstRecord(projectId, dataset?.id);
  const entry = firstRow.data?.data[0]?.entry ?? null;
  const promptOf = (ref: string) => prompts.data?.find((p) => p.handle === ref || p.id === ref);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const setTarget = (i: number, patch: Partial<TargetForm>) => set({ targets: form.targets.map((t, j) => (j === i ? { ...t, ...patch } : t)) });
  const setEvaluator = (i: number, patch: Partial<EvaluatorForm>) => set({ evaluators: form.evaluators.map((e, j) => (j === i ? { ...e, ...patch } : e)) });
  const errors = formErrors(error, SETUP_FIELDS, { 'dataset': 'dataset.id' });

  async function submit(run: boolean) {
    setError(null);
    try {
      await save.mutateAsync(bodyOf(form));
      setSavedForm(form);
      if (run) {
        const started = await start.mutateAsync();
        await navigate({ to: '/p/$projectId/experiments/$slug', params: { projectId, slug }, search: { runId: started.runId } });
      }
    } catch (err) {
      if (err instanceof ApiError) setError(err);
      else throw err;
    }
  }

  const sourceOptions = [{ value: '', label: '(default)' }, { value: 'target.output', label: "The target's output" }, ...columns.map((c) => ({ value: `dataset.${c}`, label: `Column ${c}` }))];
  const preview = (source: string, key: string) => {
    const s = source || (key === 'output' ? 'target.output' : `dataset.${key}`);
    if (s.startsWith('target.output')) return "the target's output";
    if (!entry) return '–';
    const v = entry[s.slice('dataset.'.length)];
    return v === undefined || v === null ? '(empty)' : asText(v).slice(0, 120);
  };

  return (
    <form
      className="setup-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(false);
      }}
    >
      <Paper withBorder p="md" component="section" aria-labelledby="setup-data">
        <Title order={2} size="h5" id="setup-data">
          Data
        </Title>
        <div className="setup-grid">
          <TextInput label="Name" value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} />
          <NativeSelect
            label="Dataset"
            value={form.dataset}
            onChange={(e) => set({ dataset: e.currentTarget.value, datasetVersion: '' })}
            data={[{ value: '', label: datasets.isPending ? 'Loading…' : 'Choose a dataset' }, ...(datasets.data?.data ?? []).map((d) => ({ value: d.slug, label: `${d.name} (${d.recordCount} row${d.recordCount === 1 ? '' : 's'})` }))]}
            error={errors.at('dataset.id') ?? (deletedDataset && !form.dataset ? `The dataset “${deletedDataset}” was deleted: choose another.` : undefined)}
          />
          <TextInput label="Dataset version" description="Empty: the newest when each run starts" inputMode="numeric" value={form.datasetVersion} onChange={(e) => set({ datasetVersion: e.currentTarget.value.replace(/\D/g, '') })} error={errors.at('dataset.version')} />
          <NumberInput label="Concurrency" description="Cells run at once" min={1} max={64} value={form.concurrency} onChange={(v) => set({ concurrency: typeof v === 'number' ? v : 8 })} error={errors.at('concurrency')} />
        </div>
        {entry && (
          <Text size="xs" className="muted" mt="xs" data-testid="first-row">
            First row: {Object.entries(entry).map(([k, v]) => `${k} = ${asText(v).slice(0, 60)}`).join(' · ')}
          </Text>
        )}
      </Paper>

      <Paper withBorder p="md" component="section" aria-labelledby="setup-targets">
        <Title order={2} size="h5" id="setup-targets">
          Targets
        </Title>
        <Stack gap="md">
          {form.targets.map((t, i) => (
            <fieldset key={i} className="setup-item">
              <legend>Target {i + 1}</legend>
              <div className="setup-grid">
                <TextInput label="Id" value={t.id} onChange={(e) => setTarget(i, { id: e.currentTarget.value })} error={errors.at(`targets.${i}.id`)} />
                <div>
                  <Text size="sm" fw={500} id={`target-kind-${i}`}>
                    Kind
                  </Text>
                  <SegmentedControl
                    aria-labelledby={`target-kind-${i}`}
                    value={t.type}
                    onChange={(v) => setTarget(i, { type: v === 'http' ? 'http' : 'prompt' })}
                    data={[
                      { value: 'prompt', label: 'Prompt' },
                      { value: 'http', label: 'HTTP agent' },
                    ]}
                  />
                </div>
                {t.type === 'prompt' ? (
                  <>
                    <NativeSelect
                      label="Prompt"
                      value={t.prompt}
                      onChange={(e) => setTarget(i, { prompt: e.currentTarget.value, variables: {} })}
                      // The handle and version fit the field; the model is said below it (a long one cut the handle off).
                      data={[{ value: '', label: 'Choose a prompt' }, ...(prompts.data ?? []).map((p) => ({ value: p.handle ?? p.id, label: `${p.handle ?? p.name} v${p.version}` }))]}
                      description={promptOf(t.prompt) ? `Newest: v${promptOf(t.prompt)!.version}, ${promptOf(t.prompt)!.model}` : undefined}
                      error={errors.at(`targets.${i}.prompt`)}
                    />
                    <TextInput label="Version" description="Empty: the newest when a run starts" inputMode="numeric" value={t.version} onChange={(e) => setTarget(i, { version: e.currentTarget.value.replace(/\D/g, '') })} error={errors.at(`targets.${i}.version`)} />
                    <ModelPicker projectId={projectId} label="Model" description="Pick or type provider/model; empty: the version's" value={t.model} onChange={(model) => setTarget(i, { model })} error={errors.at(`targets.${i}.model`)} />
                  </>
                ) : (
                  <>
                    <TextInput label="URL" placeholder="https://agent.example.com/answer" value={t.url} onChange={(e) => setTarget(i, { url: e.currentTarget.value })} error={errors.at(`targets.${i}.url`)} />
                    <TextInput label="Output field" description="The answer's field; . for all of it" value={t.output_field} onChange={(e) => setTarget(i, { output_field: e.currentTarget.value })} error={errors.at(`targets.${i}.output_field`)} />
                    <Textarea
                      label="Headers"
                      description="One Name: value a line; stored encrypted, shown masked (a masked value keeps the stored one)"
                      autosize
                      minRows={2}
                      value={t.headers}
                      onChange={(e) => setTarget(i, { headers: e.currentTarget.value })}
                      error={errors.at(`targets.${i}.headers`)}
                    />
                  </>
                )}
              </div>
              {t.type === 'prompt' && promptOf(t.prompt) && (
                <VariableMapping
                  projectId={projectId}
                  prompt={promptOf(t.prompt)!}
                  version={t.version ? Number(t.version) : undefined}
                  columns={columns}
                  entry={entry}
                  value={t.variables}
                  onChange={(variables) => setTarget(i, { variables })}
                  errorOf={(v) => errors.at(`targets.${i}.variables.${v}`)}
                  label={`Variables of target ${i + 1}`}
                />
              )}
              {form.targets.length > 1 && (
                <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={() => set({ targets: form.targets.filter((_, j) => j !== i) })}>
                  Remove target {i + 1}
                </Button>
              )}
            </fieldset>
          ))}
          <Button variant="default" size="xs" leftSection={<IconPlus size={14} />} onClick={() => set({ targets: [...form.targets, newTarget(form.targets.length + 1)] })} w="fit-content">
            Add a target
          </Button>
        </Stack>
      </Paper>

      <Paper withBorder p="md" component="section" aria-labelledby="setup-evaluators">
        <Title order={2} size="h5" id="setup-evaluators">
          Evaluators
        </Title>
        <Stack gap="md">
          {form.evaluators.map((e, i) => {
            const found = catalogue.data?.find((c) => c.path === e.evaluator || c.aliases.includes(e.evaluator));
            return (
              <fieldset key={i} className="setup-item">
                <legend>Evaluator {i + 1}</legend>
                <div className="setup-grid">
                  <TextInput label="Id" value={e.id} onChange={(ev) => setEvaluator(i, { id: ev.currentTarget.value })} error={errors.at(`evaluators.${i}.id`)} />
                  <NativeSelect
                    label="Evaluator"
                    value={found?.path ?? e.evaluator}
                    onChange={(ev) => setEvaluator(i, { evaluator: ev.currentTarget.value, mapping: {}, settings: '' })}
                    data={[{ value: '', label: 'Choose an evaluator' }, ...(catalogue.data ?? []).map((c) => ({ value: c.path, label: `${c.name} (${c.path})${c.available ? '' : ' – not available'}` }))]}
                    error={errors.at(`evaluators.${i}.evaluator`)}
                  />
                  <Textarea
                    label="Settings (JSON)"
                    description={found ? `Defaults: ${JSON.stringify(found.defaultSettings).slice(0, 160)}` : undefined}
                    autosize
                    minRows={2}
                    className="mono"
                    value={e.settings}
                    onChange={(ev) => setEvaluator(i, { settings: ev.currentTarget.value })}
                    error={errors.at(`evaluators.${i}.settings`)}
                  />
                </div>
                {found && (
                  <table className="setup-mapping" aria-label={`Data of evaluator ${i + 1}`}>
                    <thead>
                      <tr>
                        <th>Data key</th>
                        <th>From</th>
                        <th>On the first row</th>
                      </tr>
                    </thead>
                    <tbody>
                      {dataKeys(found).map(({ key, required }) => (
                        <tr key={key}>
                          <td className="mono">
                            {key}
                            {required && <span className="muted"> (required)</span>}
                          </td>
                          <td>
                            <NativeSelect
                              aria-label={`Source of ${key}`}
                              size="xs"
                              value={e.mapping[key] ?? ''}
                              onChange={(ev) => setEvaluator(i, { mapping: { ...e.mapping, [key]: ev.currentTarget.value } })}
                              data={sourceOptions}
                              error={errors.at(`evaluators.${i}.mapping.${key}`)}
                            />
                          </td>
                          <td className="setup-preview" data-testid={`preview-${i}-${key}`}>
                            {preview(e.mapping[key] ?? '', key)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={() => set({ evaluators: form.evaluators.filter((_, j) => j !== i) })}>
                  Remove evaluator {i + 1}
                </Button>
              </fieldset>
            );
          })}
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => set({ evaluators: [...form.evaluators, { id: `evaluator-${form.evaluators.length + 1}`, evaluator: '', settings: '', mapping: {} }] })}
            w="fit-content"
          >
            Add an evaluator
          </Button>
        </Stack>
      </Paper>

      {errors.elsewhere && (
        <Alert color="red" title="Not saved" role="alert">
          {errors.elsewhere}
        </Alert>
      )}
      {saved && !error && (
        <Text size="sm" role="status">
          Saved.
        </Text>
      )}
      <Group gap="sm">
        <Button type="submit" loading={save.isPending && !start.isPending}>
          Save
        </Button>
        <Button variant="light" leftSection={<IconPlayerPlay size={14} />} loading={start.isPending} onClick={() => void submit(true)}>
          Save and run
        </Button>
      </Group>
    </form>
  );
}
