import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, POST, PUT, type Answer } from './client.ts';
import { reviewKeys } from './review.ts';

export type Alignment = Answer<'/api/judge-alignment', 'get'>;
export type Estimate = NonNullable<Alignment['kappa']>;
export type JudgeTrust = Answer<'/api/judge-alignment/trust', 'get'>;
export type TrustRule = Answer<'/api/judge-alignment/trust-rule', 'get'>;
export type LabelMore = Answer<'/api/judge-alignment/label-more', 'get'>;
export type SelfConsistency = Answer<'/api/judge-alignment/self-consistency', 'post'>;
export type VersionComparison = Answer<'/api/judge-alignment/version-comparisons/{id}', 'get'>;

/** A judge as its results name it, at a version (all versions when absent), against a human score config. */
export interface JudgeChoice {
  evaluator: string;
  version?: number;
  scoreConfig: string;
}

export const alignmentKeys = {
  all: (projectId: string) => ['judge-alignment', projectId] as const,
  judges: (projectId: string) => ['judge-alignment', projectId, 'judges'] as const,
  rule: (projectId: string) => ['judge-alignment', projectId, 'rule'] as const,
  alignment: (projectId: string, c: JudgeChoice) => ['judge-alignment', projectId, 'alignment', c] as const,
  labelMore: (projectId: string, c: JudgeChoice) => ['judge-alignment', projectId, 'label-more', c] as const,
  versionComparisons: (projectId: string, evaluator: string) => ['judge-alignment', projectId, 'version-comparisons', evaluator] as const,
  trust: (projectId: string, evaluator: string, version: number | undefined, counts?: { passed: number; judged: number }) =>
    ['judge-alignment', projectId, 'trust', evaluator, version, counts] as const,
};

const versionQuery = (version: number | undefined) => (version === undefined ? {} : { version: String(version) });

/** The evaluators with results in the project: the judges there are to measure. */
export function useJudges(projectId: string) {
  return useQuery({ queryKey: alignmentKeys.judges(projectId), queryFn: async ({ signal }) => (await GET('/api/judge-alignment/judges', { projectId, signal })).data });
}

export function useAlignment(projectId: string, choice: JudgeChoice | null) {
  return useQuery({
    queryKey: alignmentKeys.alignment(projectId, choice ?? { evaluator: '', scoreConfig: '' }),
    enabled: choice !== null,
    retry: false,
    queryFn: ({ signal }) =>
      GET('/api/judge-alignment', { params: { query: { evaluator: choice!.evaluator, scoreConfig: choice!.scoreConfig, ...versionQuery(choice!.version) } }, projectId, signal }),
  });
}

export function useLabelMore(projectId: string, choice: JudgeChoice | null) {
  return useQuery({
    queryKey: alignmentKeys.labelMore(projectId, choice ?? { evaluator: '', scoreConfig: '' }),
    enabled: choice !== null,
    retry: false,
    queryFn: ({ signal }) =>
      GET('/api/judge-alignment/label-more', {
        params: { query: { evaluator: choice!.evaluator, scoreConfig: choice!.scoreConfig, limit: '10', ...versionQuery(choice!.version) } },
        projectId,
        signal,
      }),
  });
}

/** Whether a judge can be trusted, against each score config people labelled its traces with; with counts, that raw rate corrected. */
export function useJudgeTrust(projectId: string, evaluator: string, version?: number, counts?: { passed: number; judged: number }) {
  return useQuery({
    queryKey: alignmentKeys.trust(projectId, evaluator, version, counts),
    retry: false,
    queryFn: ({ signal }) =>
      GET('/api/judge-alignment/trust', {
        params: { query: { evaluator, ...versionQuery(version), ...(counts ? { passed: String(counts.passed), judged: String(counts.judged) } : {}) } },
        projectId,
        signal,
      }),
  });
}

/** A judge's version comparisons, newest first; polled while one is running (the new version is being run). */
export function useVersionComparisons(projectId: string, evaluator: string) {
  return useQuery({
    queryKey: alignmentKeys.versionComparisons(projectId, evaluator),
    queryFn: async ({ signal }) => (await GET('/api/judge-alignment/version-comparisons', { params: { query: { evaluator } }, projectId, signal })).data,
    refetchInterval: (q) => (q.state.data?.some((c) => c.status === 'running') ? 1_000 : false),
  });
}

export function useTrustRule(projectId: string) {
  return useQuery({ queryKey: alignmentKeys.rule(projectId), queryFn: ({ signal }) => GET('/api/judge-alignment/trust-rule', { projectId, signal }) });
}

export function useAlignmentMutations(projectId: string) {
  const client = useQueryClient();
  return {
    setRule: useMutation({
      mutationFn: (body: { statistic: 'kappa' | 'accuracy'; atLeast: number; minimumLabels: number }) => PUT('/api/judge-alignment/trust-rule', { projectId, body }),
      onSuccess: () => client.invalidateQueries({ queryKey: alignmentKeys.all(projectId) }),
    }),
    sendDisagreements: useMutation({
      mutationFn: (body: { evaluator: string; version: number | null; scoreConfig: string; queueId?: string; newQueueName?: string }) =>
        POST('/api/judge-alignment/disagreements/review', { projectId, body }),
      onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: reviewKeys.queues(projectId) }), client.invalidateQueries({ queryKey: reviewKeys.queue(projectId) })]),
    }),
    compareVersions: useMutation({
      mutationFn: (body: { evaluator: string; version: number; candidateVersion: number; scoreConfig: string; limit: number }) => POST('/api/judge-alignment/version-comparisons', { projectId, body }),
      onSuccess: (_d, body) => client.invalidateQueries({ queryKey: alignmentKeys.versionComparisons(projectId, body.evaluator) }),
    }),
    /** runs the judge again (model calls): nothing is stored, so nothing to refresh */
    selfConsistency: useMutation({
      mutationFn: (body: { evaluator: string; version: number | null; scoreConfig: string; repeats: number; limit: number }) => POST('/api/judge-alignment/self-consistency', { projectId, body }),
    }),
  };
}
