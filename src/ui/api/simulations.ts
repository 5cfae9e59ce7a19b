import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { runSetBody, scenarioBody } from '../../modules/simulations/schemas.ts';
import { DELETE, GET, POST, PUT, type Answer } from './client.ts';

export type SimulationSet = Answer<'/api/simulations/sets', 'get'>['sets'][number];
export type SimulationBatch = Answer<'/api/simulations/sets/{scenarioSetId}/batches', 'get'>['batches'][number];
export type SimulationRunSummary = Answer<'/api/simulations/batches/{batchRunId}/runs', 'get'>['runs'][number];
export type SimulationRun = Answer<'/api/simulations/runs/{scenarioRunId}', 'get'>;
export type Scenario = Answer<'/api/simulations/scenarios', 'get'>['scenarios'][number];
export type ScenarioBody = z.input<typeof scenarioBody>;
export type RunSetBody = NonNullable<z.input<typeof runSetBody>>;
export type BatchComparison = Answer<'/api/simulations/sets/{scenarioSetId}/compare', 'get'>;

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

export function useScenarios(projectId: string) {
  return useQuery({
    queryKey: ['simulation-scenarios', projectId],
    queryFn: async ({ signal }) => (await GET('/api/simulations/scenarios', { projectId, signal })).scenarios,
  });
}

const scenarioAt = (scenarioId: string) => ({ params: { path: { scenarioId } } });

/** Create, replace and delete a scenario, and run a set: each refreshes what the pages list. */
export function useScenarioChanges(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['simulation-scenarios', projectId] });
  return {
    create: useMutation({ mutationFn: (body: ScenarioBody) => POST('/api/simulations/scenarios', { projectId, body }), onSuccess: refresh }),
    replace: useMutation({ mutationFn: ({ id, body }: { id: string; body: ScenarioBody }) => PUT('/api/simulations/scenarios/{scenarioId}', { ...scenarioAt(id), projectId, body }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/simulations/scenarios/{scenarioId}', { ...scenarioAt(id), projectId }), onSuccess: refresh }),
    run: useMutation({
      mutationFn: ({ set, body }: { set: string; body: RunSetBody }) => POST('/api/simulations/sets/{scenarioSetId}/run', { params: { path: { scenarioSetId: set } }, projectId, body }),
      onSuccess: () => client.invalidateQueries({ queryKey: ['simulation-sets', projectId] }),
    }),
  };
}

/** Two batches of a set compared; read again while either still runs. */
export function useBatchComparison(projectId: string, scenarioSetId: string, baseline: string | undefined, candidate: string | undefined, running: boolean) {
  return useQuery({
    queryKey: ['simulation-compare', projectId, scenarioSetId, baseline, candidate],
    enabled: !!baseline && !!candidate,
    queryFn: async ({ signal }) =>
      GET('/api/simulations/sets/{scenarioSetId}/compare', { params: { path: { scenarioSetId }, query: { baseline: baseline!, candidate: candidate! } }, projectId, signal }),
    refetchInterval: running ? LIVE_MS : false,
    retry: false,
  });
}
