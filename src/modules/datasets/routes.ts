import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Permission } from '../../platform/auth/index.ts';
import { forbidden } from '../../platform/errors.ts';
import { projectRoute, routeGroup, type ProjectScope } from '../../platform/http/route-group.ts';
import { addRecords } from './add-records.ts';
import type { DatasetDeps, Scope } from './context.ts';
import { createDataset } from './create-dataset.ts';
import { deleteRecords } from './delete-records.ts';
import { exportDataset } from './export.ts';
import { getDatasetWithRecords, listDatasets, listRecords, listVersions, traceMapping } from './read-dataset.ts';
import {
  addRecordsBody,
  archivedSchema,
  createDatasetBody,
  datasetListSchema,
  datasetSchema,
  datasetWithRecordsSchema,
  deletedCountSchema,
  deleteRecordsBody,
  entriesAddedSchema,
  exportQuery,
  pageQuery,
  recordListSchema,
  recordPageSchema,
  recordParams,
  recordSchema,
  recordsQuery,
  slugOrIdParams,
  traceMappingAnswer,
  updateDatasetBody,
  uploadAppendedSchema,
  uploadCreatedSchema,
  upsertRecordBody,
  versionListSchema,
  versionQuery,
} from './schemas.ts';
import { archiveDataset, updateDataset } from './update-dataset.ts';
import { addFromTraces, fromTracesBody, getImport, importSchema, type TraceSource } from './from-traces.ts';
import { uploadNewDataset, uploadToDataset } from './upload-file.ts';
import { upsertRecord } from './upsert-record.ts';

/** JSON bodies of these routes: 1,000 entries of a few KiB each fit. */
const JSON_BODY_LIMIT = 16 * 1024 * 1024;

const auth = (permission: Permission) => ({ auth: { scope: 'project' as const, permission } });

export interface DatasetRouteOptions {
  deps: DatasetDeps & { traces: TraceSource };
  /** SPYGLASS_PUBLIC_URL; null: links use the request's origin. */
  publicUrl: string | null;
}

/**
 * The datasets API (docs/datasets.md) as one route group: every error answers
 * `{error: {type, code, message, meta?}}` with meta.field naming the field.
 */
