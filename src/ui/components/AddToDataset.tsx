import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Group, Modal, NativeSelect, Progress, Radio, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconDatabasePlus } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { TRACE_SOURCES, addFromTraces, fetchImport, useCreateDataset, useDatasets, useRefreshAfterImport, useTraceMapping, type Column } from '../api/datasets.ts';
import { ApiError } from '../api/client.ts';
import type { DatasetImport } from '../api/datasets.ts';
import { can, useSession } from '../api/session.ts';
import type { TraceSearch } from '../lib/list-search.ts';
import { Loading } from './QueryState.tsx';

/** What is added: these traces or spans now, or every trace matching a search (a background job). */
export type AddSource =
  | { kind: 'items'; items: { traceId: string; spanId?: string }[]; label: string }
  | { kind: 'choice'; selected: string[]; filter: TraceSearch | null; matching: number };

/** A guess for a column with no remembered mapping: by its name. */
function guess(column: Column, span: boolean): string {
  const n = column.name.toLowerCase();
  if (/^(input|question|prompt|query)$/.test(n)) return 'input';
  if (/(output|answer|expected|response|completion)/.test(n)) return 'output';
  if (/context/.test(n)) return 'contexts';
  if (/(messages|conversation|chat)/.test(n)) return 'messages';
  if (n === 'metadata') return 'metadata';
  if (n === 'trace_id') return 'trace_id';
  if (n === 'span_id' && span) return 'span_id';
  if (n === 'model') return 'model';
  return '';
}

export function AddToDatasetButton({ projectId, source, size = 'xs', disabled }: { projectId: string; source: AddSource; size?: 'xs' | 'sm' | 'compact-sm'; disabled?: boolean }) {
  const [open, setOpen] = useState(false);
  const { data: session } = useSession();
  const allowed = can(session, 'datasets:update') && can(session, 'traces:view');
  return (
    <>
      <Button size={size} variant="default" leftSection={<IconDatabasePlus size={14} />} onClick={() => setOpen(true)} disabled={!allowed || disabled} title={allowed ? undefined : 'Your role cannot add to datasets'}>
        Add to dataset
      </Button>
      {open && <AddToDatasetDialog projectId={projectId} source={source} onClose={() => setOpen(false)} />}
    </>
  );
}

/**
 * Choose a dataset and how each of its columns is filled (input, output, contexts, messages,
 * metadata, ...: remembered per dataset by the server), then add; a search's traces are added
 * in the background, with progress.
 */
