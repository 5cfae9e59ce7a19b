import { useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { Alert, Badge, Button, Group, NativeSelect, Paper, SegmentedControl, Stack, Switch, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconArrowLeft, IconPencil, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { monitorTrigger, resultColor, useCatalogue, useEvaluatorName, useMonitor, useMonitorMutations, useMonitorResults, useMonitorStats } from '../api/evaluators.ts';
import type { MonitorStatsResponse } from '../api/evaluators.ts';
import { can, useSession } from '../api/session.ts';
import { FilterChips } from '../components/FilterChips.tsx';
import { JudgeTrustBadge } from '../components/JudgeTrust.tsx';
import { MonitorBackfillButton } from '../components/MonitorBackfill.tsx';
import { Stat } from '../components/Stat.tsx';
import { asText, dateFormat, oneLine } from '../lib/format.ts';
import { MonitorForm } from './monitor-new.tsx';
import { Loading } from '../components/QueryState.tsx';

const RANGES = [
  { value: '86400000', label: 'Last 24 hours' },
  { value: '604800000', label: 'Last 7 days' },
  { value: '2592000000', label: 'Last 30 days' },
];

/** One monitor: enable or disable it, its pass rate over time and its recent results, each linked to its trace. */
export default function MonitorPage() {
  const { projectId, monitorId } = useParams({ from: '/p/$projectId/monitors/$monitorId' });
  const monitor = useMonitor(projectId, monitorId);
  const { update, remove } = useMonitorMutations(projectId);
  const navigate = useNavigate();
  const { data: session } = useSession();
  const allowed = can(session, 'monitors:manage');
  const [rangeMs, setRangeMs] = useState(RANGES[0].value);
  const [show, setShow] = useState<'all' | 'failed'>('all');
  const stats = useMonitorStats(projectId, monitorId, Number(rangeMs));
  const results = useMonitorResults(projectId, monitorId, show === 'failed');
  const catalogue = useCatalogue(projectId);
  const evaluatorName = useEvaluatorName(projectId);
  const [editing, setEditing] = useState(false);

  const back = (
    <Link to="/p/$projectId/monitors" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Monitors
    </Link>
  );
  if (monitor.isPending)
    return <Loading label="Loading the monitor" />;
  if (monitor.isError)
    return (
      <div className="page">
        {back}
        <Alert color="gray" title="This monitor cannot be shown">
          {monitor.error.message}
        </Alert>
      </div>
    );
  const m = monitor.data;
  const rows = results.data?.data ?? [];
  const totals = (stats.data?.buckets ?? []).reduce((t, b) => ({ passed: t.passed + b.passed, failed: t.failed + b.failed, errors: t.errors + b.errors, skipped: t.skipped + b.skipped }), { passed: 0, failed: 0, errors: 0, skipped: 0 });
  const judged = totals.passed + totals.failed;

  return (
    <div className="page">
      <div>
        {back}
        <Group gap="sm" mt={4} justify="space-between">
          <Group gap="sm">
            <Title order={1} size="h3">
              {m.name}
            </Title>
            <Link to="/p/$projectId/evaluators/$family/$name" params={{ projectId, family: m.evaluator.split('/')[0], name: m.evaluator.split('/')[1] }} title={m.evaluator}>
              {evaluatorName(m.evaluator)}
            </Link>
          </Group>
          <Group gap="sm">
            <MonitorBackfillButton projectId={projectId} monitor={m} allowed={allowed} />
            {allowed && (
              <Button size="xs" variant="default" leftSection={<IconPencil size={14} />} onClick={() => setEditing(true)} disabled={editing}>
                Edit
              </Button>
            )}
            <Switch label="Enabled" checked={m.enabled} disabled={!allowed} onChange={(e) => update.mutate({ id: m.id, body: { enabled: e.currentTarget.checked } })} />
            {allowed && (
              <Button
                size="xs"
                variant="default"
                color="red"
                leftSection={<IconTrash size={14} />}
                loading={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Delete the monitor ${m.name}? Its results stay on the traces.`)) remove.mutate(m.id, { onSuccess: () => void navigate({ to: '/p/$projectId/monitors', params: { projectId } }) });
                }}
              >
                Delete
              </Button>
            )}
          </Group>
        </Group>
        <Group gap="md" mt={6}>
          <Text size="sm" data-testid="monitor-trigger">Runs on {monitorTrigger(m)}</Text>
          <Text size="sm">Sample: {Math.round(m.sample * 1000) / 10}%</Text>
          <FilterChips filters={m.filters} />
        </Group>
        <SettingsSummary settings={m.settings} />
      </div>
      {editing &&
        (() => {
          const evaluator = catalogue.data?.find((e) => e.path === m.evaluator);
          if (!evaluator) return catalogue.isPending ? <Loading label="Loading the evaluator" inline /> : <Alert color="gray">{m.evaluator} is not in the catalogue.</Alert>;
          return (
            <Paper withBorder p="md" component="section" aria-label="Edit the monitor">
              <Title order={2} size="h5" mb="sm">
                Edit the monitor
              </Title>
              <MonitorForm projectId={projectId} evaluator={evaluator} editing={m} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
            </Paper>
          );
        })()}
      {(update.isError || remove.isError) && <Alert color="red">{(update.error ?? remove.error)?.message}</Alert>}

      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h5">
            {stats.data && totals.passed + totals.failed === 0 && stats.data.overall.score ? 'Scores over time' : stats.data && totals.passed + totals.failed === 0 && stats.data.overall.labels.length ? 'Labels over time' : 'Pass rate over time'}
          </Title>
          <NativeSelect aria-label="Range" size="xs" value={rangeMs} onChange={(e) => setRangeMs(e.currentTarget.value)} data={RANGES} />
        </Group>
        {stats.isError ? (
          <Alert color="red">{stats.error.message}</Alert>
        ) : (
          <Stack gap="sm">
            <JudgeTrustBadge projectId={projectId} evaluator={m.evaluator} counts={judged > 0 ? { passed: totals.passed, judged } : undefined} />
            {judged > 0 || !stats.data || (!stats.data.overall.score && stats.data.overall.labels.length === 0) ? (
              <>
                <div className="result-grid">
                  <Stat label="Pass rate" value={judged ? `${Math.round((totals.passed / judged) * 1000) / 10}%` : '–'} testId="monitor-pass-rate" />
                  <Stat label="Passed" value={String(totals.passed)} />
                  <Stat label="Failed" value={String(totals.failed)} testId="monitor-failed" />
                  <Stat label="Errors" value={String(totals.errors)} />
                  <Stat label="Skipped" value={String(totals.skipped)} />
                </div>
                {stats.data && <PassRateBars stats={stats.data} />}
              </>
            ) : (
              // An evaluator without pass/fail: what it gives, scores or labels, over time.
              <>
                {stats.data.overall.score && <ScoreStats stats={stats.data} errors={totals.errors} />}
                {stats.data.overall.labels.length > 0 && <LabelStats stats={stats.data} />}
              </>
            )}
          </Stack>
        )}
      </Paper>

      <Group justify="space-between">
        <Title order={2} size="h5">
          Recent results
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Show"
          value={show}
          onChange={(v) => setShow(v)}
          data={[
            { value: 'all', label: 'All' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
      </Group>
      {results.isError ? (
        <Alert color="red">{results.error.message}</Alert>
      ) : results.isPending ? (
        <Loading label="Loading results" inline />
      ) : rows.length === 0 ? (
        <Text size="sm" className="muted">
          {show === 'failed' ? 'No failed traces.' : 'No results yet: matching traces are evaluated about 30 seconds after their last span arrives.'}
        </Text>
      ) : (
        <div className="panel">
          <Table verticalSpacing={6} aria-label="Results" data-testid="monitor-results">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Trace</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>Score</Table.Th>
                <Table.Th>Label</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => {
                const at = r.inserted_at;
                return (
                  <Table.Tr key={r.evaluation_id} data-trace-id={r.trace_id}>
                    <TimeCell at={at} />
                    <Table.Td>
                      <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: r.trace_id }} className="mono">
                        {r.trace_id}
                      </Link>
                    </Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="filled" tt="none" color={resultColor(r)}>
                        {r.status !== 'processed' ? r.status : r.passed === false ? 'failed' : r.passed === true ? 'passed' : 'processed'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{r.score ?? '–'}</Table.Td>
                    <Table.Td>{r.label ?? '–'}</Table.Td>
                    <Table.Td className="ellipsis" title={r.details ?? undefined} style={{ maxWidth: 420 }}>
                      {oneLine(r.details, 200)}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </div>
      )}
    </div>
  );
}

const score = (n: number) => (Math.abs(n) >= 100 ? String(Math.round(n)) : String(Math.round(n * 100) / 100));

/**
 * A score evaluator's scores: mean, median, 90th percentile, lowest and highest of the range; the
 * same per interval (a bar from lowest to highest, the median-to-90th box, the mean's mark, and
 * in numbers below); and how the range's scores are distributed.
 */
function ScoreStats({ stats, errors }: { stats: MonitorStatsResponse; errors: number }) {
  const all = stats.overall.score!;
  const when = dateFormat({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  const low = Math.min(0, all.min);
  const span = Math.max(1e-9, all.max - low);
  const at = (v: number) => `${((v - low) / span) * 100}%`;
  const size = (from: number, to: number) => `max(2px, ${((to - from) / span) * 100}%)`;
  const scored = stats.buckets.filter((b) => b.score);
  const minutes = Math.round(stats.intervalMs / 60_000);
  return (
    <Stack gap="sm" data-testid="monitor-scores">
      <div className="result-grid">
        <Stat label="Mean score" value={score(all.mean)} testId="monitor-mean" />
        <Stat label="Median" value={score(all.p50)} testId="monitor-median" />
        <Stat label="90th percentile" value={score(all.p90)} testId="monitor-p90" />
        <Stat label="Lowest – highest" value={`${score(all.min)} – ${score(all.max)}`} testId="monitor-range" />
        <Stat label="Scored" value={String(all.count)} testId="monitor-scored" />
        <Stat label="Errors" value={String(errors)} />
      </div>
      <Text size="xs" className="muted">
        Per {minutes >= 1440 ? `${Math.round(minutes / 1440)} day${minutes >= 2880 ? 's' : ''}` : minutes >= 60 ? `${Math.round(minutes / 60)} hour${minutes >= 120 ? 's' : ''}` : `${minutes} minutes`}: a bar from the lowest to the highest score, its dark part from the median to the 90th percentile, the line the mean.
      </Text>
      <div className="bars score-bars" role="img" aria-label={`Scores per ${minutes} minutes, lowest to highest with median, 90th percentile and mean, on a scale from ${score(low)} to ${score(all.max)}`}>
        {stats.buckets.map((b) => (
          <Tooltip
            key={b.start}
            label={b.score ? `${when.format(b.start)}: ${b.score.count} scored, mean ${score(b.score.mean)}, median ${score(b.score.p50)}, 90th percentile ${score(b.score.p90)}, lowest ${score(b.score.min)}, highest ${score(b.score.max)}` : `${when.format(b.start)}: no scores`}
            withinPortal
          >
            <div>
              {b.score && (
                <>
                  <span className="score-range" style={{ bottom: at(b.score.min), height: size(b.score.min, b.score.max) }} />
                  <span className="score-box" style={{ bottom: at(b.score.p50), height: size(b.score.p50, b.score.p90) }} />
                  <span className="score-mean" style={{ bottom: at(b.score.mean) }} />
                </>
              )}
            </div>
          </Tooltip>
        ))}
      </div>
      <details className="score-intervals">
        <summary>In numbers, per interval ({scored.length})</summary>
        {/* Scrolls sideways on a phone: focusable, so the keyboard scrolls it too. */}
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Scores per interval, scrolls sideways">
          <Table verticalSpacing={4} fz="xs" miw={420} aria-label="Scores per interval" data-testid="monitor-score-intervals">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>From</Table.Th>
                <Table.Th ta="right">Scored</Table.Th>
                <Table.Th ta="right">Mean</Table.Th>
                <Table.Th ta="right">Median</Table.Th>
                <Table.Th ta="right">90th</Table.Th>
                <Table.Th ta="right">Lowest</Table.Th>
                <Table.Th ta="right">Highest</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...scored].reverse().map((b) => (
                <Table.Tr key={b.start}>
                  <Table.Td>{when.format(b.start)}</Table.Td>
                  <Table.Td ta="right">{b.score!.count}</Table.Td>
                  <Table.Td ta="right">{score(b.score!.mean)}</Table.Td>
                  <Table.Td ta="right">{score(b.score!.p50)}</Table.Td>
                  <Table.Td ta="right">{score(b.score!.p90)}</Table.Td>
                  <Table.Td ta="right">{score(b.score!.min)}</Table.Td>
                  <Table.Td ta="right">{score(b.score!.max)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      </details>
      <ScoreDistribution bins={stats.overall.distribution} />
    </Stack>
  );
}

/** How many scores fall in each bin of the range, one row per bin (a value, or from–to). */
function ScoreDistribution({ bins }: { bins: MonitorStatsResponse['overall']['distribution'] }) {
  const most = Math.max(1, ...bins.map((b) => b.count));
  const total = bins.reduce((n, b) => n + b.count, 0);
  return (
    <section aria-label="Distribution of the scores" data-testid="monitor-distribution">
      <Text size="sm" fw={600} mb={4}>
        Distribution
      </Text>
      <ul className="distribution">
        {bins.map((b) => {
          const name = b.from === b.to ? score(b.from) : `${score(b.from)} – ${score(b.to)}`;
          return (
            <li key={b.from} aria-label={`${name}: ${b.count} of ${total}`}>
              <span className="distribution-name">{name}</span>
              <span className="distribution-bar">
                <span style={{ width: `${(b.count / most) * 100}%` }} />
              </span>
              <span className="distribution-count">{b.count}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** A categorical evaluator's labels: how many of each over the range, and per interval. */
function LabelStats({ stats }: { stats: MonitorStatsResponse }) {
  const COLORS = ['indigo', 'teal', 'orange', 'grape', 'cyan', 'pink', 'lime', 'gray'];
  const names = stats.overall.labels.map((l) => l.label);
  const color = (label: string) => `var(--mantine-color-${COLORS[Math.min(names.indexOf(label), COLORS.length - 1)]}-6)`;
  const max = Math.max(1, ...stats.buckets.map((b) => b.labels.reduce((n, l) => n + l.count, 0)));
  const when = dateFormat({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  return (
    <Stack gap="sm" data-testid="monitor-labels">
      <div className="result-grid">
        {stats.overall.labels.slice(0, 8).map((l) => (
          <Stat key={l.label} label={l.label} value={String(l.count)} />
        ))}
      </div>
      <div className="bars" role="img" aria-label={`Results per label per ${Math.round(stats.intervalMs / 60_000)} minutes`}>
        {stats.buckets.map((b) => (
          <Tooltip key={b.start} label={`${when.format(b.start)}: ${b.labels.map((l) => `${l.count} ${l.label}`).join(', ') || 'none'}`} withinPortal>
            <div>
              {b.labels.map((l) => (
                <span key={l.label} style={{ height: `${(l.count / max) * 100}%`, background: color(l.label) }} />
              ))}
            </div>
          </Tooltip>
        ))}
      </div>
    </Stack>
  );
}

/** Passed (green) over failed (orange) and errors (red) per bucket: a chart without a chart library. */
function PassRateBars({ stats }: { stats: MonitorStatsResponse }) {
  const max = Math.max(1, ...stats.buckets.map((b) => b.passed + b.failed + b.errors));
  const when = dateFormat({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  return (
    <div className="bars" role="img" aria-label={`Results per ${Math.round(stats.intervalMs / 60_000)} minutes: passed, failed and errors`}>
      {stats.buckets.map((b) => {
        const total = b.passed + b.failed + b.errors;
        const label = `${when.format(b.start)}: ${b.passed} passed, ${b.failed} failed, ${b.errors} errors${total ? ` (${Math.round((b.passed / Math.max(1, b.passed + b.failed)) * 100)}% pass)` : ''}`;
        return (
          <Tooltip key={b.start} label={label} withinPortal>
            <div>
              <span style={{ height: `${(b.passed / max) * 100}%`, background: 'var(--mantine-color-teal-6)' }} />
              <span style={{ height: `${(b.failed / max) * 100}%`, background: 'var(--mantine-color-orange-6)' }} />
              <span style={{ height: `${(b.errors / max) * 100}%`, background: 'var(--mantine-color-red-7)' }} />
            </div>
          </Tooltip>
        );
      })}
    </div>
  );
}

/** The monitor's settings in words: one line per setting; long on/off sets counted, with what is on. */
function SettingsSummary({ settings }: { settings: Record<string, unknown> }) {
  const entries = Object.entries(settings);
  if (!entries.length)
    return (
      <Text size="sm" mt={8} data-testid="monitor-settings">
        Settings: the evaluator&apos;s defaults.
      </Text>
    );
  const describe = (v: unknown): string => {
    if (Array.isArray(v)) return v.length ? v.map((x) => asText(x)).join(', ') : 'none';
    if (v && typeof v === 'object') {
      const values = Object.values(v);
      if (values.every((x) => typeof x === 'boolean')) {
        const on = Object.entries(v).filter(([, x]) => x === true).map(([k]) => k);
        return `${on.length} of ${values.length} on${on.length ? `: ${on.slice(0, 12).join(', ')}${on.length > 12 ? ', …' : ''}` : ''}`;
      }
      return Object.entries(v)
        .map(([k, x]) => `${k} ${describe(x)}`)
        .join('; ');
    }
    return v === null || v === undefined || v === '' ? '–' : asText(v);
  };
  return (
    <dl className="kv" style={{ marginTop: 8 }} aria-label="Settings" data-testid="monitor-settings">
      {entries.map(([k, v]) => (
        <div key={k} style={{ display: 'contents' }}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{describe(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
