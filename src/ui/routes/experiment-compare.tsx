import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, Box, Breadcrumbs, Button, Group, NativeSelect, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useBaseline, useComparison, useCompareRows, useExperiments, useMarkBaseline, useRegressions, useRunNames } from '../api/experiments.ts';
import { AddToQueueButton } from '../components/AddToQueue.tsx';
import type { CompareRows, EvaluatorComparison, Regressions } from '../api/experiments.ts';
import { can, useSession } from '../api/session.ts';
import { diffLines } from '../lib/diff.ts';
import { fmt, pct, points, signed } from '../lib/experiments.ts';
import { asText } from '../lib/format.ts';
import { EvalResult } from './experiment.tsx';
import { judgeOf, JudgeTrustList } from '../components/JudgeTrust.tsx';
import { ScrollPanel } from '../components/ScrollPanel.tsx';
import './experiments.css';
import { Loading } from '../components/QueryState.tsx';

type CompareRow = CompareRows['rows'][number];
type Regression = Regressions['rows'][number];

/** Two or more runs side by side: each compared with the baseline (the experiment's, else the first named). */
export default function ComparePage() {
  const { projectId, slug } = useParams({ from: '/p/$projectId/experiments/$slug/compare' });
  const search = useSearch({ from: '/p/$projectId/experiments/$slug/compare' });
  const navigate = useNavigate({ from: '/p/$projectId/experiments/$slug/compare' });
  const named = useMemo(() => [...new Set((search.runs ?? '').split(',').filter(Boolean))], [search.runs]);
  const experiments = useExperiments(projectId);
  const title = experiments.data?.find((e) => e.slug === slug)?.name ?? slug;
  // The rows do not wait for the statistics: the baseline is known from the stored one (a quick read).
  const stored = useBaseline(projectId, slug);
  const view = search.view ?? 'rows';
  const storedKnown = !!search.baseline || stored.isSuccess || stored.isError;
  const rowsBaseline = search.baseline ?? stored.data?.baselineRunId ?? named[0];
  const rowsRunIds = useMemo(() => [rowsBaseline, ...named.filter((r) => r !== rowsBaseline)], [rowsBaseline, named]);
  // The same query as the side-by-side list's: the statistics are asked for once the first rows
  // have come. Their reads are heavier (every row of each run), and on one database connection
  // (PGlite) asked at once they would come before the rows the reader looks at first.
  const firstRows = useCompareRows(projectId, slug, rowsRunIds, { enabled: storedKnown && view === 'rows' });
  const rowsFirst = view !== 'rows' || firstRows.isFetched || firstRows.isError;
  const comparison = useComparison(projectId, slug, named, search.baseline, { enabled: rowsFirst });
  const mark = useMarkBaseline(projectId, slug);
  const nameOf = useRunNames(projectId, slug);
  const { data: session } = useSession();
  const mayMark = can(session, 'experiments:update');
  const data = comparison.data;
  const baseline = data?.baselineRunId ?? rowsBaseline;
  const baselineKnown = !!data || storedKnown;
  const runIds = useMemo(() => [baseline, ...named.filter((r) => r !== baseline)], [baseline, named]);

  const makeBaseline = (runId: string) => {
    if (mayMark) mark.mutate(runId, { onSuccess: () => void navigate({ search: (s) => ({ ...s, baseline: undefined }), replace: true }) });
    else void navigate({ search: (s) => ({ ...s, baseline: runId }), replace: true });
  };

  return (
    <div className="run-page">
      <Breadcrumbs separator="/">
        <Link to="/p/$projectId/experiments" params={{ projectId }}>
          Experiments
        </Link>
        <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }}>
          {title}
        </Link>
        <Text size="sm">Comparison</Text>
      </Breadcrumbs>
      <Title order={1} size="h3">
        Comparing {named.length} runs
      </Title>
      {named.length < 2 ? (
        <Alert color="gray" title="Pick two or more runs">
          Tick the runs to compare on the <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }}>experiment&apos;s page</Link>.
        </Alert>
      ) : (
        <>
          {mark.isError && <Alert color="red">{mark.error.message}</Alert>}
          <Group gap="xs" wrap="wrap" aria-label="Runs compared">
            {runIds.map((runId) => (
              <Group key={runId} gap={6} className="stat" wrap="wrap">
                <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }} search={{ runId }} title={runId}>
                  {nameOf(runId)}
                </Link>
                {runId === baseline ? (
                  <Text size="xs" fw={600}>
                    baseline{(data?.experimentBaselineRunId ?? stored.data?.baselineRunId) === runId ? ' (the experiment’s)' : ''}
                  </Text>
                ) : (
                  <Button size="compact-xs" variant="subtle" onClick={() => makeBaseline(runId)} loading={mark.isPending} aria-label={`Make ${nameOf(runId)} the baseline`}>
                    Make baseline
                  </Button>
                )}
              </Group>
            ))}
          </Group>
          {comparison.isError ? (
            <Alert color="red" title="These runs could not be compared">
              {comparison.error.message}
            </Alert>
          ) : !data ? (
            <Loading label="Comparing the runs" padding="md" />
          ) : (
            <>
              <Verdicts comparisons={data.comparisons} nameOf={nameOf} />
              <JudgeTrustList projectId={projectId} judges={[...new Map(data.comparisons.flatMap((c) => c.evaluators.map((e) => [e.evaluator, { evaluator: e.evaluator, name: e.name, ...judgeOf(data.judges, e.evaluator) }] as const))).values()]} />
            </>
          )}
          <SegmentedControl
            aria-label="Rows to show"
            value={view}
            onChange={(v) => void navigate({ search: (s) => ({ ...s, view: v === 'rows' ? undefined : (v as 'regressions') }), replace: true })}
            data={[
              { value: 'rows', label: 'All rows' },
              { value: 'regressions', label: 'Regressions' },
            ]}
            w="fit-content"
          />
          {!baselineKnown ? null : view === 'rows' ? (
            <SideBySide projectId={projectId} slug={slug} runIds={runIds} nameOf={nameOf} />
          ) : (
            <RegressionsView projectId={projectId} slug={slug} baseline={baseline} others={runIds.slice(1)} nameOf={nameOf} />
          )}
        </>
      )}
    </div>
  );
}

