import { useState, type ReactNode } from 'react';
import { ActionIcon, Alert, Badge, Button, Checkbox, Group, Modal, NativeSelect, Popover, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconArrowDown, IconArrowUp, IconColumns, IconDeviceFloppy, IconPlus, IconThumbDown, IconThumbUp, IconTrash, IconX } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { BUILTIN_COLUMNS, DEFAULT_COLUMNS } from '../../modules/traces/view-columns.schema.ts';
import type { SavedView } from '../api/views.ts';
import type { ScoreConfig } from '../api/review.ts';
import type { TraceSummary } from '../api/traces.ts';
import { formErrors } from '../lib/form-errors.ts';
import { formatCost, formatDuration, formatFullTime, formatTime, formatTokens, oneLine } from '../lib/format.ts';
import type { ListSort } from '../lib/list-search.ts';
import { scoreText, scoreTitle, type ScoreSummary } from '../lib/scores.ts';

export { DEFAULT_COLUMNS };
type Sort = ListSort;

export interface ColumnDef {
  label: string;
  /** The grid track, and the least it takes (for the row's minimum width). */
  track: string;
  min: number;
  className: string;
  sort?: Sort;
  numeric?: boolean;
  /** A review score's column: its config (the header shows the config's name). */
  scoreConfigId?: string;
  cell: (t: TraceSummary, projectId: string) => ReactNode;
}

const metaOf = (t: TraceSummary) => t.metadata as Record<string, unknown> & { user_id?: string; thread_id?: string; customer_id?: string; labels?: string[] };
const dash = <span className="muted">–</span>;

