import { Badge, Group } from '@mantine/core';
import { METRICS, type AlertEvaluation, type AlertRule, type MetricKind } from '../api/alerts.ts';
import { formatFullTime } from '../lib/format.ts';

/** A metric's value as people read it: rates in per cent, costs in dollars, counts whole. */
export function formatMetric(kind: MetricKind, v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  const family = METRICS[kind].family;
  if (family === 'rate') return `${(v * 100).toFixed(1)} %`;
  if (kind === 'cost_total' || kind === 'cost_per_trace') return `$${Number(v.toPrecision(3))}`;
  return Number(v.toPrecision(4)).toLocaleString('en');
}

export const formatP = (p: number | null) => (p === null ? '–' : p < 0.0001 ? '< 0.0001' : p.toPrecision(2));

const STATE_COLOR = { firing: 'red.9', resolved: 'teal.9', ok: 'gray.7' } as const;

/** A rule's state, and whether it is muted, snoozed or acknowledged (white on these shades meets WCAG AA). */
export function RuleState({ rule, now }: { rule: AlertRule; now: number }) {
  const snoozed = rule.snoozedUntil !== null && rule.snoozedUntil > now;
  return (
    <Group gap={4} wrap="wrap">
      <Badge size="sm" color={STATE_COLOR[rule.state]} variant="filled">
        {rule.state}
      </Badge>
      {!rule.enabled && (
        <Badge size="sm" color="gray.7" variant="outline">
          disabled
        </Badge>
      )}
      {rule.muted && (
        <Badge size="sm" color="gray.7" variant="outline">
          muted
        </Badge>
      )}
      {snoozed && (
        <Badge size="sm" color="gray.7" variant="outline" title={`Until ${formatFullTime(rule.snoozedUntil!)}`}>
          snoozed
        </Badge>
      )}
      {rule.state === 'firing' && rule.acknowledgedAt !== null && (
        <Badge size="sm" color="indigo.8" variant="outline" title={formatFullTime(rule.acknowledgedAt)}>
          acknowledged
        </Badge>
      )}
    </Group>
  );
}

/** The value a chart draws per window: a split rule's segment nearest to firing (a breach, then the highest value). */
export function windowValues(history: AlertEvaluation[]): { end: number; value: number | null }[] {
  const byEnd = new Map<number, AlertEvaluation>();
  for (const e of history) {
    const seen = byEnd.get(e.windowEnd);
    if (!seen || (e.decision === 'breach' && seen.decision !== 'breach') || (e.decision === seen.decision && (e.value ?? -Infinity) > (seen.value ?? -Infinity))) byEnd.set(e.windowEnd, e);
  }
  return [...byEnd.values()].sort((a, b) => a.windowEnd - b.windowEnd).map((e) => ({ end: e.windowEnd, value: e.value }));
}

/**
 * The preview: each window's value over the last 30 days, a line (the threshold) when the rule
 * has one, a red mark on each window where the rule would have fired, and a dashed amber one on
 * each window held back (past the condition while the judge the rule requires was not trusted).
 * Scales to its box.
 */
