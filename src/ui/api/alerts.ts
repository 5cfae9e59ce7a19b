import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { DELETE, GET, PATCH, POST, PUT } from './client.ts';
import type { components } from './openapi.gen.ts';
import type { createRuleBody } from '../../modules/alerts/schemas.ts';

type Schemas = components['schemas'];
export type AlertRule = Schemas['AlertRule'];
export type AlertEvaluation = Schemas['AlertEvaluation'];
export type AlertRulePreview = Schemas['AlertRulePreview'];
export type AlertChannel = Schemas['AlertChannel'];
export type AlertDelivery = Schemas['AlertDelivery'];
export type RuleBody = z.input<typeof createRuleBody>;
export type { MetricKind } from '../../modules/alerts/schemas.ts';
export { METRICS, SEGMENTS } from '../../modules/alerts/schemas.ts';

/** The rules' states move with the scheduler (every 15 s): read again as often while shown. */
const REFRESH_MS = 15_000;

export const alertKeys = {
  rules: (projectId: string) => ['alert-rules', projectId] as const,
  rule: (projectId: string, id: string) => ['alert-rule', projectId, id] as const,
  history: (projectId: string, id: string, limit: number) => ['alert-history', projectId, id, limit] as const,
  channels: (projectId: string) => ['alert-channels', projectId] as const,
  deliveries: (projectId: string, id: string) => ['alert-deliveries', projectId, id] as const,
};
const at = (id: string) => ({ params: { path: { id } } });

export function useRules(projectId: string) {
  return useQuery({ queryKey: alertKeys.rules(projectId), queryFn: async ({ signal }) => (await GET('/api/alerts/rules', { projectId, signal })).data, refetchInterval: REFRESH_MS });
}

export function useRule(projectId: string, id: string) {
  return useQuery({ queryKey: alertKeys.rule(projectId, id), queryFn: ({ signal }) => GET('/api/alerts/rules/{id}', { ...at(id), projectId, signal }), refetchInterval: REFRESH_MS });
}

/** A rule's evaluations, newest first (one row per window and segment). */
export function useRuleHistory(projectId: string, id: string, limit = 100) {
  return useQuery({
    queryKey: alertKeys.history(projectId, id, limit),
    queryFn: async ({ signal }) => (await GET('/api/alerts/rules/{id}/history', { params: { path: { id }, query: { limit } }, projectId, signal })).data,
    refetchInterval: REFRESH_MS,
  });
}

export function useRuleMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = (r: AlertRule) => {
    client.setQueryData(alertKeys.rule(projectId, r.id), r);
    return client.invalidateQueries({ queryKey: alertKeys.rules(projectId) });
  };
  return {
    create: useMutation({ mutationFn: (body: RuleBody) => POST('/api/alerts/rules', { projectId, body }), onSuccess: refresh }),
    replace: useMutation({ mutationFn: ({ id, body }: { id: string; body: RuleBody }) => PUT('/api/alerts/rules/{id}', { ...at(id), projectId, body }), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: { enabled?: boolean; muted?: boolean; snoozedUntil?: number | null } }) => PATCH('/api/alerts/rules/{id}', { ...at(id), projectId, body }),
      onSuccess: refresh,
    }),
    acknowledge: useMutation({ mutationFn: (id: string) => POST('/api/alerts/rules/{id}/acknowledge', { ...at(id), projectId }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => DELETE('/api/alerts/rules/{id}', { ...at(id), projectId }), onSuccess: () => client.invalidateQueries({ queryKey: alertKeys.rules(projectId) }) }),
    preview: useMutation({ mutationFn: (body: RuleBody) => POST('/api/alerts/rules/preview', { projectId, body }) }),
  };
}

export function useChannels(projectId: string) {
  return useQuery({ queryKey: alertKeys.channels(projectId), queryFn: async ({ signal }) => (await GET('/api/alerts/channels', { projectId, signal })).data });
}

/** A channel's delivery log, newest first; read again every 5 s while open (retries move it). */
export function useChannelDeliveries(projectId: string, id: string | null) {
  return useQuery({
    queryKey: alertKeys.deliveries(projectId, id ?? ''),
    queryFn: async ({ signal }) => (await GET('/api/alerts/channels/{id}/deliveries', { ...at(id!), projectId, signal })).data,
    enabled: id !== null,
    refetchInterval: 5_000,
  });
}

export function useChannelMutations(projectId: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: alertKeys.channels(projectId) });
  return {
    create: useMutation({ mutationFn: (body: { name: string; kind: 'email' | 'slack'; target: string }) => POST('/api/alerts/channels', { projectId, body }), onSuccess: refresh }),
    remove: useMutation({
      mutationFn: (id: string) => DELETE('/api/alerts/channels/{id}', { ...at(id), projectId }),
      // Rules that chose the channel no longer name it.
      onSuccess: () => Promise.all([refresh(), client.invalidateQueries({ queryKey: alertKeys.rules(projectId) })]),
    }),
    test: useMutation({ mutationFn: (id: string) => POST('/api/alerts/channels/{id}/test', { ...at(id), projectId }) }),
  };
}
