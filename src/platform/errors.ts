import { z } from 'zod';

/**
 * One error type for everything a request can fail with. Routes render it in their
 * group's shape (see `ErrorShape`, and platform/http/route-group.ts); services only throw it.
 */
export type ErrorShape =
  /** prompt routes: {error: string} */
  | 'string'
  /** annotation and trace routes: the shared Error object {error: code, message, field?, issues?} */
  | 'object'
  /** everything else: {error: {type, code, message, meta?}} */
  | 'nested';

export type ErrorType =
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

export interface FieldIssue {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: ErrorType;
  readonly field?: string;
  readonly issues?: FieldIssue[];
  readonly meta?: Record<string, unknown>;
  /** Sent as Retry-After (429, 503): when the client may try again. */
  readonly retryAfterSeconds?: number;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { field?: string; issues?: FieldIssue[]; meta?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.type = TYPE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
    this.field = extra.field;
    this.issues = extra.issues;
    this.meta = extra.meta;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }
}

export const badRequest = (code: string, message: string, field?: string) =>
  new AppError(400, code, message, { field });
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string, field?: string) => new AppError(409, code, message, { field });
/** 412: the client's If-Match names a version that is no longer the stored one. */
export const preconditionFailed = (code: string, message: string, meta?: Record<string, unknown>) => new AppError(412, code, message, { meta });
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const unauthorized = (message: string) => new AppError(401, 'unauthorized', message);

export function renderError(err: AppError, shape: ErrorShape): unknown {
  switch (shape) {
    case 'string':
      return { error: err.message };
    case 'object':
      return {
        error: err.code,
        message: err.message,
        ...(err.field ? { field: err.field } : {}),
        ...(err.issues ? { issues: err.issues } : {}),
      };
    case 'nested': {
      const meta = { ...(err.meta ?? {}), ...(err.field ? { field: err.field } : {}), ...(err.issues ? { issues: err.issues } : {}) };
      return {
        error: { type: err.type, code: err.code, message: err.message, ...(Object.keys(meta).length ? { meta } : {}) },
      };
    }
  }
}

/**
 * The three error shapes of the interface (spec: Errors) as response schemas: what
 * `renderError` writes, key for key and in the same order (a response schema is also the
 * serializer: a key missing here would be dropped from the answer).
 */
export const errorSchemas = {
  string: z.object({ error: z.string().describe('what went wrong') }).describe('{error: message}'),
  object: z
    .object({
      error: z.string().describe('machine-readable code, e.g. validation_error, trace_not_found, annotation_not_found'),
      message: z.string().describe('what went wrong, naming the field'),
      field: z.string().optional().describe('the request field at fault, e.g. body.isThumbsUp'),
      issues: z.array(z.object({ field: z.string(), message: z.string() })).optional().describe('every validation problem'),
    })
    .describe('Error object: {error: code, message, field?, issues?}'),
  nested: z
    .object({
      error: z.object({
        type: z.string().describe('the kind of failure, e.g. invalid_request, not_found'),
        code: z.string().describe('machine-readable code, e.g. validation_error'),
        message: z.string().describe('what went wrong, naming the field'),
        meta: z.record(z.string(), z.unknown()).optional().describe('field, issues and other details'),
        trace_id: z.string().optional(),
        span_id: z.string().optional(),
      }),
    })
    .describe('{error: {type, code, message, meta?, trace_id?, span_id?}}'),
} satisfies Record<ErrorShape, z.ZodType>;

/** Response schemas for error statuses in one shape: `{...errorResponses('nested', [404, 409])}`. */
export function errorResponses<S extends ErrorShape>(shape: S, statuses: readonly number[]): Record<number, (typeof errorSchemas)[S]> {
  return Object.fromEntries(statuses.map((status) => [status, errorSchemas[shape]]));
}
