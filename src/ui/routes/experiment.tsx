import { useEffect, useMemo, useRef, useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { ActionIcon, Alert, Breadcrumbs, Button, Checkbox, Group, NativeSelect, Progress, Table, Text, TextInput, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconCheck, IconGitCompare, IconPencil, IconPlayerPlay, IconPlayerStop, IconScale, IconSettings, IconX } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { RUN_ROWS_PAGE, useExperiments, useRefreshRunRows, useRenameRun, useRunNames, useRunRows, useRunShape, useRunStatus, useRunSummary, useRuns, useStartRun, useStopRun } from '../api/experiments.ts';
import type { Estimate, ExperimentRun, RunRows } from '../api/experiments.ts';
import { AddToQueueButton } from '../components/AddToQueue.tsx';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { Loading, Unloaded } from '../components/QueryState.tsx';
import { DeletedDatasetNotice } from '../components/DeletedDataset.tsx';
import { Stat } from '../components/Stat.tsx';
import { judgeOf, JudgeTrustList } from '../components/JudgeTrust.tsx';
import { scoreText, scoreTitle } from '../lib/scores.ts';
import { asText, formatCost, formatDuration, formatFullTime, formatRelative } from '../lib/format.ts';
import { conditionFor, fmt, outputText, pct, runColumns, type Column, type LineEvaluation, type RunLine } from '../lib/experiments.ts';
import type { ExperimentSearch } from '../lib/page-searches.ts';
import { RunStateBadge, runState } from './experiments.tsx';
import { ScrollPanel } from '../components/ScrollPanel.tsx';
import './experiments.css';
import { errorText } from '../lib/form-errors.ts';

/** `/p/<projectId>/experiments/<slug>`: the experiment's runs; with `?runId=` the run page. */
export default function ExperimentPage() {
  const { projectId, slug } = useParams({ from: '/p/$projectId/experiments/$slug' });
  const search = useSearch({ from: '/p/$projectId/experiments/$slug' });
  const experiments = useExperiments(projectId);
  const experiment = experiments.data?.find((e) => e.slug === slug);
  const title = experiment?.name ?? slug;
  // Only a platform-run experiment has a setup the app can run; an SDK's runs come from its code.
  // A judge's version comparisons (its target a judge) have none either: they start from the judge's alignment page.
  const runs = useRuns(projectId, slug);
  const judge = runs.data?.runs.flatMap((r) => r.targets).find((t) => t.type === 'evaluator')?.evaluatorId ?? null;
  const platform = experiment?.type === 'EVALUATIONS_V3' && runs.isSuccess && judge === null;
  const nameOf = useRunNames(projectId, slug);
  return (
    <div className="run-page">
      <Breadcrumbs separator="/">
        <Link to="/p/$projectId/experiments" params={{ projectId }}>
          Experiments
        </Link>
        {search.runId ? (
          <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }}>
            {title}
          </Link>
        ) : (
          <Text size="sm">{title}</Text>
        )}
        {search.runId && (
          <Text size="sm">{nameOf(search.runId)}</Text>
        )}
      </Breadcrumbs>
      {search.runId ? (
        <RunView projectId={projectId} slug={slug} runId={search.runId} search={search} platform={platform} judge={judge} />
      ) : (
        <RunsView projectId={projectId} slug={slug} title={title} platform={platform} judge={judge} known={!!experiment} />
      )}
    </div>
  );
}

// ---- the experiment's runs

/** Starts a run of the saved setup and opens its page; its error shows beside it. */
function RunButton({ projectId, slug, again }: { projectId: string; slug: string; again: boolean }) {
  const start = useStartRun(projectId, slug);
  const navigate = useNavigate();
  return (
    <Group gap={6} wrap="nowrap">
      <Button
        size="sm"
        leftSection={<IconPlayerPlay size={14} />}
        loading={start.isPending}
        onClick={() =>
          start.mutate(undefined, { onSuccess: (r) => void navigate({ to: '/p/$projectId/experiments/$slug', params: { projectId, slug }, search: { runId: r.runId } }) })
        }
      >
        {again ? 'Run again' : 'Run'}
      </Button>
      {start.isError && (
        <Text size="xs" c="red" role="alert" maw={320}>
          Not started: {start.error.message}
        </Text>
      )}
    </Group>
  );
}

