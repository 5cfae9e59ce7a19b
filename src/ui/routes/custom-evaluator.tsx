import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Group, MultiSelect, NumberInput, Paper, SegmentedControl, SimpleGrid, Stack, Table, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconArrowLeft, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useCustomEvaluator, useCustomEvaluatorMutations, useCustomVersions, type AnswerKind, type CustomEvaluator, type CustomVersion } from '../api/custom-evaluators.ts';
import { useCatalogue, useEvaluate } from '../api/evaluators.ts';
import { useModelOptions } from '../api/model-providers.ts';
import { can, useSession } from '../api/session.ts';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { EvaluationOutcome, EvaluatorHeading } from '../components/EvaluatorPage.tsx';
import { DataForm, missingRequired } from '../components/SchemaForm.tsx';
import { ModelPicker } from '../components/ModelPicker.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { formatFullTime } from '../lib/format.ts';
import { KNOWN_VARIABLES, variablesOf } from '../../modules/evaluators/custom/variables.schema.ts';
import { Loading, Unloaded } from '../components/QueryState.tsx';

type AnswerType = AnswerKind['type'];

/** What the editor holds: the evaluator's fields and one version's judge, as the form edits them. */
interface Draft {
  slug: string;
  name: string;
  description: string;
  prompt: string;
  model: string;
  temperature: number;
  max_output_tokens: number;
  answerType: AnswerType;
  min: number;
  max: number;
  threshold: number | null;
  categories: { name: string; description: string }[];
  passing: string[];
  commit_message: string;
}

const EMPTY: Draft = {
  slug: '',
  name: '',
  description: '',
  prompt: 'Question: {{input}}\nAnswer: {{output}}\n\nIs the answer correct and polite?',
  model: '',
  temperature: 0,
  max_output_tokens: 1024,
  answerType: 'pass_fail',
  min: 0,
  max: 1,
  threshold: 0.5,
  categories: [
    { name: 'good', description: '' },
    { name: 'bad', description: '' },
  ],
  passing: ['good'],
  commit_message: '',
};

function draftOf(e: Pick<CustomEvaluator, 'slug' | 'name' | 'description'>, v: Pick<CustomVersion, 'prompt' | 'model' | 'temperature' | 'max_output_tokens' | 'answer'>): Draft {
  const a = v.answer;
  return {
    ...EMPTY,
    slug: e.slug,
    name: e.name,
    description: e.description ?? '',
    prompt: v.prompt,
    model: v.model,
    temperature: v.temperature,
    max_output_tokens: v.max_output_tokens,
    answerType: a.type,
    ...(a.type === 'score' ? { min: a.min, max: a.max, threshold: a.threshold ?? null } : {}),
    ...(a.type === 'category' ? { categories: a.categories.map((c) => ({ name: c.name, description: c.description })), passing: a.passing ?? [] } : {}),
  };
}

function answerOf(d: Draft): AnswerKind {
  switch (d.answerType) {
    case 'pass_fail':
      return { type: 'pass_fail' };
    case 'score':
      return { type: 'score', min: d.min, max: d.max, threshold: d.threshold };
    case 'category':
      return { type: 'category', categories: d.categories, passing: d.passing.length ? d.passing : null };
  }
}

const FIELDS = ['slug', 'name', 'description', 'prompt', 'model', 'temperature', 'max_output_tokens', 'answer', 'commit_message'];

/** A custom LLM judge: create it, change it (each change of the judge a new version), its versions, and try it on sample data. */
export default function CustomEvaluatorPage() {
  const { projectId = '', slug } = useParams({ strict: false });
  const back = (
    <Link to="/p/$projectId/evaluators" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Evaluators
    </Link>
  );
  if (!slug) {
    return (
      <div className="page">
        <div>
          {back}
          <Title order={1} size="h3" mt={4}>
            New evaluator
          </Title>
          <Text size="sm" className="muted" maw={820}>
            An LLM judge of your own: a prompt whose variables are filled from the evaluation data, a model, and the kind of answer it must give.
          </Text>
        </div>
        <Editor projectId={projectId} initial={EMPTY} />
      </div>
    );
  }
  return <Existing projectId={projectId} slug={slug} back={back} />;
}

