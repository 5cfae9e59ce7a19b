/**
 * The app's only way to the server: the documented JSON API, with the session cookie,
 * `X-Project-Id` on project routes and `X-CSRF-Token` on every change (the contract).
 */

/**
 * A refusal of the API, said for people: the server's message without its path prefix
 * ("body.handle: must be ..." becomes "Must be ..." about the field `handle`), to show next
 * to the field concerned (fieldError) or, away from it, naming the field in words (sentence).
 */
export class ApiError extends Error {
  readonly field?: string;
  /** The server's own words, as it sent them. */
  readonly serverMessage: string;
  /** What to say next to the field concerned ("Must be lowercase letters, ..."); `message` names the field in words. */
  readonly atField: string;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    field?: string,
  ) {
    const located = locate(message, field);
    super(located.field ? sentence(located.message, located.field) : located.message);
    this.field = located.field;
    this.atField = located.message;
    this.serverMessage = message;
  }
}

/** A message about a field, naming it in words: "The handle must be ...", "The current password is not ...". */
function sentence(message: string, field: string): string {
  const name = fieldWords(field);
  if (message.startsWith('This ')) return `The ${name} ${message.slice(5)}`;
  if (/^(Must|Is|Are|Should|Cannot|Can|Has|Does|Was|Expected|Not|Too|Already|At)\b/.test(message)) return `The ${name} ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${message}`;
}

/** "currentPassword" -> "current password", "retention_days" -> "retention days", "outputs.0.json_schema" -> "json schema". */
export function fieldWords(field: string): string {
  const leaf = field.split('.').filter((p) => !/^\d+$/.test(p)).pop() ?? field;
  return leaf
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .replace(/\burl\b/, 'URL');
}

/** The field a message is about, and the message without the developer's prefix or identifier. */
function locate(raw: string, field?: string): { message: string; field?: string } {
  let message = raw.replace(/^(body|query|params|headers)\./, '');
  let at = field?.replace(/^(body|query|params|headers)\./, '');
  if (!at && /^(body|query|params|headers)\./.test(raw)) {
    const prefixed = /^([A-Za-z_][\w]*(?:\.[\w]+)*): (.+)$/s.exec(message);
    if (prefixed) at = prefixed[1];
  }
  if (at) {
    const leaf = at.split('.').pop()!;
    for (const name of new Set([at, leaf])) {
      if (message.startsWith(`${name}: `)) {
        message = message.slice(name.length + 2);
        break;
      }
      if (message.startsWith(`${name} `)) {
        message = `This ${message.slice(name.length + 1)}`;
        break;
      }
    }
  }
  return { message: message.charAt(0).toUpperCase() + message.slice(1), field: at };
}

/** The API's refusal of one field of a form, in words, for that field's `error` (undefined otherwise). */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  const f = error.field;
  return fields.some((name) => f === name || f.split('.').pop() === name) ? error.atField : undefined;
}

let csrfToken: string | null = null;
/** Set from the session (GET /api/auth/session, sign-in): sent with every mutation. */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** The token the session gave, for requests not made through `api` (file uploads). */
export const currentCsrfToken = () => csrfToken;

export interface RequestOptions {
  body?: unknown;
  projectId?: string;
  signal?: AbortSignal;
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.projectId) headers['x-project-id'] = options.projectId;
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  if (!response.ok) throw toApiError(response.status, parsed, text);
  return parsed as T;
}

/** Both error shapes of the API: `{error: {code, message}}` and `{error: code, message}`. */
function toApiError(status: number, body: unknown, text: string): ApiError {
  if (body && typeof body === 'object' && 'error' in body) {
    const e = (body as { error: unknown; message?: string; field?: string }).error;
    if (e && typeof e === 'object') {
      const n = e as { code?: string; message?: string; meta?: { field?: string } };
      return new ApiError(status, n.code ?? 'error', n.message ?? text, n.meta?.field);
    }
    const o = body as { error: string; message?: string; field?: string };
    return new ApiError(status, String(o.error), o.message ?? String(o.error), o.field);
  }
  return new ApiError(status, 'http_error', text.slice(0, 300) || `HTTP ${status}`);
}

export const isUnauthorized = (e: unknown) => e instanceof ApiError && e.status === 401;
