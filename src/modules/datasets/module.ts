import type { FastifyInstance } from 'fastify';
import type { JobQueue } from '../../platform/jobs/index.ts';
import type { DatasetDeps } from './context.ts';
import { IMPORT_QUEUE, importJobPayload, runImport, type TraceSource } from './from-traces.ts';
import { datasetRoutes } from './routes.ts';

/** What the datasets module is given (wired in app.ts): its context's parts, traces to import from, and the base of links. */
export interface DatasetPorts extends DatasetDeps {
  traces: TraceSource;
  /** SPYGLASS_PUBLIC_URL; null: links use the request's origin. */
  publicUrl: string | null;
}

/** The datasets module's one entry: its routes, and the job queue that imports traces into datasets. */
export function registerDatasets(app: FastifyInstance, jobs: JobQueue, ports: DatasetPorts): void {
  const { publicUrl, ...deps } = ports;
  jobs.handle(IMPORT_QUEUE, importJobPayload, (job) => runImport(deps, job));
  datasetRoutes(app, { deps, publicUrl });
}