/** In place of Run and Setup on a judge's version comparisons: the judge's alignment page, where they are started. */
function JudgeLink({ projectId, judge }: { projectId: string; judge: string }) {
  return (
    <ButtonLink to="/p/$projectId/evaluators/alignment" params={{ projectId }} search={{ evaluator: judge }} size="sm" variant="default" leftSection={<IconScale size={14} />}>
      Judge alignment
    </ButtonLink>
  );
}

/** What a run ran, in a line: per target its prompt and version (or name) and model. */
export function targetsLine(targets: ExperimentRun['targets']): string {
  return targets.map((t) => [t.promptId ? `${t.promptId}${t.promptVersion !== null ? ` v${t.promptVersion}` : ''}` : t.name, t.model].filter(Boolean).join(' · ')).join('; ');
}

function RunsView({ projectId, slug, title, platform, judge, known }: { projectId: string; slug: string; title: string; platform: boolean; judge: string | null; known: boolean }) {
  const runs = useRuns(projectId, slug);
  const list = useMemo(() => runs.data?.runs ?? [], [runs.data]);
  const [picked, setPicked] = useState<string[]>([]);
  const evaluatorIds = useMemo(() => [...new Set(list.flatMap((r) => Object.keys(r.summary.evaluations)))].sort().slice(0, 4), [list]);
  const toggle = (runId: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== runId), runId] : p.filter((x) => x !== runId)));
  return (
    <>
      <Group justify="space-between">
        <Title order={1} size="h3">
          {title}
        </Title>
        <Group gap="xs">
        {platform && <RunButton projectId={projectId} slug={slug} again={list.length > 0} />}
        {platform && (
          <ButtonLink to="/p/$projectId/experiments/$slug/setup" params={{ projectId, slug }} size="sm" variant="default" leftSection={<IconSettings size={14} />}>
            Setup
          </ButtonLink>
        )}
        {judge !== null && <JudgeLink projectId={projectId} judge={judge} />}
        <ButtonLink
          to="/p/$projectId/experiments/$slug/compare"
          params={{ projectId, slug }}
          search={{ runs: picked.join(',') }}
          size="sm"
          leftSection={<IconGitCompare size={14} />}
          disabled={picked.length < 2}
          aria-disabled={picked.length < 2}
          onClick={(e) => picked.length < 2 && e.preventDefault()}
        >
          Compare {picked.length >= 2 ? `${picked.length} runs` : 'runs'}
        </ButtonLink>
        </Group>
      </Group>
      <DeletedDatasetNotice projectId={projectId} slug={slug} />
      {!runs.isSuccess ? (
        <Unloaded query={runs} what="runs" />
      ) : list.length === 0 ? (
        <Alert color="gray" title="No runs yet">
          {platform
            ? 'Run runs the saved setup on its dataset; each run appears here as it goes.'
            : known
              ? 'Runs appear here as your code logs them with the SDK.'
              : 'Runs appear here as your code logs them with the SDK, or as the app runs a setup.'}
        </Alert>
      ) : (
        <>
          <Text size="sm" className="muted">
            Tick two or more runs to compare them; the first ticked is the baseline.
          </Text>
          <ScrollPanel label="Runs">
            <Table striped highlightOnHover verticalSpacing={6} aria-label="Runs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>
                    <span className="sr-only">Compare</span>
                  </Table.Th>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Rows</Table.Th>
                  {evaluatorIds.map((id) => (
                    <Table.Th key={id}>{list.map((r) => r.summary.evaluations[id]?.name).find(Boolean) ?? id}</Table.Th>
                  ))}
                  <Table.Th>Cost</Table.Th>
                  <Table.Th>Mean latency</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((r) => (
                  <RunListRow key={r.runId} projectId={projectId} slug={slug} run={r} evaluatorIds={evaluatorIds} picked={picked.indexOf(r.runId)} onPick={(on) => toggle(r.runId, on)} />
                ))}
              </Table.Tbody>
            </Table>
          </ScrollPanel>
        </>
      )}
    </>
  );
}