function Existing({ projectId, slug, back }: { projectId: string; slug: string; back: React.ReactNode }) {
  const evaluator = useCustomEvaluator(projectId, slug);
  const [tab, setTab] = useState<string>('edit');
  const [loaded, setLoaded] = useState<CustomVersion | null>(null);
  if (evaluator.isPending)
    return <Loading label="Loading the evaluator" />;
  if (evaluator.isError)
    return (
      <div className="page">
        {back}
        <Alert color="gray" title="This evaluator cannot be shown">
          {evaluator.error.message}
        </Alert>
      </div>
    );
  const e = evaluator.data;
  const initial = draftOf(e, loaded ?? e);
  return (
    <div className="page">
      <EvaluatorHeading
        back={back}
        name={e.name}
        path={e.path}
        description={e.description}
        badges={
          <Badge size="sm" variant="filled" color="indigo.9" tt="none">
            custom · v{e.latest_version}
          </Badge>
        }
      />
      <Tabs value={tab} onChange={(v) => setTab(v ?? 'edit')} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="edit">Edit</Tabs.Tab>
          <Tabs.Tab value="history">History</Tabs.Tab>
          <Tabs.Tab value="try">Try it</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="edit" pt="md">
          {loaded && (
            <Alert color="blue" mb="md" withCloseButton onClose={() => setLoaded(null)} closeButtonLabel="Back to the newest version">
              Editing from version {loaded.version}: saving makes it version {e.latest_version + 1}.
            </Alert>
          )}
          <Editor key={`${e.latest_version}:${loaded?.version ?? ''}`} projectId={projectId} initial={initial} existing={e} onSaved={() => setLoaded(null)} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <History
            projectId={projectId}
            slug={slug}
            onLoad={(v) => {
              setLoaded(v);
              setTab('edit');
            }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="try" pt="md">
          <TryIt projectId={projectId} evaluator={e} />
        </Tabs.Panel>
      </Tabs>
    </div>
  );
}

function Editor({ projectId, initial, existing, onSaved }: { projectId: string; initial: Draft; existing?: CustomEvaluator; onSaved?: () => void }) {
  const [d, setDraft] = useState<Draft>(initial);
  const set = (patch: Partial<Draft>) => setDraft((cur) => ({ ...cur, ...patch }));
  const { create, update, remove } = useCustomEvaluatorMutations(projectId);
  const models = useModelOptions(projectId);
  const { data: session } = useSession();
  const allowed = can(session, 'evaluators:manage');
  const navigate = useNavigate();
  const saving = existing ? update : create;
  const error = saving.error ?? remove.error;
  const variables = variablesOf(d.prompt);
  const errors = formErrors(error, FIELDS);

  const save = () => {
    const judge = { prompt: d.prompt, model: d.model, temperature: d.temperature, max_output_tokens: d.max_output_tokens, answer: answerOf(d) };
    if (existing) {
      update.mutate({ slug: existing.slug, body: { name: d.name, description: d.description || null, ...judge, commit_message: d.commit_message || null } }, { onSuccess: () => onSaved?.() });
    } else {
      create.mutate(
        { slug: d.slug, name: d.name, description: d.description || null, ...judge },
        { onSuccess: (saved) => void navigate({ to: '/p/$projectId/evaluators/custom/$slug/edit', params: { projectId, slug: saved.slug } }) },
      );
    }
  };

  return (
    <Stack gap="md" component="form" onSubmit={(ev: React.FormEvent) => (ev.preventDefault(), save())} aria-label={existing ? 'Edit the evaluator' : 'Create the evaluator'}>
      <Paper withBorder p="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput label="Name" required value={d.name} onChange={(e) => set({ name: e.currentTarget.value })} error={errors.at('name')} />
          <TextInput
            label="Slug"
            description={`Its path: custom/${d.slug || '<slug>'}`}
            required
            disabled={!!existing}
            value={d.slug}
            onChange={(e) => set({ slug: e.currentTarget.value })}
            error={errors.at('slug')}
            classNames={{ input: 'mono' }}
          />
        </SimpleGrid>
        <TextInput mt="sm" label="Description" value={d.description} onChange={(e) => set({ description: e.currentTarget.value })} error={errors.at('description')} />
      </Paper>

      <Paper withBorder p="md">
        <Title order={2} size="h5" mb="xs">
          Prompt
        </Title>
        <Textarea
          label="Prompt template"
          description="Variables in double braces are filled from the evaluation data."
          required
          autosize
          minRows={6}
          maxRows={20}
          value={d.prompt}
          onChange={(e) => set({ prompt: e.currentTarget.value })}
          error={errors.at('prompt')}
          classNames={{ input: 'mono' }}
        />
        <Group gap={6} mt="xs" aria-label="Variables the template uses">
          <Text size="xs" fw={600}>
            Uses:
          </Text>
          {variables.length === 0 && (
            <Text size="xs" c="red.9">
              no variable yet
            </Text>
          )}
          {variables.map((v) => (
            <Badge key={v} size="sm" variant="outline" color={KNOWN_VARIABLES.includes(v) ? 'teal.9' : 'orange.9'} tt="none" className="mono">
              {`{{${v}}}`} {KNOWN_VARIABLES.includes(v) ? '' : '· dataset column'}
            </Badge>
          ))}
        </Group>
        <Text size="xs" className="muted" mt={4}>
          Available: {KNOWN_VARIABLES.map((v) => `{{${v}}}`).join(', ')}, or any dataset column. Monitors give input, output, contexts and conversation.
        </Text>
      </Paper>

      <Paper withBorder p="md">
        <Title order={2} size="h5" mb="xs">
          Model
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <ModelPicker projectId={projectId} label="Model" description="Pick one, or type provider/model" required value={d.model} onChange={(model) => set({ model })} error={errors.at('model')} />
          <NumberInput label="Temperature" min={0} max={2} step={0.1} decimalScale={2} value={d.temperature} onChange={(v) => set({ temperature: typeof v === 'number' ? v : 0 })} error={errors.at('temperature')} />
          <NumberInput label="Max output tokens" min={16} max={8192} step={64} value={d.max_output_tokens} onChange={(v) => set({ max_output_tokens: typeof v === 'number' ? v : 1024 })} error={errors.at('max_output_tokens')} />
        </SimpleGrid>
        {models.data?.length === 0 && (
          <Text size="xs" mt="xs">
            No models yet:{' '}
            <Link to="/p/$projectId/settings/model-providers" params={{ projectId }}>
              set a model provider
            </Link>
            .
          </Text>
        )}
      </Paper>

      <Paper withBorder p="md">
        <Title order={2} size="h5" mb="xs">
          Answer
        </Title>
        <SegmentedControl
          aria-label="Kind of answer"
          value={d.answerType}
          onChange={(v) => set({ answerType: v })}
          data={[
            { value: 'pass_fail', label: 'Pass / fail' },
            { value: 'score', label: 'Score' },
            { value: 'category', label: 'Categories' },
          ]}
        />
        {errors.at('answer.type') && (
          <Text size="xs" c="red.9" mt={4}>
            {errors.at('answer.type')}
          </Text>
        )}
        {d.answerType === 'score' && (
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" mt="sm">
            <NumberInput label="Lowest score" value={d.min} onChange={(v) => set({ min: typeof v === 'number' ? v : 0 })} error={errors.at('answer.min')} />
            <NumberInput label="Highest score" value={d.max} onChange={(v) => set({ max: typeof v === 'number' ? v : 1 })} error={errors.at('answer.max')} />
            <NumberInput
              label="Passes from"
              description="Empty: no pass/fail"
              value={d.threshold ?? ''}
              onChange={(v) => set({ threshold: typeof v === 'number' ? v : null })}
              error={errors.at('answer.threshold')}
            />
          </SimpleGrid>
        )}
        {d.answerType === 'category' && (
          <Stack gap="xs" mt="sm">
            {d.categories.map((c, i) => (
              <Group key={i} gap="xs" align="flex-end" wrap="nowrap">
                <TextInput
                  label={`Category ${i + 1}`}
                  value={c.name}
                  style={{ flex: '1 1 30%', minWidth: 0 }}
                  onChange={(e) => set({ categories: d.categories.map((x, j) => (j === i ? { ...x, name: e.currentTarget.value } : x)) })}
                />
                <TextInput
                  label="What belongs in it"
                  value={c.description}
                  style={{ flex: '2 1 60%', minWidth: 0 }}
                  onChange={(e) => set({ categories: d.categories.map((x, j) => (j === i ? { ...x, description: e.currentTarget.value } : x)) })}
                />
                <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove category ${i + 1}`} disabled={d.categories.length <= 2} onClick={() => set({ categories: d.categories.filter((_, j) => j !== i) })}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            {errors.at('answer.categories') && (
              <Text size="xs" c="red.9">
                {errors.at('answer.categories')}
              </Text>
            )}
            <Group>
              <Button size="xs" variant="default" leftSection={<IconPlus size={14} />} onClick={() => set({ categories: [...d.categories, { name: '', description: '' }] })}>
                Add a category
              </Button>
            </Group>
            <MultiSelect
              label="Categories that pass"
              description="None: no pass/fail"
              data={[...new Set(d.categories.map((c) => c.name).filter(Boolean))]}
              value={d.passing.filter((p) => d.categories.some((c) => c.name === p))}
              onChange={(v) => set({ passing: v })}
              error={errors.at('answer.passing')}
            />
          </Stack>
        )}
      </Paper>

      {existing && (
        <TextInput label="What changed" description="Kept with the new version" value={d.commit_message} onChange={(e) => set({ commit_message: e.currentTarget.value })} error={errors.at('commit_message')} />
      )}
      {errors.elsewhere && (
        <Alert color="red" role="alert">
          {errors.elsewhere}
        </Alert>
      )}
      <Group>
        <Button type="submit" loading={saving.isPending} disabled={!allowed}>
          {existing ? 'Save' : 'Create'}
        </Button>
        {existing && allowed && (
          <Button
            variant="default"
            color="red"
            leftSection={<IconTrash size={14} />}
            loading={remove.isPending}
            onClick={() => {
              if (window.confirm(`Delete ${existing.name} and its versions? Its results stay on the traces.`))
                remove.mutate(existing.slug, { onSuccess: () => void navigate({ to: '/p/$projectId/evaluators', params: { projectId } }) });
            }}
          >
            Delete
          </Button>
        )}
        {!allowed && (
          <Text size="sm" className="muted">
            Your role cannot change evaluators.
          </Text>
        )}
      </Group>
    </Stack>
  );
}

function History({ projectId, slug, onLoad }: { projectId: string; slug: string; onLoad: (v: CustomVersion) => void }) {
  const versions = useCustomVersions(projectId, slug);
  if (!versions.isSuccess) return <Unloaded query={versions} loading="Loading the versions" failed="The versions could not be loaded" inline />;
  const answer = (a: AnswerKind) => (a.type === 'pass_fail' ? 'pass/fail' : a.type === 'score' ? `score ${a.min}–${a.max}${a.threshold != null ? `, passes from ${a.threshold}` : ''}` : `${a.categories.length} categories`);
  return (
    <div className="panel">
      <Table verticalSpacing={6} aria-label="Versions">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Version</Table.Th>
            <Table.Th>What changed</Table.Th>
            <Table.Th>Model</Table.Th>
            <Table.Th>Answer</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>
              <span className="sr-only">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {versions.data.map((v) => (
            <Table.Tr key={v.version}>
              <Table.Td>v{v.version}</Table.Td>
              <Table.Td>{v.commit_message ?? '–'}</Table.Td>
              <Table.Td className="mono">{v.model}</Table.Td>
              <Table.Td>{answer(v.answer)}</Table.Td>
              <Table.Td>{formatFullTime(v.created_at)}</Table.Td>
              <Table.Td>
                <Button size="compact-xs" variant="default" onClick={() => onLoad(v)} aria-label={`Edit from version ${v.version}`}>
                  Edit from here
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}

/** Runs the newest version on data typed here; the playground also fills it from a trace. */
function TryIt({ projectId, evaluator }: { projectId: string; evaluator: CustomEvaluator }) {
  const catalogue = useCatalogue(projectId);
  const entry = catalogue.data?.find((c) => c.path === evaluator.path);
  const [data, setData] = useState<Record<string, unknown>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const evaluate = useEvaluate(projectId, evaluator.path);
  const refused = formErrors(evaluate.error, ['data.*']);
  if (!entry) return catalogue.isPending ? <Loading label="Loading the evaluator" inline /> : <Alert color="gray">{evaluator.path} is not in the catalogue.</Alert>;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Paper withBorder p="md">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h5">
            Sample data
          </Title>
          <ButtonLink to="/p/$projectId/evaluators/$family/$name" params={{ projectId, family: 'custom', name: evaluator.slug }} size="compact-xs" variant="subtle">
            Fill from a trace in the playground
          </ButtonLink>
        </Group>
        <DataForm
          schema={entry.data}
          value={data}
          onChange={(update) => (setData(update), setMissing([]))}
          errorAt={(name) => (missing.includes(name) ? `Required: the judge's prompt uses {{${name}}}.` : refused.at(`data.${name}`))}
        />
        <Button
          mt="md"
          leftSection={<IconPlayerPlay size={14} />}
          onClick={() => {
            // Never run without a variable the prompt needs: say which, next to it.
            const empty = missingRequired(entry.data, data);
            setMissing(empty);
            if (empty.length === 0) evaluate.mutate({ data, settings: { version: evaluator.latest_version } });
          }}
          loading={evaluate.isPending}
        >
          Run version {evaluator.latest_version}
        </Button>
        {!entry.available && (
          <Alert color="yellow" mt="sm">
            {entry.unavailable_reason}
          </Alert>
        )}
      </Paper>
      <EvaluationOutcome run={evaluate} hint="Fill the variables, then Run: the judge's result shows here." />
    </SimpleGrid>
  );
}
