/**
 * The app's only way to the server: the documented JSON API, with the session cookie,
 * `X-Project-Id` on project routes and `X-CSRF-Token` on every change (the contract).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
/** Set from the session (GET /api/auth/session, sign-in): sent with every mutation. */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

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
