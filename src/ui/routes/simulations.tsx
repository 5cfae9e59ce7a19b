import { Alert, Group, Progress, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconArrowsDiff, IconListDetails } from '@tabler/icons-react';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { Unloaded } from '../components/QueryState.tsx';
import { Link, useParams, useSearch } from '@tanstack/react-router';
import { useBatchRuns, useSimulationBatches, useSimulationSets, type SimulationRunSummary } from '../api/simulations.ts';
import { formatDuration, formatFullTime, formatRelative } from '../lib/format.ts';

const percent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 100)} %`);

/**
 * Agent simulations reported by LangWatch's Scenario package: the scenario sets with their pass
 * rates, a set's batches (one per CI job or test session), and a batch's runs, each opening its
 * conversation. Live while anything shown is still running.
 */
export default function SimulationsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/simulations' });
  const { set, batch } = useSearch({ from: '/p/$projectId/simulations' });
  return (
    <div className="page simulations-page">
      {batch !== undefined ? <BatchRuns projectId={projectId} set={set} batch={batch} /> : set !== undefined ? <SetBatches projectId={projectId} set={set} /> : <Sets projectId={projectId} />}
    </div>
  );
}

function Counts({ passed, failed, inProgress, runs }: { passed: number; failed: number; inProgress: number; runs: number }) {
  return (
    <div className="sim-counts" aria-label={`${passed} passed, ${failed} failed, ${inProgress} running`}>
      <Progress.Root size="sm" className="sim-bar">
        <Progress.Section value={(100 * passed) / Math.max(runs, 1)} color="teal" aria-label="Passed" />
        <Progress.Section value={(100 * failed) / Math.max(runs, 1)} color="red" aria-label="Failed" />
        <Progress.Section value={(100 * inProgress) / Math.max(runs, 1)} color="gray" aria-label="Running" />
      </Progress.Root>
      <Text size="xs" className="muted nowrap">
        {passed} passed · {failed} failed{inProgress ? ` · ${inProgress} running` : ''}
      </Text>
    </div>
  );
}

function Sets({ projectId }: { projectId: string }) {
  const sets = useSimulationSets(projectId);
  return (
    <>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h3">
          Simulations
        </Title>
        <ButtonLink to="/p/$projectId/simulations/scenarios" params={{ projectId }} size="xs" variant="default" leftSection={<IconListDetails size={14} />}>
          Scenarios
        </ButtonLink>
      </Group>
      {!sets.isSuccess ? (
        <Unloaded query={sets} what="simulations" />
      ) : sets.data.length === 0 ? (
        <Alert color="gray" title="No simulations yet">
          Point LangWatch's Scenario package at this server (<span className="mono">LANGWATCH_ENDPOINT</span> and a project key in{' '}
          <span className="mono">LANGWATCH_API_KEY</span>) and run your scenario tests: each run shows here with its conversation and the judge's verdict. Or{' '}
          <Link to="/p/$projectId/simulations/scenarios" params={{ projectId }}>
            define scenarios
          </Link>{' '}
          and let Spyglass run them.
        </Alert>
      ) : (
        <div className="panel">
          <Table verticalSpacing={6} aria-label="Scenario sets" className="sim-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Scenario set</Table.Th>
                <Table.Th>Pass rate</Table.Th>
                <Table.Th>Runs</Table.Th>
                <Table.Th>Batches</Table.Th>
                <Table.Th>Last run</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sets.data.map((s) => (
                <Table.Tr key={s.scenarioSetId} data-set={s.scenarioSetId}>
                  <Table.Td>
                    <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set: s.scenarioSetId }} className="sim-name">
                      {s.scenarioSetId}
                    </Link>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {percent(s.passRate)}
                    </Text>
                    <Counts {...s} />
                  </Table.Td>
                  <Table.Td data-label="Runs">{s.runs.toLocaleString()}</Table.Td>
                  <Table.Td data-label="Batches">{s.batches.toLocaleString()}</Table.Td>
                  <Table.Td data-label="Last run" title={formatFullTime(s.lastRunAt)}>
                    {formatRelative(s.lastRunAt)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      )}
    </>
  );
}

function SetBatches({ projectId, set }: { projectId: string; set: string }) {
  const batches = useSimulationBatches(projectId, set);
  return (
    <>
      <Link to="/p/$projectId/simulations" params={{ projectId }} className="back-link">
        <IconArrowLeft size={14} aria-hidden /> All scenario sets
      </Link>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h3" className="ellipsis">
          {set}
        </Title>
        {(batches.data?.length ?? 0) >= 2 && (
          <ButtonLink to="/p/$projectId/simulations/compare" params={{ projectId }} search={{ set }} size="xs" variant="default" leftSection={<IconArrowsDiff size={14} />}>
            Compare batches
          </ButtonLink>
        )}
      </Group>
      {!batches.isSuccess ? (
        <Unloaded query={batches} what="batches" />
      ) : (
        <div className="panel">
          <Table verticalSpacing={6} aria-label="Batches" className="sim-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Batch</Table.Th>
                <Table.Th>Pass rate</Table.Th>
                <Table.Th>Runs</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Took</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {batches.data.map((b) => (
                <Table.Tr key={b.batchRunId} data-batch={b.batchRunId}>
                  <Table.Td>
                    <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set, batch: b.batchRunId }} className="sim-name mono">
                      {b.batchRunId}
                    </Link>
                    {b.label && (
                      <span className="score-chip" title="The agent version this batch ran">
                        {b.label}
                      </span>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {percent(b.passRate)}
                    </Text>
                    <Counts {...b} />
                  </Table.Td>
                  <Table.Td data-label="Runs">{b.runs.toLocaleString()}</Table.Td>
                  <Table.Td data-label="Started" title={formatFullTime(b.startedAt)}>
                    {formatRelative(b.startedAt)}
                  </Table.Td>
                  <Table.Td data-label="Took">{b.finishedAt === null ? <span className="score-chip">running</span> : formatDuration(b.finishedAt - b.startedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      )}
    </>
  );
}

/** A run's result as the score chips elsewhere show pass and fail (their colours meet the contrast rule). */
export function RunStatus({ run }: { run: Pick<SimulationRunSummary, 'status' | 'results' | 'finishedAt'> }) {
  if (run.finishedAt === null) return <span className="score-chip">running</span>;
  const verdict = run.results?.verdict;
  if (verdict === 'success') return <span className="score-chip pass">passed</span>;
  if (verdict === 'failure') return <span className="score-chip fail">failed</span>;
  if (verdict === 'inconclusive') return <span className="score-chip">inconclusive</span>;
  return <span className="score-chip fail">{run.status.toLowerCase()}</span>;
}

function BatchRuns({ projectId, set, batch }: { projectId: string; set: string | undefined; batch: string }) {
  const runs = useBatchRuns(projectId, batch);
  const setId = set ?? runs.data?.[0]?.scenarioSetId;
  return (
    <>
      {setId !== undefined && (
        <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set: setId }} className="back-link">
          <IconArrowLeft size={14} aria-hidden /> Batches of {setId}
        </Link>
      )}
      <Title order={1} size="h3" className="ellipsis mono">
        {batch}
      </Title>
      {!runs.isSuccess ? (
        <Unloaded query={runs} what="runs" />
      ) : (
        <div className="panel">
          <Table verticalSpacing={6} aria-label="Scenario runs" className="sim-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Scenario</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>Criteria met</Table.Th>
                <Table.Th>Messages</Table.Th>
                <Table.Th>Took</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data.map((r) => {
                const met = r.results?.metCriteria.length ?? 0;
                const all = met + (r.results?.unmetCriteria.length ?? 0);
                return (
                  <Table.Tr key={r.scenarioRunId} data-run={r.name ?? r.scenarioId}>
                    <Table.Td>
                      <Link to="/p/$projectId/simulations/runs/$runId" params={{ projectId, runId: r.scenarioRunId }} className="sim-name">
                        {r.name ?? r.scenarioId}
                      </Link>
                      {r.description && (
                        <Text size="xs" className="muted">
                          {r.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <RunStatus run={r} />
                    </Table.Td>
                    <Table.Td data-label="Criteria met">{all ? `${met} of ${all}` : '-'}</Table.Td>
                    <Table.Td data-label="Messages">{r.messageCount}</Table.Td>
                    <Table.Td data-label="Took">{formatDuration(r.durationMs)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </div>
      )}
    </>
  );
}
