import { tagged, type ApiTag } from './http/route-group.ts';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What the process counts and measures, in Prometheus' text format (GET /metrics), with
 * prom-client. Every app has its own registry (tests build several apps in one process);
 * the process's own figures (memory, CPU, event loop, handles) are one set per process.
 *
 * Labels stay few and bounded: routes are templates (`/api/trace/:id`), never paths;
 * evaluators are catalogue paths; outcomes and statuses are short fixed lists.
 */
export interface GaugeSample {
  labels?: Record<string, string>;
  value: number;
}

let processRegistry: Registry | null = null;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const EVALUATOR_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'spyglass_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'spyglass_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly spansIngestedTotal = new Counter({
    name: 'spyglass_spans_ingested_total',
    help: 'Spans committed by ingest (OTLP and the collector)',
    registers: [this.registry],
  });
  private readonly spansRejectedTotal = new Counter({
    name: 'spyglass_spans_rejected_total',
    help: 'Spans not stored: invalid (refused in the OTLP partial success or a 400), or failed (the write failed; the client was answered an error)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'spyglass_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retrying (will be tried again) or failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly evaluatorRuns = new Counter({
    name: 'spyglass_evaluator_runs_total',
    help: 'Evaluator runs by evaluator path and result status (processed, skipped, error)',
    labelNames: ['evaluator', 'status'] as const,
    registers: [this.registry],
  });
  private readonly evaluatorErrors = new Counter({
    name: 'spyglass_evaluator_errors_total',
    help: 'Evaluator runs that ended in an error, by evaluator path and error type',
    labelNames: ['evaluator', 'error_type'] as const,
    registers: [this.registry],
  });
  private readonly evaluatorDuration = new Histogram({
    name: 'spyglass_evaluator_duration_seconds',
    help: 'Time one evaluator run took (provider calls and retries included), by evaluator path',
    labelNames: ['evaluator'] as const,
    buckets: EVALUATOR_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobsFinished = new Counter({
    name: 'spyglass_jobs_finished_total',
    help: 'Background jobs run by this process, by queue and outcome (done, retrying, failed)',
    labelNames: ['queue', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly periodicRuns = new Counter({
    name: 'spyglass_periodic_runs_total',
    help: 'Rounds of background tasks run by this process (sweeps run in one process per period across all of them)',
    labelNames: ['task'] as const,
    registers: [this.registry],
  });

  private readonly valuesRedacted = new Counter({
    name: 'spyglass_privacy_values_redacted_total',
    help: 'Values of personal data found at ingest (removed, hashed, or only flagged, by the project\'s privacy mode), by entity type and ingest path',
    labelNames: ['entity_type', 'path'] as const,
    registers: [this.registry],
  });
  private readonly redactionFailures = new Counter({
    name: 'spyglass_privacy_redaction_failures_total',
    help: 'Text values stored as [redaction failed] because detection failed or ran past its time budget, by ingest path',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });

  privacyRedacted(entityType: string, path: string, n: number): void {
    if (n > 0) this.valuesRedacted.inc({ entity_type: entityType, path }, n);
  }

  privacyFailed(path: string, n: number): void {
    if (n > 0) this.redactionFailures.inc({ path }, n);
  }

  periodicRun(task: string): void {
    this.periodicRuns.inc({ task });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  spansIngested(n: number): void {
    if (n > 0) this.spansIngestedTotal.inc(n);
  }

  spansRejected(reason: 'invalid' | 'failed', n: number): void {
    if (n > 0) this.spansRejectedTotal.inc({ reason }, n);
  }

  webhookDelivery(outcome: 'delivered' | 'retrying' | 'failed'): void {
    this.webhookDeliveries.inc({ outcome });
  }

  evaluatorRun(evaluator: string, status: string, seconds: number, errorType?: string): void {
    this.evaluatorRuns.inc({ evaluator, status });
    this.evaluatorDuration.observe({ evaluator }, seconds);
    if (status === 'error') this.evaluatorErrors.inc({ evaluator, error_type: errorType ?? 'Error' });
  }

  jobFinished(queue: string, outcome: 'done' | 'retrying' | 'failed'): void {
    this.jobsFinished.inc({ queue, outcome });
  }

  /**
   * A gauge read when scraped (queue depths, pool use). A sampler that fails (the database
   * is down) leaves its gauge empty for that scrape rather than failing the whole page.
   */
  gauge(name: string, help: string, labelNames: readonly string[], sample: () => Promise<GaugeSample[]> | GaugeSample[]): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        let samples: GaugeSample[];
        try {
          samples = await sample();
        } catch {
          return;
        }
        for (const s of samples) {
          if (s.labels) this.set(s.labels, s.value);
          else this.set(s.value);
        }
      },
    });
  }

  /** The exposition: this app's metrics, then the process's. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return { contentType: this.registry.contentType, text: `${own}\n${process}` };
  }
}

/**
 * Counts and times every answered request by its route template (unmatched paths share
 * one label, so scanners cannot blow up the series), and serves GET /metrics: with the
 * metrics:view permission, or to anyone when `open` (SPYGLASS_METRICS_PUBLIC=1, for a
 * scraper inside a private network).
 */
/** The API reference's section of the routes outside any module: health, readiness and metrics. */
export const META_TAG: ApiTag = { name: 'meta', title: 'Health and metrics' };

export function installMetricsRoute(app: FastifyInstance, metrics: Metrics, options: { open: boolean }): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get(
    '/metrics',
    {
      config: { auth: options.open ? { scope: 'public' } : { scope: 'organization', permission: 'metrics:view' } },
      schema: {
        ...tagged(META_TAG),
        summary: 'Prometheus metrics (text exposition format); needs metrics:view unless SPYGLASS_METRICS_PUBLIC=1',
      },
    },
    async (_request, reply) => {
      const { contentType, text } = await metrics.exposition();
      return reply.type(contentType).send(text);
    },
  );
}
