import type { Readable } from 'node:stream';
import { AppError, notFound } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { emitEvent } from '../../platform/events/index.ts';
import * as store from './store.ts';
import type { TraceContext } from './context.ts';
import { detailStream, spanJson } from './reads.ts';
import { DEFAULT_SHARE_OPTIONS, redactSpanJson, type ShareOptions } from './share-redaction.ts';

// Public share links of traces: sharing, unsharing, and what anyone with the link reads.

/**
 * Publishes a trace. The trace need not have arrived: exporters batch spans for seconds and
 * SDKs share the trace they are still running, so the share is kept and works once the
 * spans come (like annotations and evaluations of a trace that is not there yet).
 */
export async function share(ctx: TraceContext, organizationId: string, projectId: string, traceId: string, options: Partial<ShareOptions> = {}): Promise<{ path: string }> {
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const { token, created } = await store.insertShare(tx, projectId, traceId, randomAlphanumeric(32), now, { ...DEFAULT_SHARE_OPTIONS, ...options });
    const path = `/share/${token}`;
    if (created) await emitEvent(tx, { organizationId, projectId, type: 'trace.shared', data: { trace_id: traceId, path } }, now);
    return { path };
  });
}

export async function unshare(ctx: TraceContext, organizationId: string, projectId: string, traceId: string): Promise<{ message: string }> {
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const deleted = await store.deleteShare(tx, projectId, traceId);
    if (deleted) await emitEvent(tx, { organizationId, projectId, type: 'trace.unshared', data: { trace_id: traceId } }, now);
    return { message: deleted ? 'trace unshared: its public path no longer works' : 'trace was not shared' };
  });
}

/** Whether a trace is shared, and its public path (a trace may be shared before it arrives). */
export async function shareState(ctx: TraceContext, projectId: string, traceId: string): Promise<{ shared: boolean; path: string | null; options: ShareOptions | null }> {
  const [token, options] = await Promise.all([store.findShareByTrace(ctx.db.orm, projectId, traceId), store.findShareOptions(ctx.db.orm, projectId, traceId)]);
  return { shared: token !== null, path: token ? `/share/${token}` : null, options: token ? options : null };
}

/** Whether a public share token shows a trace now: shared, and its spans have arrived (else its page answers 404). */
export async function shareShowsTrace(ctx: TraceContext, token: string): Promise<boolean> {
  const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(ctx.db.orm, token) : null;
  return share !== null && (await store.findTrace(ctx.db.orm, share.projectId, share.traceId)) !== null;
}

/** The trace behind a public share token, for anyone (streamed as detailStream); 404 once unshared, or while its spans have not arrived. */
export async function sharedStream(ctx: TraceContext, token: string, options: { outline?: boolean } = {}): Promise<Readable> {
  const share = await liveShare(ctx, token);
  try {
    return await detailStream(ctx, share.projectId, share.traceId, { ...options, redact: share.options });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      throw notFound('trace_not_available_yet', 'this trace is shared but not available yet: its spans have not arrived (try again in a few seconds)');
    }
    throw err;
  }
}

/** One span of a shared trace, for anyone (JSON text). */
export async function sharedSpanJson(ctx: TraceContext, token: string, spanId: string): Promise<string> {
  const share = await liveShare(ctx, token);
  return redactSpanJson(await spanJson(ctx, share.projectId, share.traceId, spanId), share.options);
}

async function liveShare(ctx: TraceContext, token: string): Promise<{ projectId: string; traceId: string; options: ShareOptions }> {
  const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(ctx.db.orm, token) : null;
  if (!share) throw notFound('share_not_found', 'this shared trace does not exist or is no longer shared');
  return share;
}
