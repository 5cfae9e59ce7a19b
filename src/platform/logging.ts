import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

/**
 * The process's logger: JSON lines that carry no secret and no user data.
 * - Request lines show the path with secret-bearing segments (share, invitation and reset
 *   tokens) and the secrets of API tokens and webhook secrets redacted, and query parameter
 *   names without their values.
 * - Errors keep their type, SQL state, constraint and statement text, but never the
 *   statement's parameters, the server's `detail` (it quotes the row) or quoted values.
 * - Credential headers and token/password/secret fields are censored wherever they appear.
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: { req: requestForLog, err: errorForLog },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-auth-token"]',
          'req.headers["x-csrf-token"]',
          'req.headers.cookie',
          '*.token',
          '*.password',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** Path segments whose next segment is a secret (a bearer link of its own). */
const SECRET_SEGMENT = /\/(share|invite|invitations|reset-password|password-reset)\/[^/?#]+/g;

/**
 * API tokens (`sg-`/`sgp-` <16-character public id> `_` <secret>, also percent-encoded) and
 * webhook signing secrets (`whsec_...`), wherever a client put them by mistake (a path, a
 * message quoting its input): the secret part goes, the public id stays for the reader.
 */
const TOKEN_SECRET = /(sgp?-[A-Za-z0-9]{16})(_|%5F)[A-Za-z0-9]{8,}/gi;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=%]+/g;

export function redactSecrets(text: string): string {
  return text.replace(TOKEN_SECRET, '$1_[redacted]').replace(WEBHOOK_SECRET, 'whsec_[redacted]');
}

/** `/share/abc?x=1&q=secret` -> `/share/[redacted]?x&q`. */
export function urlForLog(url: string): string {
  const q = url.indexOf('?');
  const path = redactSecrets((q < 0 ? url : url.slice(0, q)).replace(SECRET_SEGMENT, '/$1/[redacted]'));
  if (q < 0) return path;
  const names = url
    .slice(q + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=')[0]);
  return names.length ? `${path}?${names.join('&')}` : path;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  host?: string;
}

function requestForLog(req: LoggedRequest) {
  return { method: req.method, url: urlForLog(req.url ?? ''), host: req.host, remoteAddress: req.ip };
}

/** Properties of database and HTTP errors that describe the failure, not the data. */
const SAFE_ERROR_FIELDS = ['code', 'statusCode', 'severity', 'constraint', 'table', 'column', 'schema', 'dataType', 'routine', 'validationContext'] as const;
const MAX_CAUSE_DEPTH = 3;

interface LoggedError {
  type: string;
  message: string;
  stack?: string;
  sql?: string;
  cause?: LoggedError;
  [field: string]: unknown;
}

export function errorForLog(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: '[not an Error]' };
  const e = err as Error & Record<string, unknown>;
  const message = messageForLog(e.message);
  const out: LoggedError = { type: e.name || e.constructor?.name || 'Error', message };
  if (typeof e.stack === 'string') {
    const frames = e.stack.split('\n').filter((line) => line.startsWith('    at '));
    out.stack = [`${out.type}: ${message}`, ...frames].join('\n');
  }
  for (const field of SAFE_ERROR_FIELDS) if (e[field] !== undefined && e[field] !== null) out[field] = e[field];
  // The statement text is code; its parameters (e.params) are the user's data and stay out.
  if (typeof e.query === 'string') out.sql = e.query.slice(0, 2000);
  if (e.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = errorForLog(e.cause, depth + 1);
  return out;
}

/**
 * drizzle: "Failed query: <sql>\nparams: <values>" -> the first line only; PostgreSQL:
 * `invalid input syntax for type json: "<value>"` -> the value replaced.
 */
function messageForLog(message: string): string {
  const firstLine = message.split('\n')[0];
  return redactSecrets(firstLine.replace(/: ".*"$/s, ': "[redacted]"')).slice(0, 2000);
}
