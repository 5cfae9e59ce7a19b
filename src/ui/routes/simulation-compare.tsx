import { Alert, Box, Group, NativeSelect, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useBatchComparison, useSimulationBatches, type BatchComparison } from '../api/simulations.ts';
import { ScrollPanel } from '../components/ScrollPanel.tsx';
import { fieldError } from '../lib/form-errors.ts';
import { pct, points } from '../lib/experiments.ts';
import { formatRelative } from '../lib/format.ts';
import './experiments.css';
import { Unloaded, Loading } from '../components/QueryState.tsx';

type Rate = NonNullable<BatchComparison['scenarios'][number]['baseline']>;

const rateText = (r: Rate | null) => (r === null ? '–' : `${pct(r.passRate)} (${r.passed} of ${r.runs})`);
const verdictClass = (v: BatchComparison['overall']['verdict']) => (v === 'better' ? 'verdict-better' : v === 'worse' ? 'verdict-worse' : 'verdict-none');

/**
 * Two batches of one scenario set (two versions of an agent) compared: each scenario's pass rate
 * in both, and the overall difference with the paired statistics and verdict in words the
 * experiment comparison uses.
 */
export default function SimulationComparePage() {
  const { projectId } = useParams({ from: '/p/$projectId/simulations/compare' });
  const { set, baseline, candidate } = useSearch({ from: '/p/$projectId/simulations/compare' });
  const navigate = useNavigate({ from: '/p/$projectId/simulations/compare' });
  const batches = useSimulationBatches(projectId, set);
  const list = batches.data ?? [];
  // The newest batch is the candidate and the one before it the baseline, until chosen.
  const cand = candidate ?? list[0]?.batchRunId;
  const base = baseline ?? list.find((b) => b.batchRunId !== cand)?.batchRunId;
  const running = list.some((b) => (b.batchRunId === cand || b.batchRunId === base) && b.inProgress > 0);
  const comparison = useBatchComparison(projectId, set ?? '', base, cand, running);
  const options = list.map((b) => ({ value: b.batchRunId, label: `${b.label ? `${b.label} · ` : ''}${b.batchRunId} · ${pct(b.passRate)} · ${formatRelative(b.startedAt)}` }));
  const choose = (key: 'baseline' | 'candidate', value: string) => void navigate({ search: (s) => ({ ...s, baseline: base, candidate: cand, [key]: value }), replace: true });
  return (
    <div className="page simulations-page">
      {set !== undefined && (
        <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set }} className="back-link">
          <IconArrowLeft size={14} aria-hidden /> Batches of {set}
        </Link>
      )}
      <Title order={1} size="h3" className="sim-name">
        Comparing batches{set ? ` of ${set}` : ''}
      </Title>
      {set === undefined ? (
        <Alert color="gray" title="Pick a scenario set">
          Open a set on the <Link to="/p/$projectId/simulations" params={{ projectId }}>simulations page</Link> and choose “Compare batches”.
        </Alert>
      ) : !batches.isSuccess ? (
        <Unloaded query={batches} failed="The batches could not be loaded" loading="Loading batches" />
      ) : list.length < 2 ? (
        <Alert color="gray" title="One batch so far">
          Run the set again (with the new version of the agent) to compare two batches.
        </Alert>
      ) : (
        <>
          <Group gap="sm" wrap="wrap" align="flex-start">
            <NativeSelect label="Baseline" value={base} onChange={(e) => choose('baseline', e.currentTarget.value)} data={options} error={fieldError(comparison.error, 'baseline')} className="sim-pick" />
            <NativeSelect label="Candidate" value={cand} onChange={(e) => choose('candidate', e.currentTarget.value)} data={options} error={fieldError(comparison.error, 'candidate')} className="sim-pick" />
          </Group>
          {comparison.isError ? (
            !fieldError(comparison.error, 'baseline', 'candidate') && (
              <Alert color="red" title="These batches could not be compared">
                {comparison.error.message}
              </Alert>
            )
          ) : !comparison.data ? (
            <Loading label="Comparing the batches" padding="md" />
          ) : (
            <Comparison data={comparison.data} />
          )}
        </>
      )}
    </div>
  );
}

function Comparison({ data }: { data: BatchComparison }) {
  const o = data.overall;
  const name = (b: { batchRunId: string; label: string | null }) => b.label ?? b.batchRunId;
  return (
    <>
      <div className="panel verdict-card" role="region" aria-label="Verdict">
        <Text size="sm" className={verdictClass(o.verdict)} data-testid="sim-verdict">
          {o.summary}
        </Text>
        <Group gap="lg" mt={6} wrap="wrap">
          <Text size="xs" className="muted">
            Baseline <b>{name(data.baseline)}</b>: {rateText(o.baseline)}
          </Text>
          <Text size="xs" className="muted">
            Candidate <b>{name(data.candidate)}</b>: {rateText(o.candidate)}
          </Text>
          {o.difference !== null && (
            <Text size="xs" className="muted">
              Difference {points(o.difference)}
              {o.interval && ` (95% interval ${points(o.interval.low)} to ${points(o.interval.high)})`}
              {o.pValue !== null && o.verdict !== 'not enough data' && `, p = ${o.pValue.toFixed(3)}`} over {o.pairedScenarios} paired scenarios
            </Text>
          )}
        </Group>
      </div>
      {/* A phone reads a line per scenario; the table needs 640 px. */}
      <Stack gap={6} hiddenFrom="sm">
        {data.scenarios.map((s) => (
          <div className="panel verdict-card" key={s.scenarioId} data-compare-scenario={s.name ?? s.scenarioId}>
            <Text size="sm" fw={600} className="sim-name">
              {s.name ?? s.scenarioId}
            </Text>
            <Text size="xs">
              {rateText(s.baseline)} → {rateText(s.candidate)}
              {s.difference !== null && <span className={s.difference > 0 ? 'eval-pass' : s.difference < 0 ? 'eval-fail' : undefined}> {points(s.difference)}</span>}
            </Text>
          </div>
        ))}
      </Stack>
      <Box visibleFrom="sm">
        <ScrollPanel label="Pass rate per scenario">
          <Table verticalSpacing={4} miw={640} aria-label="Pass rate per scenario">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Scenario</Table.Th>
                <Table.Th>Baseline ({name(data.baseline)})</Table.Th>
                <Table.Th>Candidate ({name(data.candidate)})</Table.Th>
                <Table.Th>Difference</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.scenarios.map((s) => (
                <Table.Tr key={s.scenarioId} data-compare-scenario={s.name ?? s.scenarioId}>
                  <Table.Td className="sim-name">{s.name ?? s.scenarioId}</Table.Td>
                  <Table.Td>{rateText(s.baseline)}</Table.Td>
                  <Table.Td>{rateText(s.candidate)}</Table.Td>
                  <Table.Td className={s.difference === null ? undefined : s.difference > 0 ? 'eval-pass' : s.difference < 0 ? 'eval-fail' : undefined}>{s.difference === null ? '–' : points(s.difference)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollPanel>
      </Box>
    </>
  );
}
