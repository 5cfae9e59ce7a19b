import type { Logger } from 'pino';
import type { SpyglassModule } from '../../platform/module.ts';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { TokenHasher } from '../../platform/tokens.ts';
import type { TraceExtension } from '../traces/index.ts';
import type { PrivacyContext } from './context.ts';
import { DetectionPool } from './detection-pool.ts';
import type { WorkerFault } from './detection-protocol.ts';
import { presentRecord } from './presenters.ts';
import { piiDetector, type Detector } from './detect.ts';
import { addCounts, type RedactionCounts, type Redactor } from './redaction.ts';
import { PolicyCache, redactorFor, storedForm } from './redactors.ts';
import { privacyRoutes } from './routes.ts';
import * as store from './store.ts';

/**
 * How long detection in one value may take before the value is stored as [redaction failed]
 * (docs/privacy.md). Detection over every entity type takes ~1.5 ms of CPU per 2 KiB of text
 * here; a span's input is clipped long before it reaches a second. On a detection worker the
 * budget runs from when the worker starts on the text, and a worker past it is terminated.
 */
const DETECTION_BUDGET_MS = 2_000;

export interface PrivacyPorts {
  db: Database;
  clock: Clock;
  metrics: Metrics;
  logger?: Pick<Logger, 'warn'>;
  /** Worker threads of detection (SPYGLASS_PRIVACY_DETECTION_THREADS); 0 or unset: the main thread detects. */
  detectionThreads?: number;
  /** Detection workers idle this long are stopped (SPYGLASS_PRIVACY_DETECTION_IDLE_SECONDS); default 5 minutes. */
  detectionIdleMs?: number;
  /** The installation's keyed hash (hash mode's tokens). */
  hasher: Pick<TokenHasher, 'hash'>;
  /** The organizations module: a deleted project's settings go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
  /**
   * Tests only: a detector (one that fails) run on the main thread instead of the workers; a
   * smaller budget; workers that hang, throw or die on texts holding given strings.
   */
  overrides?: { detector?: Detector; budgetMs?: number; workerFault?: WorkerFault };
}

/** What the privacy module offers the others: redaction for each ingest path, and the trace record. */
export interface Privacy {
  redactorFor(projectId: string, path: string): Promise<Redactor>;
  storedForm(projectId: string, text: string): Promise<string>;
  /** A trace's record from its spans' records. */
  traceRecord(spanCounts: RedactionCounts[]): ReturnType<typeof presentRecord>;
  deleteProject(projectId: string, db: Parameters<typeof store.deleteSettings>[0]): Promise<void>;
}

/** The privacy module's one entry: its routes over the context `buildPrivacy` made. */
export const privacyModule: SpyglassModule<{ privacy: { ctx: PrivacyContext } }> = {
  name: 'privacy',
  register: ({ http }, { privacy }) => {
    privacyRoutes(http, privacy.ctx);
    http.addHook('onClose', async () => {
      await privacy.ctx.detection?.close();
    });
  },
};

export function buildPrivacy(ports: PrivacyPorts): { ctx: PrivacyContext; privacy: Privacy } {
  const { hasher } = ports;
  const budgetMs = ports.overrides?.budgetMs ?? DETECTION_BUDGET_MS;
  const threads = ports.overrides?.detector ? 0 : (ports.detectionThreads ?? 0);
  const ctx = {
    db: ports.db,
    clock: ports.clock,
    keyedHash: (label: string) => hasher.hash(label),
    detector: ports.overrides?.detector ?? piiDetector,
    // Not started here: its workers start when a project first has privacy on.
    detection:
      threads > 0 ? new DetectionPool({ threads, budgetMs, idleMs: ports.detectionIdleMs, logger: ports.logger, fault: ports.overrides?.workerFault }) : null,
    budgetMs,
    meter: { redacted: (type, path, n) => ports.metrics.privacyRedacted(type, path, n), failed: (path, n) => ports.metrics.privacyFailed(path, n) },
  } satisfies Omit<PrivacyContext, 'policies'> as PrivacyContext;
  ctx.policies = new PolicyCache(ctx);
  const pool = ctx.detection;
  if (pool) {
    ports.metrics.gauge('spyglass_privacy_detection_workers', 'Detection worker threads running (started when a project has privacy on, stopped when idle)', [], () => [{ value: pool.size }]);
  }
  const privacy: Privacy = {
    redactorFor: (projectId, path) => redactorFor(ctx, projectId, path),
    storedForm: (projectId, text) => storedForm(ctx, projectId, text),
    traceRecord: (spanCounts) => presentRecord(spanCounts.reduce<RedactionCounts>((all, c) => addCounts(all, c), {})),
    deleteProject: async (projectId, db) => {
      await store.deleteSettings(db, projectId);
      ctx.policies.forget(projectId);
    },
  };
  ports.projects.onProjectDeleted((tx, projectId) => privacy.deleteProject(projectId, tx));
  return { ctx, privacy };
}

/** What privacy adds to traces: redaction at ingest, the search's text in the stored form, the trace's redaction record. */
export function privacyTraceExtension(privacy: Privacy): TraceExtension {
  return {
    redactor: (projectId, path) => privacy.redactorFor(projectId, path),
    searchText: (projectId, query) => privacy.storedForm(projectId, query),
    redactionRecord: (counts) => privacy.traceRecord(counts),
  };
}