/** Run id to its name (the runs list's). */
type NameOf = (runId: string) => string;

/** "prompt-v2 is better than baseline-run on Exact match (pass rate): +35.0 pts (95% CI +20.0 pts to +50.0 pts, 40 rows)." */
export function verdictSentence(c: EvaluatorComparison, runId: string, baseline: string): string {
  const d = c.decidedBy === 'passRate' ? c.passRate : c.score;
  if (!d) return `Not comparable on ${c.name}: no row was scored by both runs.`;
  const f = c.decidedBy === 'passRate' ? points : signed;
  const on = `${c.name} (${c.decidedBy === 'passRate' ? 'pass rate' : 'mean score'})`;
  const numbers = `${f(d.difference)} (95% CI ${f(d.low)} to ${f(d.high)}, ${d.n} rows)`;
  const share = (v: number) => (c.decidedBy === 'passRate' ? `${(v * 100).toFixed(1)} pts` : v.toFixed(3));
  if (c.verdict === 'better' || c.verdict === 'worse') return `${runId} is ${c.verdict} than ${baseline} on ${on}: ${numbers}.`;
  if (c.verdict === 'not enough data') {
    const why = d.notEnoughData === 'no spread' ? 'every row moved by the same amount, so the uncertainty cannot be measured' : `${d.n} shared rows, ${d.rowsNeeded ?? 20} needed`;
    return `Not enough data to compare ${runId} with ${baseline} on ${on}: ${why}.`;
  }
  const mde = d.minimumDetectableEffect !== null ? ` A change smaller than ${share(d.minimumDetectableEffect)} would likely go unseen with these rows.` : '';
  return `No detectable difference between ${runId} and ${baseline} on ${on}: ${numbers}.${mde}`;
}

