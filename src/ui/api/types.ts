/**
 * The API's request and answer types, straight from the modules' zod schemas (the same
 * ones that validate requests and document /api/openapi.json): never written twice.
 */
import type { z } from 'zod';
import type {
  NewTracesRequest,
  NewTracesResponse,
  SearchRequest,
  SearchResponse,
  TraceFilter,
  SpanOutlineView,
  SpanView,
  TraceOutlineView,
  TraceSummaryView,
  shareStateSchema,
  spanPayloadSchema,
  SpanSearchResponse,
  TraceViewView,
  CreateViewBody,
  UpdateViewBody,
} from '../../modules/traces/schemas.ts';
import type { TraceEvaluation } from '../../modules/evaluators/schemas.ts';
import type { CreateAnnotationBody, UpdateAnnotationBody, annotationSchema } from '../../modules/annotations/schemas.ts';
import type { apiKeySchema, createKeyBody, createdKeySchema } from '../../modules/api-keys/schemas.ts';
import type {
  addedMemberSchema,
  changePasswordBody,
  createdProjectSchema,
  invitationInfoSchema,
  memberSchema,
  organizationSchema,
  pendingInvitationSchema,
  projectSchema,
  resetInfoSchema,
  roleSchema,
  sessionListSchema,
  sessionSchema,
  updateProjectBody,
} from '../../modules/organizations/schemas.ts';
import type {
  attemptSchema,
  createEndpointBody,
  createdEndpointSchema,
  endpointSchema,
  eventTypeSchema,
  rolledSecretSchema,
  updateEndpointBody,
} from '../../modules/webhooks/schemas.ts';

export type { SpanSearchResponse, CreateViewBody, UpdateViewBody };
export type SavedView = TraceViewView;
export type { NewTracesRequest, NewTracesResponse, SearchRequest, SearchResponse, TraceEvaluation, CreateAnnotationBody, UpdateAnnotationBody };
export type TraceSummary = TraceSummaryView;
export type Span = SpanView;
export type SpanOutline = SpanOutlineView;
/** What the trace page loads first: the trace with its spans in outline, and its evaluations. */
export type TraceOutline = TraceOutlineView & { evaluations: TraceEvaluation[] };
export type SpanPayload = z.infer<typeof spanPayloadSchema>;
export type ChatMessage = Extract<NonNullable<SpanPayload>, { type: 'chat_messages' }>['value'][number];
export type ShareState = z.infer<typeof shareStateSchema>;
export type Annotation = z.infer<typeof annotationSchema>;
export type CreatedKey = z.infer<typeof createdKeySchema>;
/** The one trace filter (traces/filter.ts): the list's URL maps onto it, monitors take its summary keys. */
export type SearchFilters = TraceFilter;
export type Session = z.infer<typeof sessionSchema>;
export type InvitationInfo = z.infer<typeof invitationInfoSchema>;
export type ResetInfo = z.infer<typeof resetInfoSchema>;

// Part 2: prompts, evaluators, monitors, analytics.
import type { CreatePromptBody, INPUT_TYPES, OUTPUT_TYPES, UpdatePromptBody, promptSchema, tagSchema } from '../../modules/prompts/schemas.ts';
import type { catalogueEntrySchema, evaluationResultSchema, EvaluateBody } from '../../modules/evaluators/schemas.ts';
import type { MonitorFilters, MonitorView, createMonitorBody, updateMonitorBody } from '../../modules/monitors/schemas.ts';

