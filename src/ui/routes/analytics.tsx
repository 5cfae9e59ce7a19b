import '@mantine/charts/styles.css';
import { useMemo, type ReactNode } from 'react';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Alert, Group, Loader, Paper, SegmentedControl, Text, Title } from '@mantine/core';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useTimeseries } from '../api/analytics.ts';
import type { TimeseriesBucket, TimeseriesResponse } from '../api/analytics.ts';
import type { TimeseriesRequest } from '../api/types.ts';
import { Stat } from '../components/Stat.tsx';
import { ListToolbar } from '../components/TraceFilters.tsx';
import { dateFormat, formatCost, formatDuration, formatTokens, timeZoneChoice, utcOffsetMinutes } from '../lib/format.ts';
import { toSearchRequest } from '../lib/list-search.ts';
import { useRangeAnchor } from '../lib/use-range-anchor.ts';
import type { AnalyticsSearch } from '../router.tsx';

const DEFAULT_RANGE = '24h';
const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'red.6', 'lime.7', 'pink.6', 'yellow.7', 'blue.6', 'gray.6'];
type Group = 'model' | 'label' | 'user';
type Row = Record<string, number | string | null>;

/** The project dashboard: the traces list's range and filters, one chart per measure, optionally per model, label or user. */
export default function AnalyticsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/analytics' });
  const raw = useSearch({ from: '/p/$projectId/analytics' });
  // The router keeps `raw` the same object while the URL's search does not change.
  const search = useMemo(() => ({ ...raw, range: raw.range ?? DEFAULT_RANGE }), [raw]);
  const navigate = useNavigate({ from: '/p/$projectId/analytics' });
  const anchor = useRangeAnchor(search);
  const request = useMemo((): TimeseriesRequest => {
    const { query, filters, startDate, endDate } = toSearchRequest(search, anchor);
    const start = typeof startDate === 'number' ? startDate : anchor - 86_400_000;
    const end = typeof endDate === 'number' ? endDate : anchor;
    return { startDate: start, endDate: end, interval: 'auto', utcOffsetMinutes: utcOffsetMinutes(), ...(query ? { query } : {}), ...(filters ? { filters } : {}), groupBy: search.group ?? null };
  }, [search, anchor]);

  const series = useTimeseries(projectId, request);
  const setSearch = (next: AnalyticsSearch) => void navigate({ search: next, replace: true });

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Analytics
        </Title>
        <Group gap="xs">
          <Text size="sm" id="group-by-label">
            Group by
          </Text>
          <SegmentedControl
            size="xs"
            aria-labelledby="group-by-label"
            value={search.group ?? 'none'}
            onChange={(v) => setSearch({ ...raw, group: v === 'none' ? undefined : v })}
            data={[
              { value: 'none', label: 'Nothing' },
              { value: 'model', label: 'Model' },
              { value: 'label', label: 'Label' },
              { value: 'user', label: 'User' },
            ]}
          />
        </Group>
      </Group>
      <ListToolbar search={search} onChange={(next) => setSearch({ ...next, group: raw.group })} forCharts />
      {series.isError ? (
        <Alert color="red" title="The dashboard could not be loaded">
          {series.error.message}
        </Alert>
      ) : series.isPending ? (
        <Group justify="center" p="xl">
          <Loader size="sm" aria-label="Loading the dashboard" />
        </Group>
      ) : (
        <Dashboard data={series.data} grouped={!!search.group} />
      )}
    </div>
  );
}