function RunListRow({
  projectId,
  slug,
  run: r,
  evaluatorIds,
  picked,
  onPick,
}: {
  projectId: string;
  slug: string;
  run: ExperimentRun;
  evaluatorIds: string[];
  picked: number;
  onPick: (on: boolean) => void;
}) {
  const state = runState(r);
  return (
    <Table.Tr>
      <Table.Td>
        <Checkbox aria-label={`Compare run ${r.name}`} checked={picked >= 0} onChange={(e) => onPick(e.currentTarget.checked)} />
      </Table.Td>
      <Table.Td className="run-name-cell">
        <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug }} search={{ runId: r.runId }}>
          {r.name}
        </Link>
        <Text size="xs" className="muted" title={r.runId}>
          {targetsLine(r.targets) || r.runId}
        </Text>
        {picked === 0 && (
          <Text size="xs" className="muted">
            baseline
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <RunStateBadge state={state} />
      </Table.Td>
      <TimeCell at={r.timestamps.createdAt} />
      <Table.Td className="nowrap">
        {r.progress}
        {r.total > r.progress ? ` / ${r.total}` : ''}
      </Table.Td>
      {evaluatorIds.map((id) => {
        const e = r.summary.evaluations[id];
        return (
          <Table.Td key={id} className="nowrap">
            {!e ? '–' : e.averageScore !== null ? fmt(e.averageScore) : pct(e.averagePassed)}
            {e && e.averageScore !== null && e.averagePassed !== undefined && <span className="muted"> · {pct(e.averagePassed)} pass</span>}
          </Table.Td>
        );
      })}
      <Table.Td>{formatCost(r.summary.datasetCost)}</Table.Td>
      <Table.Td>{formatDuration(r.summary.datasetAverageDuration)}</Table.Td>
    </Table.Tr>
  );
}

// ---- one run

/** The run's name as a heading; the pencil turns it into a field (empty: the name made from what it ran). */
function RunName({ projectId, slug, runId, name }: { projectId: string; slug: string; runId: string; name: string }) {
  const rename = useRenameRun(projectId, slug);
  const [draft, setDraft] = useState<string | null>(null);
  if (draft === null)
    return (
      <Group gap={6} wrap="nowrap" align="center">
        <Title order={1} size="h3">
          {name}
        </Title>
        <ActionIcon variant="subtle" aria-label="Rename the run" onClick={() => setDraft(name)}>
          <IconPencil size={16} />
        </ActionIcon>
      </Group>
    );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        rename.mutate({ runId, name: draft.trim() || null }, { onSuccess: () => setDraft(null) });
      }}
    >
      <Group gap={6} align="flex-start">
        <TextInput
          label="Run name"
          description="Empty: the default name (for a run the app started: its prompt and version, model and start time)"
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          error={errorText(rename.error, 'name')}
          maxLength={255}
          w={360}
          maw="100%"
          autoFocus
        />
        <Group gap={6} mt={24}>
          <Button type="submit" size="xs" loading={rename.isPending}>
            Save
          </Button>
          <Button size="xs" variant="default" onClick={() => setDraft(null)}>
            Cancel
          </Button>
        </Group>
      </Group>
    </form>
  );
}

