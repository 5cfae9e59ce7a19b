/**
 * Names for the API's answers and for what the pages send.
 *
 * Answers come from the generated path types (openapi.gen.ts, `npm run generate`): the shape
 * the server documents and sends. Request bodies and vocabularies (roles, column types, input
 * types) come from the modules' zod schemas, the same ones that validate requests.
 */
import type { z } from 'zod';
import type { Answer } from './client.ts';
import type { components } from './openapi.gen.ts';
import type { NewTracesRequest, SearchRequest, TraceFilter, CreateViewBody, UpdateViewBody } from '../../modules/traces/schemas.ts';
import type { CreateAnnotationBody, UpdateAnnotationBody } from '../../modules/annotations/schemas.ts';
import type { createKeyBody } from '../../modules/api-keys/schemas.ts';
import type { changePasswordBody, roleSchema, updateProjectBody } from '../../modules/organizations/schemas.ts';
import type { createEndpointBody, updateEndpointBody } from '../../modules/webhooks/schemas.ts';
import type { CreatePromptBody, INPUT_TYPES, OUTPUT_TYPES, UpdatePromptBody } from '../../modules/prompts/schemas.ts';
import type { EvaluateBody, TraceEvaluation } from '../../modules/evaluators/schemas.ts';
import type { MonitorFilters, createMonitorBody, updateMonitorBody } from '../../modules/monitors/schemas.ts';
import type { TimeseriesRequest, UsersRequest } from '../../modules/analytics/schemas.ts';
import type { definitionBody } from '../../modules/experiments/schemas.ts';
import type { ColumnType } from '../../modules/datasets/schemas.ts';
import type { CreateScoreConfigBody } from '../../modules/annotations/scores.schema.ts';
import type { createQueueBody, updateQueueBody, addItemsBody, completeItemBody } from '../../modules/review/schemas.ts';

type Schemas = components['schemas'];

// ---- what the pages send
export type { NewTracesRequest, SearchRequest, CreateViewBody, UpdateViewBody, CreateAnnotationBody, UpdateAnnotationBody };
/** The one trace filter (traces/filter.ts): the list's URL maps onto it, monitors take its summary keys. */
export type SearchFilters = TraceFilter;
export type { CreatePromptBody, UpdatePromptBody, EvaluateBody, MonitorFilters, TimeseriesRequest, UsersRequest, CreateScoreConfigBody, ColumnType };
export type CreateMonitorBody = z.input<typeof createMonitorBody>;
export type UpdateMonitorBody = z.input<typeof updateMonitorBody>;
export type Role = z.infer<typeof roleSchema>;
export type UpdateProjectBody = z.input<typeof updateProjectBody>;
export type ChangePasswordBody = z.input<typeof changePasswordBody>;
export type CreateKeyBody = z.input<typeof createKeyBody>;
export type KeyBinding = NonNullable<CreateKeyBody['bindings']>[number];
export type CreateEndpointBody = z.input<typeof createEndpointBody>;
export type UpdateEndpointBody = z.input<typeof updateEndpointBody>;
export type DefinitionBody = z.input<typeof definitionBody>;
export type CreateQueueBody = z.input<typeof createQueueBody>;
export type UpdateQueueBody = z.input<typeof updateQueueBody>;
export type AddItemsBody = z.input<typeof addItemsBody>;
export type CompleteItemBody = z.input<typeof completeItemBody>;
export type PromptInputType = (typeof INPUT_TYPES)[number];
export type PromptOutputType = (typeof OUTPUT_TYPES)[number];

// ---- traces
export type SavedView = Schemas['TraceView'];
export type TraceSummary = Schemas['TraceSummary'];
export type Span = Schemas['Span'];
export type SpanOutline = Schemas['SpanOutline'];
export type { TraceEvaluation };
/**
 * What the trace page loads first: the trace with its spans in outline, and its evaluations.
 * The document leaves an evaluation's shape open (the traces module does not know the
 * evaluators'); the evaluators module's schema says it.
 */
export type TraceOutline = Answer<'/api/trace/{id}/outline', 'get'> & { evaluations: TraceEvaluation[] };
export type SpanPayload = Span['input'];
export type ChatMessage = Extract<NonNullable<SpanPayload>, { type: 'chat_messages' }>['value'][number];
export type ShareState = Schemas['ShareState'];
export type Annotation = Schemas['Annotation'];

// ---- the session, organization, projects, members, API keys, webhooks
export type Session = Schemas['Session'];
export type InvitationInfo = Answer<'/api/auth/invitations/{token}', 'get'>;
export type Organization = Schemas['Organization'];
export type Project = Schemas['Project'];
export type Member = Schemas['Member'];
export type AddedMember = Answer<'/api/members', 'post'>;
export type PendingInvitation = Answer<'/api/invitations', 'get'>['data'][number];
export type UserSession = Answer<'/api/auth/sessions', 'get'>['data'][number];
export type ApiKey = Schemas['ApiKey'];
export type CreatedKey = Answer<'/api/api-keys', 'post'>;
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEventType = Schemas['WebhookEventType'];

// ---- prompts, evaluators, monitors, analytics
export type Prompt = Schemas['Prompt'];
export type PromptMessage = Prompt['messages'][number];
export type PromptRunResult = Schemas['PromptRunResponse'];
export type EvaluationResult = Extract<Answer<'/api/evaluations/{family}/{name}/evaluate', 'post'>, unknown[]>[number];
export type Monitor = Schemas['Monitor'];
export type MonitorStatsResponse = Schemas['MonitorStats'];
export type TimeseriesResponse = Schemas['TimeseriesResponse'];
export type TimeseriesBucket = TimeseriesResponse['series'][number]['buckets'][number];

// ---- experiments (docs/experiments.md)
export type Experiment = Answer<'/api/experiments', 'get'>['experiments'][number];
export type ExperimentRun = Answer<'/api/experiments/runs', 'get'>['runs'][number];
export type Baseline = Answer<'/api/experiments/{slug}/baseline', 'get'>;
export type Comparison = Answer<'/api/experiments/{slug}/compare', 'get'>;
export type EvaluatorComparison = Comparison['comparisons'][number]['evaluators'][number];
export type CompareRows = Answer<'/api/experiments/{slug}/compare/rows', 'get'>;
export type Regressions = Answer<'/api/experiments/{slug}/compare/regressions', 'get'>;
export type Estimate = NonNullable<Answer<'/api/experiments/{slug}/runs/{runId}/summary', 'get'>['overall']['cost']>;
export type RunRows = Answer<'/api/experiments/{slug}/runs/{runId}/rows', 'get'>;
export type ExperimentDefinition = Answer<'/api/experiments/{slug}/definition', 'get'>;

// ---- datasets
export type Dataset = Answer<'/api/dataset', 'post'>;
export type DatasetRecord = Answer<'/api/dataset/{slugOrId}/records', 'get'>['data'][number];

// ---- review
export type ScoreConfig = Schemas['ScoreConfig'];
export type Score = Schemas['Score'];
export type ReviewQueue = Schemas['ReviewQueue'];
export type QueueItem = Schemas['ReviewQueueItem'];
export type QueueItemDetail = Answer<'/api/queues/{id}/items/{itemId}', 'get'>;