const BUILTIN: Record<(typeof BUILTIN_COLUMNS)[number], ColumnDef> = {
  time: {
    label: 'Time',
    track: '128px',
    min: 128,
    className: 'c-time nowrap',
    sort: 'time',
    cell: (t, projectId) => (
      <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: t.trace_id }} title={formatFullTime(t.timestamps.started_at)}>
        {formatTime(t.timestamps.started_at)}
      </Link>
    ),
  },
  trace_id: { label: 'Trace id', track: 'minmax(100px, 1fr)', min: 100, className: 'c-trace-id c-extra ellipsis mono', cell: (t) => <span title={t.trace_id}>{t.trace_id}</span> },
  input: { label: 'Input', track: 'minmax(140px, 2fr)', min: 140, className: 'c-input ellipsis', cell: (t) => <span title={oneLine(t.input.value)}>{oneLine(t.input.value) || dash}</span> },
  output: { label: 'Output', track: 'minmax(140px, 2fr)', min: 140, className: 'c-output ellipsis', cell: (t) => <span title={oneLine(t.output.value)}>{oneLine(t.output.value) || dash}</span> },
  user: { label: 'User', track: 'minmax(70px, 0.8fr)', min: 70, className: 'c-user ellipsis', cell: (t) => <span title={metaOf(t).user_id}>{metaOf(t).user_id ?? ''}</span> },
  thread: {
    label: 'Thread',
    track: 'minmax(80px, 0.8fr)',
    min: 80,
    className: 'c-thread c-extra ellipsis',
    cell: (t, projectId) => {
      const thread = metaOf(t).thread_id;
      return thread ? (
        <Link to="/p/$projectId/threads/$threadId" params={{ projectId, threadId: thread }} title={`Thread ${thread} as a conversation`}>
          {thread}
        </Link>
      ) : (
        ''
      );
    },
  },
  customer: { label: 'Customer', track: 'minmax(70px, 0.8fr)', min: 70, className: 'c-customer c-extra ellipsis', cell: (t) => metaOf(t).customer_id ?? '' },
  labels: {
    label: 'Labels',
    track: '112px',
    min: 112,
    className: 'c-labels chips',
    cell: (t) => {
      const labels = metaOf(t).labels ?? [];
      return (
        <>
          {labels.slice(0, 2).map((l) => (
            <Badge key={l} size="xs" variant="light" color="gray" maw={100} title={l} tt="none">
              {l}
            </Badge>
          ))}
          {labels.length > 2 && <Text size="xs">+{labels.length - 2}</Text>}
        </>
      );
    },
  },
  models: { label: 'Models', track: 'minmax(80px, 0.9fr)', min: 80, className: 'c-models ellipsis', cell: (t) => <span title={(t.models ?? []).join(', ')}>{(t.models ?? []).join(', ')}</span> },
  tokens: {
    label: 'Tokens',
    track: '60px',
    min: 60,
    className: 'c-tokens num',
    numeric: true,
    cell: (t) => {
      const m = t.metrics;
      const tokens = m.prompt_tokens === null && m.completion_tokens === null ? null : (m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0);
      return (
        <span title={tokens === null ? undefined : `${m.prompt_tokens ?? 0} prompt + ${m.completion_tokens ?? 0} completion${m.tokens_estimated ? ' (estimated)' : ''}`}>
          {tokens === null ? '–' : `${m.tokens_estimated ? '~' : ''}${formatTokens(tokens)}`}
        </span>
      );
    },
  },
  cost: { label: 'Cost', track: '70px', min: 70, className: 'c-cost num', sort: 'cost', numeric: true, cell: (t) => formatCost(t.metrics.total_cost) },
  latency: { label: 'Latency', track: '66px', min: 66, className: 'c-latency num nowrap', sort: 'latency', numeric: true, cell: (t) => formatDuration(t.metrics.total_time_ms) },
  error: {
    label: 'Error',
    // The header's word whole at 12 px with the cell's padding (at 34 px it read "Err…").
    track: '54px',
    min: 54,
    className: 'c-error',
    cell: (t) =>
      t.error && (
        <Tooltip label={t.error.message} multiline maw={360} withinPortal>
          <span role="img" style={{ color: '#c92a2a', display: 'inline-flex' }} aria-label={`Error: ${t.error.message}`}>
            <IconAlertTriangle size={16} />
          </span>
        </Tooltip>
      ),
  },
  evaluations: { label: 'Evaluations', track: 'minmax(100px, 1.1fr)', min: 100, className: 'c-evals chips', cell: (t) => <EvaluationCounts evaluations={t.evaluations ?? []} /> },
  notes: {
    label: 'Notes',
    track: '54px',
    min: 54,
    className: 'c-annotations nowrap',
    cell: (t) => {
      const notes = t.annotations;
      return (
        <>
          {notes && notes.thumbs_up > 0 && (
            <span title={`${notes.thumbs_up} thumbs up`} style={{ color: '#2b8a3e', marginRight: 4 }}>
              <IconThumbUp size={13} aria-label="thumbs up" style={{ verticalAlign: -2 }} /> {notes.thumbs_up}
            </span>
          )}
          {notes && notes.thumbs_down > 0 && (
            <span title={`${notes.thumbs_down} thumbs down`} style={{ color: '#c92a2a' }}>
              <IconThumbDown size={13} aria-label="thumbs down" style={{ verticalAlign: -2 }} /> {notes.thumbs_down}
            </span>
          )}
        </>
      );
    },
  },
};

