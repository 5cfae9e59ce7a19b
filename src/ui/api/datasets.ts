import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, currentCsrfToken } from './client.ts';
import type { ColumnType, Dataset, DatasetImport, DatasetListItem, DatasetRecord, DatasetVersions, RecordPage } from './types.ts';

/** Column types, in the order the pickers list them (the API's COLUMN_TYPES). */
export const COLUMN_TYPES: ColumnType[] = ['string', 'number', 'boolean', 'date', 'list', 'json', 'chat_messages', 'rag_contexts', 'spans', 'annotations', 'evaluations', 'image'];
export type Column = Dataset['columnTypes'][number];

/** Rows per page of the dataset grid. */
export const DATASET_PAGE = 200;

export const datasetPath = (slugOrId: string) => `/api/dataset/${encodeURIComponent(slugOrId)}`;

export function useDatasets(projectId: string) {
  return useQuery({
    queryKey: ['datasets', projectId],
    queryFn: ({ signal }) => api<{ data: DatasetListItem[]; pagination: { total: number } }>('GET', '/api/dataset?limit=1000', { projectId, signal }),
  });
}

export function useDataset(projectId: string, datasetId: string) {
  return useQuery(datasetQuery(projectId, datasetId));
}

/** The dataset's header query, also started by the route before its page's code has loaded. */
export function datasetQuery(projectId: string, datasetId: string) {
  return queryOptions({
    queryKey: ['dataset', projectId, datasetId],
    // The dataset without its records: the first page of 1 record answers the count, the list item the rest.
    queryFn: async ({ signal }) => {
      const [list, versions] = await Promise.all([
        api<{ data: DatasetListItem[] }>('GET', '/api/dataset?limit=1000', { projectId, signal }),
        api<DatasetVersions>('GET', `${datasetPath(datasetId)}/versions?limit=1`, { projectId, signal }),
      ]);
      const found = list.data.find((d) => d.id === datasetId || d.slug === datasetId);
      if (!found) throw new ApiError(404, 'dataset_not_found', `No dataset ${datasetId} in this project`);
      return { ...found, currentVersion: versions.currentVersion };
    },
    retry: false,
  });
}

export function useVersions(projectId: string, datasetId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['dataset-versions', projectId, datasetId],
    queryFn: ({ signal }) => api<DatasetVersions>('GET', `${datasetPath(datasetId)}/versions?limit=1000`, { projectId, signal }),
    enabled,
  });
}

/**
 * The first page of rows, asked for by the route as the page opens (with the dataset's header,
 * not after it): the grid takes it from here when it is fresh.
 */
const early = new Map<string, { at: number; page: Promise<RecordPage> }>();
const EARLY_MS = 5_000;
const earlyKey = (projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) => JSON.stringify([projectId, datasetId, q.page, q.limit, q.version ?? null, q.search ?? '']);

export function prefetchRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) {
  const page = fetchRecords(projectId, datasetId, q);
  page.catch(() => undefined);
  early.set(earlyKey(projectId, datasetId, q), { at: Date.now(), page });
}

export function readRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) {
  const key = earlyKey(projectId, datasetId, q);
  const found = early.get(key);
  early.delete(key);
  if (found && Date.now() - found.at < EARLY_MS) return found.page;
  return fetchRecords(projectId, datasetId, q);
}

export function fetchRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }, signal?: AbortSignal) {
  const params = new URLSearchParams({ page: String(q.page), limit: String(q.limit) });
  if (q.version !== undefined) params.set('version', String(q.version));
  if (q.search) params.set('q', q.search);
  return api<RecordPage>('GET', `${datasetPath(datasetId)}/records?${params.toString()}`, { projectId, signal });
}

export function useCreateDataset(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; columnTypes: Column[] }) => api<Dataset>('POST', '/api/dataset', { projectId, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['datasets', projectId] }),
  });
}

