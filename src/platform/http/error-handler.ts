import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, renderError, type ErrorShape, type FieldIssue } from '../errors.ts';

/**
 * The error handler of a route group (and, in the nested shape, of the app): every failure
 * becomes an AppError, rendered in the group's shape; 5xx are logged; Retry-After is sent
 * when the error names one.
 */
export function errorHandler(shape: ErrorShape) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    if (appError.retryAfterSeconds !== undefined) void reply.header('retry-after', String(appError.retryAfterSeconds));
    void reply.status(appError.status).send(renderError(appError, shape));
  };
}

interface ZodIssueLike {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  expected?: string;
  errors?: ZodIssueLike[][];
}

/**
 * A union's issue ("Invalid input" on the union's field) made as precise as the value allows:
 * when the value has the type of one branch only (an array where text or an array is
 * accepted), that branch's issue inside it (`content.0`); when it has none of their types,
 * every type the union accepts.
 */
function unionIssue(path: PropertyKey[], message: string, branches: ZodIssueLike[][]): { path: PropertyKey[]; message: string } {
  const wrongType = (branch: ZodIssueLike[]) => branch.length === 1 && branch[0].code === 'invalid_type' && (branch[0].path?.length ?? 0) === 0;
  const matched = branches.filter((b) => b.length > 0 && !wrongType(b));
  if (matched.length === 1) {
    const issue = matched[0][0];
    const inner = [...path, ...(issue.path ?? [])];
    return issue.code === 'invalid_union' ? unionIssue(inner, issue.message ?? message, issue.errors ?? []) : { path: inner, message: issue.message ?? message };
  }
  if (branches.length > 0 && branches.every(wrongType)) {
    const expected = [...new Set(branches.map((b) => b[0].expected).filter(Boolean))];
    const received = /received (\w+)/.exec(branches[0][0].message ?? '')?.[1];
    return { path, message: `Invalid input: expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}` };
  }
  return { path, message };
}

/** Every failure becomes an AppError: validation and parsing errors name the field. */
export function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    // The guard's own type names @fastify/error, which is not ours to import: the fields read here are Fastify's.
    const validation: FastifySchemaValidationError[] = (error as { validation: FastifySchemaValidationError[] }).validation;
    const issues: FieldIssue[] = validation.map((v) => {
      const path: PropertyKey[] = v.instancePath.split('/').filter(Boolean);
      const precise = v.keyword === 'invalid_union' ? unionIssue(path, v.message ?? 'invalid', (v.params as { errors?: ZodIssueLike[][] }).errors ?? []) : { path, message: v.message ?? 'invalid' };
      return { field: [where, ...precise.path].map(String).join('.'), message: precise.message };
    });
    const first = issues[0];
    return new AppError(400, 'validation_error', `${first.field}: ${first.message}`, { field: first.field, issues });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'invalid_json', `body: ${error.message}`, { field: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', `body: larger than this route accepts (${request.routeOptions.bodyLimit ?? 1048576} bytes)`, { field: 'body' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', `content-type ${request.headers['content-type'] ?? '(none)'} is not accepted here`, { field: 'content-type' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'invalid_content_length', 'content-length does not match the body', { field: 'content-length' });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode, (error.code ?? 'bad_request').toLowerCase(), error.message);
  }
  return new AppError(500, 'internal_error', 'internal error');
}