function Dashboard({ data, grouped }: { data: TimeseriesResponse; grouped: boolean }) {
  const t = data.totals;
  const tick = tickFormat(data.interval, data.series[0]?.buckets ?? []);
  const groupNames = data.series.map((s) => s.group ?? '(none)');
  const color = (i: number) => COLORS[i % COLORS.length];
  const starts = data.series[0]?.buckets.map((b) => b.start) ?? [];

  /** The series of a chart: one per group, or the one named after the measure. */
  const namesFor = (measure: string) => (grouped ? groupNames : data.series.map(() => measure));
  /** One row per bucket: a column per group (or the measure), `pick` of that bucket. */
  const perGroup = (measure: string, pick: (b: TimeseriesBucket) => number | null): Row[] =>
    starts.map((start, i) => ({ time: tick(start), ...Object.fromEntries(data.series.map((s, g) => [namesFor(measure)[g], pick(s.buckets[i])])) }));
  const seriesFor = (measure: string) => namesFor(measure).map((name, i) => ({ name, color: color(i) }));
  /** One row per bucket of the ungrouped series, with several measures. */
  const measures = (pick: (b: TimeseriesBucket) => Row): Row[] => (data.series[0]?.buckets ?? []).map((b) => ({ time: tick(b.start), ...pick(b) }));

  const evaluations = starts.map((start, i) => ({
    time: tick(start),
    ...Object.fromEntries(data.evaluations.map((e) => [e.evaluator, e.buckets[i]?.pass_rate === null || e.buckets[i] === undefined ? null : Math.round(e.buckets[i].pass_rate * 1000) / 10])),
  }));
  const tokenTotal = (b: TimeseriesBucket) => b.tokens.prompt + b.tokens.completion;
  const common = { dataKey: 'time', h: 220, withLegend: true, legendProps: { verticalAlign: 'bottom' as const }, connectNulls: false, tickLine: 'y' as const };

  return (
    <>
      <div className="result-grid" data-testid="analytics-totals">
        <Stat label="Traces" value={t.traces.toLocaleString()} testId="total-traces" />
        <Stat label="Spans" value={t.spans.toLocaleString()} />
        <Stat label="Errors" value={`${t.errors.toLocaleString()}${t.traces ? ` (${Math.round((t.errors / t.traces) * 1000) / 10}%)` : ''}`} />
        <Stat label="Cost" value={formatCost(t.cost)} />
        <Stat label="Tokens" value={formatTokens(t.tokens.prompt + t.tokens.completion)} title={`${t.tokens.prompt} prompt (${t.tokens.cached} cached), ${t.tokens.completion} completion (${t.tokens.reasoning} reasoning)`} />
        <Stat label="Thumbs up / down" value={`${t.thumbs_up} / ${t.thumbs_down}`} />
      </div>
      <Text size="xs" className="muted">
        One point per {data.interval}; times in {timeZoneChoice() === 'UTC' ? 'UTC' : `your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone})`}.
      </Text>
      <div className="chart-grid">
        {/* Traces and spans differ by orders of magnitude: a chart each, so neither flattens the other. */}
        <Chart title="Traces" summary={`${t.traces} traces`}>
          {grouped ? (
            <BarChart {...common} data={perGroup('traces', (b) => b.traces)} series={seriesFor('traces')} type="stacked" />
          ) : (
            <BarChart {...common} data={measures((b) => ({ traces: b.traces }))} series={[{ name: 'traces', color: 'indigo.6' }]} />
          )}
        </Chart>
        <Chart title="Spans" summary={`${t.spans} spans`}>
          {grouped ? (
            <BarChart {...common} data={perGroup('spans', (b) => b.spans)} series={seriesFor('spans')} type="stacked" />
          ) : (
            <BarChart {...common} data={measures((b) => ({ spans: b.spans }))} series={[{ name: 'spans', color: 'teal.6' }]} />
          )}
        </Chart>
        <Chart title="Cost (USD)" summary={`${formatCost(t.cost)} in all`}>
          <AreaChart {...common} data={perGroup('cost', (b) => b.cost)} series={seriesFor('cost')} type={grouped ? 'stacked' : 'default'} withDots={false} valueFormatter={(v) => formatCost(v)} />
        </Chart>
        <Chart title="Tokens" summary={`${t.tokens.prompt} prompt, ${t.tokens.completion} completion, ${t.tokens.cached} cached, ${t.tokens.reasoning} reasoning`}>
          {grouped ? (
            <BarChart {...common} data={perGroup('tokens', tokenTotal)} series={seriesFor('tokens')} type="stacked" valueFormatter={formatTokens} />
          ) : (
            <BarChart
              {...common}
              data={measures((b) => ({ ...b.tokens }))}
              series={[
                { name: 'prompt', color: 'indigo.6' },
                { name: 'completion', color: 'teal.6' },
                { name: 'cached', color: 'cyan.6' },
                { name: 'reasoning', color: 'grape.6' },
              ]}
              valueFormatter={formatTokens}
            />
          )}
        </Chart>
        <Chart title={grouped ? 'Latency p95' : 'Latency'} summary="Percentiles of the traces' total time">
          {grouped ? (
            <LineChart {...common} data={perGroup('p95', (b) => b.latency_ms.p95)} series={seriesFor('p95')} valueFormatter={(v) => formatDuration(v)} yAxisProps={latencyAxis} />
          ) : (
            <LineChart
              {...common}
              data={measures((b) => ({ p50: b.latency_ms.p50, p95: b.latency_ms.p95, p99: b.latency_ms.p99 }))}
              series={[
                { name: 'p50', color: 'teal.6' },
                { name: 'p95', color: 'orange.6' },
                { name: 'p99', color: 'red.6' },
              ]}
              valueFormatter={(v) => formatDuration(v)}
              yAxisProps={latencyAxis}
            />
          )}
        </Chart>
        <Chart title="Error rate (%)" summary={`${t.errors} traces with an error`}>
          <LineChart {...common} data={perGroup('error rate', (b) => (b.error_rate === null ? null : Math.round(b.error_rate * 1000) / 10))} series={seriesFor('error rate')} valueFormatter={(v) => `${v}%`} />
        </Chart>
        <Chart title="Evaluation pass rate (%)" summary={data.evaluations.length ? `${data.evaluations.length} evaluators` : 'No evaluations in this range'}>
          {data.evaluations.length ? (
            <LineChart {...common} data={evaluations} series={data.evaluations.map((e, i) => ({ name: e.evaluator, color: color(i) }))} valueFormatter={(v) => `${v}%`} yAxisProps={{ domain: [0, 100] }} />
          ) : (
            <Text size="sm" className="muted" p="md">
              No evaluation results in this range. Monitors and evaluations stored on traces show here.
            </Text>
          )}
        </Chart>
        <Chart title="Thumbs up and down" summary={`${t.thumbs_up} up, ${t.thumbs_down} down`}>
          {grouped ? (
            <BarChart {...common} data={perGroup('up minus down', (b) => b.thumbs_up - b.thumbs_down)} series={seriesFor('up minus down')} />
          ) : (
            <BarChart {...common} data={measures((b) => ({ up: b.thumbs_up, down: b.thumbs_down }))} series={[{ name: 'up', color: 'teal.6' }, { name: 'down', color: 'red.6' }]} />
          )}
        </Chart>
        {data.scores.map((score) => (
          <ScoreChart key={score.configId} score={score} tick={tick} common={common} />
        ))}
      </div>
    </>
  );
}