function Verdicts({ comparisons, nameOf }: { comparisons: EvaluatorComparisonRun[]; nameOf: NameOf }) {
  const rows = comparisons.flatMap((c) => c.evaluators.map((e) => ({ c, e })));
  if (!rows.length)
    return (
      <Alert color="gray" title="Nothing to compare">
        These runs share no evaluator.
      </Alert>
    );
  const compared = Math.max(0, ...comparisons.map((c) => c.correction.compared));
  const holmNote =
    compared > 1 ? `With ${compared} evaluators compared, each verdict is corrected for the number compared (Holm): a difference whose interval barely leaves out 0 can still be no detectable difference.` : null;
  const verdictClass = (e: EvaluatorComparison) => (e.verdict === 'better' ? 'verdict-better' : e.verdict === 'worse' ? 'verdict-worse' : 'verdict-none');
  return (
    <>
      {/* A phone reads the verdicts as sentences (they carry the difference and its interval); the table needs 860 px. */}
      <Stack gap={6} hiddenFrom="sm">
        {rows.map(({ c, e }) => (
          <div className="panel verdict-card" key={`${c.runId}:${e.evaluator}`}>
            <span className={verdictClass(e)}>{verdictSentence(e, nameOf(c.runId), nameOf(c.baselineRunId))}</span>
            <Text size="xs" className="muted" mt={4}>
              <span className={e.regressions ? 'eval-fail' : undefined}>{e.regressions}</span> regressed ·{' '}
              <span className={e.improvements ? 'eval-pass' : undefined}>{e.improvements}</span> improved rows
            </Text>
          </div>
        ))}
      </Stack>
      <Box visibleFrom="sm">
        <ScrollPanel label="Differences with the baseline">
          <Table verticalSpacing={4} miw={860} aria-label="Differences with the baseline" data-testid="verdicts">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Run</Table.Th>
                <Table.Th>Evaluator</Table.Th>
                <Table.Th>Baseline</Table.Th>
                <Table.Th>This run</Table.Th>
                <Table.Th>Difference (95% CI)</Table.Th>
                <Table.Th>Regressed / improved rows</Table.Th>
                <Table.Th>Verdict</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map(({ c, e }) => {
                const d = e.decidedBy === 'passRate' ? e.passRate : e.score;
                const share = e.decidedBy === 'passRate';
                return (
                  <Table.Tr key={`${c.runId}:${e.evaluator}`}>
                    <Table.Td title={c.runId}>{nameOf(c.runId)}</Table.Td>
                    <Table.Td>
                      {e.name} <span className="muted">({share ? 'pass rate' : 'score'})</span>
                    </Table.Td>
                    <Table.Td>{d ? (share ? pct(d.baseline) : fmt(d.baseline)) : '–'}</Table.Td>
                    <Table.Td>{d ? (share ? pct(d.current) : fmt(d.current)) : '–'}</Table.Td>
                    <Table.Td className="nowrap">
                      {d ? (
                        <>
                          {share ? points(d.difference) : signed(d.difference)}{' '}
                          <span className="ci">
                            ({share ? points(d.low) : signed(d.low)} to {share ? points(d.high) : signed(d.high)})
                          </span>
                        </>
                      ) : (
                        '–'
                      )}
                    </Table.Td>
                    <Table.Td>
                      <span className={e.regressions ? 'eval-fail' : undefined}>{e.regressions}</span> / <span className={e.improvements ? 'eval-pass' : undefined}>{e.improvements}</span>
                    </Table.Td>
                    <Table.Td>
                      <span className={verdictClass(e)}>{verdictSentence(e, nameOf(c.runId), nameOf(c.baselineRunId))}</span>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollPanel>
      </Box>
      {holmNote && (
        <Text size="xs" className="muted" mt={4} data-testid="holm-note">
          {holmNote}
        </Text>
      )}
      {rows.some(({ e }) => e.repetitions) && (
        <Stack gap={2} mt={4} data-testid="repetitions-note">
          {rows.flatMap(({ c, e }) =>
            e.repetitions
              ? [
                  <Text size="xs" className="muted" key={`${c.runId}:${e.evaluator}`}>
                    {e.name}, {nameOf(c.runId)}: {e.repetitions.summary}
                  </Text>,
                ]
              : [],
          )}
        </Stack>
      )}
    </>
  );
}
type EvaluatorComparisonRun = { runId: string; baselineRunId: string; evaluators: EvaluatorComparison[]; correction: { compared: number } };

/** A virtual list of variable-height items that asks for the next page near its end. */
function VirtualList<T>({
  items,
  keyOf,
  more,
  label,
  testId,
  render,
}: {
  items: T[];
  keyOf: (t: T) => string;
  more: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  label: string;
  testId: string;
  render: (t: T) => ReactNode;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scrollRef.current, estimateSize: () => 110, overscan: 6, getItemKey: (i) => keyOf(items[i]) });
  const virtual = virtualizer.getVirtualItems();
  const last = virtual[virtual.length - 1];
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = more;
  useEffect(() => {
    if (last && last.index >= items.length - 20 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [last, items.length, hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <div className="cmp-list" ref={scrollRef} tabIndex={0} role="list" aria-label={label} data-testid={testId}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtual.map((item) => (
          <div
            key={item.key}
            role="listitem"
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
          >
            {render(items[item.index])}
          </div>
        ))}
      </div>
    </div>
  );
}

function SideBySide({ projectId, slug, runIds, nameOf }: { projectId: string; slug: string; runIds: string[]; nameOf: NameOf }) {
  const pages = useCompareRows(projectId, slug, runIds);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.rows) ?? [], [pages.data]);
  const first = pages.data?.pages[0];
  const names = useMemo(() => new Map((first?.evaluators ?? []).map((e) => [e.evaluator, e.name])), [first]);
  if (pages.isError)
    return (
      <Alert color="red" title="The rows could not be loaded">
        {pages.error.message}
      </Alert>
    );
  if (!first)
    return <Loading label="Loading the rows" padding="md" />;
  // The server answers runs in the order asked, the baseline first.
  const order = first.runIds;
  return (
    <>
      <Text size="xs" className="muted" data-testid="compare-count">
        {first.pagination.totalHits} rows
      </Text>
      <VirtualList
        items={rows}
        keyOf={(r) => `${r.index}:${r.targetId ?? ''}`}
        more={pages}
        label="Rows side by side"
        testId="compare-rows"
        render={(r) => <RowSideBySide row={r} runIds={order} names={names} nameOf={nameOf} />}
      />
    </>
  );
}

const outputOf = (predicted: Record<string, unknown> | null | undefined) => {
  if (!predicted) return '';
  const keys = Object.keys(predicted);
  if (keys.length === 1) return asText(predicted[keys[0]]);
  return JSON.stringify(predicted);
};

function EntryLine({ entry }: { entry: Record<string, unknown> }) {
  return (
    <Text size="xs" className="muted" lineClamp={3}>
      {Object.entries(entry)
        .slice(0, 4)
        .map(([k, v]) => `${k}: ${asText(v)}`)
        .join(' · ')}
    </Text>
  );
}

function RowSideBySide({ row, runIds, names, nameOf }: { row: CompareRow; runIds: string[]; names: Map<string, string>; nameOf: NameOf }) {
  const baseOutput = outputOf(row.cells[0]?.predicted);
  return (
    <div className="cmp-row" style={{ ['--cols' as string]: runIds.length }}>
      <div className="mono muted">#{row.index + 1}</div>
      {runIds.map((runId, i) => {
        const cell = row.cells[i];
        const out = outputOf(cell?.predicted);
        return (
          <div key={runId} className="cmp-side" aria-label={`Run ${nameOf(runId)}`}>
            {i === 0 && <EntryLine entry={row.entry} />}
            <Text size="xs" fw={600}>
              {nameOf(runId)}
              {row.targetId ? <span className="muted"> · {row.targetId}</span> : null}
            </Text>
            {!cell ? <span className="muted">not in this run</span> : i === 0 ? <pre>{out}</pre> : <OutputDiff before={baseOutput} after={out} />}
            {cell?.error && (
              <Text size="xs" className="eval-fail">
                {cell.error}
              </Text>
            )}
            {cell && (
              <Group gap={8} wrap="wrap">
                {Object.entries(cell.evaluations).map(([id, e]) => (
                  <Text key={id} size="xs" component="span">
                    {names.get(id) ?? id}: <EvalResult e={e} />
                  </Text>
                ))}
              </Group>
            )}
          </div>
        );
      })}
    </div>
  );
}

function RegressionsView({ projectId, slug, baseline, others, nameOf }: { projectId: string; slug: string; baseline: string; others: string[]; nameOf: NameOf }) {
  const [runId, setRunId] = useState(others[0]);
  const current = others.includes(runId) ? runId : others[0];
  const [direction, setDirection] = useState<'regressed' | 'improved'>('regressed');
  const pages = useRegressions(projectId, slug, baseline, current, direction);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.rows) ?? [], [pages.data]);
  const first = pages.data?.pages[0];
  const names = useMemo(() => new Map((first?.evaluators ?? []).map((e) => [e.evaluator, e.name])), [first]);
  // What a reviewer opens: the trace of each listed result in the compared run, once each.
  const traced = useMemo(() => [...new Set(rows.flatMap((r) => (r.current.traceId ? [r.current.traceId] : [])))].map((traceId) => ({ traceId })), [rows]);
  return (
    <>
      <div className="toolbar">
        {others.length > 1 && (
          <NativeSelect label="Run" size="xs" value={current} onChange={(e) => setRunId(e.currentTarget.value)} data={others.map((r) => ({ value: r, label: nameOf(r) }))} w={260} />
        )}
        <SegmentedControl
          aria-label="Direction"
          size="xs"
          value={direction}
          onChange={(v) => setDirection(v)}
          data={[
            { value: 'regressed', label: 'Passed, now fail' },
            { value: 'improved', label: 'Failed, now pass' },
          ]}
        />
        {traced.length > 0 && (
          <AddToQueueButton
            projectId={projectId}
            source={{ kind: 'items', items: traced, label: `The traces of the ${traced.length} ${direction} results listed (in ${nameOf(current)}), for people to review.` }}
          />
        )}
        {first && (
          <Text size="xs" className="muted" data-testid="compare-count">
            {first.counts.regressed} regressed, {first.counts.improved} improved
            {first.evaluators.length > 0 && ` (${first.evaluators.map((e) => `${e.name}: ${e.regressed} / ${e.improved}`).join('; ')})`}
          </Text>
        )}
      </div>
      {pages.isError ? (
        <Alert color="red" title="The regressions could not be loaded">
          {pages.error.message}
        </Alert>
      ) : !first ? (
        <Loading label="Loading the regressions" padding="md" />
      ) : rows.length === 0 ? (
        <Alert color="teal" title={direction === 'regressed' ? 'No regressions' : 'No improvements'}>
          {direction === 'regressed' ? `No result that passed in ${nameOf(baseline)} fails in ${nameOf(current)}.` : `No result that failed in ${nameOf(baseline)} passes in ${nameOf(current)}.`}
        </Alert>
      ) : (
        <VirtualList
          items={rows}
          keyOf={(r) => `${r.index}:${r.targetId ?? ''}:${r.evaluator}`}
          more={pages}
          label={direction === 'regressed' ? 'Regressed results' : 'Improved results'}
          testId="regression-rows"
          render={(r) => <RegressionRow row={r} name={names.get(r.evaluator) ?? r.evaluator} baseline={nameOf(baseline)} runId={nameOf(current)} />}
        />
      )}
    </>
  );
}

