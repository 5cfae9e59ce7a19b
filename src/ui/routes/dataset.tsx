import { useCallback, useEffect, useId, useMemo, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Drawer, Group, List, Menu, Modal, Stack, Table, Text, TextInput, Textarea, Title, Tooltip } from '@mantine/core';
import { useDebouncedCallback, useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconChevronDown, IconClipboard, IconColumns, IconDownload, IconHistory, IconPlus, IconSearch, IconTrash, IconUpload } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { can, useSession } from '../api/session.ts';
import { DATASET_PAGE, downloadExport, readRecords, useDataset, useDatasetMutations, useExperimentsOnDataset, useVersions, type Column, type ExportCells } from '../api/datasets.ts';
import type { DatasetRecord } from '../api/datasets.ts';
import { ColumnsEditor, DATASET_FIELDS } from './datasets.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { UploadDialog } from '../components/DatasetUpload.tsx';
import { cellText, editText, parseCell } from '../lib/cell-values.ts';
import { parseTsv } from '../lib/file-preview.ts';
import { formatFullTime, formatRelative } from '../lib/format.ts';
import { Loading, Unloaded } from '../components/QueryState.tsx';

const PAGE = DATASET_PAGE;
const ROW_H = 34;
const HEAD_H = 36;

/** Delete (archive) a dataset, naming first the experiments set up on it: they cannot run until given another. */
function DeleteDataset({ projectId, datasetId, name, onCancel, onDeleted }: { projectId: string; datasetId: string; name: string; onCancel: () => void; onDeleted: () => void }) {
  const experiments = useExperimentsOnDataset(projectId, datasetId, true);
  const { archive } = useDatasetMutations(projectId, datasetId);
  const used = experiments.data ?? [];
  return (
    <Modal opened onClose={onCancel} title={`Delete ${name}?`}>
      <Stack gap="sm">
        <Text size="sm">The dataset leaves the list and its name is free again. Its rows stay readable by the runs that used them.</Text>
        {experiments.isPending ? (
          <Loading label="Looking for experiments that use it" size="xs" inline />
        ) : used.length > 0 ? (
          <Alert color="orange" title={`${used.length === 1 ? 'One experiment runs' : `${used.length} experiments run`} on this dataset`} role="alert" data-testid="dataset-used-by" classNames={{ title: 'alert-title' }}>
            <List size="sm">
              {used.map((e) => (
                <List.Item key={e.id}>
                  <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug: e.slug }}>
                    {e.name ?? e.slug}
                  </Link>
                </List.Item>
              ))}
            </List>
            <Text size="sm" mt={6}>
              {used.length === 1 ? 'It' : 'They'} cannot start a run until given another dataset in the setup.
            </Text>
          </Alert>
        ) : experiments.isError ? (
          <Alert color="gray">Could not check which experiments use it: {experiments.error.message}</Alert>
        ) : null}
        {archive.isError && (
          <Alert color="red" role="alert">
            {archive.error.message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button color="red.8" loading={archive.isPending} disabled={experiments.isPending} onClick={() => archive.mutate(undefined, { onSuccess: onDeleted })}>
            {used.length ? 'Delete anyway' : 'Delete dataset'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** A dataset as a spreadsheet: typed columns, rows read page by page as they scroll into view. */
export default function DatasetPage() {
  const { projectId, datasetId } = useParams({ from: '/p/$projectId/datasets/$datasetId' });
  const search = useSearch({ from: '/p/$projectId/datasets/$datasetId' });
  const navigate = useNavigate({ from: '/p/$projectId/datasets/$datasetId' });
  const dataset = useDataset(projectId, datasetId);
  const { data: session } = useSession();
  const [panel, setPanel] = useState<'history' | 'columns' | 'paste' | 'upload' | 'delete' | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** Bumped to read the rows again (after a change); toEnd: then show the last rows (rows were added). */
  const [generation, setGeneration] = useState({ n: 0, toEnd: false });
  const [query, setQuery] = useState(search.q ?? '');
  const setSearchQ = useDebouncedCallback((q: string) => void navigate({ search: (s) => ({ ...s, q: q || undefined }), replace: true }), 300);
  const mutations = useDatasetMutations(projectId, datasetId);
  const asOf = search.version;
  const readOnly = asOf !== undefined || !can(session, 'datasets:update');

  const back = (
    <Link to="/p/$projectId/datasets" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Datasets
    </Link>
  );
  if (dataset.isPending) {
    return <Loading label="Loading the dataset" />;
  }
  if (dataset.isError) {
    return (
      <div className="page">
        {back}
        <Alert color="gray" title="This dataset cannot be shown">
          {dataset.error.message}
        </Alert>
      </div>
    );
  }
  const d = dataset.data;
  const columns = d.columnTypes;
  const reload = (toEnd = false) => setGeneration((g) => ({ n: g.n + 1, toEnd }));

  const addRow = async () => {
    await mutations.addRecords.mutateAsync([{}]);
    reload(true);
  };
  const deleteSelected = async () => {
    const n = await mutations.deleteRecords.mutateAsync([...selected]);
    setSelected(new Set());
    notifications.show({ message: `${n} ${n === 1 ? 'row' : 'rows'} deleted`, color: 'teal' });
    reload();
  };
  const exportAs = (format: 'csv' | 'jsonl', cells: ExportCells) =>
    void downloadExport(projectId, d.id, format, cells).catch((e: unknown) => notifications.show({ message: e instanceof Error ? e.message : 'The export failed', color: 'red' }));
  const pasteRows = async (text: string) => {
    const entries = entriesFromTsv(text, columns);
    if (!entries.length) return;
    try {
      await mutations.addRecords.mutateAsync(entries);
      notifications.show({ message: `${entries.length} ${entries.length === 1 ? 'row' : 'rows'} added from the clipboard`, color: 'teal' });
      reload(true);
    } catch (e) {
      notifications.show({ message: e instanceof Error ? e.message : String(e), color: 'red' });
    }
  };

  return (
    <div className="list-page dataset-page">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Stack gap={0} style={{ minWidth: 0 }}>
          {back}
          <Title order={1} size="h3" className="ellipsis">
            {d.name}
          </Title>
          <Text size="xs" className="muted" data-testid="dataset-summary">
            {d.recordCount.toLocaleString()} row{d.recordCount === 1 ? '' : 's'} · {columns.length} column{columns.length === 1 ? '' : 's'} · version {d.currentVersion} · changed {formatRelative(Date.parse(d.updatedAt))}
          </Text>
        </Stack>
        <Group gap={6} wrap="wrap">
          <Button size="xs" variant="default" leftSection={<IconHistory size={14} />} onClick={() => setPanel('history')}>
            History
          </Button>
          <Button size="xs" variant="default" leftSection={<IconColumns size={14} />} onClick={() => setPanel('columns')} disabled={readOnly}>
            Columns
          </Button>
          <Button size="xs" variant="default" leftSection={<IconUpload size={14} />} onClick={() => setPanel('upload')} disabled={readOnly}>
            Add from a file
          </Button>
          <Button size="xs" variant="default" leftSection={<IconClipboard size={14} />} onClick={() => setPanel('paste')} disabled={readOnly || !columns.length}>
            Paste rows
          </Button>
          <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => void addRow()} loading={mutations.addRecords.isPending} disabled={readOnly || !columns.length}>
            Add row
          </Button>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} rightSection={<IconChevronDown size={12} />}>
                Export
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => exportAs('csv', 'spreadsheet')}>
                <Text size="sm">CSV for spreadsheets</Text>
                <Text size="xs" className="muted">
                  Text starting with = + - @ gets a leading &apos;, so no cell runs as a formula
                </Text>
              </Menu.Item>
              <Menu.Item onClick={() => exportAs('csv', 'exact')}>
                <Text size="sm">CSV, exact</Text>
                <Text size="xs" className="muted">
                  Every value as stored: uploads back unchanged
                </Text>
              </Menu.Item>
              <Menu.Item onClick={() => exportAs('jsonl', 'exact')}>
                <Text size="sm">JSON lines</Text>
                <Text size="xs" className="muted">
                  One row a line, values with their types
                </Text>
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
          {can(session, 'datasets:delete') && (
            <Button size="xs" variant="light" color="red" leftSection={<IconTrash size={14} />} onClick={() => setPanel('delete')}>
              Delete
            </Button>
          )}
        </Group>
      </Group>
      {asOf !== undefined && (
        <Alert color="indigo" py={6} data-testid="as-of">
          <Group justify="space-between" gap="xs">
            <Text size="sm">Viewing the dataset as of version {asOf} (read-only).</Text>
            <Button size="compact-sm" variant="light" onClick={() => void navigate({ search: (s) => ({ ...s, version: undefined }) })}>
              Back to now
            </Button>
          </Group>
        </Alert>
      )}
      {search.uploaded !== undefined && (
        <Alert color="teal" py={6} withCloseButton onClose={() => void navigate({ search: (s) => ({ ...s, uploaded: undefined }), replace: true })}>
          {search.uploaded.toLocaleString()} {search.uploaded === 1 ? 'row' : 'rows'} uploaded.
        </Alert>
      )}
      <Group gap="xs" wrap="wrap">
        <TextInput
          aria-label="Search the rows"
          placeholder="Search the rows"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={query}
          onChange={(e) => {
            setQuery(e.currentTarget.value);
            setSearchQ(e.currentTarget.value.trim());
          }}
          size="xs"
          w={260}
          style={{ flex: '1 1 200px', maxWidth: 320 }}
        />
        {selected.size > 0 && !readOnly && (
          <Button size="xs" color="red" variant="light" leftSection={<IconTrash size={14} />} onClick={() => void deleteSelected()} loading={mutations.deleteRecords.isPending}>
            Delete {selected.size} {selected.size === 1 ? 'row' : 'rows'}
          </Button>
        )}
      </Group>
      {columns.length === 0 ? (
        <Alert color="gray" title="No columns yet">
          Add columns (Columns) before adding rows, or upload a file.
        </Alert>
      ) : (
        <RecordGrid
          key={`${d.id}|${asOf ?? 'now'}|${search.q ?? ''}|${generation.n}`}
          projectId={projectId}
          datasetId={d.id}
          columns={columns}
          version={asOf}
          search={search.q}
          readOnly={readOnly}
          selected={selected}
          onSelect={setSelected}
          startAtEnd={generation.toEnd}
          onEdit={(id, entry) => mutations.editRecord.mutateAsync({ id, entry })}
          onPaste={(text) => void pasteRows(text)}
        />
      )}
      {panel === 'delete' && (
        <DeleteDataset
          projectId={projectId}
          datasetId={d.id}
          name={d.name}
          onCancel={() => setPanel(null)}
          onDeleted={() => {
            notifications.show({ message: `Dataset ${d.name} deleted`, color: 'teal' });
            void navigate({ to: '/p/$projectId/datasets', params: { projectId }, search: {} });
          }}
        />
      )}
      <Drawer opened={panel === 'history'} onClose={() => setPanel(null)} title="Version history" position="right" size="md">
        {panel === 'history' && (
          <History
            projectId={projectId}
            datasetId={d.id}
            current={d.currentVersion}
            viewing={asOf}
            onView={(v) => {
              setPanel(null);
              void navigate({ search: (s) => ({ ...s, version: v === d.currentVersion ? undefined : v }) });
            }}
          />
        )}
      </Drawer>
      {panel === 'columns' && (
        <ColumnsDialog
          name={d.name}
          columns={columns}
          pending={mutations.update.isPending}
          error={mutations.update.error}
          onCancel={() => setPanel(null)}
          onSave={async (body) => {
            await mutations.update.mutateAsync(body);
            setPanel(null);
            reload();
          }}
        />
      )}
      {panel === 'paste' && (
        <PasteDialog
          columns={columns}
          onCancel={() => setPanel(null)}
          onPaste={(text) => {
            setPanel(null);
            void pasteRows(text);
          }}
        />
      )}
      {panel === 'upload' && <UploadDialog projectId={projectId} target={{ id: d.id, columns }} onClose={() => setPanel(null)} />}
    </div>
  );
}

/** Tab-separated rows (a spreadsheet's copy) as entries: columns in order; a first row of the column names is skipped. */
export function entriesFromTsv(text: string, columns: Column[]): Record<string, unknown>[] {
  let rows = parseTsv(text);
  if (rows.length && rows[0].every((cell, i) => columns[i]?.name === cell.trim())) rows = rows.slice(1);
  return rows.map((cells) => {
    const entry: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const cell = cells[i];
      if (cell === undefined) return;
      const parsed = parseCell(cell, c.type, false);
      entry[c.name] = 'value' in parsed ? parsed.value : cell;
    });
    return entry;
  });
}

