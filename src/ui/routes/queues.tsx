import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, MultiSelect, NativeSelect, NumberInput, Progress, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconListCheck, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { runsQuery, useExperiments } from '../api/experiments.ts';
import { useMembers } from '../api/organization.ts';
import { useQueueMutations, useQueues, useScoreConfigMutations, useScoreConfigs } from '../api/review.ts';
import { can, useSession } from '../api/session.ts';
import type { ReviewQueue, ScoreConfig } from '../api/review.ts';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { QueryState } from '../components/QueryState.tsx';
import { DialogActions } from '../components/DialogActions.tsx';

/** Annotation queues (with their progress) and the score configs reviewers fill in. */
export default function QueuesPage() {
  const { projectId } = useParams({ from: '/p/$projectId/queues' });
  const queues = useQueues(projectId);
  const configs = useScoreConfigs(projectId);
  const { data: session } = useSession();
  const mayManage = can(session, 'reviewQueues:create');
  const [editing, setEditing] = useState<ReviewQueue | 'new' | null>(null);
  const [adding, setAdding] = useState<ReviewQueue | null>(null);
  const { remove } = useQueueMutations(projectId);
  return (
    <div className="page">
      <Group justify="space-between">
        <Title order={1} size="h3">
          Review queues
        </Title>
        {mayManage && (
          <Button size="sm" leftSection={<IconPlus size={14} />} onClick={() => setEditing('new')}>
            New queue
          </Button>
        )}
      </Group>
      <QueryState
        query={queues}
        failed="The queues could not be loaded"
        loading="Loading queues"
        empty={(list) =>
          list.length === 0 && {
            title: 'No queues yet',
            children: (
            <>
              A queue is a list of traces for people to review with the scores you define. Add traces from the traces list (tick them, then Add to queue), an experiment
          run, or a monitor's failures.
            </>
          ),
          }
        }
      >
        {(list) => (
          <div className="panel">
            <Table verticalSpacing={6} aria-label="Review queues" className="queue-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Queue</Table.Th>
                  <Table.Th>Progress</Table.Th>
                  <Table.Th>Reviewers</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((q) => {
                  const done = q.progress.completed + q.progress.skipped;
                  return (
                    <Table.Tr key={q.id} data-queue={q.name}>
                      <Table.Td>
                        <Text size="sm" fw={600}>
                          {q.name}
                        </Text>
                        {q.description && (
                          <Text size="xs" className="muted">
                            {q.description}
                          </Text>
                        )}
                        <Group gap={4} mt={2}>
                          {q.scoreConfigIds.map((id) => (
                            <Badge key={id} size="xs" variant="light" color="gray">
                              {configs.data?.find((c) => c.id === id)?.name ?? id}
                            </Badge>
                          ))}
                        </Group>
                      </Table.Td>
                      <Table.Td style={{ minWidth: 140 }}>
                        <Progress value={q.progress.total ? (done / q.progress.total) * 100 : 0} size="sm" aria-label={`${q.name}: ${done} of ${q.progress.total} done`} />
                        <Text size="xs" className="muted" mt={2}>
                          {done} of {q.progress.total} done · {q.progress.skipped} skipped · {q.progress.claimed} in review
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        {q.progress.byReviewer.length === 0 ? (
                          <Text size="xs" className="muted">
                            Anyone in the project
                          </Text>
                        ) : (
                          q.progress.byReviewer.map((r) => (
                            <Text size="xs" key={r.reviewer} className="nowrap">
                              {r.email ?? (r.reviewer.startsWith('key:') ? 'API key' : r.reviewer)}: {r.completed} done
                              {r.skipped ? `, ${r.skipped} skipped` : ''}
                            </Text>
                          ))
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={6} wrap="nowrap" justify="flex-end">
                          <ButtonLink to="/p/$projectId/queues/$queueId/review" params={{ projectId, queueId: q.id }} size="compact-sm" leftSection={<IconListCheck size={14} />}>
                            Review
                          </ButtonLink>
                          {mayManage && (
                            <>
                              <Button size="compact-sm" variant="default" onClick={() => setAdding(q)}>
                                Add items
                              </Button>
                              <Button size="compact-sm" variant="subtle" aria-label={`Edit ${q.name}`} onClick={() => setEditing(q)}>
                                <IconPencil size={14} />
                              </Button>
                              <Button
                                size="compact-sm"
                                variant="subtle"
                                color="red"
                                aria-label={`Delete ${q.name}`}
                                onClick={() => {
                                  if (window.confirm(`Delete the queue "${q.name}"? Annotations already made stay.`)) remove.mutate(q.id);
                                }}
                              >
                                <IconTrash size={14} />
                              </Button>
                            </>
                          )}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </QueryState>
      <ScoreConfigs projectId={projectId} configs={configs.data ?? []} mayManage={can(session, 'scoreConfigs:create')} />
      {editing && <QueueDialog projectId={projectId} queue={editing === 'new' ? null : editing} configs={configs.data ?? []} onClose={() => setEditing(null)} />}
      {adding && <AddItemsDialog projectId={projectId} queue={adding} onClose={() => setAdding(null)} />}
    </div>
  );
}

function QueueDialog({ projectId, queue, configs, onClose }: { projectId: string; queue: ReviewQueue | null; configs: ScoreConfig[]; onClose: () => void }) {
  const members = useMembers();
  const { create, update } = useQueueMutations(projectId);
  const [name, setName] = useState(queue?.name ?? '');
  const [description, setDescription] = useState(queue?.description ?? '');
  const [configIds, setConfigIds] = useState<string[]>(queue?.scoreConfigIds ?? []);
  const [memberIds, setMemberIds] = useState<string[]>(queue?.members.map((m) => m.userId) ?? []);
  const mutation = queue ? update : create;
  // A queue is for giving scores: without one a reviewer would have nothing to fill in.
  const [noScore, setNoScore] = useState(false);
  const errors = formErrors(mutation.error, ['name', 'description', 'scoreConfigIds', 'memberUserIds']);
  const submit = async () => {
    setNoScore(configIds.length === 0);
    if (configIds.length === 0) return;
    const body = { name, description: description || null, scoreConfigIds: configIds, memberUserIds: memberIds };
    await (queue ? update.mutateAsync({ id: queue.id, body }) : create.mutateAsync(body));
    onClose();
  };
  return (
    <Modal opened onClose={onClose} title={queue ? `Edit ${queue.name}` : 'New review queue'}>
      <Stack
        gap="sm"
        component="form"
        onSubmit={(e: React.FormEvent) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} data-autofocus error={errors.at('name')} />
        <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} autosize minRows={2} maxLength={2000} error={errors.at('description')} />
        <MultiSelect
          label="Scores to fill in"
          required
          description={configs.length === 0 ? 'Define score configs below first' : 'Reviewers give a value for each'}
          data={configs.map((c) => ({ value: c.id, label: `${c.name} (${c.kind})` }))}
          value={configIds}
          onChange={(ids) => (setConfigIds(ids), setNoScore(false))}
          searchable
          error={noScore ? (configs.length === 0 ? 'Define a score config first (below the queues): reviewers give a value for each.' : 'Choose at least one score for reviewers to fill in.') : errors.at('scoreConfigIds')}
        />
        <MultiSelect
          label="Reviewers"
          description="None: anyone who may review in the project"
          data={(members.data ?? []).map((m) => ({ value: m.userId, label: m.email }))}
          value={memberIds}
          onChange={setMemberIds}
          searchable
          error={errors.at('memberUserIds')}
        />
        {errors.elsewhere && (
          <Alert color="red" role="alert">
            {errors.elsewhere}
          </Alert>
        )}
        <DialogActions onClose={onClose}>
          <Button type="submit" loading={mutation.isPending}>
            {queue ? 'Save' : 'Create queue'}
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}

/** Trace ids pasted (one per line), or an experiment run's traces. */
function AddItemsDialog({ projectId, queue, onClose }: { projectId: string; queue: ReviewQueue; onClose: () => void }) {
  const { addItems } = useQueueMutations(projectId);
  const [from, setFrom] = useState<'ids' | 'experiment'>('ids');
  const [ids, setIds] = useState('');
  const experiments = useExperiments(projectId);
  const [pickedSlug, setSlug] = useState<string | null>(null);
  const slug = pickedSlug ?? experiments.data?.find((e) => e.runsCount > 0)?.slug ?? '';
  const runs = useQuery({ ...runsQuery(projectId, slug), enabled: from === 'experiment' && !!slug });
  const [pickedRun, setRunId] = useState<{ slug: string; runId: string } | null>(null);
  const runId = pickedRun?.slug === slug ? pickedRun.runId : (runs.data?.runs[0]?.runId ?? '');
  const [result, setResult] = useState<string | null>(null);
  const submit = async () => {
    const body =
      from === 'ids'
        ? { items: ids.split(/[\s,]+/).filter(Boolean).map((traceId) => ({ traceId })) }
        : { experimentRun: { experimentSlug: slug, runId } };
    const r = await addItems.mutateAsync({ id: queue.id, body });
    setResult(`${r.added} added${r.alreadyQueued ? `, ${r.alreadyQueued} already in the queue` : ''}.`);
  };
  return (
    <Modal opened onClose={onClose} title={`Add to ${queue.name}`}>
      <Stack gap="sm">
        <NativeSelect
          label="From"
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value as 'ids' | 'experiment')}
          data={[
            { value: 'ids', label: 'Trace ids' },
            { value: 'experiment', label: "An experiment run's traces" },
          ]}
        />
        {from === 'ids' ? (
          <Textarea label="Trace ids" description="One per line (or tick traces in the traces list and choose Add to queue)" autosize minRows={3} value={ids} onChange={(e) => setIds(e.currentTarget.value)} />
        ) : (
          <>
            <NativeSelect
              label="Experiment"
              value={slug}
              onChange={(e) => setSlug(e.currentTarget.value)}
              data={[
                ...(slug ? [] : [{ value: '', label: experiments.isPending ? 'Loading…' : 'No experiment has runs yet' }]),
                ...(experiments.data ?? []).filter((e) => e.runsCount > 0).map((e) => ({ value: e.slug, label: e.name ?? e.slug })),
              ]}
            />
            <NativeSelect
              label="Run"
              description="Its rows' traces are added (rows without a trace are left out)"
              value={runId}
              onChange={(e) => setRunId({ slug, runId: e.currentTarget.value })}
              data={[...(runId ? [] : [{ value: '', label: runs.isFetching ? 'Loading…' : 'Choose an experiment first' }]), ...(runs.data?.runs ?? []).map((r) => ({ value: r.runId, label: r.name }))]}
            />
          </>
        )}
        {addItems.error && <Alert color="red">{addItems.error.message}</Alert>}
        {result && (
          <Alert color="teal" role="status">
            {result}
          </Alert>
        )}
        <DialogActions onClose={onClose} closeLabel="Close">
          <Button loading={addItems.isPending} disabled={from === 'experiment' && !runId} onClick={() => void submit().catch(() => undefined)}>
            Add
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}

function ScoreConfigs({ projectId, configs, mayManage }: { projectId: string; configs: ScoreConfig[]; mayManage: boolean }) {
  const { create, remove } = useScoreConfigMutations(projectId);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ScoreConfig['kind']>('numeric');
  const [min, setMin] = useState<number | string>(1);
  const [max, setMax] = useState<number | string>(5);
  const [categories, setCategories] = useState('');
  const [description, setDescription] = useState('');
  const errors = formErrors(create.error, ['name', 'kind', 'min', 'max', 'categories', 'description']);
  const submit = async () => {
    await create.mutateAsync({
      name,
      kind,
      description: description || null,
      ...(kind === 'numeric' ? { min: Number(min), max: Number(max) } : {}),
      ...(kind === 'categorical' ? { categories: categories.split(',').map((c) => c.trim()).filter(Boolean) } : {}),
    });
    setName('');
    setDescription('');
    setCategories('');
  };
  return (
    <section aria-labelledby="score-configs-title">
      <Title order={2} size="h4" id="score-configs-title" mb={6}>
        Score configs
      </Title>
      <div className="panel">
        <Table verticalSpacing={4} aria-label="Score configs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Values</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {configs.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={3}>
                  <Text size="sm" className="muted">
                    No score configs yet: a number within a range, yes or no, or one of named categories.
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {configs.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {c.name}
                  </Text>
                  {c.description && (
                    <Text size="xs" className="muted">
                      {c.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{c.kind === 'numeric' ? `${c.min} to ${c.max}` : c.kind === 'boolean' ? 'yes or no' : c.categories.join(', ')}</Text>
                </Table.Td>
                <Table.Td style={{ textAlign: 'right' }}>
                  {mayManage && (
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="red"
                      aria-label={`Delete ${c.name}`}
                      onClick={() => {
                        if (window.confirm(`Delete "${c.name}" and the scores given with it?`)) remove.mutate(c.id);
                      }}
                    >
                      <IconTrash size={14} />
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      {mayManage && (
        <form
          className="score-config-form"
          aria-label="New score config"
          onSubmit={(e) => {
            e.preventDefault();
            void submit().catch(() => undefined);
          }}
        >
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} error={errors.at('name')} />
          <NativeSelect
            label="Kind"
            error={errors.at('kind')}
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as ScoreConfig['kind'])}
            data={[
              { value: 'numeric', label: 'Number in a range' },
              { value: 'boolean', label: 'Yes or no' },
              { value: 'categorical', label: 'Categories' },
            ]}
          />
          {kind === 'numeric' && (
            <>
              <NumberInput label="From" value={min} onChange={setMin} w={90} error={errors.at('min')} />
              <NumberInput label="To" value={max} onChange={setMax} w={90} error={errors.at('max')} />
            </>
          )}
          {kind === 'categorical' && <TextInput label="Categories" required placeholder="good, okay, bad" value={categories} onChange={(e) => setCategories(e.currentTarget.value)} error={errors.at('categories')} />}
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={2000} error={errors.at('description')} />
          <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={14} />}>
            Add score
          </Button>
          {errors.elsewhere && (
            <Text size="xs" c="red.8" role="alert" style={{ flexBasis: '100%' }}>
              {errors.elsewhere}
            </Text>
          )}
        </form>
      )}
    </section>
  );
}