/** Every change to a dataset refreshes its header (count, version), its versions and the list. */
export function useDatasetMutations(projectId: string, datasetId: string) {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['dataset', projectId, datasetId] }),
      client.invalidateQueries({ queryKey: ['dataset-versions', projectId, datasetId] }),
      client.invalidateQueries({ queryKey: ['datasets', projectId] }),
    ]);
  const path = datasetPath(datasetId);
  return {
    refresh,
    update: useMutation({ mutationFn: (body: { name?: string; columnTypes?: Column[] }) => api<Dataset>('PATCH', path, { projectId, body }), onSuccess: refresh }),
    archive: useMutation({ mutationFn: () => api('DELETE', path, { projectId }), onSuccess: refresh }),
    addRecords: useMutation({
      /** Any number of entries, sent 1,000 per request (the API's batch). */
      mutationFn: async (entries: Record<string, unknown>[]) => {
        const added: DatasetRecord[] = [];
        for (let i = 0; i < entries.length; i += 1000) {
          added.push(...(await api<{ data: DatasetRecord[] }>('POST', `${path}/records`, { projectId, body: { entries: entries.slice(i, i + 1000) } })).data);
        }
        return added;
      },
      onSuccess: refresh,
    }),
    editRecord: useMutation({
      mutationFn: ({ id, entry }: { id: string; entry: Record<string, unknown> }) => api<DatasetRecord>('PATCH', `${path}/records/${encodeURIComponent(id)}`, { projectId, body: { entry } }),
      onSuccess: refresh,
    }),
    deleteRecords: useMutation({
      mutationFn: async (ids: string[]) => {
        let deleted = 0;
        for (let i = 0; i < ids.length; i += 1000) deleted += (await api<{ deletedCount: number }>('DELETE', `${path}/records`, { projectId, body: { recordIds: ids.slice(i, i + 1000) } })).deletedCount;
        return deleted;
      },
      onSuccess: refresh,
    }),
  };
}

/** One column of an upload: read from file column `from`, stored as `name` of `type`. */
export interface UploadColumn {
  from: string;
  name: string;
  type: ColumnType;
}

/** POST /api/dataset/upload (a new dataset) or /api/dataset/{id}/upload (append), the mapping part before the file. */
export async function uploadFile(projectId: string, file: File, mapping: UploadColumn[], target: { name: string } | { datasetId: string }) {
  const csrf = currentCsrfToken();
  const form = new FormData();
  if ('name' in target) form.append('name', target.name);
  form.append('mapping', JSON.stringify(mapping));
  form.append('file', file, file.name);
  const url = 'name' in target ? '/api/dataset/upload' : `${datasetPath(target.datasetId)}/upload`;
  const headers: Record<string, string> = { accept: 'application/json', 'x-project-id': projectId };
  if (csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(url, { method: 'POST', body: form, headers, credentials: 'same-origin' });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as { id?: string; datasetId?: string; recordsCreated: number; error?: { code: string; message: string; meta?: { field?: string } } }) : null;
  if (!response.ok) throw new ApiError(response.status, body?.error?.code ?? 'http_error', body?.error?.message ?? `HTTP ${response.status}`, body?.error?.meta?.field);
  return { datasetId: (body!.id ?? body!.datasetId)!, recordsCreated: body!.recordsCreated };
}

export type TraceSource = 'input' | 'output' | 'contexts' | 'messages' | 'metadata' | 'trace_id' | 'span_id' | 'model' | 'name';
export const TRACE_SOURCES: { value: TraceSource; label: string }[] = [
  { value: 'input', label: 'Input' },
  { value: 'output', label: 'Output' },
  { value: 'contexts', label: 'Contexts (retrieved texts)' },
  { value: 'messages', label: 'Messages (the conversation)' },
  { value: 'metadata', label: 'Metadata' },
  { value: 'trace_id', label: 'Trace id' },
  { value: 'span_id', label: 'Span id' },
  { value: 'model', label: 'Model' },
  { value: 'name', label: 'Name' },
];

export function useTraceMapping(projectId: string, datasetId: string | null) {
  return useQuery({
    queryKey: ['dataset-trace-mapping', projectId, datasetId],
    queryFn: ({ signal }) => api<{ mapping: Record<string, string> | null }>('GET', `${datasetPath(datasetId!)}/trace-mapping`, { projectId, signal }),
    enabled: datasetId !== null,
  });
}

export type FromTracesBody =
  | { items: { traceId: string; spanId?: string }[]; mapping: Record<string, string> }
  | { filter: Record<string, unknown>; limit?: number; mapping: Record<string, string> };

export function addFromTraces(projectId: string, datasetId: string, body: FromTracesBody) {
  return api<{ recordsCreated: number; version: number } | DatasetImport>('POST', `${datasetPath(datasetId)}/from-traces`, { projectId, body });
}

export function fetchImport(projectId: string, datasetId: string, importId: string) {
  return api<DatasetImport>('GET', `${datasetPath(datasetId)}/imports/${encodeURIComponent(importId)}`, { projectId });
}