const textOf = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A column by its id: a built-in one, a metadata key (meta:<key>) or an evaluation's score (eval:<name>). */
export function columnDef(id: string): ColumnDef | null {
  if (id in BUILTIN) return BUILTIN[id as keyof typeof BUILTIN];
  if (id.startsWith('meta:')) {
    const key = id.slice(5);
    return {
      label: key,
      track: 'minmax(80px, 1fr)',
      min: 80,
      className: 'c-extra ellipsis',
      cell: (t) => {
        const v = textOf((t.metadata as Record<string, unknown>)[key]);
        return <span title={v}>{v || dash}</span>;
      },
    };
  }
  if (id.startsWith('eval:')) {
    const name = id.slice(5);
    return {
      label: name,
      track: 'minmax(70px, 0.6fr)',
      min: 70,
      className: 'c-extra num nowrap',
      numeric: true,
      cell: (t) => {
        const e = (t.evaluations ?? []).find((x) => x.name === name);
        if (!e) return dash;
        const verdict = e.passed === true ? '✓' : e.passed === false ? '✗' : '';
        const color = e.passed === true ? '#1f6f33' : e.passed === false ? '#a51d1d' : undefined;
        return (
          <span style={{ color }} title={`${e.name}: ${e.passed === true ? 'passed' : e.passed === false ? 'failed' : e.status}${e.score !== null ? ` (score ${e.score})` : ''}`}>
            {e.score !== null ? `${Math.round(e.score * 1000) / 1000} ` : ''}
            {verdict || (e.score === null ? e.status : '')}
          </span>
        );
      },
    };
  }
  if (id.startsWith('score:')) {
    const configId = id.slice(6);
    return {
      label: 'Review score',
      track: 'minmax(76px, 0.6fr)',
      min: 76,
      className: 'c-extra num nowrap',
      numeric: true,
      scoreConfigId: configId,
      // Numeric and boolean scores sort by their mean (the server's sortByScore); categories do not.
      sort: `score:${configId}`,
      cell: (t) => {
        const s = (t.scores ?? []).find((x) => x.configId === configId);
        return s ? <ScoreCell score={s} /> : dash;
      },
    };
  }
  return null;
}

/** A trace's scores of one config (lib/scores.ts); a single boolean score in its colour. */
function ScoreCell({ score: s }: { score: ScoreSummary }) {
  const color = s.kind === 'boolean' && s.count === 1 ? (s.latest === true ? '#1f6f33' : '#a51d1d') : undefined;
  return (
    <span style={{ color }} title={scoreTitle(s)}>
      {color ? (s.latest === true ? '✓ ' : '✗ ') : ''}
      {scoreText(s)}
    </span>
  );
}

/** A score column's header: the config's name (configs of the project, loaded by the list). */
export function columnTitle(id: string, configs: ScoreConfig[] | undefined): string {
  const d = columnDef(id);
  if (d?.scoreConfigId) return configs?.find((c) => c.id === d.scoreConfigId)?.name ?? d.label;
  return d?.label ?? id;
}

/** Whether the list can sort by this column (a categorical score cannot). */
export function sortOf(id: string, configs: ScoreConfig[] | undefined): Sort | undefined {
  const d = columnDef(id);
  if (d?.scoreConfigId && configs?.find((c) => c.id === d.scoreConfigId)?.kind === 'categorical') return undefined;
  return d?.sort;
}

export const columnLabel = (id: string, configs?: ScoreConfig[]) =>
  id.startsWith('meta:') ? `Metadata: ${id.slice(5)}` : id.startsWith('eval:') ? `Score: ${id.slice(5)}` : id.startsWith('score:') ? `Review: ${columnTitle(id, configs)}` : (columnDef(id)?.label ?? id);

/** The grid's tracks and least width for these columns. */
export function gridOf(columns: string[]): { template: string; minWidth: number } {
  const defs = columns.map(columnDef).filter((d): d is ColumnDef => d !== null);
  return { template: defs.map((d) => d.track).join(' '), minWidth: defs.reduce((a, d) => a + d.min, 0) + 10 * Math.max(0, defs.length - 1) + 24 };
}

/** Passed and failed evaluations of a row, counted; the names are in the tooltip. */
function EvaluationCounts({ evaluations }: { evaluations: NonNullable<TraceSummary['evaluations']> }) {
  if (!evaluations.length) return null;
  const passed = evaluations.filter((e) => e.passed === true);
  const failed = evaluations.filter((e) => e.passed === false);
  const other = evaluations.length - passed.length - failed.length;
  const describe = evaluations.map((e) => `${e.name}: ${e.passed === true ? 'passed' : e.passed === false ? 'failed' : e.status}${e.score !== null ? ` (${e.score})` : ''}`).join('\n');
  return (
    <span title={describe} style={{ display: 'inline-flex', gap: 4 }}>
      {passed.length > 0 && (
        <span className="score-chip pass" aria-label={`${passed.length} passed`}>
          ✓ {passed.length}
        </span>
      )}
      {failed.length > 0 && (
        <span className="score-chip fail" aria-label={`${failed.length} failed`}>
          ✗ {failed.length}
        </span>
      )}
      {other > 0 && (
        <Badge size="sm" variant="light" color="gray" tt="none">
          {other} other
        </Badge>
      )}
    </span>
  );
}

