import { useQuery } from '@tanstack/react-query';
import { GET, type Answer } from './client.ts';

export type SimulationSet = Answer<'/api/simulations/sets', 'get'>['sets'][number];
export type SimulationBatch = Answer<'/api/simulations/sets/{scenarioSetId}/batches', 'get'>['batches'][number];
export type SimulationRunSummary = Answer<'/api/simulations/batches/{batchRunId}/runs', 'get'>['runs'][number];
export type SimulationRun = Answer<'/api/simulations/runs/{scenarioRunId}', 'get'>;

/** While anything shown is still running, the page reads again every 2 s (runs report as they go). */
const LIVE_MS = 2_000;
const liveWhile = (inProgress: (data: unknown) => boolean) => (q: { state: { data: unknown } }) => (q.state.data !== undefined && inProgress(q.state.data) ? LIVE_MS : false);

export function useSimulationSets(projectId: string) {
  return useQuery({
    queryKey: ['simulation-sets', projectId],
    queryFn: async ({ signal }) => (await GET('/api/simulations/sets', { projectId, signal })).sets,
    refetchInterval: liveWhile((d) => (d as SimulationSet[]).some((s) => s.inProgress > 0)),
  });
}

export function useSimulationBatches(projectId: string, scenarioSetId: string | undefined) {
  return useQuery({
    queryKey: ['simulation-batches', projectId, scenarioSetId],
    enabled: scenarioSetId !== undefined,
    queryFn: async ({ signal }) => (await GET('/api/simulations/sets/{scenarioSetId}/batches', { params: { path: { scenarioSetId: scenarioSetId! } }, projectId, signal })).batches,
    refetchInterval: liveWhile((d) => (d as SimulationBatch[]).some((b) => b.inProgress > 0)),
  });
}

export function useBatchRuns(projectId: string, batchRunId: string | undefined) {
  return useQuery({
    queryKey: ['simulation-batch-runs', projectId, batchRunId],
    enabled: batchRunId !== undefined,
    queryFn: async ({ signal }) => (await GET('/api/simulations/batches/{batchRunId}/runs', { params: { path: { batchRunId: batchRunId! } }, projectId, signal })).runs,
    refetchInterval: liveWhile((d) => (d as SimulationRunSummary[]).some((r) => r.finishedAt === null)),
  });
}

export function useSimulationRun(projectId: string, scenarioRunId: string) {
  return useQuery({
    queryKey: ['simulation-run', projectId, scenarioRunId],
    queryFn: async ({ signal }) => GET('/api/simulations/runs/{scenarioRunId}', { params: { path: { scenarioRunId } }, projectId, signal }),
    refetchInterval: liveWhile((d) => (d as SimulationRun).finishedAt === null),
  });
}