interface GridProps {
  projectId: string;
  datasetId: string;
  columns: Column[];
  version?: number;
  search?: string;
  readOnly: boolean;
  selected: Set<string>;
  onSelect: (next: Set<string>) => void;
  startAtEnd: boolean;
  onEdit: (id: string, entry: Record<string, unknown>) => Promise<DatasetRecord>;
  onPaste: (text: string) => void;
}

/**
 * The rows, windowed: only the rows in view are drawn, and only the pages of PAGE rows that
 * hold them are read (a 100,000-row dataset scrolls to its end reading one or two pages).
 */
function RecordGrid({ projectId, datasetId, columns, version, search, readOnly, selected, onSelect, startAtEnd, onEdit, onPaste }: GridProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const pages = useRef(new Map<number, DatasetRecord[]>());
  const loading = useRef(new Set<number>());
  const [total, setTotal] = useState<number | null>(null);
  const [, setTick] = useState(0);
  const [failed, setFailed] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ row: number; col: number } | null>(null);
  const narrow = useMediaQuery('(max-width: 760px)') ?? false;
  const colWidth = narrow ? 150 : 200;
  const template = `36px 64px repeat(${columns.length}, minmax(${colWidth}px, 1fr))`;
  const minWidth = 100 + columns.length * colWidth;

  const load = useCallback(
    (page: number) => {
      if (pages.current.has(page) || loading.current.has(page)) return;
      loading.current.add(page);
      readRecords(projectId, datasetId, { page: page + 1, limit: PAGE, version, search })
        .then((res) => {
          pages.current.set(page, res.data);
          setTotal(res.pagination.total);
          setTick((t) => t + 1);
        })
        .catch((e: unknown) => setFailed(e instanceof Error ? e.message : String(e)))
        .finally(() => loading.current.delete(page));
    },
    [projectId, datasetId, version, search],
  );
  useEffect(() => load(0), [load]);

  const count = total ?? 0;
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_H, overscan: 10, scrollMargin: HEAD_H });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (!count) return;
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) load(p);
  }, [first, last, count, load]);
  const didStart = useRef(false);
  useEffect(() => {
    if (startAtEnd && count && !didStart.current) {
      didStart.current = true;
      virtualizer.scrollToIndex(count - 1, { align: 'end' });
    }
  }, [startAtEnd, count, virtualizer]);

  const rowAt = (i: number) => pages.current.get(Math.floor(i / PAGE))?.[i % PAGE];
  const save = async (index: number, record: DatasetRecord, column: Column, value: unknown) => {
    const entry = { ...record.entry, [column.name]: value };
    const page = pages.current.get(Math.floor(index / PAGE));
    const put = (r: DatasetRecord) => {
      if (page) page[index % PAGE] = r;
      setTick((t) => t + 1);
    };
    put({ ...record, entry });
    try {
      put(await onEdit(record.id, entry));
    } catch (e) {
      put(record);
      notifications.show({ message: `Not saved: ${e instanceof Error ? e.message : String(e)}`, color: 'red' });
    }
  };

  // A drawn cell takes the focus at once: keys typed quickly (two arrows, then Enter) each start
  // from where the last one went. A row outside the window is scrolled to first.
  const focusCell = (row: number, col: number) => {
    const drawn = scrollRef.current?.querySelector<HTMLElement>(`[data-cell="${row}:${col}"]`);
    if (drawn) return drawn.focus();
    virtualizer.scrollToIndex(row, { align: 'auto' });
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-cell="${row}:${col}"]`)?.focus());
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const cell = (e.target as HTMLElement).closest<HTMLElement>('[data-cell]');
    if (!cell || editing) return;
    const [row, col] = cell.dataset.cell!.split(':').map(Number);
    const moves: Record<string, [number, number]> = { ArrowDown: [1, 0], ArrowUp: [-1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const [dr, dc] = moves[e.key];
      const r = Math.min(count - 1, Math.max(0, row + dr));
      const c = Math.min(columns.length - 1, Math.max(0, col + dc));
      focusCell(r, c);
    } else if ((e.key === 'Enter' || e.key === 'F2') && !readOnly && rowAt(row)) {
      e.preventDefault();
      setEditing({ row, col });
    }
  };
  const onPasteEvent = (e: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing || (e.target as HTMLElement).closest('input,textarea,select')) return;
    const text = e.clipboardData.getData('text/plain');
    if (!text.trim()) return;
    e.preventDefault();
    onPaste(text);
  };

  if (failed) return <Alert color="red" title="The rows could not be loaded">{failed}</Alert>;
  if (total === null) {
    return <Loading label="Loading rows" />;
  }
  if (total === 0) {
    return (
      <Alert color="gray" title={search ? 'No row matches' : 'No rows yet'}>
        {search ? 'No row contains this text.' : readOnly ? 'This version had no rows.' : 'Add a row, paste rows copied from a spreadsheet (Ctrl+V here), or add rows from a file.'}
        {!search && !readOnly && (
          <div tabIndex={0} className="paste-target" onPaste={onPasteEvent} aria-label="Paste rows here">
            Click here and paste
          </div>
        )}
      </Alert>
    );
  }
  const loadedIds = [...pages.current.values()].flat().map((r) => r.id);
  const allSelected = loadedIds.length > 0 && loadedIds.every((id) => selected.has(id));
  return (
    <div
      className="list-grid ds-grid"
      ref={scrollRef}
      role="grid"
      aria-label="Rows"
      aria-rowcount={count + 1}
      aria-colcount={columns.length + 2}
      aria-readonly={readOnly}
      onKeyDown={onKeyDown}
      onPaste={onPasteEvent}
      data-testid="dataset-grid"
      data-total={count}
    >
      <div className="ds-head" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template, minWidth }}>
        <div role="columnheader" aria-label="Select">
          {!readOnly && (
            <Checkbox size="xs" aria-label="Select the loaded rows" checked={allSelected} onChange={() => onSelect(allSelected ? new Set() : new Set(loadedIds))} />
          )}
        </div>
        <div role="columnheader" className="num">
          #
        </div>
        {columns.map((c) => (
          <div role="columnheader" key={c.name} className="ds-colhead" title={`${c.name} (${c.type})`}>
            <span className="ellipsis">{c.name}</span>
            <Badge size="xs" variant="light" color="gray" tt="none" className="ds-type">
              {c.type}
            </Badge>
          </div>
        ))}
      </div>
      <div className="ds-body" role="rowgroup" style={{ height: virtualizer.getTotalSize(), minWidth }}>
        {items.map((item) => {
          const r = rowAt(item.index);
          return (
            <div
              key={item.key}
              role="row"
              aria-rowindex={item.index + 2}
              className="ds-row"
              aria-selected={r ? selected.has(r.id) : undefined}
              data-record-id={r?.id}
              style={{ transform: `translateY(${item.start - HEAD_H}px)`, gridTemplateColumns: template }}
            >
              <div role="gridcell">
                {r && !readOnly && (
                  <Checkbox
                    size="xs"
                    aria-label={`Select row ${item.index + 1}`}
                    checked={selected.has(r.id)}
                    onChange={(e) => {
                      const next = new Set(selected);
                      if (e.currentTarget.checked) next.add(r.id);
                      else next.delete(r.id);
                      onSelect(next);
                    }}
                  />
                )}
              </div>
              <div role="gridcell" className="num muted">
                {item.index + 1}
              </div>
              {columns.map((c, ci) =>
                editing && editing.row === item.index && editing.col === ci && r ? (
                  <CellEditor
                    key={c.name}
                    column={c}
                    value={r.entry[c.name]}
                    onDone={(value) => {
                      setEditing(null);
                      if (value !== undefined) void save(item.index, r, c, value);
                      requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-cell="${item.index}:${ci}"]`)?.focus());
                    }}
                  />
                ) : (
                  <div
                    key={c.name}
                    role="gridcell"
                    tabIndex={item.index === 0 && ci === 0 ? 0 : -1}
                    data-cell={`${item.index}:${ci}`}
                    className={`ds-cell ellipsis${r ? '' : ' ds-loading'}`}
                    aria-label={r ? undefined : 'Loading'}
                    title={r ? cellText(r.entry[c.name]) : undefined}
                    onClick={(e) => {
                      if (readOnly || !r) return;
                      if (document.activeElement === e.currentTarget) setEditing({ row: item.index, col: ci });
                      else e.currentTarget.focus();
                    }}
                    onDoubleClick={() => !readOnly && r && setEditing({ row: item.index, col: ci })}
                  >
                    {r ? cellText(r.entry[c.name]) : ''}
                  </div>
                ),
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** The cell being edited: a box for its column's type; Enter saves, Escape cancels (Shift+Enter: a new line in text). */
function CellEditor({ column, value, onDone }: { column: Column; value: unknown; onDone: (value?: unknown) => void }) {
  const [text, setText] = useState(() => editText(value, column.type));
  const [error, setError] = useState<string | null>(null);
  const finished = useRef(false);
  // Named as Mantine names a field's error, so one helper finds the words tied to any field.
  const errorId = `${useId()}-error`;
  const commit = () => {
    if (finished.current) return;
    const parsed = parseCell(text, column.type, true);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    finished.current = true;
    onDone(editText(value, column.type) === text ? undefined : parsed.value);
  };
  const cancel = () => {
    finished.current = true;
    onDone(undefined);
  };
  const keys = (e: KeyboardEvent<HTMLElement>) => {
    e.stopPropagation();
    if (e.key === 'Escape') {
      e.preventDefault();
      cancel();
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      commit();
    }
  };
  const label = `Edit ${column.name} (${column.type})`;
  const common = { 'aria-label': label, 'aria-invalid': !!error, 'aria-describedby': error ? errorId : undefined, autoFocus: true, onKeyDown: keys, onBlur: commit, className: 'ds-editor' };
  return (
    <div role="gridcell" className="ds-cell ds-editing" title={error ?? undefined}>
      {column.type === 'boolean' ? (
        <select {...common} value={text} onChange={(e) => setText(e.currentTarget.value)}>
          <option value="">(empty)</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : column.type === 'string' || column.type === 'image' || column.type === 'number' || column.type === 'date' ? (
        <input {...common} type={column.type === 'number' ? 'text' : column.type === 'date' ? 'date' : 'text'} inputMode={column.type === 'number' ? 'decimal' : undefined} value={text} onChange={(e) => setText(e.currentTarget.value)} />
      ) : (
        <textarea {...common} className="ds-editor ds-editor-json" value={text} onChange={(e) => setText(e.currentTarget.value)} />
      )}
      {error && (
        <span className="ds-error" role="alert" id={errorId}>
          {error}
        </span>
      )}
    </div>
  );
}

function History({ projectId, datasetId, current, viewing, onView }: { projectId: string; datasetId: string; current: number; viewing?: number; onView: (v: number) => void }) {
  const versions = useVersions(projectId, datasetId, true);
  if (!versions.isSuccess) return <Unloaded query={versions} loading="Loading versions" failed="The versions could not be loaded" inline />;
  if (!versions.data.data.length) return <Text size="sm">No versions yet: the dataset has had no rows.</Text>;
  const words: Record<string, string> = {
    records_added: 'Rows added',
    record_updated: 'Row edited',
    records_deleted: 'Rows deleted',
    columns_changed: 'Columns changed',
    file_uploaded: 'File uploaded',
    from_traces: 'Added from traces',
  };
  return (
    <Table verticalSpacing={4} aria-label="Versions" data-testid="versions">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Version</Table.Th>
          <Table.Th>Change</Table.Th>
          <Table.Th className="num">Rows</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {versions.data.data.map((v) => (
          <Table.Tr key={v.version} data-version={v.version}>
            <Table.Td>
              v{v.version}
              <Text size="xs" className="muted nowrap" title={formatFullTime(v.createdAt)}>
                {formatRelative(Date.parse(v.createdAt))}
              </Text>
            </Table.Td>
            <Table.Td>
              {words[v.change] ?? v.change}
              <Text size="xs" className="muted">
                {[v.added && `+${v.added}`, v.updated && `~${v.updated}`, v.removed && `−${v.removed}`].filter(Boolean).join(' ')}
              </Text>
            </Table.Td>
            <Table.Td className="num">{v.recordCount.toLocaleString()}</Table.Td>
            <Table.Td>
              {(viewing ?? current) === v.version ? (
                <Badge size="sm" variant="light" tt="none">
                  {v.version === current ? 'current' : 'viewing'}
                </Badge>
              ) : (
                <Button size="compact-xs" variant="light" onClick={() => onView(v.version)} aria-label={`View as of version ${v.version}`}>
                  {v.version === current ? 'View now' : 'View'}
                </Button>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ColumnsDialog({ name, columns, pending, error, onCancel, onSave }: { name: string; columns: Column[]; pending: boolean; error: Error | null; onCancel: () => void; onSave: (body: { name?: string; columnTypes?: Column[] }) => Promise<void> }) {
  const [nextName, setName] = useState(name);
  const [next, setNext] = useState<Column[]>(columns);
  const changed = useMemo(() => JSON.stringify(next) !== JSON.stringify(columns), [next, columns]);
  const errors = formErrors(error, DATASET_FIELDS);
  return (
    <Modal opened onClose={onCancel} title="Name and columns">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const body = { ...(nextName.trim() !== name ? { name: nextName.trim() } : {}), ...(changed ? { columnTypes: next.map((c) => ({ ...c, name: c.name.trim() })) } : {}) };
          void onSave(body).catch(() => undefined);
        }}
      >
        <Stack gap="sm">
          <TextInput label="Name" value={nextName} onChange={(e) => setName(e.currentTarget.value)} required error={errors.at('name')} />
          <ColumnsEditor columns={next} onChange={setNext} errorAt={errors.at} />
          {changed && (
            <Text size="xs" className="muted">
              Every row is rewritten onto the new columns: kept columns keep their values (converted to a new type), removed ones are dropped, new ones are empty.
            </Text>
          )}
          {errors.elsewhere && (
            <Alert color="red" role="alert">
              {errors.elsewhere}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function PasteDialog({ columns, onCancel, onPaste }: { columns: Column[]; onCancel: () => void; onPaste: (text: string) => void }) {
  const [text, setText] = useState('');
  const rows = text.trim() ? entriesFromTsv(text, columns).length : 0;
  return (
    <Modal opened onClose={onCancel} title="Paste rows">
      <Stack gap="sm">
        <Text size="sm">
          Copy cells from a spreadsheet and paste them here: one row per line, cells in the order of the columns ({columns.map((c) => c.name).join(', ')}). A first row of the column names is skipped.
        </Text>
        <Textarea label="Rows" autosize minRows={5} maxRows={12} value={text} onChange={(e) => setText(e.currentTarget.value)} data-autofocus className="mono" />
        <Group justify="space-between">
          <Text size="xs" className="muted">
            {rows} {rows === 1 ? 'row' : 'rows'}
          </Text>
          <Group gap="xs">
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
            <Tooltip label="Nothing to add" disabled={rows > 0}>
              <Button onClick={() => onPaste(text)} disabled={rows === 0}>
                Add {rows} {rows === 1 ? 'row' : 'rows'}
              </Button>
            </Tooltip>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}