export type { CreatePromptBody, UpdatePromptBody, EvaluateBody, MonitorFilters };
export type Prompt = z.infer<typeof promptSchema>;
export type PromptTag = z.infer<typeof tagSchema>;
export type PromptMessage = Prompt['messages'][number];
export type PromptInputType = (typeof INPUT_TYPES)[number];
export type PromptOutputType = (typeof OUTPUT_TYPES)[number];
export type CatalogueEntry = z.infer<typeof catalogueEntrySchema>;
export type EvaluationResult = z.infer<typeof evaluationResultSchema>;
export type Monitor = MonitorView;
export type CreateMonitorBody = z.input<typeof createMonitorBody>;
export type UpdateMonitorBody = z.input<typeof updateMonitorBody>;
import type { TimeseriesRequest, TimeseriesResponse, TimeseriesBucket } from '../../modules/analytics/schemas.ts';
export type { TimeseriesRequest, TimeseriesResponse, TimeseriesBucket };
import type { RunBody, RunResponse } from '../../modules/prompts/schemas.ts';
import type { MonitorResultsResponse, MonitorStatsResponse } from '../../modules/monitors/schemas.ts';
export type { RunBody as PromptRunBody, RunResponse as PromptRunResult, MonitorResultsResponse, MonitorStatsResponse };
// ---- settings: organization, projects, members, API keys, webhooks, the user's sessions
export type Role = z.infer<typeof roleSchema>;
export type Organization = z.infer<typeof organizationSchema>;
export type Project = z.infer<typeof projectSchema>;
export type CreatedProject = z.infer<typeof createdProjectSchema>;
export type UpdateProjectBody = z.input<typeof updateProjectBody>;
export type Member = z.infer<typeof memberSchema>;
export type AddedMember = z.infer<typeof addedMemberSchema>;
export type PendingInvitation = z.infer<typeof pendingInvitationSchema>;
export type UserSession = z.infer<typeof sessionListSchema>['data'][number];
export type ChangePasswordBody = z.input<typeof changePasswordBody>;
export type ApiKey = z.infer<typeof apiKeySchema>;
export type CreateKeyBody = z.input<typeof createKeyBody>;
export type KeyBinding = NonNullable<CreateKeyBody['bindings']>[number];
export type WebhookEndpoint = z.infer<typeof endpointSchema>;
export type CreatedEndpoint = z.infer<typeof createdEndpointSchema>;
export type CreateEndpointBody = z.input<typeof createEndpointBody>;
export type UpdateEndpointBody = z.input<typeof updateEndpointBody>;
export type WebhookEventType = z.infer<typeof eventTypeSchema>;
export type DeliveryAttempt = z.infer<typeof attemptSchema>;
export type RolledSecret = z.infer<typeof rolledSecretSchema>;
// ---- experiments (docs/experiments.md)
import type {
  experimentSchema,
  runSchema,
  runListResponse,
  runResultsResponse,
  runStatusResponse,
  resultRowSchema,
  evaluationSchema,
  targetSchema,
} from '../../modules/experiments/schemas.ts';
export type Experiment = z.infer<typeof experimentSchema>;
export type ExperimentRun = z.infer<typeof runSchema>;
export type ExperimentRunList = z.infer<typeof runListResponse>;
export type RunResults = z.infer<typeof runResultsResponse>;
export type RunStatus = z.infer<typeof runStatusResponse>;
export type RunResultRow = z.infer<typeof resultRowSchema>;
export type RunEvaluation = z.infer<typeof evaluationSchema>;
export type RunTarget = z.infer<typeof targetSchema>;
import type { baselineResponse, compareResponse, compareRowsResponse, regressionsResponse, differenceSchema, evaluatorComparisonSchema } from '../../modules/experiments/schemas.ts';
export type Baseline = z.infer<typeof baselineResponse>;
export type Comparison = z.infer<typeof compareResponse>;
export type CompareRows = z.infer<typeof compareRowsResponse>;
export type Regressions = z.infer<typeof regressionsResponse>;
export type RunDifference = z.infer<typeof differenceSchema>;
export type EvaluatorComparison = z.infer<typeof evaluatorComparisonSchema>;
import type { runSummaryResponse, estimateSchema } from '../../modules/experiments/schemas.ts';
export type RunSummary = z.infer<typeof runSummaryResponse>;
import type { runRowsResponse } from '../../modules/experiments/schemas.ts';
export type RunRows = z.infer<typeof runRowsResponse>;
import type { definitionBody, definitionResponse, startRunResponse } from '../../modules/experiments/schemas.ts';
export type DefinitionBody = z.input<typeof definitionBody>;
export type ExperimentDefinition = z.infer<typeof definitionResponse>;
export type StartedRun = z.infer<typeof startRunResponse>;
export type Estimate = z.infer<typeof estimateSchema>;
// ---- datasets
import type { ColumnType, datasetListItemSchema, datasetSchema, recordPageSchema, recordSchema, versionListSchema } from '../../modules/datasets/schemas.ts';
export type { ColumnType };
export type Dataset = z.infer<typeof datasetSchema>;
export type DatasetListItem = z.infer<typeof datasetListItemSchema>;
export type DatasetRecord = z.infer<typeof recordSchema>;
export type RecordPage = z.infer<typeof recordPageSchema>;
export type DatasetVersions = z.infer<typeof versionListSchema>;
/** A background import of traces (from-traces.ts importSchema; that file is server code). */
export interface DatasetImport {
  id: string;
  datasetId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  total: number;
  done: number;
  recordsCreated: number;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}
import type { UsersRequest, UsersResponse, EndUser } from '../../modules/analytics/schemas.ts';
export type { UsersRequest, UsersResponse, EndUser };

import type { scoreConfigSchema, scoreSchema, CreateScoreConfigBody } from '../../modules/annotations/scores.schema.ts';
import type { queueSchema, itemSchema, nextResponse, itemDetailResponse, completeResponse, createQueueBody, updateQueueBody, addItemsBody, completeItemBody } from '../../modules/review/schemas.ts';
export type ScoreConfig = z.infer<typeof scoreConfigSchema>;
export type Score = z.infer<typeof scoreSchema>;
export type ReviewQueue = z.infer<typeof queueSchema>;
export type QueueItem = z.infer<typeof itemSchema>;
export type NextItem = z.infer<typeof nextResponse>;
export type QueueItemDetail = z.infer<typeof itemDetailResponse>;
export type CompletedItem = z.infer<typeof completeResponse>;
export type { CreateScoreConfigBody };
export type CreateQueueBody = z.input<typeof createQueueBody>;
export type UpdateQueueBody = z.input<typeof updateQueueBody>;
export type AddItemsBody = z.input<typeof addItemsBody>;
export type CompleteItemBody = z.input<typeof completeItemBody>;
