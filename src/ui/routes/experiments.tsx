import { useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { Badge, Button, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useBaselines, useExperiments, useRunsOf, useVerdicts } from '../api/experiments.ts';
import type { Comparison, Experiment, ExperimentRun } from '../api/experiments.ts';
import { Sparkline } from '../components/Sparkline.tsx';
import { formatFullTime, formatRelative } from '../lib/format.ts';
import { fmt, mainScore, pct } from '../lib/experiments.ts';
import { ScrollPanel } from '../components/ScrollPanel.tsx';
import './experiments.css';
import { QueryState, Loading } from '../components/QueryState.tsx';
import { slugify } from '../../platform/slug.schema.ts';

/** How many runs the trend shows, oldest to newest: every one drawn. */
const TREND_RUNS = 100;

/** The project's experiments: each with its last run, its verdict against the baseline and the trend of its main score. */
export default function ExperimentsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/experiments' });
  const experiments = useExperiments(projectId);
  const list = experiments.data ?? [];
  const slugs = list.map((e) => e.slug);
  const runs = useRunsOf(projectId, slugs);
  const baselines = useBaselines(projectId, slugs);
  const verdicts = useVerdicts(
    projectId,
    list.map((e, i) => ({ slug: e.slug, lastRunId: runs[i]?.data?.runs[0]?.runId })),
    baselines.map((b) => (b.data ? b.data.baselineRunId : undefined)),
  );
  return (
    <div className="page">
      <Group justify="space-between" align="flex-end">
        <Title order={1} size="h3">
          Experiments
        </Title>
        <NewExperiment projectId={projectId} existing={list} />
      </Group>
      <QueryState
        query={experiments}
        failed="The experiments could not be loaded"
        loading="Loading experiments"
        empty={() =>
          list.length === 0 && {
            title: 'No experiments yet',
            children: (
            <>
              An experiment runs a prompt or your agent over a dataset and scores every row. Name one under New experiment and set it up (a dataset, a prompt
          with its variables mapped to the dataset&apos;s columns, evaluators): the app runs it, and runs it again after each change. Or log runs from your own
          code with the LangWatch SDK (<code>langwatch.experiments.init(...)</code>) pointed at this server. Either way its runs, scores and costs appear here.
            </>
          ),
          }
        }
      >
        {() => (
          <ScrollPanel label="Experiments">
            <Table striped highlightOnHover verticalSpacing={6} aria-label="Experiments">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Experiment</Table.Th>
                  <Table.Th>Runs</Table.Th>
                  <Table.Th>Last run</Table.Th>
                  <Table.Th>Last run against the baseline</Table.Th>
                  <Table.Th>Main score, run by run</Table.Th>
                  <Table.Th>Updated</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((e, i) => (
                  <ExperimentRow
                    key={e.id}
                    projectId={projectId}
                    experiment={e}
                    runs={runs[i]?.data?.runs}
                    loading={runs[i]?.isPending ?? true}
                    baseline={baselines[i]?.data?.baselineRunId}
                    comparison={verdicts[i]?.data}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </ScrollPanel>
        )}
      </QueryState>
    </div>
  );
}

/** A name for a new platform-run experiment, then its setup page. */
function NewExperiment({ projectId, existing }: { projectId: string; existing: Experiment[] }) {
  const [name, setName] = useState('');
  const navigate = useNavigate();
  const slug = slugify(name);
  // An SDK's experiment has no setup the app could run: a setup under its slug would be refused.
  const taken = existing.find((e) => e.slug === slug && e.type !== 'EVALUATIONS_V3');
  const error = taken ? `${taken.name ?? taken.slug} is logged by an SDK; choose another name` : undefined;
  return (
    <form
      className="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        if (slug && !taken) void navigate({ to: '/p/$projectId/experiments/$slug/setup', params: { projectId, slug }, search: { name: name.trim() } });
      }}
    >
      <TextInput size="xs" label="New experiment" placeholder="Name, e.g. Support bot accuracy" value={name} onChange={(e) => setName(e.currentTarget.value)} w={240} error={error} />
      <Button size="xs" type="submit" disabled={!slug || !!taken} leftSection={<IconPlus size={14} />}>
        Set it up
      </Button>
    </form>
  );
}

/** The server's slug rule (lowercase, accents dropped, other characters to -). */
export function runState(run: Pick<ExperimentRun, 'timestamps'>): 'running' | 'completed' | 'stopped' {
  return run.timestamps.stoppedAt !== null ? 'stopped' : run.timestamps.finishedAt !== null ? 'completed' : 'running';
}