function RunView({ projectId, slug, runId, search, platform, judge }: { projectId: string; slug: string; runId: string; search: ExperimentSearch; platform: boolean; judge: string | null }) {
  const status = useRunStatus(projectId, slug, runId);
  const stop = useStopRun(projectId, slug);
  const runs = useRuns(projectId, slug);
  const listed = runs.data?.runs.find((r) => r.runId === runId);
  const running = status.data?.status === 'running' || status.data?.status === 'pending';
  // While the run goes on its lines in view are read again (less often as it grows).
  const refetch = running ? ((status.data?.progress ?? 0) > 2000 ? 10_000 : 2500) : false;
  const shape = useRunShape(projectId, slug, runId, refetch);
  // The status poll noticed the end: every page is read once more.
  const refreshRows = useRefreshRunRows(projectId, slug, runId);
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) void refreshRows();
    wasRunning.current = running;
  }, [running, refreshRows]);

  if (status.isError || shape.isError) {
    const error = (status.error ?? shape.error)!;
    return (
      <Alert color="red" title="This run could not be loaded">
        {error.message}
      </Alert>
    );
  }
  const s = status.data;
  return (
    <>
      <Group justify="space-between" align="flex-start">
        <div>
          {s && <RunName projectId={projectId} slug={slug} runId={runId} name={s.name} />}
          {listed && (
            <Text size="sm" className="muted" data-testid="run-targets">
              {targetsLine(listed.targets)} · <span className="mono">{runId}</span>
            </Text>
          )}
          {s && (
            <Group gap={8} mt={4}>
              <RunStateBadge state={s.status} />
              <Text size="sm" className="muted" title={formatFullTime(s.startedAt)}>
                started {formatRelative(s.startedAt)}
                {s.finishedAt ? ` · took ${formatDuration(s.finishedAt - s.startedAt)}` : ''}
              </Text>
            </Group>
          )}
        </div>
        <Group gap="xs">
          {(platform || judge !== null) && running && (
            <Button size="sm" color="red" variant="light" leftSection={<IconPlayerStop size={14} />} loading={stop.isPending} onClick={() => stop.mutate(runId)}>
              Stop
            </Button>
          )}
          {platform && s && !running && <RunButton projectId={projectId} slug={slug} again />}
          {judge !== null && <JudgeLink projectId={projectId} judge={judge} />}
          {s && (
            <AddToQueueButton
              projectId={projectId}
              size="sm"
              source={{ kind: 'run', experimentSlug: slug, runId, label: `The traces of this run's rows (${s.name}), for people to review; rows without a trace are left out.` }}
            />
          )}
          <ButtonLink to="/p/$projectId/experiments/$slug" params={{ projectId, slug }} variant="default" size="sm" leftSection={<IconGitCompare size={14} />}>
            Compare with another run
          </ButtonLink>
        </Group>
      </Group>
      {stop.isError && (
        <Alert color="red" title="Not stopped">
          {stop.error.message}
        </Alert>
      )}
      {s && running && (
        <div aria-live="polite">
          <Text size="sm">
            {s.progress} of {s.total || '?'} rows
          </Text>
          <Progress value={s.total ? (100 * s.progress) / s.total : 0} aria-label="Run progress" animated />
        </div>
      )}
      {!shape.data ? (
        <Loading label="Loading the run's rows" />
      ) : (
        <>
          <Aggregates projectId={projectId} slug={slug} runId={runId} running={running} />
          <RunTable projectId={projectId} slug={slug} runId={runId} shape={shape.data} search={search} refetch={refetch} />
        </>
      )}
    </>
  );
}

/** "0.82 (0.78 – 0.86)": a value with its 95% interval; the tooltip says over how many. */
export function EstimateText({ value, format = fmt }: { value: Estimate | null | undefined; format?: (v: number) => string }) {
  if (!value) return <span className="muted">–</span>;
  return (
    <span className="nowrap" title={`${format(value.value)}, 95% confidence interval ${format(value.low)} to ${format(value.high)}, over ${value.n}`}>
      {format(value.value)}{' '}
      <span className="ci">
        ({format(value.low)} – {format(value.high)})
      </span>
    </span>
  );
}

