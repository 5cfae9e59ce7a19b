import type { SpyglassModule } from '../../platform/module.ts';
import type { Executor } from '../../db/index.ts';
import type { DatasetDeps } from './context.ts';
import { deleteProjectRecords } from './store.ts';
import { IMPORT_QUEUE, importJobPayload, runImport, type TraceSource } from './from-traces.ts';
import { datasetRoutes } from './routes.ts';

/** What the datasets module reads of the ports map: traces to import from, privacy's redaction, projects' deletion. */
export interface DatasetPorts {
  traces: TraceSource;
  /** Privacy at ingest: the project's redaction of incoming values. */
  privacy: { privacy: { redactorFor: NonNullable<DatasetDeps['redactor']> } };
  /** A deleted project's dataset records go in its transaction. */
  organizations: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/**
 * The datasets module's one entry: its routes, the job queue that imports traces into datasets,
 * and what goes with a deleted project. Links use SPYGLASS_PUBLIC_URL, or the request's origin.
 */
export const datasetsModule: SpyglassModule<DatasetPorts> = {
  name: 'datasets',
  register: ({ http, jobs, db, clock, config }, { traces, privacy: { privacy }, organizations }) => {
    const deps = { db, clock, limits: config.datasets, traces, redactor: (projectId: string, path: string) => privacy.redactorFor(projectId, path) };
    organizations.onProjectDeleted((tx, projectId) => deleteProjectRecords(tx, projectId));
    jobs.handle(IMPORT_QUEUE, importJobPayload, (job) => runImport(deps, job));
    datasetRoutes(http, { deps, publicUrl: config.publicUrl });
  },
};
