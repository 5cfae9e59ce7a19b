// What other modules and app.ts may use of the datasets module.
export { datasetsModule, type DatasetPorts } from './module.ts';
export type { DatasetDeps, DatasetLimits } from './context.ts';
export { deleteProjectRecords as deleteProjectDatasetRecords } from './store.ts';
export { type TraceSource, type TraceDetailLike } from './from-traces.ts';
export { addRecordsBody, datasetListSchema, pageQuery as datasetPageQuery } from './schemas.ts';
export { fromTracesBody, importSchema } from './from-traces.ts';
export { datasetForRuns, datasetName, columnsAsOf, entriesAsOf, type DatasetForRuns } from './rows-for-runs.ts';