export function RunStateBadge({ state }: { state: string }) {
  const color = state === 'completed' ? 'teal.9' : state === 'running' || state === 'pending' ? 'indigo.9' : state === 'failed' ? 'red.9' : 'gray.8';
  // At least as wide as its word: in a narrow table a badge would otherwise shrink to "RU…".
  return (
    <Badge size="sm" variant="outline" color={color} miw="max-content">
      {state}
    </Badge>
  );
}

function ExperimentRow({
  projectId,
  experiment: e,
  runs,
  loading,
  baseline,
  comparison,
}: {
  projectId: string;
  experiment: Experiment;
  runs?: ExperimentRun[];
  loading: boolean;
  baseline?: string | null;
  comparison?: Comparison;
}) {
  const last = runs?.[0];
  const history = (runs ?? []).slice(0, TREND_RUNS).reverse();
  const main = mainScore(history);
  const lastValue = main ? [...main.values].reverse().find((v) => v !== null) : undefined;
  const present = main?.values.filter((v): v is number => v !== null) ?? [];
  const show = (v: number) => (main?.measure === 'pass rate' ? pct(v) : fmt(v));
  const label = main
    ? `${main.name} ${main.measure} over ${history.length} run${history.length === 1 ? '' : 's'}: last ${show(lastValue!)}, lowest ${show(Math.min(...present))}, highest ${show(Math.max(...present))}`
    : '';
  return (
    <Table.Tr>
      <Table.Td>
        <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug: e.slug }}>
          {e.name ?? e.slug}
        </Link>
        {e.name && e.name !== e.slug && (
          <Text size="xs" className="muted mono">
            {e.slug}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{e.runsCount}</Table.Td>
      <Table.Td>
        {loading ? (
          <Loading label={`Loading runs of ${e.name ?? e.slug}`} size="xs" inline />
        ) : last ? (
          <Group gap={6} wrap="nowrap">
            <Link to="/p/$projectId/experiments/$slug" params={{ projectId, slug: e.slug }} search={{ runId: last.runId }} className="ellipsis" style={{ maxWidth: 220 }} title={last.runId}>
              {last.name}
            </Link>
            <RunStateBadge state={runState(last)} />
            <Text size="xs" className="muted nowrap" title={formatFullTime(last.timestamps.createdAt)}>
              {formatRelative(last.timestamps.createdAt)}
            </Text>
          </Group>
        ) : (
          <span className="muted">no runs</span>
        )}
      </Table.Td>
      <Table.Td>
        <VerdictSummary projectId={projectId} slug={e.slug} lastRunId={last?.runId} baseline={baseline} comparison={comparison} />
      </Table.Td>
      <Table.Td>
        {main ? (
          <div className="trend">
            <span className="trend-value" title={label}>
              {show(lastValue!)}
            </span>
            <Sparkline values={main.values} label={label} />
            <Text size="xs" className="muted ellipsis" maw={140}>
              {main.name}
            </Text>
          </div>
        ) : (
          <span className="muted">–</span>
        )}
      </Table.Td>
      <TimeCell at={e.updatedAt} />
    </Table.Tr>
  );
}

/** The last run against the baseline, in words: which evaluators got better or worse (95% intervals that leave 0 out). */
function VerdictSummary({ projectId, slug, lastRunId, baseline, comparison }: { projectId: string; slug: string; lastRunId?: string; baseline?: string | null; comparison?: Comparison }) {
  if (baseline === undefined || !lastRunId) return <span className="muted">–</span>;
  if (baseline === null) return <span className="muted">no baseline</span>;
  if (baseline === lastRunId) return <span className="muted">the last run is the baseline</span>;
  if (!comparison) return <Loading label="Comparing with the baseline" size="xs" inline />;
  const evaluators = comparison.comparisons[0]?.evaluators ?? [];
  const better = evaluators.filter((v) => v.verdict === 'better').map((v) => v.name);
  const worse = evaluators.filter((v) => v.verdict === 'worse').map((v) => v.name);
  return (
    <Link to="/p/$projectId/experiments/$slug/compare" params={{ projectId, slug }} search={{ runs: `${baseline},${lastRunId}` }} className="verdict-link">
      {worse.length > 0 && <span className="verdict-worse">worse on {worse.join(', ')}</span>}
      {worse.length > 0 && better.length > 0 && '; '}
      {better.length > 0 && <span className="verdict-better">better on {better.join(', ')}</span>}
      {!better.length && !worse.length && <span className="verdict-none">{evaluators.length ? 'no detectable difference' : 'not comparable'}</span>}
      <span className="muted"> vs {baseline}</span>
    </Link>
  );
}
