import { useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { ActionIcon, Alert, Button, Group, Modal, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconTrash, IconUpload } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { can, useSession } from '../api/session.ts';
import { COLUMN_TYPES, useCreateDataset, useDatasets, type Column } from '../api/datasets.ts';
import type { ColumnType } from '../api/types.ts';
import { formErrors } from '../lib/form-errors.ts';
import { UploadDialog } from '../components/DatasetUpload.tsx';
import { QueryState } from '../components/QueryState.tsx';
import { DialogActions } from '../components/DialogActions.tsx';

/** The project's datasets: name, records, columns, last change; create one, or upload a file. */
export default function DatasetsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/datasets' });
  const datasets = useDatasets(projectId);
  const { data: session } = useSession();
  const [creating, setCreating] = useState(false);
  const [uploading, setUploading] = useState(false);
  const rows = datasets.data?.data ?? [];

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Datasets
        </Title>
        <Group gap="sm">
          <Button variant="default" leftSection={<IconUpload size={14} />} size="sm" onClick={() => setUploading(true)} disabled={!can(session, 'datasets:create')}>
            Upload a file
          </Button>
          <Button leftSection={<IconPlus size={14} />} size="sm" onClick={() => setCreating(true)} disabled={!can(session, 'datasets:create')}>
            New dataset
          </Button>
        </Group>
      </Group>
      <QueryState
        query={datasets}
        failed="The datasets could not be loaded"
        loading="Loading datasets"
        empty={() =>
          rows.length === 0 && {
            title: 'No datasets yet',
            children: 'A dataset is a table of examples to evaluate against: create one with its columns, upload a CSV, JSON or JSONL file, or add traces to one from the traces list.',
          }
        }
      >
        {() => (
          <div className="panel">
            <Table striped highlightOnHover verticalSpacing={6} aria-label="Datasets">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th className="num">Records</Table.Th>
                  <Table.Th>Columns</Table.Th>
                  <Table.Th>Last change</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((d) => (
                  <Table.Tr key={d.id} data-dataset-id={d.id}>
                    <Table.Td>
                      <Link to="/p/$projectId/datasets/$datasetId" params={{ projectId, datasetId: d.id }}>
                        {d.name}
                      </Link>
                      <Text size="xs" className="mono muted">
                        {d.slug}
                      </Text>
                    </Table.Td>
                    <Table.Td className="num">{d.recordCount.toLocaleString()}</Table.Td>
                    <Table.Td>
                      <Text size="sm" className="ellipsis" maw={360} title={d.columnTypes.map((c) => `${c.name} (${c.type})`).join(', ')}>
                        {d.columnTypes.length === 0 ? <span className="muted">none</span> : d.columnTypes.map((c) => c.name).join(', ')}
                      </Text>
                    </Table.Td>
                    <TimeCell at={d.updatedAt} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </QueryState>
      {creating && <NewDatasetModal projectId={projectId} onClose={() => setCreating(false)} />}
      {uploading && <UploadDialog projectId={projectId} target={null} onClose={() => setUploading(false)} />}
    </div>
  );
}

const STARTER: Column[] = [
  { name: 'input', type: 'string' },
  { name: 'expected_output', type: 'string' },
];

function NewDatasetModal({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<Column[]>(STARTER);
  const create = useCreateDataset(projectId);
  const navigate = useNavigate();
  const errors = formErrors(create.error, DATASET_FIELDS);
  const submit = async () => {
    // Every row of the form is sent (an empty name is refused next to it), so the API's "columnTypes.2" is the form's third row.
    const d = await create.mutateAsync({ name: name.trim(), columnTypes: columns.map((c) => ({ ...c, name: c.name.trim() })) });
    onClose();
    await navigate({ to: '/p/$projectId/datasets/$datasetId', params: { projectId, datasetId: d.id } });
  };
  return (
    <Modal opened onClose={onClose} title="New dataset">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <Stack gap="sm">
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus error={errors.at('name')} />
          <ColumnsEditor columns={columns} onChange={setColumns} errorAt={errors.at} />
          {errors.elsewhere && (
            <Alert color="red" role="alert">
              {errors.elsewhere}
            </Alert>
          )}
          <DialogActions onClose={onClose}>
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

/** The fields of a dataset's name-and-columns form, as paths of the request body. */
export const DATASET_FIELDS = ['name', 'columnTypes.*.name', 'columnTypes.*.type'];

/**
 * The columns of a dataset as a form, one row each (add, rename, retype, remove); `errorAt`
 * says what the API refused about one ("columnTypes.1.name").
 */
export function ColumnsEditor({ columns, onChange, errorAt }: { columns: Column[]; onChange: (next: Column[]) => void; errorAt?: (path: string) => string | undefined }) {
  const set = (i: number, c: Partial<Column>) => onChange(columns.map((x, j) => (j === i ? { ...x, ...c } : x)));
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        Columns
      </Text>
      {columns.map((c, i) => (
        <Group key={i} gap={6} wrap="nowrap" data-testid="column-row">
          <TextInput aria-label={`Name of column ${i + 1}`} value={c.name} onChange={(e) => set(i, { name: e.currentTarget.value })} style={{ flex: 1, minWidth: 0 }} size="sm" error={errorAt?.(`columnTypes.${i}.name`)} />
          <NativeSelect aria-label={`Type of column ${i + 1}`} value={c.type} onChange={(e) => set(i, { type: e.currentTarget.value as ColumnType })} data={COLUMN_TYPES} size="sm" w={130} error={errorAt?.(`columnTypes.${i}.type`)} />
          <ActionIcon variant="subtle" color="red" aria-label={`Remove column ${i + 1}`} onClick={() => onChange(columns.filter((_, j) => j !== i))}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button size="compact-sm" variant="light" leftSection={<IconPlus size={12} />} onClick={() => onChange([...columns, { name: '', type: 'string' }])}>
          Add a column
        </Button>
      </Group>
    </Stack>
  );
}
