import { useState } from 'react';
import { Alert, Button, Checkbox, FileInput, Modal, NativeSelect, SegmentedControl, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconFile, IconUpload } from '@tabler/icons-react';
import { useNavigate } from '@tanstack/react-router';
import { COLUMN_TYPES, uploadFile, useDatasets, useRefreshDatasets, type Column, type UploadColumn } from '../api/datasets.ts';
import type { ColumnType } from '../api/types.ts';
import { formErrors } from '../lib/form-errors.ts';
import { guessType, previewFile, type FilePreview } from '../lib/file-preview.ts';
import { asText } from '../lib/format.ts';
import { DialogActions } from './DialogActions.tsx';

interface Mapped {
  from: string;
  include: boolean;
  name: string;
  type: ColumnType;
}

/**
 * Upload a CSV, JSON or JSONL file: its first rows and the column mapping (file column ->
 * dataset column and type) are shown before anything is sent; then one request stores it
 * whole (a new dataset, or appended to `target`).
 */
export function UploadDialog({ projectId, target, onClose }: { projectId: string; target: { id: string; columns: Column[] } | null; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [mapping, setMapping] = useState<Mapped[]>([]);
  const [mode, setMode] = useState<'new' | 'append'>(target ? 'append' : 'new');
  const [appendTo, setAppendTo] = useState<string>(target?.id ?? '');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const datasets = useDatasets(projectId);
  const refreshDatasets = useRefreshDatasets(projectId);
  const navigate = useNavigate();
  const appendColumns: Column[] = target?.columns ?? datasets.data?.data.find((d) => d.id === appendTo)?.columnTypes ?? [];

  const pick = async (f: File | null) => {
    setFile(f);
    setPreview(null);
    setProblem(null);
    setError(null);
    if (!f) return;
    try {
      const p = await previewFile(f);
      setPreview(p);
      if (!name) setName(f.name.replace(/\.[^.]+$/, ''));
      setMapping(p.columns.map((c) => ({ from: c, include: true, name: c === 'id' || c === 'selected' ? `${c}_` : c, type: guessType(p.rows.map((r) => r[c])) })));
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };

  // Appending: each file column goes to the dataset column of its name, if there is one.
  const effective = mode === 'append' ? mapping.map((m) => ({ ...m, name: appendColumns.some((c) => c.name === m.name) ? m.name : '' })) : mapping;
  const set = (i: number, patch: Partial<Mapped>) => setMapping(mapping.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const errors = formErrors(error, ['name', 'file', 'datasetId', 'mapping.*.name', 'mapping.*.type']);
  /** What the API said about a file column's mapping: its problems name the column by its place among those sent. */
  const mappingError = (from: string, field: 'name' | 'type') => {
    const sent = chosen.findIndex((c) => c.from === from);
    return sent >= 0 ? errors.at(`mapping.${sent}.${field}`) : undefined;
  };
  const chosen: UploadColumn[] = effective.filter((m) => m.include && m.name).map((m) => ({ from: m.from, name: m.name, type: mode === 'append' ? (appendColumns.find((c) => c.name === m.name)?.type ?? m.type) : m.type }));

  const submit = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const done = await uploadFile(projectId, file, chosen, mode === 'new' ? { name: name.trim() } : { datasetId: appendTo });
      await refreshDatasets();
      onClose();
      await navigate({ to: '/p/$projectId/datasets/$datasetId', params: { projectId, datasetId: done.datasetId }, search: { uploaded: done.recordsCreated } });
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={target ? 'Add rows from a file' : 'Upload a file'} size="xl">
      <Stack gap="sm">
        <FileInput
          label="File"
          description="CSV (first row the header), JSON (an array of objects) or JSONL (one object per line)"
          placeholder="Choose a file"
          accept=".csv,.json,.jsonl"
          leftSection={<IconFile size={14} />}
          value={file}
          onChange={(f) => void pick(f)}
          error={errors.at('file')}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the file' }}
        />
        {problem && <Alert color="red">{problem}</Alert>}
        {!target && (
          <SegmentedControl
            value={mode}
            onChange={(v) => setMode(v)}
            data={[
              { value: 'new', label: 'A new dataset' },
              { value: 'append', label: 'Add to a dataset' },
            ]}
            aria-label="Where the rows go"
          />
        )}
        {mode === 'new' ? (
          <TextInput label="Dataset name" value={name} onChange={(e) => setName(e.currentTarget.value)} required error={errors.at('name')} />
        ) : (
          !target && (
            <NativeSelect
              label="Dataset"
              value={appendTo}
              onChange={(e) => setAppendTo(e.currentTarget.value)}
              data={[{ value: '', label: 'Choose a dataset' }, ...(datasets.data?.data ?? []).map((d) => ({ value: d.id, label: d.name }))]}
              error={errors.at('datasetId')}
            />
          )
        )}
        {preview && (
          <>
            <div>
              <Text size="sm" fw={600}>
                Columns
              </Text>
              <Text size="xs" className="muted">
                {mode === 'new' ? 'Rename, retype or leave out the file’s columns. Values are converted to the type.' : 'Each file column goes into the dataset column you choose, converted to its type.'}
              </Text>
            </div>
            <div className="panel">
              <Table verticalSpacing={4} aria-label="Column mapping" data-testid="upload-mapping">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Use</Table.Th>
                    <Table.Th>File column</Table.Th>
                    <Table.Th>Dataset column</Table.Th>
                    <Table.Th>Type</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {effective.map((m, i) => (
                    <Table.Tr key={m.from}>
                      <Table.Td>
                        <Checkbox aria-label={`Use file column ${m.from}`} checked={m.include} onChange={(e) => set(i, { include: e.currentTarget.checked })} />
                      </Table.Td>
                      <Table.Td className="mono">{m.from}</Table.Td>
                      <Table.Td>
                        {mode === 'new' ? (
                          <TextInput size="xs" aria-label={`Dataset column for ${m.from}`} value={m.name} onChange={(e) => set(i, { name: e.currentTarget.value })} miw={100} error={mappingError(m.from, 'name')} />
                        ) : (
                          <NativeSelect
                            size="xs"
                            aria-label={`Dataset column for ${m.from}`}
                            value={m.name}
                            onChange={(e) => set(i, { name: e.currentTarget.value })}
                            data={[{ value: '', label: '(leave out)' }, ...appendColumns.map((c) => ({ value: c.name, label: c.name }))]}
                            error={mappingError(m.from, 'name')}
                          />
                        )}
                      </Table.Td>
                      <Table.Td>
                        {mode === 'new' ? (
                          <NativeSelect size="xs" aria-label={`Type of ${m.from}`} value={m.type} onChange={(e) => set(i, { type: e.currentTarget.value as ColumnType })} data={COLUMN_TYPES} error={mappingError(m.from, 'type')} />
                        ) : (
                          <Text size="xs">{appendColumns.find((c) => c.name === m.name)?.type ?? '–'}</Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
            <Text size="sm" fw={600}>
              First rows of the file
            </Text>
            <div className="panel" style={{ maxHeight: 240, overflow: 'auto' }}>
              <Table verticalSpacing={2} fz="xs" aria-label="First rows of the file" data-testid="upload-preview">
                <Table.Thead>
                  <Table.Tr>
                    {preview.columns.map((c) => (
                      <Table.Th key={c} className="mono">
                        {c}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {preview.rows.map((r, i) => (
                    <Table.Tr key={i}>
                      {preview.columns.map((c) => (
                        <Table.Td key={c} className="ellipsis" style={{ maxWidth: 220 }}>
                          {asText(r[c] ?? '')}
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
          </>
        )}
        {errors.elsewhere && (
          <Alert color="red" role="alert">
            {errors.elsewhere}
          </Alert>
        )}
        <DialogActions onClose={onClose}>
          <Button leftSection={<IconUpload size={14} />} onClick={() => void submit()} loading={busy} disabled={!preview || chosen.length === 0 || (mode === 'append' ? !appendTo : !name.trim())}>
            Upload
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}
