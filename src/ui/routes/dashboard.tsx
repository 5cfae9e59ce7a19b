import '@mantine/charts/styles.css';
import { useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import { ActionIcon, Alert, Button, Group, NativeSelect, Paper, Table, Text, TextInput, Title } from '@mantine/core';
import { IconArrowsDiagonal, IconGripVertical, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import {
  DISPLAYS,
  GRID_COLUMNS,
  MAX_CHART_HEIGHT,
  METRICS,
  PERCENTILE_METRICS,
  RELATIVE_RANGES,
  PER_EVALUATION_METRICS,
  PER_SCORE_CONFIG_METRICS,
  UNGROUPED_METRICS,
  useChartData,
  useDashboard,
  useDashboardMutations,
  useDashboardSaves,
  type ChartData,
  type Dashboard,
  type DashboardChart,
  type DashboardDefinitionInput,
} from '../api/dashboards.ts';
import { ApiError } from '../api/client.ts';
import { useTopicNames } from '../api/topics.ts';
import type { SearchFilters } from '../api/types.ts';
import { ListToolbar } from '../components/TraceFilters.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { dateFormat, formatCost, formatDuration, formatTokens, timeZoneChoice, utcOffsetMinutes } from '../lib/format.ts';
import { placeItem } from '../lib/grid-layout.ts';
import { RANGE_PRESETS, toSearchRequest } from '../lib/list-search.ts';
import { filterTextOf } from '../lib/trace-filters.ts';
import { useRangeAnchor } from '../lib/use-range-anchor.ts';
import type { DashboardSearch } from '../lib/page-searches.ts';
import { Loading } from '../components/QueryState.tsx';

/** One grid row, in px; a chart `h` rows tall is h rows and the gaps between them. */
const ROW = 56;
const GAP = 12;
const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'red.6', 'lime.7', 'pink.6', 'yellow.7', 'blue.6', 'gray.6'];
type Layout = DashboardChart['layout'];
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
/** Group by for every chart that can be grouped: the URL's `group`, none for each chart's own. */
const GROUPS = [
  { value: '', label: 'Grouped as saved' },
  { value: 'none', label: 'Not grouped' },
  { value: 'model', label: 'By model' },
  { value: 'label', label: 'By label' },
  { value: 'user', label: 'By user' },
  { value: 'topic', label: 'By topic' },
];

/** A dashboard at its own address. */
export default function DashboardPage() {
  const { projectId, dashboardId } = useParams({ from: '/p/$projectId/dashboards/$dashboardId' });
  const search = useSearch({ from: '/p/$projectId/dashboards/$dashboardId' });
  const navigate = useNavigate({ from: '/p/$projectId/dashboards/$dashboardId' });
  return <DashboardScreen projectId={projectId} dashboardId={dashboardId} search={search} onSearch={(next) => void navigate({ search: next, replace: true })} />;
}

/** A dashboard: its charts on a 12-column grid, arranged by dragging (Edit), saved whole at once, read by everyone in the project; the viewer's range, filters and grouping in the URL. */
export function DashboardScreen({ projectId, dashboardId, search, onSearch }: { projectId: string; dashboardId: string; search: DashboardSearch; onSearch: (next: DashboardSearch) => void }) {
  const dashboard = useDashboard(projectId, dashboardId);
  if (dashboard.isError)
    return (
      <div className="page">
        <Alert color="red" title="The dashboard could not be loaded">
          {dashboard.error.message}
        </Alert>
      </div>
    );
  if (dashboard.isPending)
    return (
      <div className="page">
        <Loading label="Loading the dashboard" inline />
      </div>
    );
  return <DashboardView projectId={projectId} dashboard={dashboard.data} search={search} onSearch={onSearch} />;
}

/** What the viewer's URL asks of every chart: its range (none: the saved one), filters, query and grouping. */
function viewOf(search: DashboardSearch, anchor: number): View {
  const { query, filters, startDate, endDate } = toSearchRequest(search, anchor);
  const last = RELATIVE_RANGES.find((r) => r === search.range);
  const timeRange = last ? { last } : search.range === 'custom' && typeof startDate === 'number' ? { from: startDate, to: typeof endDate === 'number' ? endDate : anchor } : undefined;
  return {
    utcOffsetMinutes: utcOffsetMinutes(),
    now: anchor,
    ...(timeRange ? { timeRange } : {}),
    ...(query ? { query } : {}),
    ...(filters && Object.keys(filters).length ? { filters } : {}),
    ...(search.group ? { groupBy: search.group === 'none' ? null : search.group } : {}),
  };
}

function DashboardView({ projectId, dashboard, search, onSearch }: { projectId: string; dashboard: Dashboard; search: DashboardSearch; onSearch: (next: DashboardSearch) => void }) {
  const { remove, reload } = useDashboardMutations(projectId);
  const { save, unsaved, put } = useDashboardSaves(projectId, dashboard);
  const navigate = useNavigate();
  const definition = dashboard.definition as DashboardDefinitionInput;
  const [editing, setEditing] = useState(false);
  const anchor = useRangeAnchor(search);
  const view = useMemo(() => viewOf(search, anchor), [search, anchor]);
  // Someone else saved after this page read the dashboard: theirs is kept; reloading shows it.
  const stale = put.error instanceof ApiError && put.error.status === 412;
  // While a save is under way the grid shows what is being saved, or what waits for it (a dropped chart stays where it was dropped).
  const charts = (unsaved?.charts ?? dashboard.definition.charts) as DashboardChart[];
  // The toolbar shows the saved range when the URL names none.
  const savedLast = definition.timeRange?.last;
  const shown = search.range ? search : { ...search, range: RANGE_PRESETS.some((p) => p.value === savedLast) ? savedLast : undefined };
  const zone = timeZoneChoice() === 'UTC' ? 'UTC' : `your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone})`;

  return (
    <div className="page dash-page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <div>
          <Title order={1} size="h3">
            {definition.name}
          </Title>
          {definition.description ? (
            <Text size="sm" className="muted">
              {definition.description}
            </Text>
          ) : null}
        </div>
        <Group gap="xs" wrap="wrap" align="flex-end">
          <NativeSelect aria-label="Group charts by" size="sm" w={175} value={search.group ?? ''} onChange={(e) => onSearch({ ...search, group: (e.currentTarget.value || undefined) as DashboardSearch['group'] })} data={GROUPS} />
          <Button size="sm" variant={editing ? 'filled' : 'default'} onClick={() => setEditing(!editing)} aria-pressed={editing}>
            {editing ? 'Done' : 'Edit'}
          </Button>
        </Group>
      </Group>
      <ListToolbar search={shown} onChange={(next) => onSearch({ ...next, group: search.group })} forCharts />
      <Text size="xs" className="muted" data-testid="dashboard-saved">
        {dashboard.builtIn ? 'The default dashboard, as shipped.' : `Saved ${dashboard.version} time${dashboard.version === 1 ? '' : 's'}.`} Shared with everyone in the project; times in {zone}.
        {unsaved ? ' Saving…' : ''}
      </Text>
      {stale ? (
        <Alert color="red" title="Someone else saved this dashboard meanwhile" data-testid="dashboard-stale" role="alert">
          <Text size="sm">{put.error instanceof ApiError ? put.error.atField : null}</Text>
          <Text size="sm">Your change was not saved, so theirs is not lost.</Text>
          <Button
            size="xs"
            mt="xs"
            onClick={() => {
              put.reset();
              void reload(dashboard.id);
            }}
          >
            Reload the dashboard
          </Button>
        </Alert>
      ) : put.error && !editing ? (
        <Alert color="red" title="Not saved">
          {put.error.message}
        </Alert>
      ) : null}
      {editing ? (
        <EditPanel
          version={dashboard.version}
          definition={definition}
          charts={charts}
          error={stale ? null : put.error}
          saving={put.isPending}
          onSave={save}
          onDelete={() => remove.mutate(dashboard.id, { onSuccess: () => void navigate({ to: '/p/$projectId/dashboards', params: { projectId } }) })}
        />
      ) : null}
      {charts.length === 0 ? (
        <Text size="sm" className="muted">
          No charts yet: Edit, then Add chart.
        </Text>
      ) : null}
      <Grid
        charts={charts}
        editing={editing}
        onPlace={(next) => save({ charts: next })}
        onRemove={(id) => save({ charts: charts.filter((c) => c.id !== id) })}
        render={(chart) => <ChartBody projectId={projectId} dashboard={dashboard} chart={chart} view={view} />}
      />
    </div>
  );
}

/**
 * The charts on the grid; in Edit, each moves by its grip and grows by its corner (pointer or
 * arrow keys). A chart dropped on others pushes them aside and everything floats up (no gaps,
 * no overlaps), shown while dragging, saved on release.
 */
function Grid({
  charts,
  editing,
  onPlace,
  onRemove,
  render,
}: {
  charts: DashboardChart[];
  editing: boolean;
  onPlace: (charts: DashboardChart[]) => void;
  onRemove: (id: string) => void;
  render: (chart: DashboardChart) => React.ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [preview, setPreview] = useState<DashboardChart[] | null>(null);
  const shown = preview ?? charts;
  const place = (id: string, to: Layout) => placeItem(charts, id, to, GRID_COLUMNS);
  const changed = (next: DashboardChart[]) => next.some((c, i) => c !== charts[i]);

  const drag = (e: ReactPointerEvent, chart: DashboardChart, mode: 'move' | 'resize') => {
    if (!ref.current || e.button !== 0) return;
    e.preventDefault();
    const rect = ref.current.getBoundingClientRect();
    const colWidth = (rect.width + GAP) / GRID_COLUMNS;
    const base = chart.layout;
    const [x0, y0] = [e.clientX, e.clientY];
    let last = charts;
    const move = (ev: PointerEvent) => {
      const dx = Math.round((ev.clientX - x0) / colWidth);
      const dy = Math.round((ev.clientY - y0) / (ROW + GAP));
      const to =
        mode === 'move'
          ? { ...base, x: clamp(base.x + dx, 0, GRID_COLUMNS - base.w), y: Math.max(0, base.y + dy) }
          : { ...base, w: clamp(base.w + dx, 1, GRID_COLUMNS - base.x), h: clamp(base.h + dy, 1, MAX_CHART_HEIGHT) };
      last = place(chart.id, to);
      setPreview(last);
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      setPreview(null);
      if (changed(last)) onPlace(last);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up, { once: true });
  };

  const keys = (e: ReactKeyboardEvent, chart: DashboardChart, mode: 'move' | 'resize') => {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
    if (!step) return;
    e.preventDefault();
    const l = chart.layout;
    const to = mode === 'move' ? { ...l, x: l.x + step[0], y: Math.max(0, l.y + step[1]) } : { ...l, w: clamp(l.w + step[0], 1, GRID_COLUMNS - l.x), h: clamp(l.h + step[1], 1, MAX_CHART_HEIGHT) };
    const next = place(chart.id, to);
    if (changed(next)) onPlace(next);
  };

  return (
    <div className={`dash-grid${editing ? ' dash-editing' : ''}`} ref={ref} data-testid="dashboard-grid">
      {shown.map((chart) => {
        const l = chart.layout;
        return (
          <Paper
            key={chart.id}
            withBorder
            p="sm"
            component="section"
            className={`dash-item${l.w <= 3 ? ' dash-small' : ''}`}
            aria-label={chart.title}
            data-chart-id={chart.id}
            data-layout={`${l.x},${l.y},${l.w},${l.h}`}
            style={{ gridColumn: `${l.x + 1} / span ${l.w}`, gridRow: `${l.y + 1} / span ${l.h}`, order: l.y * GRID_COLUMNS + l.x, ['--rows' as string]: l.h }}
          >
            {editing ? (
              <Group gap={4} className="dash-tools">
                <ActionIcon
                  variant="subtle"
                  size="sm"
                  className="dash-grip"
                  aria-label={`Move ${chart.title} (drag, or arrow keys)`}
                  onPointerDown={(e) => drag(e, chart, 'move')}
                  onKeyDown={(e) => keys(e, chart, 'move')}
                >
                  <IconGripVertical size={16} />
                </ActionIcon>
                <ActionIcon variant="subtle" size="sm" color="red" aria-label={`Remove ${chart.title}`} onClick={() => onRemove(chart.id)}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ) : null}
            {render(chart)}
            {editing ? (
              <ActionIcon
                variant="subtle"
                size="sm"
                className="dash-resize"
                aria-label={`Resize ${chart.title} (drag, or arrow keys)`}
                onPointerDown={(e) => drag(e, chart, 'resize')}
                onKeyDown={(e) => keys(e, chart, 'resize')}
              >
                <IconArrowsDiagonal size={16} />
              </ActionIcon>
            ) : null}
          </Paper>
        );
      })}
    </div>
  );
}

type View = Parameters<typeof useChartData>[4];

function ChartBody({ projectId, dashboard, chart, view }: { projectId: string; dashboard: Dashboard; chart: DashboardChart; view: View }) {
  const navigate = useNavigate();
  const data = useChartData(projectId, dashboard.id, dashboard.version, chart, view);
  const topicNames = useTopicNames(projectId, data.data?.chart.groupBy === 'topic');
  const height = chart.layout.h * ROW + (chart.layout.h - 1) * GAP - 64;
  if (data.isError)
    return (
      <Text size="sm" c="red">
        {chart.title}: {data.error.message}
      </Text>
    );
  if (!data.data)
    return (
      <>
        <Text size="sm" fw={600}>
          {chart.title}
        </Text>
        <Loading label={`Loading ${chart.title}`} size="xs" inline />
      </>
    );
  const d = named(data.data, topicNames);
  const fmt = formatter(chart.metric);
  const summary = d.value === null ? `${d.series.length} series` : fmt(d.value);
  const tick = tickFormat(d.interval, d.startDate, d.endDate);
  const link = (filters: SearchFilters | null | undefined, start: number, end: number) => (filters === null ? null : tracesSearch(filters ?? {}, d.query.query, start, end));
  const whole = link(d.series.length === 1 ? d.series[0].filters : (d.query.filters ?? {}), d.startDate, d.endDate);

  return (
    <figure className="dash-figure" aria-label={`${chart.title}: ${summary}`}>
      <Text component="figcaption" size="sm" fw={600} mb={4} className="dash-title">
        {chart.title}
      </Text>
      {chart.display === 'number' ? (
        <Text className="dash-number" data-testid={`chart-value-${chart.id}`} data-value={d.value ?? ''}>
          {d.value === null ? '–' : fmt(d.value)}
        </Text>
      ) : chart.display === 'table' ? (
        <div className="dash-table" style={{ maxHeight: height }}>
          <Table striped withTableBorder={false} fz="xs" data-testid={`chart-table-${chart.id}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                {d.series.map((s) => (
                  <Table.Th key={s.name}>{s.name}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(d.series[0]?.points ?? []).map((p, i) => (
                <Table.Tr key={p.start}>
                  <Table.Td>{tick(p.start)}</Table.Td>
                  {d.series.map((s) => {
                    const v = s.points[i]?.value ?? null;
                    const to = link(s.filters, p.start, p.start + d.intervalMs - 1);
                    return (
                      <Table.Td key={s.name} data-value={v ?? ''}>
                        {v === null ? '–' : to ? <Link to="/p/$projectId/traces" params={{ projectId }} search={to as never}>{fmt(v)}</Link> : fmt(v)}
                      </Table.Td>
                    );
                  })}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      ) : (
        <PlotChart
          chart={{ ...chart, groupBy: d.chart.groupBy }}
          data={d}
          height={Math.max(height, 80)}
          fmt={fmt}
          tick={tick}
          onPoint={(i, name) => {
            // A bar or a line's dot: that series' traces; elsewhere at that time: the chart's.
            const one = d.series.find((s) => s.name === name) ?? (d.series.length === 1 ? d.series[0] : undefined);
            const start = d.series[0]?.points[i]?.start;
            const to = start === undefined ? null : link(one ? one.filters : (d.query.filters ?? {}), start, start + d.intervalMs - 1);
            if (to) void navigate({ to: '/p/$projectId/traces', params: { projectId }, search: to as never });
          }}
        />
      )}
      {whole ? (
        <Link to="/p/$projectId/traces" params={{ projectId }} search={whole as never} className="dash-traces-link">
          <Text span size="xs">
            Traces behind this chart
          </Text>
        </Link>
      ) : null}
    </figure>
  );
}

/** A chart grouped by topic: its series named by the topics' names (the id when a name is not known, or taken). */
function named(d: ChartData, topicNames: Map<string, string> | undefined): ChartData {
  if (d.chart.groupBy !== 'topic' || !topicNames) return d;
  const taken = new Set<string>();
  const series = d.series.map((s) => {
    const name = s.group === null ? s.name : (topicNames.get(s.group) ?? s.name);
    const unique = taken.has(name) ? `${name} (${s.group})` : name;
    taken.add(unique);
    return { ...s, name: unique };
  });
  return { ...d, series };
}

/**
 * A line or bar chart; a click on it opens the traces behind the point: a bar or a line's dot,
 * that series alone at that time; elsewhere in the chart, every series at the time under the pointer.
 */
function PlotChart({ chart, data, height, fmt, tick, onPoint }: { chart: DashboardChart; data: ChartData; height: number; fmt: (v: number) => string; tick: (ms: number) => string; onPoint: (index: number, series?: string) => void }) {
  // The mark clicked (a bar, a dot): its click comes before the chart's, and names its series and its point.
  const hit = useRef<{ name: string; index?: number } | undefined>(undefined);
  const names = data.series.map((s) => s.name);
  const rows = (data.series[0]?.points ?? []).map((p, i) => ({ time: tick(p.start), ...Object.fromEntries(data.series.map((s) => [s.name, s.points[i]?.value ?? null])) }));
  const series = names.map((name, i) => ({ name, color: COLORS[i % COLORS.length] }));
  const click = {
    onClick: (e: { activeTooltipIndex?: number | string | null } | null) => {
      const mark = hit.current;
      hit.current = undefined;
      // The mark's own point when it names one; else the tooltip's (the time under the pointer).
      const index = mark?.index ?? (e && e.activeTooltipIndex !== undefined && e.activeTooltipIndex !== null ? Number(e.activeTooltipIndex) : undefined);
      if (index !== undefined && Number.isInteger(index)) onPoint(index, mark?.name);
    },
  };
  const clickOf = (name: string) => ({ onClick: () => void (hit.current = { name }), style: { cursor: 'pointer' } });
  // A dot's click: recharts hands it the dot's props (its series' dataKey, its point's index): first for a
  // dot, second for the hovered (larger) dot drawn over it, whose first is the props given here.
  const dotClick = {
    onClick: (...args: unknown[]) => {
      const dot = args.find((a): a is { dataKey: string; index?: unknown } => typeof a === 'object' && a !== null && typeof (a as { dataKey?: unknown }).dataKey === 'string');
      if (dot) hit.current = { name: dot.dataKey, ...(typeof dot.index === 'number' ? { index: dot.index } : {}) };
    },
    style: { cursor: 'pointer' },
  };
  const common = {
    h: height,
    dataKey: 'time',
    data: rows,
    series,
    // Series named after something other than the metric (a group, an evaluation, a score config) say so.
    withLegend: names.length > 1 || !!chart.groupBy || UNGROUPED_METRICS.includes(chart.metric),
    valueFormatter: fmt,
    tickLine: 'y' as const,
    connectNulls: false,
    // Room above the highest point, so its dot is not under the legend.
    yAxisProps: { padding: { top: 8 }, ...(PERCENTILE_METRICS.includes(chart.metric) ? latencyAxis : {}) },
  };
  // Drawn at once (no animation): a dashboard redraws every chart whenever its range or filter changes.
  return chart.display === 'bar' ? (
    <BarChart {...common} type={chart.groupBy ? 'stacked' : 'default'} barChartProps={click} barProps={(s) => ({ ...clickOf(s.name), isAnimationActive: false })} />
  ) : (
    <LineChart {...common} withDots={rows.length < 40} dotProps={dotClick} activeDotProps={{ r: 5, ...dotClick }} lineChartProps={click} lineProps={{ isAnimationActive: false }} />
  );
}

/** The latency axis: short labels that fit its width ("0", "800 ms", "1.5 s", "2 min"), never wrapped. */
const latencyAxis = { width: 56, tickFormatter: (v: number) => formatAxisDuration(v) };
function formatAxisDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round((ms / 1000) * 10) / 10} s`;
  if (ms < 3_600_000) return `${Math.round((ms / 60_000) * 10) / 10} min`;
  return `${Math.round((ms / 3_600_000) * 10) / 10} h`;
}

function formatter(metric: DashboardChart['metric']): (v: number) => string {
  if (metric === 'cost') return (v) => formatCost(v);
  if (metric === 'error_rate' || metric === 'evaluation_pass_rate' || metric === 'thread_pass_rate') return (v) => `${Math.round(v * 1000) / 10}%`;
  if (PERCENTILE_METRICS.includes(metric)) return (v) => formatDuration(v);
  if (metric.includes('tokens')) return (v) => formatTokens(v);
  if (metric === 'score_mean' || metric === 'thread_score_mean' || metric === 'thread_review_score_mean') return (v) => String(Math.round(v * 100) / 100);
  return (v) => v.toLocaleString();
}

function tickFormat(interval: string, start: number, end: number): (ms: number) => string {
  const multiDay = end - start > 86_400_000;
  const format = dateFormat(interval === 'minute' || interval === 'hour' ? (multiDay ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' } : { hour: 'numeric', minute: '2-digit' }) : { month: 'short', day: 'numeric' });
  return (ms) => format.format(ms);
}

/** The traces list's URL search for a filter and a time span: the traces behind a point. */
function tracesSearch(filters: SearchFilters, query: string | undefined, start: number, end: number): Record<string, string> {
  return { range: 'custom', from: new Date(start).toISOString(), to: new Date(end).toISOString(), ...(query ? { q: query } : {}), ...filterTextOf(filters) };
}

const CHART_FIELDS = ['charts.*.title', 'charts.*.metric', 'charts.*.display', 'charts.*.groupBy', 'charts.*.scoreConfigId', 'charts.*.evaluator', 'charts.*.layout', 'charts', 'name', 'timeRange', 'filters'] as const;

/** Edit: the dashboard's name, saved range and filter (every chart inherits them), a new chart, deleting the dashboard. */
function EditPanel({
  version,
  definition,
  charts,
  error,
  saving,
  onSave,
  onDelete,
}: {
  version: number;
  definition: DashboardDefinitionInput;
  charts: DashboardChart[];
  error: unknown;
  saving: boolean;
  onSave: (next: Partial<DashboardDefinitionInput>) => void;
  onDelete: () => void;
}) {
  const errors = formErrors(error, CHART_FIELDS);
  return (
    <Paper withBorder p="sm" className="dash-edit">
      {/* The settings start again from each saved version (a reload shows someone else's); the
          new chart's fields do not, so what is typed while the previous chart saves is kept. */}
      <SettingsForm key={version} definition={definition} errors={errors} saving={saving} onSave={onSave} />
      <AddChartForm charts={charts} errors={errors} saving={saving} onSave={onSave} onDelete={onDelete} />
      {errors.elsewhere ? (
        <Text size="sm" c="red" role="alert" mt="xs">
          {errors.elsewhere}
        </Text>
      ) : null}
    </Paper>
  );
}

type FieldErrors = ReturnType<typeof formErrors>;

function SettingsForm({ definition, errors, saving, onSave }: { definition: DashboardDefinitionInput; errors: FieldErrors; saving: boolean; onSave: (next: Partial<DashboardDefinitionInput>) => void }) {
  const [name, setName] = useState(definition.name);
  const [saved, setSaved] = useState<string>(definition.timeRange?.last ?? '24h');
  const [labels, setLabels] = useState(listText(definition.filters?.labels));
  const [user, setUser] = useState(listText(definition.filters?.user_id));
  const [model, setModel] = useState(listText(definition.filters?.model));

  const filters = () => {
    const f: SearchFilters = { ...(definition.filters ?? {}) };
    const set = (k: 'labels' | 'user_id' | 'model', text: string) => {
      const items = text.split(',').map((s) => s.trim()).filter(Boolean);
      if (items.length) f[k] = items;
      else delete f[k];
    };
    set('labels', labels);
    set('user_id', user);
    set('model', model);
    return Object.keys(f).length ? f : undefined;
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ name, timeRange: { last: saved as (typeof RELATIVE_RANGES)[number] }, filters: filters() });
      }}
    >
      <Group align="flex-end" gap="xs" wrap="wrap">
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.at('name')} maxLength={200} />
        <NativeSelect label="Saved range" value={saved} onChange={(e) => setSaved(e.currentTarget.value)} data={RELATIVE_RANGES.map((r) => ({ value: r, label: `Last ${r}` }))} error={errors.at('timeRange')} />
        <TextInput label="Labels (any of)" value={labels} onChange={(e) => setLabels(e.currentTarget.value)} placeholder="prod, beta" error={errors.at('filters')} />
        <TextInput label="Users" value={user} onChange={(e) => setUser(e.currentTarget.value)} placeholder="user ids" />
        <TextInput label="Models" value={model} onChange={(e) => setModel(e.currentTarget.value)} placeholder="gpt-4o-mini" />
        <Button type="submit" variant="default" loading={saving}>
          Save settings
        </Button>
      </Group>
    </form>
  );
}

function AddChartForm({
  charts,
  errors,
  saving,
  onSave,
  onDelete,
}: {
  charts: DashboardChart[];
  errors: FieldErrors;
  saving: boolean;
  onSave: (next: Partial<DashboardDefinitionInput>) => void;
  onDelete: () => void;
}) {
  const [title, setTitle] = useState('');
  const [metric, setMetric] = useState<DashboardChart['metric']>('traces');
  const [display, setDisplay] = useState<DashboardChart['display']>('line');
  const [groupBy, setGroupBy] = useState('none');
  const [width, setWidth] = useState('6');
  const [scoreConfigId, setScoreConfigId] = useState('');
  const [evaluator, setEvaluator] = useState('');
  const addChart = () => {
    const w = Number(width);
    const h = display === 'number' ? 2 : 4;
    const y = charts.reduce((m, c) => Math.max(m, c.layout.y + c.layout.h), 0);
    const id = `chart-${Date.now().toString(36)}`;
    onSave({
      charts: [
        ...charts,
        {
          id,
          title: title.trim() || metric,
          metric,
          display,
          groupBy: groupBy === 'none' ? null : (groupBy as NonNullable<DashboardChart['groupBy']>),
          interval: 'auto',
          ...(PER_SCORE_CONFIG_METRICS.includes(metric) && scoreConfigId.trim() ? { scoreConfigId: scoreConfigId.trim() } : {}),
          ...(PER_EVALUATION_METRICS.includes(metric) && evaluator.trim() ? { evaluator: evaluator.trim() } : {}),
          layout: { x: 0, y, w, h },
        },
      ],
    });
    setTitle('');
  };
  const grouped = !UNGROUPED_METRICS.includes(metric);

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        addChart();
      }}
    >
      <Group align="flex-end" gap="xs" wrap="wrap" mt="sm">
        <TextInput label="Chart title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={errors.at('charts.*.title')} maxLength={200} />
        <NativeSelect label="Metric" value={metric} onChange={(e) => setMetric(e.currentTarget.value as DashboardChart['metric'])} data={[...METRICS]} error={errors.at('charts.*.metric')} />
        <NativeSelect label="Shown as" value={display} onChange={(e) => setDisplay(e.currentTarget.value as DashboardChart['display'])} data={[...DISPLAYS]} error={errors.at('charts.*.display')} />
        {grouped ? (
          <NativeSelect label="Group by" value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value)} data={['none', 'model', 'label', 'user', 'topic']} error={errors.at('charts.*.groupBy')} />
        ) : null}
        {PER_SCORE_CONFIG_METRICS.includes(metric) ? (
          <TextInput label="Score config id" placeholder="every config" value={scoreConfigId} onChange={(e) => setScoreConfigId(e.currentTarget.value)} error={errors.at('charts.*.scoreConfigId')} />
        ) : null}
        {PER_EVALUATION_METRICS.includes(metric) ? (
          <TextInput label={metric === 'evaluation_pass_rate' ? 'Evaluation' : 'Thread monitor'} placeholder="every one" value={evaluator} onChange={(e) => setEvaluator(e.currentTarget.value)} error={errors.at('charts.*.evaluator')} />
        ) : null}
        <NativeSelect label="Width" value={width} onChange={(e) => setWidth(e.currentTarget.value)} data={['3', '4', '6', '8', '12']} error={errors.at('charts.*.layout')} />
        <Button type="submit" loading={saving}>
          Add chart
        </Button>
        <Button type="button" color="red" variant="subtle" onClick={onDelete}>
          Delete dashboard
        </Button>
      </Group>
    </form>
  );
}

const listText = (v: string | string[] | undefined) => (v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v);
