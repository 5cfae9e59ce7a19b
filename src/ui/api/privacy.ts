import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, PUT, type Answer } from './client.ts';
import type { paths } from './openapi.gen.ts';

export type PrivacySettings = Answer<'/api/privacy/settings', 'get'>;
export type PrivacySettingsInput = paths['/api/privacy/settings']['put']['requestBody']['content']['application/json'];

const privacyKey = (projectId: string) => ['privacy-settings', projectId] as const;

export function usePrivacySettings(projectId: string) {
  return useQuery({ queryKey: privacyKey(projectId), queryFn: () => GET('/api/privacy/settings', { projectId }) });
}

export function useSavePrivacySettings(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PrivacySettingsInput) => PUT('/api/privacy/settings', { projectId, body }),
    onSuccess: (saved) => client.setQueryData(privacyKey(projectId), saved),
  });
}
