import type { Readable } from 'node:stream';
import { AppError, notFound } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { emitEvent } from '../../platform/events/index.ts';
import * as store from './store.ts';
import type { TraceContext } from './context.ts';
import type { TraceReads } from './reads.ts';
import { DEFAULT_SHARE_OPTIONS, redactSpanJson, type ShareOptions } from './share-redaction.ts';

/** Public share links of traces: sharing, unsharing, and what anyone with the link reads. */
export class TraceShares {
  constructor(
    private readonly ctx: TraceContext,
    private readonly reads: TraceReads,
  ) {}

  /**
   * Publishes a trace. The trace need not have arrived: exporters batch spans for seconds and
   * SDKs share the trace they are still running, so the share is kept and works once the
   * spans come (like annotations and evaluations of a trace that is not there yet).
   */
  async share(organizationId: string, projectId: string, traceId: string, options: Partial<ShareOptions> = {}): Promise<{ path: string }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.orm.transaction(async (tx) => {
      const { token, created } = await store.insertShare(tx, projectId, traceId, randomAlphanumeric(32), now, { ...DEFAULT_SHARE_OPTIONS, ...options });
      const path = `/share/${token}`;
      if (created) await emitEvent(tx, { organizationId, projectId, type: 'trace.shared', data: { trace_id: traceId, path } }, now);
      return { path };
    });
  }

  async unshare(organizationId: string, projectId: string, traceId: string): Promise<{ message: string }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.orm.transaction(async (tx) => {
      const deleted = await store.deleteShare(tx, projectId, traceId);
      if (deleted) await emitEvent(tx, { organizationId, projectId, type: 'trace.unshared', data: { trace_id: traceId } }, now);
      return { message: deleted ? 'trace unshared: its public path no longer works' : 'trace was not shared' };
    });
  }

  /** Whether a trace is shared, and its public path (a trace may be shared before it arrives). */
  async shareState(projectId: string, traceId: string): Promise<{ shared: boolean; path: string | null; options: ShareOptions | null }> {
    const [token, options] = await Promise.all([store.findShareByTrace(this.ctx.db.orm, projectId, traceId), store.findShareOptions(this.ctx.db.orm, projectId, traceId)]);
    return { shared: token !== null, path: token ? `/share/${token}` : null, options: token ? options : null };
  }

  /** Whether a public share token shows a trace now: shared, and its spans have arrived (else its page answers 404). */
  async shareShowsTrace(token: string): Promise<boolean> {
    const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(this.ctx.db.orm, token) : null;
    return share !== null && (await store.findTrace(this.ctx.db.orm, share.projectId, share.traceId)) !== null;
  }

  /** The trace behind a public share token, for anyone (streamed as detailStream); 404 once unshared, or while its spans have not arrived. */
  async sharedStream(token: string, options: { outline?: boolean } = {}): Promise<Readable> {
    const share = await this.liveShare(token);
    try {
      return await this.reads.detailStream(share.projectId, share.traceId, { ...options, redact: share.options });
    } catch (err) {
      if (err instanceof AppError && err.status === 404) {
        throw notFound('trace_not_available_yet', 'this trace is shared but not available yet: its spans have not arrived (try again in a few seconds)');
      }
      throw err;
    }
  }

  /** One span of a shared trace, for anyone (JSON text). */
  async sharedSpanJson(token: string, spanId: string): Promise<string> {
    const share = await this.liveShare(token);
    return redactSpanJson(await this.reads.spanJson(share.projectId, share.traceId, spanId), share.options);
  }

  private async liveShare(token: string): Promise<{ projectId: string; traceId: string; options: ShareOptions }> {
    const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(this.ctx.db.orm, token) : null;
    if (!share) throw notFound('share_not_found', 'this shared trace does not exist or is no longer shared');
    return share;
  }
}
