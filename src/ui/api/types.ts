/**
 * What the pages send: request bodies, filters and vocabularies (roles, column types, input
 * types), from the modules' zod schemas that validate the requests. The answers' types are
 * named in each resource's file (api/<resource>.ts), from the generated path types.
 */
import type { z } from 'zod';
import type { NewTracesRequest, SearchRequest, TraceFilter, CreateViewBody, UpdateViewBody } from '../../modules/traces/schemas.ts';
import type { CreateAnnotationBody, UpdateAnnotationBody } from '../../modules/annotations/schemas.ts';
import type { createKeyBody } from '../../modules/api-keys/schemas.ts';
import type { changePasswordBody, roleSchema, updateProjectBody } from '../../modules/organizations/schemas.ts';
import type { createEndpointBody, updateEndpointBody } from '../../modules/webhooks/schemas.ts';
import type { CreatePromptBody, INPUT_TYPES, OUTPUT_TYPES, UpdatePromptBody } from '../../modules/prompts/schemas.ts';
import type { EvaluateBody } from '../../modules/evaluators/schemas.ts';
import type { MonitorFilters, createMonitorBody, updateMonitorBody } from '../../modules/monitors/schemas.ts';
import type { UsersRequest } from '../../modules/analytics/schemas.ts';
import type { ThreadsRequest } from '../../modules/threads/schemas.ts';
import type { definitionBody } from '../../modules/experiments/schemas.ts';
import type { ColumnType } from '../../modules/datasets/schemas.ts';
import type { CreateScoreConfigBody } from '../../modules/annotations/scores.schema.ts';
import type { createQueueBody, updateQueueBody, addItemsBody, completeItemBody } from '../../modules/review/schemas.ts';

export type { NewTracesRequest, SearchRequest, CreateViewBody, UpdateViewBody, CreateAnnotationBody, UpdateAnnotationBody };
/** The one trace filter (traces/filter.ts): the list's URL maps onto it, monitors take its summary keys. */
export type SearchFilters = TraceFilter;
export type { CreatePromptBody, UpdatePromptBody, EvaluateBody, MonitorFilters, UsersRequest, ThreadsRequest, CreateScoreConfigBody, ColumnType };
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