export function datasetRoutes(app: FastifyInstance, { deps, publicUrl }: DatasetRouteOptions): void {
  const datasetScope = (req: FastifyRequest, { projectId, organizationId }: ProjectScope): Scope => ({
    projectId,
    organizationId,
    linkBase: publicUrl ?? `${req.protocol}://${req.host}`,
  });

  routeGroup(app, { errors: 'nested', tag: { name: 'datasets', title: 'Datasets' } }, (router, g) => {
    // Uploads are read as a stream by the use case, not parsed here.
    router.addContentTypeParser('multipart/form-data', (_req, payload, done) => done(null, payload));
    // An upload refused before its end (too large): the rest of the body is not read, so the connection cannot carry another request.
    router.addHook('onSend', (_req, reply, payload, done) => {
      if (reply.statusCode === 413) void reply.header('connection', 'close');
      done(null, payload);
    });
    const r = projectRoute(router);
    const errors = g.errors(404);
    r.get('/api/dataset', {
      config: auth('datasets:view'),
      schema: { summary: "The project's live datasets, newest first, with their record counts", querystring: pageQuery, response: { 200: datasetListSchema, ...errors } },
    }, (req, s) => listDatasets(deps, datasetScope(req, s), req.query.page, req.query.limit));

    r.post('/api/dataset', {
      config: auth('datasets:create'),
      bodyLimit: JSON_BODY_LIMIT,
      schema: {
        summary: 'Create a dataset with typed columns; its slug comes from the name (409 slug_conflict when a live dataset has it)',
        body: createDatasetBody,
        response: { 201: datasetSchema, ...errors, ...g.errors(409) },
      },
    }, async (req, s, reply) => reply.status(201).send(await createDataset(deps, datasetScope(req, s), req.body)));

    r.post('/api/dataset/upload', {
      config: auth('datasets:create'),
      schema: {
        summary: 'Create a dataset from a file: multipart parts `name`, optional `mapping` (JSON [{from, name, type}]: the columns, read from which file column) and `file` (.csv, .json array, .jsonl); stored whole or not at all',
        response: { 201: uploadCreatedSchema, ...errors, ...g.errors(409, 413, 415) },
      },
    }, async (req, s, reply) => reply.status(201).send(await uploadNewDataset(deps, datasetScope(req, s), req.headers['content-type'], req.body as AsyncIterable<Buffer>)));

    r.get('/api/dataset/:slugOrId', {
      config: auth('datasets:view'),
      schema: {
        summary: 'A dataset by slug or id with every record, oldest first (`?version=N`: as of version N); over 25 MB of records: 400 dataset_too_large',
        params: slugOrIdParams,
        querystring: versionQuery,
        response: { 200: datasetWithRecordsSchema, ...errors },
      },
    }, async (req, s, reply) => reply.type('application/json; charset=utf-8').send((await getDatasetWithRecords(deps, datasetScope(req, s), req.params.slugOrId, req.query.version)) as never));

    r.patch('/api/dataset/:slugOrId', {
      config: auth('datasets:update'),
      schema: {
        summary: 'Rename (a new slug) and/or replace the columns (every record rewritten onto them, values converted)',
        params: slugOrIdParams,
        body: updateDatasetBody,
        response: { 200: datasetSchema, ...errors, ...g.errors(409) },
      },
    }, (req, s) => updateDataset(deps, datasetScope(req, s), req.params.slugOrId, req.body));

    r.delete('/api/dataset/:slugOrId', {
      config: auth('datasets:delete'),
      schema: { summary: 'Archive a dataset: it leaves every listing and lookup, and its slug is free again', params: slugOrIdParams, response: { 200: archivedSchema, ...errors } },
    }, (req, s) => archiveDataset(deps, datasetScope(req, s), req.params.slugOrId));

    r.get('/api/dataset/:slugOrId/records', {
      config: auth('datasets:view'),
      schema: {
        summary: 'Records page by page, oldest first (`?version=N`: as of version N; `?q=`: only records containing the text)',
        params: slugOrIdParams,
        querystring: recordsQuery,
        response: { 200: recordPageSchema, ...errors },
      },
    }, async (req, s, reply) => reply.type('application/json; charset=utf-8').send((await listRecords(deps, datasetScope(req, s), req.params.slugOrId, req.query)) as never));

    r.post('/api/dataset/:slugOrId/records', {
      config: auth('datasets:update'),
      bodyLimit: JSON_BODY_LIMIT,
      schema: {
        summary: 'Add 1..1000 entries (every key a column, else 400 invalid_column; missing columns null), as one new version',
        params: slugOrIdParams,
        body: addRecordsBody,
        response: { 201: recordListSchema, ...errors },
      },
    }, async (req, s, reply) => reply.status(201).send(await addRecords(deps, datasetScope(req, s), req.params.slugOrId, req.body.entries)));

    r.patch('/api/dataset/:slugOrId/records/:recordId', {
      config: auth('datasets:update'),
      bodyLimit: JSON_BODY_LIMIT,
      schema: {
        summary: 'Replace a record\'s entry exactly as sent (200), or create it under this id (201)',
        params: recordParams,
        body: upsertRecordBody,
        response: { 200: recordSchema, 201: recordSchema, ...errors },
      },
    }, async (req, s, reply) => {
      const { created, record } = await upsertRecord(deps, datasetScope(req, s), req.params.slugOrId, req.params.recordId, req.body.entry);
      return reply.status(created ? 201 : 200).send(record);
    });

    r.delete('/api/dataset/:slugOrId/records', {
      config: auth('datasets:delete'),
      schema: {
        summary: 'Delete records by id (JSON body {recordIds}); ids the dataset does not hold are skipped; none matched: 404 record_not_found',
        params: slugOrIdParams,
        body: deleteRecordsBody,
        response: { 200: deletedCountSchema, ...errors },
      },
    }, (req, s) => deleteRecords(deps, datasetScope(req, s), req.params.slugOrId, req.body.recordIds));

    r.post('/api/dataset/:slugOrId/entries', {
      config: auth('datasets:update'),
      bodyLimit: JSON_BODY_LIMIT,
      schema: {
        summary: 'LangWatch\'s older batch add (generated clients): the same rules as POST records, answered {success: true}',
        params: slugOrIdParams,
        body: addRecordsBody,
        response: { 200: entriesAddedSchema, ...errors },
      },
    }, async (req, s) => {
      await addRecords(deps, datasetScope(req, s), req.params.slugOrId, req.body.entries);
      return { success: true as const };
    });

    r.post('/api/dataset/:slugOrId/upload', {
      config: auth('datasets:update'),
      schema: {
        summary: 'Append a file (multipart part `file`, optionally after `mapping` [{from, name}]): its columns must be the dataset\'s unless mapped; values converted to the column types',
        params: slugOrIdParams,
        response: { 200: uploadAppendedSchema, ...errors, ...g.errors(409, 413, 415) },
      },
    }, (req, s) => uploadToDataset(deps, datasetScope(req, s), req.params.slugOrId, req.headers['content-type'], req.body as AsyncIterable<Buffer>));

    r.get('/api/dataset/:slugOrId/versions', {
      config: auth('datasets:view'),
      schema: {
        summary: 'The versions of a dataset\'s records, newest first: what changed in each, and how many records it had',
        params: slugOrIdParams,
        querystring: pageQuery,
        response: { 200: versionListSchema, ...errors },
      },
    }, (req, s) => listVersions(deps, datasetScope(req, s), req.params.slugOrId, req.query.page, req.query.limit));

    r.post('/api/dataset/:slugOrId/from-traces', {
      config: auth('datasets:update'),
      schema: {
        summary: 'Add traces or spans through a column mapping (remembered per dataset): items now (201), or every trace matching a search as a background job (202; GET .../imports/{id})',
        params: slugOrIdParams,
        body: fromTracesBody,
        response: { 201: z.object({ recordsCreated: z.number().int(), version: z.number().int() }), 202: importSchema, ...errors },
      },
    }, async (req, s, reply) => {
      // What is added is read from traces: the caller must be allowed to read them.
      if (!s.principal.projectPermissions(s.projectId).has('traces:view')) throw forbidden('adding traces to a dataset also needs the traces:view permission');
      const { status, body } = await addFromTraces(deps, datasetScope(req, s), req.params.slugOrId, req.body);
      return reply.status(status).send(body);
    });

    r.get('/api/dataset/:slugOrId/trace-mapping', {
      config: auth('datasets:view'),
      schema: {
        summary: 'The column mapping last used to add traces to this dataset (the one POST .../from-traces uses when it is sent none)',
        params: slugOrIdParams,
        response: { 200: traceMappingAnswer, ...errors },
      },
    }, (req, s) => traceMapping(deps, datasetScope(req, s), req.params.slugOrId));

    r.get('/api/dataset/:slugOrId/imports/:importId', {
      config: auth('datasets:view'),
      schema: {
        summary: 'Progress of adding the traces matching a search: queued, running (done of total), completed or failed',
        params: slugOrIdParams.extend({ importId: z.string().min(1).max(100) }),
        response: { 200: importSchema, ...errors },
      },
    }, (req, s) => getImport(deps, datasetScope(req, s), req.params.slugOrId, req.params.importId));

    r.get('/api/dataset/:slugOrId/export', {
      config: auth('datasets:view'),
      schema: {
        summary: 'The records as CSV (formula-like cells escaped with a leading \' unless `?cells=exact`) or JSON lines, streamed; `?version=N` as of version N',
        params: slugOrIdParams,
        querystring: exportQuery,
        produces: ['text/csv', 'application/x-ndjson'],
        response: errors,
      },
    }, async (req, s, reply) => {
      const { stream, filename, contentType } = await exportDataset(deps, datasetScope(req, s), req.params.slugOrId, req.query.format, req.query.version, req.query.cells);
      return reply.header('content-type', contentType).header('content-disposition', `attachment; filename="${filename}"`).send(stream);
    });
  });
}
