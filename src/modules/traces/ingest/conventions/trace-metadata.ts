/**
 * Trace-level facts spans carry: user, thread (session / conversation) and customer
 * ids, labels, the SDK that sent the trace, and free-form metadata (`metadata`,
 * `langwatch.metadata[.*]`). Other families route their own metadata maps
 * (ai.telemetry.metadata.*, traceloop.association.properties.*) through
 * applyMetadataEntry, so a `userId` means the same thing wherever it came from.
 */
import { idString, isRecord, jsonObject, parseJson, setOwn, str, table, type SpanMapping } from '../mapping-context.ts';
import type { TraceMetadataHints } from '../types.ts';

type IdHint = 'user_id' | 'thread_id' | 'customer_id';

const USER_KEYS = ['langwatch.user.id', 'user.id', 'enduser.id', 'gen_ai.user.id'];
const THREAD_KEYS = ['langwatch.thread.id', 'gen_ai.conversation.id', 'session.id', 'langwatch.session.id', 'thread.id'];
const CUSTOMER_KEYS = ['langwatch.customer.id', 'customer.id'];
const LABEL_KEYS = ['langwatch.labels', 'tag.tags'];
const METADATA_KEYS = ['metadata', 'langwatch.metadata'];
const METADATA_PREFIX = 'langwatch.metadata.';

/** Names a metadata map uses for the well-known ids, in the spellings SDKs use. */
const ENTRY_HINTS = table<IdHint | 'labels'>({
  user_id: 'user_id',
  userid: 'user_id',
  'user.id': 'user_id',
  thread_id: 'thread_id',
  threadid: 'thread_id',
  session_id: 'thread_id',
  sessionid: 'thread_id',
  conversation_id: 'thread_id',
  conversationid: 'thread_id',
  customer_id: 'customer_id',
  customerid: 'customer_id',
  labels: 'labels',
  tags: 'labels',
});

function labelList(value: unknown): string[] | null {
  const v = typeof value === 'string' ? (parseJson(value) ?? value) : value;
  if (typeof v === 'string') return v.length > 0 ? [v] : null;
  if (!Array.isArray(v)) return null;
  const out: string[] = [];
  for (const item of v) if (typeof item === 'string' && item.length > 0) out.push(item);
  return out;
}

function addLabels(hints: TraceMetadataHints, labels: string[]): void {
  if (labels.length === 0) return;
  const existing = hints.labels ?? [];
  hints.labels = existing.length === 0 ? labels : [...new Set([...existing, ...labels])];
}

/** One metadata entry: a well-known id or labels when its name says so, else `extra`. */
export function applyMetadataEntry(hints: TraceMetadataHints, name: string, value: unknown): void {
  const hint = ENTRY_HINTS.get(name.toLowerCase());
  if (hint === 'labels') {
    const labels = labelList(value);
    if (labels !== null) {
      addLabels(hints, labels);
      return;
    }
  } else if (hint !== undefined) {
    const id = idString(value);
    if (id !== null && hints[hint] === undefined) {
      hints[hint] = id;
      return;
    }
  }
  setOwn((hints.extra ??= {}), name, value);
}

function takeId(ctx: SpanMapping, hint: IdHint, key: string): void {
  const value = idString(ctx.attrs.get(key));
  if (value === null) return;
  if (ctx.hints[hint] === undefined) ctx.hints[hint] = value;
  if (ctx.hints[hint] === value) ctx.attrs.delete(key);
}

export function mapTraceMetadata(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const hints = ctx.hints;
  for (const key of USER_KEYS) takeId(ctx, 'user_id', key);
  for (const key of THREAD_KEYS) takeId(ctx, 'thread_id', key);
  for (const key of CUSTOMER_KEYS) takeId(ctx, 'customer_id', key);

  for (const key of LABEL_KEYS) {
    const value = a.get(key);
    if (value === undefined) continue;
    const labels = labelList(value);
    if (labels !== null) {
      addLabels(hints, labels);
      a.delete(key);
    }
  }

  for (const key of METADATA_KEYS) {
    const value = a.get(key);
    if (value === undefined) continue;
    const object = isRecord(value) ? value : jsonObject(value);
    if (object !== null) {
      for (const name of Object.keys(object)) applyMetadataEntry(hints, name, object[name]);
      a.delete(key);
    }
  }
  const prefixed = ctx.bucket(METADATA_PREFIX);
  if (prefixed) {
    for (const key of prefixed) {
      applyMetadataEntry(hints, key.slice(METADATA_PREFIX.length), a.get(key));
      a.delete(key);
    }
  }

  const sdkName = str(a.get('langwatch.sdk.name'));
  const sdkVersion = str(a.get('langwatch.sdk.version'));
  const sdkLanguage = str(a.get('langwatch.sdk.language'));
  if (sdkName !== null) a.delete('langwatch.sdk.name');
  if (sdkVersion !== null) a.delete('langwatch.sdk.version');
  if (sdkLanguage !== null) a.delete('langwatch.sdk.language');
  // The LangWatch SDKs put langwatch.sdk.* on the resource (Python) or on each span: either names the SDK before OpenTelemetry's own.
  const resource = ctx.raw.resource;
  const name = sdkName ?? str(resource['langwatch.sdk.name']) ?? str(resource['telemetry.sdk.name']);
  const version = sdkVersion ?? str(resource['langwatch.sdk.version']) ?? str(resource['telemetry.sdk.version']);
  const language = sdkLanguage ?? str(resource['langwatch.sdk.language']) ?? str(resource['telemetry.sdk.language']);
  if (name !== null) hints.sdk_name = name;
  if (version !== null) hints.sdk_version = version;
  if (language !== null) hints.sdk_language = language;
}