export function PreviewChart({ windows, fires, threshold, kind }: { windows: AlertEvaluation[]; fires: AlertEvaluation[]; threshold: number | null; kind: MetricKind }) {
  const holds = windows.filter((w) => w.decision === 'held');
  const width = 800;
  const height = 180;
  const pad = { left: 4, right: 4, top: 8, bottom: 4 };
  const values = windows.map((w) => w.value).filter((v): v is number => v !== null);
  let max = Math.max(0, ...values, threshold ?? 0);
  if (max <= 0) max = 1;
  const min = 0;
  const n = windows.length;
  const x = (i: number) => pad.left + (n <= 1 ? 0.5 : i / (n - 1)) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + (1 - (v - min) / (max - min)) * (height - pad.top - pad.bottom);
  const index = new Map(windows.map((w, i) => [w.windowStart, i]));
  let d = '';
  windows.forEach((w, i) => {
    if (w.value === null) return;
    d += `${d && windows[i - 1]?.value !== null ? 'L' : 'M'}${x(i).toFixed(1)},${y(w.value).toFixed(1)}`;
  });
  const first = windows[0];
  const last = windows.at(-1);
  const day = (ms: number) => new Date(ms).toLocaleDateString('en', { month: 'short', day: 'numeric' });
  return (
    <div>
    <svg className="preview-chart" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={`${n} windows; would have fired ${fires.length} times${holds.length ? `; held back in ${holds.length}` : ''}`}>
      <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} stroke="var(--mantine-color-gray-4)" />
      {threshold !== null && <line x1={pad.left} x2={width - pad.right} y1={y(threshold)} y2={y(threshold)} stroke="var(--mantine-color-orange-7)" strokeDasharray="6 4" vectorEffect="non-scaling-stroke" />}
      <path d={d} fill="none" stroke="var(--mantine-color-indigo-6)" strokeWidth={1.5} vectorEffect="non-scaling-stroke" />
      {/* A window with a value between two without one has no segment of the line: a dot. */}
      {windows.map((w, i) =>
        w.value !== null && (windows[i - 1]?.value ?? null) === null && (windows[i + 1]?.value ?? null) === null ? (
          <line key={`dot-${w.windowStart}`} x1={x(i)} x2={x(i)} y1={y(w.value)} y2={y(w.value)} stroke="var(--mantine-color-indigo-6)" strokeWidth={5} strokeLinecap="round" vectorEffect="non-scaling-stroke" />
        ) : null,
      )}
      {holds.map((h) => {
        const i = index.get(h.windowStart);
        if (i === undefined) return null;
        return (
          <g key={`held-${h.windowStart}`} data-held={h.windowStart}>
            <line x1={x(i)} x2={x(i)} y1={pad.top} y2={height - pad.bottom} stroke="var(--mantine-color-orange-8)" strokeWidth={2} strokeDasharray="4 3" vectorEffect="non-scaling-stroke" />
            <title>{`Held back ${formatFullTime(h.windowEnd)}${h.segment ? ` (${h.segment})` : ''}: ${formatMetric(kind, h.value)}; ${h.held ?? ''}`}</title>
          </g>
        );
      })}
      {fires.map((f) => {
        const i = index.get(f.windowStart);
        if (i === undefined) return null;
        return (
          <g key={`${f.windowStart}-${f.segment}`} data-fire={f.windowStart}>
            <line x1={x(i)} x2={x(i)} y1={pad.top} y2={height - pad.bottom} stroke="var(--mantine-color-red-8)" strokeWidth={2} vectorEffect="non-scaling-stroke" />
            <title>{`Would have fired ${formatFullTime(f.windowEnd)}${f.segment ? ` (${f.segment})` : ''}: ${formatMetric(kind, f.value)}`}</title>
          </g>
        );
      })}
    </svg>
    <div className="preview-axis">
      <span>{first ? day(first.windowStart) : ''}</span>
      <span>top: {formatMetric(kind, max)}</span>
      <span>{last ? day(last.windowEnd) : ''}</span>
    </div>
    </div>
  );
}

/** The windows a preview marks, newest first: where the rule would have fired, and where it was held back. */
export function PreviewMarks({ fires, windows, kind, max = 10 }: { fires: AlertEvaluation[]; windows: AlertEvaluation[]; kind: MetricKind; max?: number }) {
  const marks = [...fires.map((e) => ({ e, held: false })), ...windows.filter((w) => w.decision === 'held').map((e) => ({ e, held: true }))].sort((a, b) => b.e.windowStart - a.e.windowStart);
  if (!marks.length) return null;
  return (
    <ul className="preview-marks" aria-label="Marked windows">
      {marks.slice(0, max).map(({ e, held }) => (
        <li key={`${held ? 'held' : 'fire'}-${e.windowStart}-${e.segment}`} data-decision={held ? 'held' : 'fired'}>
          <Badge size="xs" color={held ? '#9a3412' : 'red.9'} variant="filled">
            {held ? 'held' : 'fired'}
          </Badge>{' '}
          {formatFullTime(e.windowEnd)}
          {e.segment ? ` · ${e.segment}` : ''} · {formatMetric(kind, e.value)} of {e.count.toLocaleString('en')}
        </li>
      ))}
      {marks.length > max && <li>and {marks.length - max} more</li>}
    </ul>
  );
}