function RegressionRow({ row, name, baseline, runId }: { row: Regression; name: string; baseline: string; runId: string }) {
  const before = outputOf(row.baseline.predicted);
  const after = outputOf(row.current.predicted);
  return (
    <div className="cmp-row" style={{ ['--cols' as string]: 2 }}>
      <div className="mono muted">#{row.index + 1}</div>
      {[
        [baseline, row.baseline, <pre key="b">{before}</pre>],
        [runId, row.current, <OutputDiff key="c" before={before} after={after} />],
      ].map(([id, side, body], i) => {
        const s = side as Regression['baseline'];
        return (
          <div key={i} className="cmp-side" aria-label={`Run ${id as string}`}>
            {i === 0 && <EntryLine entry={row.entry} />}
            <Text size="xs" fw={600}>
              {id as string}
            </Text>
            {body as ReactNode}
            {s.error && (
              <Text size="xs" className="eval-fail">
                {s.error}
              </Text>
            )}
            <Text size="xs" component="span">
              {name}: <EvalResult e={s} />
            </Text>
          </div>
        );
      })}
    </div>
  );
}

/** The output against the baseline's, word by word: what changed is marked. */
function OutputDiff({ before, after }: { before: string; after: string }) {
  const parts = useMemo(() => {
    if (before === after) return [{ text: after, kind: 'same' as const }];
    const tok = (s: string) =>
      s
        .split(/(\s+)/)
        .filter(Boolean)
        .map((t) => t.replace(/\n/g, '\u2424'));
    const a = tok(before);
    const b = tok(after);
    if (a.length * b.length > 4_000_000) return [{ text: after, kind: 'changed' as const }];
    return diffLines(a.join('\n'), b.join('\n'))
      .filter((r) => r.right)
      .map((r) => ({ text: r.right!.text.replace(/\u2424/g, '\n'), kind: r.kind === 'same' ? ('same' as const) : ('changed' as const) }));
  }, [before, after]);
  return (
    <pre>
      {parts.map((p, i) =>
        p.kind === 'same' ? (
          <span key={i}>{p.text}</span>
        ) : (
          <mark key={i} className="ins" title="changed from the baseline">
            {p.text}
          </mark>
        ),
      )}
    </pre>
  );
}
