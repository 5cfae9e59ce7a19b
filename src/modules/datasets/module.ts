import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { JobQueue } from '../../platform/jobs/index.ts';
import type { DatasetDeps } from './context.ts';
import { deleteProjectRecords } from './store.ts';
import { IMPORT_QUEUE, importJobPayload, runImport, type TraceSource } from './from-traces.ts';
import { datasetRoutes } from './routes.ts';

/** What the datasets module is given (app.ts): its context's parts, traces to import from, privacy's redaction, projects' deletion, and the base of links. */
export interface DatasetPorts extends Omit<DatasetDeps, 'redactor'> {
  traces: TraceSource;
  /** Privacy at ingest (the privacy module): the project's redaction of incoming values. */
  privacy: { redactorFor: NonNullable<DatasetDeps['redactor']> };
  /** The organizations module: a deleted project's dataset records go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
  /** SPYGLASS_PUBLIC_URL; null: links use the request's origin. */
  publicUrl: string | null;
}

/** The datasets module's one entry: its routes, the job queue that imports traces into datasets, and what goes with a deleted project. */
export function registerDatasets(app: FastifyInstance, jobs: JobQueue, ports: DatasetPorts): void {
  const { publicUrl, privacy, projects, ...rest } = ports;
  const deps = { ...rest, redactor: (projectId: string, path: string) => privacy.redactorFor(projectId, path) };
  projects.onProjectDeleted((tx, projectId) => deleteProjectRecords(tx, projectId));
  jobs.handle(IMPORT_QUEUE, importJobPayload, (job) => runImport(deps, job));
  datasetRoutes(app, { deps, publicUrl });
}