/** One review score over time: numeric its mean, boolean its share true, categorical its counts per category (stacked). */
function ScoreChart({ score, tick, common }: { score: TimeseriesResponse['scores'][number]; tick: (ms: number) => string; common: Record<string, unknown> & { dataKey: string; h: number } }) {
  const count = score.buckets.reduce((n, b) => n + b.count, 0);
  const summary = `${count} review score${count === 1 ? '' : 's'}`;
  if (score.kind === 'categorical') {
    const categories = [...new Set(score.buckets.flatMap((b) => Object.keys(b.counts)))].sort();
    const data = score.buckets.map((b) => ({ time: tick(b.start), ...Object.fromEntries(categories.map((c) => [c, b.counts[c] ?? 0])) }));
    return (
      <Chart title={`Review: ${score.name}`} summary={summary}>
        <BarChart {...common} data={data} series={categories.map((c, i) => ({ name: c, color: COLORS[i % COLORS.length] }))} type="stacked" />
      </Chart>
    );
  }
  const boolean = score.kind === 'boolean';
  const name = boolean ? '% yes' : 'mean';
  const data = score.buckets.map((b) => ({ time: tick(b.start), [name]: b.mean === null ? null : boolean ? Math.round(b.mean * 1000) / 10 : Math.round(b.mean * 100) / 100 }));
  return (
    <Chart title={`Review: ${score.name}${boolean ? ' (% yes)' : ' (mean)'}`} summary={summary}>
      <LineChart {...common} data={data} series={[{ name, color: boolean ? 'teal.6' : 'indigo.6' }]} {...(boolean ? { valueFormatter: (v: number) => `${v}%`, yAxisProps: { domain: [0, 100] } } : {})} />
    </Chart>
  );
}

function Chart({ title, summary, children }: { title: string; summary: string; children: ReactNode }) {
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label={`${title}: ${summary}`}>
      <Text component="figcaption" size="sm" fw={600} mb={6}>
        {title}
      </Text>
      {children}
    </Paper>
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

/**
 * Labels of the x-axis, in the user's time zone: hours alone when every point is on one
 * day, the date with the hour when the range crosses days, the date alone per day or week.
 */
function tickFormat(interval: string, buckets: { start: number }[]): (ms: number) => string {
  const day = dateFormat({ year: 'numeric', month: 'numeric', day: 'numeric' });
  const days = new Set(buckets.map((b) => day.format(b.start)));
  const opts: Intl.DateTimeFormatOptions =
    interval === 'minute' || interval === 'hour'
      ? days.size > 1
        ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }
        : { hour: 'numeric', minute: '2-digit' }
      : { month: 'short', day: 'numeric' };
  const format = dateFormat(opts);
  return (ms) => format.format(ms);
}