export function AddToDatasetDialog({ projectId, source, onClose }: { projectId: string; source: AddSource; onClose: () => void }) {
  const datasets = useDatasets(projectId);
  // The first dataset is chosen until the user picks another.
  const [pickedId, setDatasetId] = useState<string | null>(null);
  const datasetId = pickedId ?? datasets.data?.data[0]?.id ?? null;
  const [creating, setCreating] = useState(false);
  const [which, setWhich] = useState<'selected' | 'matching'>(source.kind === 'choice' && source.selected.length === 0 ? 'matching' : 'selected');
  const dataset = datasets.data?.data.find((d) => d.id === datasetId) ?? null;
  const remembered = useTraceMapping(projectId, datasetId);
  // The user's edits of one dataset's mapping; until then its remembered mapping (else a guess by column name).
  const [edited, setEdited] = useState<{ datasetId: string; mapping: Record<string, string> } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [job, setJob] = useState<DatasetImport | null>(null);
  const [added, setAdded] = useState<number | null>(null);
  const refresh = useRefreshAfterImport(projectId);
  const span = source.kind === 'items' && source.items.some((i) => i.spanId);

  const mapping = useMemo(() => {
    if (edited && edited.datasetId === datasetId) return edited.mapping;
    if (!dataset || remembered.isPending) return {};
    const saved = remembered.data?.mapping ?? null;
    return Object.fromEntries(dataset.columnTypes.map((c) => [c.name, saved ? (saved[c.name] ?? '') : guess(c, span)]));
  }, [edited, datasetId, dataset, remembered.isPending, remembered.data, span]);
  const setMapping = (next: Record<string, string>) => datasetId && setEdited({ datasetId, mapping: next });

  // A background import: its progress, read until it ends.
  useEffect(() => {
    if (!job || !datasetId || job.status === 'completed' || job.status === 'failed') return;
    const timer = setTimeout(() => {
      fetchImport(projectId, datasetId, job.id)
        .then(setJob)
        .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
    }, 700);
    return () => clearTimeout(timer);
  }, [job, datasetId, projectId]);
  useEffect(() => {
    if (job?.status === 'completed') void refresh.list();
  }, [job?.status, refresh]);

  const chosen = Object.fromEntries(Object.entries(mapping).filter(([, v]) => v));
  const submit = async () => {
    if (!datasetId) return;
    setBusy(true);
    setError(null);
    try {
      if (source.kind === 'choice' && which === 'matching') {
        const answer = await addFromTraces(projectId, datasetId, { filter: source.filter ?? {}, mapping: chosen });
        setJob(answer as DatasetImport);
      } else {
        const items = source.kind === 'items' ? source.items : source.selected.map((traceId) => ({ traceId }));
        const answer = await addFromTraces(projectId, datasetId, { items, mapping: chosen });
        setAdded((answer as { recordsCreated: number }).recordsCreated);
        void refresh.list();
      }
      void refresh.target(datasetId);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const link = dataset && (
    <Link to="/p/$projectId/datasets/$datasetId" params={{ projectId, datasetId: dataset.id }} className="back-link">
      Open {dataset.name}
    </Link>
  );
  const done = added !== null || job?.status === 'completed';
  return (
    <Modal opened onClose={onClose} title="Add to a dataset" size="lg">
      <Stack gap="sm">
        {datasets.isPending ? (
          <Loading label="Loading datasets" inline />
        ) : creating || !datasets.data?.data.length ? (
          <NewDatasetForm
            projectId={projectId}
            onCreated={(id) => {
              setDatasetId(id);
              setCreating(false);
            }}
            onCancel={datasets.data?.data.length ? () => setCreating(false) : undefined}
          />
        ) : (
          <>
            {source.kind === 'items' ? (
              <Text size="sm">{source.label}</Text>
            ) : (
              <Radio.Group label="Traces" value={which} onChange={(v) => setWhich(v)}>
                <Stack gap={4} mt={4}>
                  <Radio value="selected" label={`The ${source.selected.length} selected`} disabled={source.selected.length === 0 || !!job} />
                  <Radio value="matching" label={`All ${source.matching.toLocaleString()} matching the search (up to 10,000)`} disabled={!!job} />
                </Stack>
              </Radio.Group>
            )}
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <NativeSelect label="Dataset" value={datasetId ?? ''} onChange={(e) => setDatasetId(e.currentTarget.value)} data={datasets.data.data.map((d) => ({ value: d.id, label: d.name }))} disabled={!!job || done} style={{ flex: 1 }} />
              {!job && !done && (
                <Button variant="default" onClick={() => setCreating(true)}>
                  New dataset
                </Button>
              )}
            </Group>
            {dataset && (
              <div>
                <Text size="sm" fw={500}>
                  Columns
                </Text>
                <Text size="xs" className="muted">
                  What fills each column{remembered.data?.mapping ? ' (as last time)' : ''}; remembered for this dataset.
                </Text>
                <Table verticalSpacing={4} aria-label="Column mapping" data-testid="trace-mapping">
                  <Table.Tbody>
                    {dataset.columnTypes.map((c) => (
                      <Table.Tr key={c.name}>
                        <Table.Td className="mono">
                          {c.name} <span className="muted">({c.type})</span>
                        </Table.Td>
                        <Table.Td>
                          <NativeSelect
                            size="xs"
                            aria-label={`Source of ${c.name}`}
                            value={mapping[c.name] ?? ''}
                            onChange={(e) => setMapping({ ...mapping, [c.name]: e.currentTarget.value })}
                            data={[{ value: '', label: '(leave empty)' }, ...TRACE_SOURCES]}
                            disabled={!!job || done}
                          />
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </div>
            )}
          </>
        )}
        {job && (
          <div data-testid="import-progress">
            <Text size="sm">
              {job.status === 'queued'
                ? 'Waiting to start…'
                : job.status === 'running'
                  ? `Reading traces: ${job.done.toLocaleString()} of ${job.total.toLocaleString()}`
                  : job.status === 'completed'
                    ? `${job.recordsCreated.toLocaleString()} rows added.`
                    : `Failed: ${job.error ?? 'unknown error'}`}
            </Text>
            <Progress value={job.status === 'completed' ? 100 : job.total ? (100 * job.done) / job.total : 0} aria-label="Import progress" mt={4} color={job.status === 'failed' ? 'red' : undefined} />
          </div>
        )}
        {added !== null && <Alert color="teal">{`${added} ${added === 1 ? 'row' : 'rows'} added.`}</Alert>}
        {error && <Alert color="red">{error}</Alert>}
        <Group justify="space-between">
          <div>{done && link}</div>
          <Group gap="xs">
            <Button variant="default" onClick={onClose}>
              {done ? 'Done' : 'Cancel'}
            </Button>
            {!done && (
              <Button onClick={() => void submit()} loading={busy || (!!job && job.status !== 'failed')} disabled={creating || !dataset || Object.keys(chosen).length === 0}>
                Add
              </Button>
            )}
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The columns a dataset made from traces usually has: what was asked and what a good answer is. */
const TRACE_COLUMNS = 'input, expected_output';

/** A dataset created from inside the dialog: a name and its (text) columns, each filled from the traces below. */
function NewDatasetForm({ projectId, onCreated, onCancel }: { projectId: string; onCreated: (id: string) => void; onCancel?: () => void }) {
  const create = useCreateDataset(projectId);
  const [name, setName] = useState('');
  const [columns, setColumns] = useState(TRACE_COLUMNS);
  const names = columns.split(',').map((c) => c.trim()).filter(Boolean);
  const refusal = create.error instanceof ApiError ? create.error : null;
  const aboutColumns = !!refusal?.field?.startsWith('columnTypes');
  const nameError = refusal && !aboutColumns ? refusal.atField : create.error && !refusal ? create.error.message : undefined;
  const columnsError = names.length === 0 ? 'Name one column or more' : new Set(names).size < names.length ? 'Each column once' : aboutColumns ? refusal?.atField : undefined;
  return (
    <form
      aria-label="New dataset"
      onSubmit={(e) => {
        e.preventDefault();
        if (columnsError) return;
        create.mutate({ name: name.trim(), columnTypes: names.map((n) => ({ name: n, type: 'string' })) }, { onSuccess: (d) => onCreated(d.id) });
      }}
    >
      <Stack gap="xs">
        <Text size="sm" fw={500}>
          New dataset
        </Text>
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={nameError} maxLength={255} data-autofocus />
        <TextInput label="Columns" description="Comma-separated; next, choose what fills each from the traces" value={columns} onChange={(e) => setColumns(e.currentTarget.value)} error={columnsError} />
        <Group gap="xs" justify="flex-end">
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Back to the list
            </Button>
          )}
          <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
            Create dataset
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