/**
 * Choosing and ordering the list's columns: the built-in ones, the project's review scores,
 * metadata keys and evaluation scores (those seen on the loaded traces are offered; any other
 * can be typed).
 */
export function ColumnsPicker({ columns, onChange, rows, scoreConfigs = [] }: { columns: string[]; onChange: (columns: string[]) => void; rows: TraceSummary[]; scoreConfigs?: ScoreConfig[] }) {
  const [opened, setOpened] = useState(false);
  const [metaKey, setMetaKey] = useState('');
  const [evalName, setEvalName] = useState('');
  const seenMeta = new Set<string>();
  const seenEvals = new Set<string>();
  for (const t of rows.slice(0, 500)) {
    for (const k of Object.keys(t.metadata)) if (!['user_id', 'thread_id', 'customer_id', 'labels'].includes(k)) seenMeta.add(k);
    for (const e of t.evaluations ?? []) seenEvals.add(e.name);
  }
  const move = (i: number, by: number) => {
    const next = [...columns];
    const [c] = next.splice(i, 1);
    next.splice(i + by, 0, c);
    onChange(next);
  };
  const toggle = (id: string, on: boolean) => onChange(on ? [...columns, id] : columns.filter((c) => c !== id));
  const add = (id: string) => {
    if (!columns.includes(id)) onChange([...columns, id]);
  };
  const hidden = [...BUILTIN_COLUMNS, ...scoreConfigs.map((c) => `score:${c.id}`)].filter((c) => !columns.includes(c));
  const label = (c: string) => columnLabel(c, scoreConfigs);
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" shadow="md" width={300} trapFocus>
      <Popover.Target>
        <Button size="compact-sm" variant="default" leftSection={<IconColumns size={14} aria-hidden />} onClick={() => setOpened((o) => !o)} data-testid="columns-button">
          Columns
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap={6} aria-label="Columns shown" role="group">
          <Text size="xs" fw={600}>
            Shown, in order
          </Text>
          <div className="columns-list">
            {columns.map((c, i) => (
              <Group key={c} gap={4} wrap="nowrap" justify="space-between" data-column={c}>
                <Text size="sm" className="ellipsis" title={label(c)}>
                  {label(c)}
                </Text>
                <Group gap={2} wrap="nowrap">
                  <ActionIcon size="sm" variant="subtle" color="gray" aria-label={`Move ${label(c)} left`} disabled={i === 0} onClick={() => move(i, -1)}>
                    <IconArrowUp size={13} />
                  </ActionIcon>
                  <ActionIcon size="sm" variant="subtle" color="gray" aria-label={`Move ${label(c)} right`} disabled={i === columns.length - 1} onClick={() => move(i, 1)}>
                    <IconArrowDown size={13} />
                  </ActionIcon>
                  <ActionIcon size="sm" variant="subtle" color="gray" aria-label={`Hide ${label(c)}`} disabled={columns.length === 1} onClick={() => toggle(c, false)}>
                    <IconX size={13} />
                  </ActionIcon>
                </Group>
              </Group>
            ))}
          </div>
          {hidden.length > 0 && (
            <>
              <Text size="xs" fw={600} mt={4}>
                Hidden
              </Text>
              {hidden.map((c) => (
                <Checkbox key={c} size="xs" label={label(c)} checked={false} onChange={() => toggle(c, true)} />
              ))}
            </>
          )}
          <Text size="xs" fw={600} mt={4}>
            A metadata key
          </Text>
          <Group gap={4} wrap="nowrap">
            <TextInput size="xs" aria-label="Metadata key to show" placeholder="e.g. environment" value={metaKey} onChange={(e) => setMetaKey(e.currentTarget.value)} list="seen-meta-keys" style={{ flex: 1 }} />
            <datalist id="seen-meta-keys">
              {[...seenMeta].map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
            <ActionIcon
              size="md"
              variant="default"
              aria-label="Add the metadata column"
              disabled={!metaKey.trim()}
              onClick={() => {
                add(`meta:${metaKey.trim()}`);
                setMetaKey('');
              }}
            >
              <IconPlus size={14} />
            </ActionIcon>
          </Group>
          <Text size="xs" fw={600} mt={4}>
            An evaluation's score
          </Text>
          <Group gap={4} wrap="nowrap">
            <TextInput size="xs" aria-label="Evaluation to show" placeholder="its name, e.g. Faithfulness" value={evalName} onChange={(e) => setEvalName(e.currentTarget.value)} list="seen-evaluations" style={{ flex: 1 }} />
            <datalist id="seen-evaluations">
              {[...seenEvals].map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
            <ActionIcon
              size="md"
              variant="default"
              aria-label="Add the evaluation column"
              disabled={!evalName.trim()}
              onClick={() => {
                add(`eval:${evalName.trim()}`);
                setEvalName('');
              }}
            >
              <IconPlus size={14} />
            </ActionIcon>
          </Group>
          <Button size="compact-xs" variant="subtle" onClick={() => onChange([...DEFAULT_COLUMNS])}>
            Default columns
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

interface ViewsProps {
  views: SavedView[];
  current: SavedView | null;
  /** The list differs from the view it was opened from. */
  modified: boolean;
  canSave: boolean;
  onOpen: (view: SavedView | null) => void;
  onSaveNew: (name: string) => Promise<unknown>;
  onUpdate: () => Promise<unknown>;
  onDelete: () => Promise<unknown>;
}

/** The project's saved views: open one, save the list as a new one, save changes, delete. */
export function SavedViews({ views, current, modified, canSave, onOpen, onSaveNew, onUpdate, onDelete }: ViewsProps) {
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error, ['name']);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <NativeSelect
        size="xs"
        aria-label="Saved view"
        className="view-select"
        value={current?.id ?? ''}
        onChange={(e) => onOpen(views.find((v) => v.id === e.currentTarget.value) ?? null)}
        data={[{ value: '', label: views.length ? 'All traces (no view)' : 'No saved views' }, ...views.map((v) => ({ value: v.id, label: v.name }))]}
        data-testid="view-select"
      />
      {canSave && current && modified && (
        <Button size="compact-sm" variant="light" leftSection={<IconDeviceFloppy size={14} aria-hidden />} loading={busy} onClick={() => void run(onUpdate)}>
          Save changes
        </Button>
      )}
      {canSave && (
        <Button size="compact-sm" variant="default" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => (setName(''), setError(null), setNaming(true))} data-testid="save-view">
          Save view
        </Button>
      )}
      {canSave && current && (
        <Tooltip label={`Delete the view "${current.name}"`}>
          <ActionIcon size="md" variant="default" aria-label={`Delete the view ${current.name}`} onClick={() => void run(onDelete)}>
            <IconTrash size={14} />
          </ActionIcon>
        </Tooltip>
      )}
      {error instanceof Error && !naming && (
        <Text size="xs" c="red.8" role="alert">
          {error.message}
        </Text>
      )}
      {/* A refusal of the name belongs to the dialog: closing it leaves nothing behind under the toolbar. */}
      <Modal opened={naming} onClose={() => (setNaming(false), setError(null))} title="Save this view">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(() => onSaveNew(name.trim())).then((ok) => ok && setNaming(false));
          }}
        >
          <Stack gap="sm">
            <Text size="sm">The search, filters, sort and columns as they are now, under a name everyone in this project sees.</Text>
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={100} data-autofocus error={errors.at('name')} />
            {errors.elsewhere && (
              <Alert color="red" role="alert">
                {errors.elsewhere}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => (setNaming(false), setError(null))}>
                Cancel
              </Button>
              <Button type="submit" loading={busy} disabled={!name.trim()}>
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