function Aggregates({ projectId, slug, runId, running }: { projectId: string; slug: string; runId: string; running: boolean }) {
  const summary = useRunSummary(projectId, slug, runId, running ? 3000 : false);
  // The status poll noticed the end: the statistics are read once more.
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) void summary.refetch();
    wasRunning.current = running;
  }, [running, summary]);
  if (summary.isError || !summary.data) return <Unloaded query={summary} failed="The run's statistics could not be loaded" loading="Loading the run's statistics" />;
  const s = summary.data;
  const groups = s.targets.length > 1 ? s.targets : [s.overall];
  const many = s.targets.length > 1;
  const costFmt = (v: number) => formatCost(v);
  const msFmt = (v: number) => formatDuration(v);
  return (
    <>
      <Group gap="sm" grow preventGrowOverflow={false} wrap="wrap">
        <Stat label="Rows" value={String(s.overall.rows)} testId="run-rows" />
        <Stat label="Errors" value={String(s.overall.errors)} />
        <Stat label="Total cost" value={formatCost(s.overall.cost?.value)} />
        <Stat label="Latency p50" value={formatDuration(s.overall.latency.p50?.value)} />
      </Group>
      {groups.some((g) => g.evaluators.length > 0) && (
        <ScrollPanel label="Evaluator results with 95% confidence intervals">
          <Table verticalSpacing={4} aria-label="Evaluator results with 95% confidence intervals" data-testid="run-aggregates">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Evaluator</Table.Th>
                {many && <Table.Th>Target</Table.Th>}
                <Table.Th>Mean score (95% CI)</Table.Th>
                <Table.Th>Pass rate (95% CI)</Table.Th>
                <Table.Th>Passed / failed</Table.Th>
                <Table.Th>Errors</Table.Th>
                <Table.Th>Skipped</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {groups.flatMap((g) =>
                g.evaluators.map((e) => (
                  <Table.Tr key={`${e.evaluator}:${g.targetId ?? ''}`}>
                    <Table.Td>{e.name}</Table.Td>
                    {many && <Table.Td>{g.name}</Table.Td>}
                    <Table.Td>
                      <EstimateText value={e.score} />
                    </Table.Td>
                    <Table.Td>
                      <EstimateText value={e.passRate} format={pct} />
                    </Table.Td>
                    <Table.Td>
                      {e.passed} / {e.failed}
                    </Table.Td>
                    <Table.Td>{e.errors ? <span className="eval-fail">{e.errors}</span> : 0}</Table.Td>
                    <Table.Td>{e.skipped}</Table.Td>
                  </Table.Tr>
                )),
              )}
            </Table.Tbody>
          </Table>
        </ScrollPanel>
      )}
      <JudgeTrustList
        projectId={projectId}
        judges={s.overall.evaluators.map((e) => ({ evaluator: e.evaluator, name: e.name, ...judgeOf(s.judges, e.evaluator), counts: e.passed + e.failed > 0 ? { passed: e.passed, judged: e.passed + e.failed } : undefined }))}
      />
      <ScrollPanel label="Targets">
        <Table verticalSpacing={4} aria-label="Targets">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Target</Table.Th>
              <Table.Th>Rows</Table.Th>
              <Table.Th>Error rate (95% CI)</Table.Th>
              <Table.Th>Total cost (95% CI)</Table.Th>
              <Table.Th>Latency p50 (95% CI)</Table.Th>
              <Table.Th>Latency p95 (95% CI)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(s.targets.length ? s.targets : [s.overall]).map((t) => (
              <Table.Tr key={t.targetId ?? ''}>
                <Table.Td>{t.targetId === null && t === s.overall ? 'All rows' : t.name}</Table.Td>
                <Table.Td>{t.rows}</Table.Td>
                <Table.Td>
                  <EstimateText value={t.errorRate} format={pct} />
                </Table.Td>
                <Table.Td>
                  <EstimateText value={t.cost} format={costFmt} />
                </Table.Td>
                <Table.Td>
                  <EstimateText value={t.latency.p50} format={msFmt} />
                </Table.Td>
                <Table.Td>
                  <EstimateText value={t.latency.p95} format={msFmt} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollPanel>
    </>
  );
}

const HEADER_H = 34;
const ROW_H = 36;

function RunTable({ projectId, slug, runId, shape, search, refetch }: { projectId: string; slug: string; runId: string; shape: RunRows; search: ExperimentSearch; refetch: number | false }) {
  const navigate = useNavigate({ from: '/p/$projectId/experiments/$slug' });
  const columns = useMemo(() => runColumns(shape), [shape]);
  const sortColumn = columns.find((c) => c.id === search.sort && c.sortBy);
  const filterColumn = columns.find((c) => c.id === search.col) ?? columns.find((c) => c.kind === 'eval') ?? columns[0];
  const [draft, setDraft] = useState(search.f ?? '');
  // The URL changed under the field (cleared, back): the field follows it.
  const [shown, setShown] = useState(search.f);
  if (shown !== search.f) {
    setShown(search.f);
    setDraft(search.f ?? '');
  }
  // The typed filter lands in the URL after a pause (shareable, survives a reload).
  useEffect(() => {
    if (draft === (search.f ?? '')) return;
    const t = setTimeout(() => void navigate({ search: (s) => ({ ...s, f: draft || undefined, col: filterColumn.id }), replace: true }), 250);
    return () => clearTimeout(t);
  }, [draft, search.f, filterColumn.id, navigate]);

  // Filtering and sorting are the server's: the table reads the pages in view of what it answers.
  const condition = search.f ? conditionFor(filterColumn, search.f) : undefined;
  const view = useMemo(
    () => ({ sortBy: sortColumn?.sortBy ?? undefined, dir: sortColumn ? (search.dir ?? 'asc') : undefined, where: condition ? [condition] : [] }),
    [sortColumn, search.dir, condition],
  );
  const [pages, setPages] = useState<number[]>([1]);
  const { first, rest } = useRunRows(projectId, slug, runId, view, pages, refetch);
  const wanted = pages.filter((p) => p > 1);
  const lineAt = (i: number): RunLine | undefined => {
    const page = Math.floor(i / RUN_ROWS_PAGE) + 1;
    const data = page === 1 ? first.data : rest[wanted.indexOf(page)]?.data;
    return data?.rows[i % RUN_ROWS_PAGE];
  };
  const count = first.data?.pagination.totalHits ?? 0;
  const all = shape.pagination.totalHits;

  const sortBy = (c: Column) => {
    const dir = search.sort === c.id ? (search.dir === 'asc' ? 'desc' : 'asc') : c.kind === 'text' ? 'asc' : 'desc';
    void navigate({ search: (s) => ({ ...s, sort: c.id, dir }), replace: true });
  };
  const hint =
    filterColumn.kind === 'eval' ? 'pass, fail, error, >0.5 or words' : filterColumn.kind === 'number' ? '>0.01, <=500, =0 or empty' : 'words, empty or !empty';

  return (
    <>
      <div className="toolbar" role="search" aria-label="Filter the rows">
        <NativeSelect
          label="Filter column"
          size="xs"
          value={filterColumn.id}
          onChange={(e) => void navigate({ search: (s) => ({ ...s, col: e.currentTarget.value }), replace: true })}
          data={columns.filter((c) => c.sortBy !== null).map((c) => ({ value: c.id, label: c.label }))}
          w={200}
        />
        <TextInput
          label="Matching"
          size="xs"
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          placeholder={hint}
          w={240}
          error={condition === null ? `Not understood here; try ${hint}` : undefined}
        />
        {(search.f || search.sort) && (
          <Button size="xs" variant="subtle" onClick={() => void navigate({ search: (s) => ({ runId: s.runId }), replace: true })}>
            Clear filter and sort
          </Button>
        )}
        <Text size="xs" className="muted" aria-live="polite" data-testid="row-count">
          {first.isPlaceholderData || !first.data ? 'Filtering…' : count === all ? `${count} rows` : `${count} of ${all} rows`}
        </Text>
      </div>
      {first.isError && (
        <Alert color="red" title="These rows could not be loaded">
          {first.error.message}
        </Alert>
      )}
      <RunGrid projectId={projectId} columns={columns} count={count} lineAt={lineAt} onPages={setPages} sort={search.sort} dir={search.dir ?? 'asc'} onSort={sortBy} />
    </>
  );
}

function RunGrid({
  projectId,
  columns,
  count,
  lineAt,
  onPages,
  sort,
  dir,
  onSort,
}: {
  projectId: string;
  columns: Column[];
  count: number;
  lineAt: (i: number) => RunLine | undefined;
  onPages: (pages: number[]) => void;
  sort?: string;
  dir: 'asc' | 'desc';
  onSort: (c: Column) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const narrow = useMediaQuery('(max-width: 760px)') ?? false;
  const template = columns.map((c) => `${narrow ? Math.min(c.width, 160) : c.width}px`).join(' ');
  const width = columns.reduce((s, c) => s + (narrow ? Math.min(c.width, 160) : c.width) + 10, 20);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 10,
    scrollMargin: HEADER_H,
  });
  const items = virtualizer.getVirtualItems();
  // The pages under the lines in view (and the overscan): the only ones read.
  const firstPage = items.length ? Math.floor(items[0].index / RUN_ROWS_PAGE) + 1 : 1;
  const lastPage = items.length ? Math.floor(items[items.length - 1].index / RUN_ROWS_PAGE) + 1 : 1;
  useEffect(() => {
    onPages(Array.from({ length: lastPage - firstPage + 1 }, (_, i) => firstPage + i));
  }, [firstPage, lastPage, onPages]);
  return (
    <div className="run-grid" ref={scrollRef} role="table" aria-label="Run rows" aria-rowcount={count + 1} data-testid="run-grid" tabIndex={0}>
      <div className="run-head" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template, width }}>
        {columns.map((c) => (
          <div
            key={c.id}
            role="columnheader"
            aria-sort={sort === c.id ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}
            className={c.kind === 'text' ? undefined : 'num'}
            title={c.label}
          >
            {c.sortBy ? (
              <button type="button" onClick={() => onSort(c)}>
                {c.label}
                {sort === c.id && (dir === 'asc' ? <IconArrowUp size={12} aria-hidden /> : <IconArrowDown size={12} aria-hidden />)}
              </button>
            ) : (
              c.label
            )}
          </div>
        ))}
      </div>
      <div className="run-body" role="rowgroup" style={{ height: virtualizer.getTotalSize(), width }}>
        {items.map((item) => {
          const r = lineAt(item.index);
          return (
            <div
              key={item.key}
              role="row"
              aria-rowindex={item.index + 2}
              className="run-row"
              style={{ top: item.start - HEADER_H, gridTemplateColumns: template, width }}
              data-row-index={r?.index}
              aria-busy={r ? undefined : true}
            >
              {columns.map((c) => (r ? <Cell key={c.id} projectId={projectId} column={c} row={r} /> : <div key={c.id} role="cell" className="muted">…</div>))}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function Cell({ projectId, column: c, row: r }: { projectId: string; column: Column; row: RunLine }) {
  if (c.kind === 'eval') {
    return (
      <div role="cell" className="num">
        <EvalResult e={r.evaluations[c.evaluator!]} />
      </div>
    );
  }
  if (c.id === 'review') {
    return (
      <div role="cell" className="chips" data-testid="row-scores">
        {r.scores.length ? (
          r.scores.map((s) => (
            <span key={s.configId} className="nowrap" title={scoreTitle(s)}>
              {s.name}: {scoreText(s)}
            </span>
          ))
        ) : (
          <span className="muted">–</span>
        )}
      </div>
    );
  }
  if (c.id === 'trace') {
    const traceId = r.traceId;
    return (
      <div role="cell">
        {traceId ? (
          <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId }} aria-label={`Trace of row ${r.index + 1}`}>
            trace
          </Link>
        ) : (
          <span className="muted">–</span>
        )}
      </div>
    );
  }
  if (c.kind === 'number') {
    // Rows count from 1 here as in the dataset grid and the playground (the API's index is 0-based).
    const v = c.id === 'index' ? r.index + 1 : c.id === 'cost' ? r.cost : r.duration;
    const text = v === null ? '–' : c.id === 'cost' ? formatCost(v) : c.id === 'duration' ? formatDuration(v) : String(v);
    return (
      <div role="cell" className="num">
        {text}
      </div>
    );
  }
  const text =
    c.id === 'output' ? outputText(r.predicted) : c.id === 'error' ? (r.error ?? '') : c.id === 'targetId' ? (r.targetId ?? '') : asText(r.entry[c.id.slice('entry.'.length)]);
  return (
    <div role="cell" className={c.id === 'error' && text ? 'is-error' : undefined} title={text.length > 30 ? text.slice(0, 2000) : undefined}>
      {text ? text.replace(/\s+/g, ' ').slice(0, 300) : <span className="muted">–</span>}
    </div>
  );
}

/** One evaluator's result in a cell: score, passed or failed, label (details on hover), or its status. */
export function EvalResult({ e }: { e: Pick<LineEvaluation, 'status' | 'score' | 'passed' | 'label' | 'details'> | undefined | null }) {
  if (!e) return <span className="muted">–</span>;
  if (e.status !== 'processed')
    return (
      <span className={e.status === 'error' ? 'eval-fail' : 'muted'} title={e.details ?? undefined}>
        {e.status}
      </span>
    );
  const title = [e.label, e.details].filter(Boolean).join(': ') || undefined;
  return (
    <span className="eval-cell" title={title}>
      {e.score !== null && <span>{fmt(e.score)}</span>}
      {e.passed === true && <IconCheck size={14} className="eval-pass" aria-label="passed" />}
      {e.passed === false && <IconX size={14} className="eval-fail" aria-label="failed" />}
      {e.label && <span className="muted ellipsis">{e.label}</span>}
    </span>
  );
}
