/**
 * The MCP tools. Each one *is* an API route: its input schema is built from the route's own
 * zod schemas, the call goes through that route in-process (so the same use case, the same
 * permission check, the same project isolation and the same validation answer it), and only
 * the rendering of the answer is the tool's own: short readable text sized for a model's
 * context, with long texts clipped and a note saying how to get the rest.
 */
import { z } from 'zod';
import { searchRequestSchema, searchResponseSchema, spanParams, spanSchema, traceIdParams, traceOutlineSchema } from '../traces/index.ts';
import { promptSchema, selectionQuery, tagBody, tagSchema, updatePromptBody } from '../prompts/index.ts';
import { addRecordsBody, datasetListSchema, datasetPageQuery, fromTracesBody, importSchema } from '../datasets/index.ts';
import { catalogueResponse, evaluateBody, evaluationResultSchema } from '../evaluators/index.ts';
import { annotationSchema, annotationTraceParams, createAnnotationBody } from '../annotations/index.ts';
import {
  compareQuery,
  compareResponse,
  experimentListResponse,
  PLATFORM_SLUG_PARAMS,
  regressionsQuery,
  regressionsResponse,
  runListResponse,
  runParams,
  runsQuery,
  runStatusResponse,
  startRunBody,
  startRunResponse,
} from '../experiments/index.ts';
import { historyQuery, historyResponse, ruleSchema } from '../alerts/index.ts';
import { judgeTrustQuery, judgeTrustResponse } from '../judge-alignment/index.ts';
import { chartDataBody, chartDataSchema, chartParams } from '../dashboards/index.ts';
import { approxTokens, clip, duration, iso, oneLine, payload, text, usd } from './render.ts';

/** A request to the API, made in-process with the caller's credentials. */
export interface ApiRequest {
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

export interface ToolSpec<S extends z.ZodObject = z.ZodObject, A = unknown> {
  name: string;
  title: string;
  description: string;
  /** The API route this tool calls, as the route table spells it: its permission is the tool's. */
  route: string;
  /** True when the tool changes nothing. */
  readOnly: boolean;
  input: S;
  request(args: z.output<S>): ApiRequest;
  /** The route's 2xx answer (typed by the route's response schema) as text for the model. */
  render(answer: A, args: z.output<S>): string;
  /**
   * The judges whose numbers the answer shows (evaluators as their results name them): each one's
   * trust (GET /api/judge-alignment/trust) follows the answer, so a model reads a verdict with
   * whether its judge agrees with people; with `counts` (the answer's passed of judged), that
   * raw pass rate corrected for the judge's errors, as the run page shows it.
   */
  judges?(answer: A): JudgeOfAnswer[];
}

/** A judge behind an answer's numbers: the evaluator as its results name it, and its raw counts there. */
export interface JudgeOfAnswer {
  evaluator: string;
  /** a custom judge's version (a server run pins one) */
  version?: number | null;
  counts?: { passed: number; judged: number };
}

/** A tool, its answer typed by the route's response schema. */
// The list holds tools of many answer types; each was checked against its own where it is written.
const tool = <S extends z.ZodObject, A>(spec: ToolSpec<S, A>) => spec as unknown as ToolSpec;
const seg = encodeURIComponent;

type SearchAnswer = z.infer<typeof searchResponseSchema>;
type TraceSummary = SearchAnswer['traces'][number];
type TraceOutline = z.infer<typeof traceOutlineSchema>;
type SpanOutline = TraceOutline['spans'][number];
type Span = z.infer<typeof spanSchema>;
type Prompt = z.infer<typeof promptSchema>;
type EvaluationResult = z.infer<typeof evaluationResultSchema>;
type TraceEvaluation = { name?: unknown; evaluator_id?: unknown; status?: unknown; passed?: unknown; score?: unknown };

const TRACE_PAGE_DEFAULT = 20;
const SPAN_PAGE_DEFAULT = 150;
const SPAN_PAGE_MAX = 500;

const metaText = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

function traceLine(t: TraceSummary): string {
  const m = t.metrics;
  const tokens = (m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0);
  const parts = [
    t.trace_id,
    iso(t.timestamps?.started_at),
    duration(m.total_time_ms),
    usd(m.total_cost),
    `${tokens} tokens`,
    t.span_count !== undefined ? `${t.span_count} spans` : null,
    t.error ? `ERROR: ${oneLine(t.error.message, 120)}` : null,
    metaText(t.metadata.user_id) ? `user ${metaText(t.metadata.user_id)}` : null,
    metaText(t.metadata.thread_id) ? `thread ${metaText(t.metadata.thread_id)}` : null,
  ].filter(Boolean);
  const evals = t.evaluations ?? [];
  const verdicts = evals.length ? `\n  evaluations: ${evals.map((e) => `${e.name}=${e.passed === null ? (e.score ?? e.status) : e.passed ? 'pass' : 'fail'}`).join(', ')}` : '';
  return `- ${parts.join(' · ')}\n  in: ${oneLine(t.input.value, 200)}\n  out: ${oneLine(t.output.value, 200)}${verdicts}`;
}

/** The spans of an outline in tree order (parents before children, siblings by start), with depth. */
function spanTree(spans: SpanOutline[]): { span: SpanOutline; depth: number }[] {
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string | null, SpanOutline[]>();
  for (const s of spans) {
    const parent = s.parent_id && ids.has(s.parent_id) ? s.parent_id : null;
    const list = children.get(parent);
    if (list) list.push(s);
    else children.set(parent, [s]);
  }
  for (const list of children.values()) list.sort((a, b) => a.timestamps.started_at - b.timestamps.started_at);
  const out: { span: SpanOutline; depth: number }[] = [];
  const stack: { span: SpanOutline; depth: number }[] = (children.get(null) ?? []).map((span) => ({ span, depth: 0 })).reverse();
  while (stack.length) {
    const next = stack.pop()!;
    out.push(next);
    const kids = children.get(next.span.span_id) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: next.depth + 1 });
  }
  return out;
}

function spanLine(s: SpanOutline, depth: number): string {
  const t = s.timestamps;
  const m = s.metrics;
  const tokens = m.prompt_tokens !== null || m.completion_tokens !== null ? ` ${(m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0)} tok` : '';
  const cost = typeof m.cost === 'number' ? ` ${usd(m.cost)}` : '';
  const err = s.error ? ` ERROR: ${oneLine(s.error.message, 120)}` : '';
  const label = `${oneLine(s.name ?? '(unnamed)', 80)} [${s.type}${s.model ? ` ${s.model}` : ''}]`;
  return `${'  '.repeat(Math.min(depth, 12))}${label} ${duration(t.finished_at - t.started_at)}${tokens}${cost}${err} (span ${s.span_id})`;
}

/** A trace outline as text: header, the spans that failed, then one page of the span tree. */
export function renderTraceOutline(trace: TraceOutline, offset: number, limit: number): string {
  const spans = trace.spans;
  const m = trace.metrics;
  const lines = [
    `Trace ${trace.trace_id}`,
    `started ${iso(trace.timestamps?.started_at)} · ${duration(m.total_time_ms)} · ${usd(m.total_cost)} · ${m.prompt_tokens ?? 0} prompt + ${m.completion_tokens ?? 0} completion tokens · ${spans.length} spans`,
  ];
  if (trace.error?.message) lines.push(`ERROR: ${clip(trace.error.message, 1000, 'get_span on the failing span has the rest')}`);
  const meta = Object.entries(trace.metadata).filter(([k]) => !['sdk_version', 'sdk_language'].includes(k));
  if (meta.length) lines.push(`metadata: ${clip(meta.map(([k, v]) => `${k}=${text(v)}`).join(', '), 600, 'the API has all of it: GET /api/trace/{id}')}`);
  lines.push(`input: ${clip(trace.input.value, 1500, 'get_span on the root span has the whole input')}`);
  lines.push(`output: ${clip(trace.output.value, 1500, 'get_span on the root span has the whole output')}`);
  const evaluations = trace.evaluations as TraceEvaluation[];
  if (evaluations.length) {
    const verdict = (e: TraceEvaluation) => `${text(e.name ?? e.evaluator_id)}: ${text(e.status)}${e.passed === true ? ' pass' : e.passed === false ? ' fail' : ''}${typeof e.score === 'number' ? ` score ${e.score}` : ''}`;
    lines.push(`evaluations: ${evaluations.slice(0, 20).map(verdict).join('; ')}`);
  }
  const tree = spanTree(spans);
  const failing = tree.filter((x) => x.span.error);
  if (failing.length) {
    lines.push('', `Spans with an error (${failing.length}${failing.length > 20 ? ', first 20' : ''}):`);
    for (const f of failing.slice(0, 20)) lines.push(spanLine(f.span, 0));
  }
  const page = tree.slice(offset, offset + limit);
  lines.push('', spans.length ? `Span tree, spans ${offset + 1}-${offset + page.length} of ${spans.length}:` : 'No spans.');
  for (const p of page) lines.push(spanLine(p.span, p.depth));
  if (offset + page.length < spans.length) {
    lines.push(`… ${spans.length - offset - page.length} more spans: call get_trace with span_offset=${offset + page.length} (span_limit up to ${SPAN_PAGE_MAX}).`);
  }
  lines.push('', 'get_span with a span id shows its input, output, parameters and attributes.');
  return lines.join('\n');
}

function renderSpan(s: Span, maxChars: number): string {
  const more = `call get_span with a larger max_chars (up to 50000), or GET /api/trace/${s.trace_id}/spans/${s.span_id} for the whole span`;
  const t = s.timestamps;
  const m = s.metrics;
  const lines = [
    `Span ${s.span_id} of trace ${s.trace_id}${s.parent_id ? ` (parent ${s.parent_id})` : ''}`,
    `${s.name ?? '(unnamed)'} [${s.type}${s.model ? ` ${s.model}` : ''}${s.vendor ? ` via ${s.vendor}` : ''}] started ${iso(t.started_at)}, ${duration(t.finished_at - t.started_at)}${t.first_token_at ? `, first token after ${duration(t.first_token_at - t.started_at)}` : ''}`,
    `tokens: ${m.prompt_tokens ?? '-'} prompt, ${m.completion_tokens ?? '-'} completion${m.tokens_estimated ? ' (estimated)' : ''} · cost ${usd(m.cost)}`,
  ];
  if (s.error) lines.push(`ERROR: ${clip(s.error.message, maxChars, more)}${s.error.stacktrace.length ? `\nstacktrace:\n${clip(s.error.stacktrace.join('\n'), maxChars, more)}` : ''}`);
  if (Object.keys(s.params).length) lines.push(`params: ${clip(JSON.stringify(s.params), maxChars, more)}`);
  lines.push(`input:\n${clip(payload(s.input), maxChars, more)}`);
  lines.push(`output:\n${clip(payload(s.output), maxChars, more)}`);
  if (s.attributes && Object.keys(s.attributes).length) lines.push(`attributes: ${clip(JSON.stringify(s.attributes), maxChars, more)}`);
  if (s.events?.length) lines.push(`events: ${clip(JSON.stringify(s.events), maxChars, more)}`);
  return lines.join('\n');
}

export function renderPrompt(p: Prompt): string {
  const more = 'GET /api/prompts/{id} has the whole prompt';
  const lines = [
    `Prompt ${p.handle ?? p.id} (${p.name}) version ${p.version} (versionId ${p.versionId}), ${p.scope.toLowerCase()} scope`,
    `model ${p.model} · tags: ${p.tags.length ? p.tags.join(', ') : 'none'} · saved ${p.versionCreatedAt}${p.commitMessage ? ` · "${oneLine(p.commitMessage, 200)}"` : ''}`,
  ];
  if (p.prompt) lines.push(`system prompt:\n${clip(p.prompt, 20_000, more)}`);
  for (const msg of p.messages) lines.push(`${msg.role}: ${clip(msg.content, 5000, more)}`);
  if (p.inputs.length) lines.push(`inputs: ${p.inputs.map((i) => `${i.identifier} (${i.type})`).join(', ')}`);
  if (p.outputs.length) lines.push(`outputs: ${p.outputs.map((o) => `${o.identifier} (${o.type})`).join(', ')}`);
  if (p.response_format) lines.push(`response_format: ${clip(JSON.stringify(p.response_format), 4000, more)}`);
  return lines.join('\n');
}

const pageNumber = z.number().int().min(1).max(10_000);

export const TOOLS: ToolSpec[] = [
  tool({
    name: 'search_traces',
    title: 'Search traces',
    description:
      'Search the project\'s traces: full text over inputs and outputs, filters (user, thread, customer, labels, model, span type, errors, evaluations, metadata), a time range, sorting and paging. Answers one line per trace with its id; get_trace reads one.',
    route: 'POST /api/trace/search',
    readOnly: true,
    input: searchRequestSchema.extend({ pageSize: z.number().int().min(1).max(100).optional().describe(`traces per page, 1..100; default ${TRACE_PAGE_DEFAULT}`) }),
    request: (args) => ({ path: '/api/trace/search', body: { ...args, pageSize: args.pageSize ?? TRACE_PAGE_DEFAULT } }),
    render: (a: SearchAnswer) => {
      const traces = a.traces;
      const total = `${a.pagination.totalHitsRelation === 'gte' ? 'at least ' : ''}${a.pagination.totalHits}`;
      const lines = [`${traces.length} of ${total} matching traces:`, ...traces.map(traceLine)];
      if (a.pagination.scrollId) lines.push(`More: call search_traces again with the same arguments and scrollId="${a.pagination.scrollId}".`);
      return lines.join('\n');
    },
  }),
  tool({
    name: 'get_trace',
    title: 'Read a trace',
    description:
      'One trace as a readable outline: timing, cost, tokens, errors, input and output (clipped), its evaluations, the spans that failed, and its span tree one page at a time (span_offset, span_limit). get_span reads one span whole.',
    route: 'GET /api/trace/:id/outline',
    readOnly: true,
    input: traceIdParams.extend({
      span_offset: z.number().int().min(0).default(0).describe('first span of the tree page (0-based)'),
      span_limit: z.number().int().min(1).max(SPAN_PAGE_MAX).default(SPAN_PAGE_DEFAULT).describe(`spans per page, 1..${SPAN_PAGE_MAX}`),
    }),
    request: (args) => ({ path: `/api/trace/${seg(args.id)}/outline` }),
    render: (answer: TraceOutline, args) => renderTraceOutline(answer, args.span_offset, args.span_limit),
  }),
  tool({
    name: 'get_span',
    title: 'Read a span',
    description: 'One span of a trace in full: input, output, parameters, attributes, events, error and stack trace; long texts clipped at max_chars each.',
    route: 'GET /api/trace/:id/spans/:spanId',
    readOnly: true,
    input: spanParams.extend({ max_chars: z.number().int().min(200).max(50_000).default(4000).describe('characters kept of each long field') }),
    request: (args) => ({ path: `/api/trace/${seg(args.id)}/spans/${seg(args.spanId)}` }),
    render: (answer: Span, args) => renderSpan(answer, args.max_chars),
  }),
  tool({
    name: 'get_thread',
    title: 'Read a conversation thread',
    description: 'The traces of one thread (thread_id in trace metadata), oldest first, as a conversation: each turn\'s input and output with its trace id, latency, cost and error.',
    route: 'POST /api/trace/search',
    readOnly: true,
    input: z.strictObject({
      thread_id: z.string().min(1).max(500),
      pageSize: z.number().int().min(1).max(100).default(50).describe('turns per page'),
      scrollId: searchRequestSchema.shape.scrollId,
    }),
    request: (args) => ({
      path: '/api/trace/search',
      body: { filters: { thread_id: args.thread_id }, sortBy: 'started_at', sortDirection: 'asc', pageSize: args.pageSize, scrollId: args.scrollId },
    }),
    render: (a: SearchAnswer, args) => {
      const traces = a.traces;
      if (!traces.length) return `No traces in thread ${args.thread_id}.`;
      const lines = [`Thread ${args.thread_id}: ${traces.length} of ${a.pagination.totalHits} turns, oldest first.`];
      for (const t of traces) {
        const m = t.metrics;
        lines.push(
          '',
          `[${iso(t.timestamps.started_at)} · trace ${t.trace_id} · ${duration(m.total_time_ms)} · ${usd(m.total_cost)}${t.error ? ` · ERROR: ${oneLine(t.error.message, 120)}` : ''}]`,
          `user: ${clip(t.input.value, 1500, 'get_trace has the whole turn')}`,
          `assistant: ${clip(t.output.value, 1500, 'get_trace has the whole turn')}`,
        );
      }
      if (a.pagination.scrollId) lines.push('', `More turns: call get_thread again with scrollId="${a.pagination.scrollId}".`);
      return lines.join('\n');
    },
  }),
  tool({
    name: 'list_prompts',
    title: 'List prompts',
    description: 'The prompts the project can use, each with its handle, latest version, model and tags.',
    route: 'GET /api/prompts',
    readOnly: true,
    input: z.strictObject({}),
    request: () => ({ path: '/api/prompts' }),
    render: (prompts: Prompt[]) => {
      if (!prompts.length) return 'No prompts yet.';
      return [
        `${prompts.length} prompts:`,
        ...prompts.map((p) => `- ${p.handle ?? p.id} · v${p.version} · ${p.model} · tags: ${p.tags.length ? p.tags.join(', ') : 'none'} · ${oneLine(p.name, 80)}`),
      ].join('\n');
    },
  }),
  tool({
    name: 'get_prompt',
    title: 'Read a prompt',
    description: 'One prompt by handle or id: its latest version, a version number, or the version a tag (e.g. production) points at; with its model, messages, inputs, outputs and tags.',
    route: 'GET /api/prompts/:id',
    readOnly: true,
    input: selectionQuery.pick({ version: true, tag: true }).extend({ id: z.string().min(1).max(300).describe('the prompt\'s handle (e.g. support/triage) or id') }),
    request: (args) => ({ path: `/api/prompts/${seg(args.id)}`, query: { version: args.version, tag: args.tag } }),
    render: (answer: Prompt) => renderPrompt(answer),
  }),
  tool({
    name: 'create_prompt_version',
    title: 'Save a new prompt version',
    description: 'Save a new version of a prompt (by handle or id): the fields given replace those of the latest version; commitMessage says what changed. Tags do not move: move_prompt_tag does that.',
    route: 'PUT /api/prompts/:id',
    readOnly: false,
    input: updatePromptBody.extend({ id: z.string().min(1).max(300).describe('the prompt\'s handle or id') }),
    request: ({ id, ...body }) => ({ path: `/api/prompts/${seg(id)}`, body }),
    render: (answer: Prompt) => `Saved.\n${renderPrompt(answer)}`,
  }),
  tool({
    name: 'move_prompt_tag',
    title: 'Point a tag at a prompt version',
    description: 'Point a tag (e.g. production, staging) of a prompt at one of its versions, by version number or versionId; applications reading the prompt by that tag get that version.',
    route: 'PUT /api/prompts/:id/tags/:tag',
    readOnly: false,
    input: tagBody.extend({ id: z.string().min(1).max(300).describe('the prompt\'s handle or id'), tag: z.string().min(1).max(50) }),
    request: ({ id, tag, ...body }) => ({ path: `/api/prompts/${seg(id)}/tags/${seg(tag)}`, body }),
    render: (t: z.infer<typeof tagSchema>) => `Tag ${t.tag} now points at version ${t.version} of prompt ${t.promptId}.`,
  }),
  tool({
    name: 'list_datasets',
    title: 'List datasets',
    description: 'The project\'s datasets, newest first: slug, name, record count and columns.',
    route: 'GET /api/dataset',
    readOnly: true,
    input: z.strictObject({ page: pageNumber.default(1), limit: z.number().int().min(1).max(200).default(50) }),
    request: (args) => ({ path: '/api/dataset', query: datasetPageQuery.parse(args) }),
    render: (a: z.infer<typeof datasetListSchema>) => {
      const rows = a.data;
      if (!rows.length) return 'No datasets yet.';
      const lines = rows.map((d) => `- ${d.slug} · ${oneLine(d.name, 80)} · ${d.recordCount} records · columns: ${d.columnTypes.map((c) => `${c.name} (${c.type})`).join(', ') || 'none'}`);
      const p = a.pagination;
      return [`Datasets, page ${p.page} of ${p.totalPages} (${p.total} in all):`, ...lines].join('\n');
    },
  }),
  tool({
    name: 'add_dataset_rows',
    title: 'Add rows to a dataset',
    description: 'Add up to 1,000 rows to a dataset (by slug or id); each row is an object of column name to value. Unknown columns are refused.',
    route: 'POST /api/dataset/:slugOrId/entries',
    readOnly: false,
    input: addRecordsBody.extend({ dataset: z.string().min(1).max(300).describe('the dataset\'s slug or id') }),
    request: ({ dataset, ...body }) => ({ path: `/api/dataset/${seg(dataset)}/entries`, body }),
    render: (_answer, args) => `Added ${args.entries.length} rows to dataset ${args.dataset}.`,
  }),
  tool({
    name: 'add_traces_to_dataset',
    title: 'Add traces to a dataset',
    description:
      'Add traces (or single spans) to a dataset: given by id (items, up to 1,000, added at once), or every trace matching a search (filter, up to 10,000, added by a background job). mapping says which column takes the input, output, contexts, messages or metadata; by default the dataset\'s last mapping.',
    route: 'POST /api/dataset/:slugOrId/from-traces',
    readOnly: false,
    input: fromTracesBody.extend({ dataset: z.string().min(1).max(300).describe('the dataset\'s slug or id') }),
    request: ({ dataset, ...body }) => ({ path: `/api/dataset/${seg(dataset)}/from-traces`, body }),
    // 201 {recordsCreated, version} for items; 202 the import job for a filter.
    render: (a: z.infer<typeof importSchema> | { recordsCreated: number; version: number }, args) =>
      'id' in a
        ? `Import ${a.id} into dataset ${args.dataset} is ${a.status}: ${a.done} of ${a.total} traces read, ${a.recordsCreated} rows added so far.`
        : `Added ${a.recordsCreated} rows to dataset ${args.dataset} (now version ${a.version}).`,
  }),
  tool({
    name: 'list_experiments',
    title: 'List experiments',
    description: 'The project\'s experiments, with their run counts and last run time.',
    route: 'GET /api/experiments',
    readOnly: true,
    input: z.strictObject({ page: pageNumber.default(1), pageSize: z.number().int().min(1).max(200).default(50) }),
    request: (args) => ({ path: '/api/experiments', query: args }),
    render: (a: z.infer<typeof experimentListResponse>) => {
      const rows = a.experiments;
      if (!rows.length) return 'No experiments yet.';
      return [
        `Experiments (page ${a.pagination.page}, ${a.pagination.totalHits} in all):`,
        ...rows.map((e) => `- ${e.slug}${e.name ? ` (${oneLine(e.name, 80)})` : ''} · ${e.type} · ${e.runsCount} runs · last run ${e.lastRunAt ?? 'never'}`),
      ].join('\n');
    },
  }),
  tool({
    name: 'list_runs',
    title: 'List the runs of an experiment',
    description: 'The runs of one experiment, newest first, each with its progress and its evaluators\' average scores and pass rates.',
    route: 'GET /api/experiments/runs',
    readOnly: true,
    input: z.strictObject({ experimentSlug: runsQuery.shape.experimentSlug, page: pageNumber.default(1), pageSize: z.number().int().min(1).max(200).default(20) }),
    request: (args) => ({ path: '/api/experiments/runs', query: args }),
    render: (a: z.infer<typeof runListResponse>) => {
      const runs = a.runs;
      if (!runs.length) return `Experiment ${a.experimentSlug} has no runs yet.`;
      const lines = runs.map((r) => {
        const evals = Object.values(r.summary.evaluations);
        const scores = evals
          .map((e) => `${e.name}: ${typeof e.averagePassed === 'number' ? `${(e.averagePassed * 100).toFixed(1)}% pass` : ''}${typeof e.averageScore === 'number' ? ` avg ${e.averageScore.toFixed(3)}` : ''}`)
          .join('; ');
        const state = r.timestamps.finishedAt ? 'finished' : r.timestamps.stoppedAt ? 'stopped' : 'running';
        return `- run ${r.runId} · ${iso(r.timestamps.createdAt)} · ${state} · ${r.progress}/${r.total} rows${scores ? ` · ${scores}` : ''}`;
      });
      return [`Runs of ${a.experimentSlug} (${a.pagination.totalHits} in all), newest first:`, ...lines].join('\n');
    },
    judges: (a: z.infer<typeof runListResponse>) =>
      a.runs.flatMap((r) => Object.entries(r.summary.evaluations).map(([evaluator, e]) => ({ evaluator: e.judge ?? evaluator, version: e.judgeVersion ?? null }))),
  }),
  tool({
    name: 'get_run',
    title: 'Summary of an experiment run',
    description: 'One run\'s status and summary: rows done and failed, per target and per evaluator passed, failed, pass rate and average score, cost, and the link to its page.',
    route: 'GET /api/experiments/runs/:runId',
    readOnly: true,
    input: runParams.extend({ experimentSlug: z.string().min(1).max(255).optional().describe('the experiment (needed when the run id is used by several)') }),
    request: (args) => ({ path: `/api/experiments/runs/${seg(args.runId)}`, query: { experimentSlug: args.experimentSlug } }),
    render: (a: z.infer<typeof runStatusResponse>) => {
      const s = a.summary;
      const lines = [`Run ${a.runId}: ${a.status}, ${a.progress}/${a.total} rows${a.error ? ` · error: ${oneLine(a.error, 300)}` : ''}`];
      if (s) {
        lines.push(
          `cells ${s.completedCells}/${s.totalCells} completed, ${s.failedCells} failed · pass rate ${s.passRate.toFixed(1)}% · cost ${usd(s.totalCost)} · ${duration(s.duration)}`,
          ...s.targets.map((t) => `target ${t.name}: ${t.passed} passed, ${t.failed} failed, avg latency ${duration(t.avgLatency)}, cost ${usd(t.totalCost)}`),
          ...s.evaluators.map((e) => `evaluator ${e.name}: ${e.passed} passed, ${e.failed} failed, pass rate ${e.passRate.toFixed(1)}%${typeof e.avgScore === 'number' ? `, avg score ${e.avgScore.toFixed(3)}` : ''}`),
          `page: ${s.runUrl}`,
        );
      }
      return lines.join('\n');
    },
    // as the run page: each judge's trust, and its pass rate in this run corrected for its errors
    judges: (a: z.infer<typeof runStatusResponse>) =>
      (a.summary?.evaluators ?? []).map((e) => ({ evaluator: e.judge ?? e.evaluatorId, version: e.judgeVersion ?? null, ...(e.passed + e.failed > 0 ? { counts: { passed: e.passed, judged: e.passed + e.failed } } : {}) })),
  }),
  tool({
    name: 'start_run',
    title: 'Start an experiment run',
    description:
      'Start a run of an experiment the server runs (one with a saved definition: dataset, targets, evaluators) over its dataset, or over given rows or row positions. Answers at once with the run id; follow it with get_run, then compare_to_baseline.',
    route: 'POST /api/experiments/:slug/run',
    readOnly: false,
    input: startRunBody.unwrap().unwrap().extend({ experimentSlug: PLATFORM_SLUG_PARAMS.shape.slug.describe("the experiment's slug") }),
    request: ({ experimentSlug, ...body }) => ({ path: `/api/experiments/${seg(experimentSlug)}/run`, body }),
    render: (a: z.infer<typeof startRunResponse>, args) =>
      `Run ${a.runId} of ${args.experimentSlug} started: ${a.total} rows. Page: ${a.runUrl}\nCall get_run with runId ${a.runId} (and experimentSlug ${args.experimentSlug}) to follow it.`,
  }),
  tool({
    name: 'compare_to_baseline',
    title: 'Compare a run with the baseline',
    description:
      "Whether a run is better, worse or not detectably different from the experiment's baseline run (or a run you name), per evaluator: difference of pass rate and mean score with its 95% confidence interval (paired bootstrap over the rows both runs scored), and how many rows regressed or improved.",
    route: 'GET /api/experiments/:slug/compare',
    readOnly: true,
    input: z.strictObject({
      experimentSlug: PLATFORM_SLUG_PARAMS.shape.slug.describe("the experiment's slug"),
      runId: z.string().min(1).max(255).describe('the run to judge'),
      baseline: compareQuery.shape.baseline.describe("the run to compare with; default: the experiment's marked baseline"),
    }),
    request: ({ experimentSlug, runId, baseline }) => ({ path: `/api/experiments/${seg(experimentSlug)}/compare`, query: { runs: runId, baseline } }),
    render: (a: z.infer<typeof compareResponse>) => {
      const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} pts`;
      const num = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
      const lines = a.comparisons.flatMap((c) => [
        `Run ${c.runId} against baseline ${c.baselineRunId} (${c.sharedRows} shared rows${c.correction.compared > 1 ? `; verdicts Holm-corrected for ${c.correction.compared} evaluators` : ''}):`,
        ...c.evaluators.map((e) => {
          const d = e.decidedBy === 'passRate' ? e.passRate : e.decidedBy === 'score' ? e.score : null;
          const fmt = e.decidedBy === 'passRate' ? pct : num;
          const interval = d ? ` · ${e.decidedBy === 'passRate' ? 'pass rate' : 'mean score'} ${fmt(d.difference)} [95% CI ${fmt(d.low)} to ${fmt(d.high)}], n=${d.n}` : '';
          const thin = d?.notEnoughData === 'too few rows' ? ` (${d.rowsNeeded ?? c.minimumRows} rows needed)` : d?.notEnoughData === 'no spread' ? ' (every row differs by the same amount)' : '';
          return `- ${e.name}: ${e.verdict}${thin}${interval} · ${e.regressions} regressed, ${e.improvements} improved`;
        }),
      ]);
      return [...lines, 'list_regressions shows the rows that changed.'].join('\n');
    },
    // a server run's evaluator id (exact) names the judge it ran (langevals/exact_match)
    judges: (a: z.infer<typeof compareResponse>) =>
      a.comparisons.flatMap((c) =>
        c.evaluators.map((e) => {
          const j = a.judges.find((x) => x.evaluator === e.evaluator);
          return { evaluator: j?.judge ?? e.evaluator, version: j?.version ?? null };
        }),
      ),
  }),
  tool({
    name: 'list_regressions',
    title: 'Rows that regressed against the baseline',
    description: "Rows that passed in the baseline run and fail in this run (regressed), or the reverse (improved), with the row's input, both outputs and both verdicts.",
    route: 'GET /api/experiments/:slug/compare/regressions',
    readOnly: true,
    input: z.strictObject({
      experimentSlug: PLATFORM_SLUG_PARAMS.shape.slug.describe("the experiment's slug"),
      runId: z.string().min(1).max(255).describe('the run to judge'),
      baseline: regressionsQuery.shape.baseline.describe("the run to compare with; default: the experiment's marked baseline"),
      evaluator: regressionsQuery.shape.evaluator.describe('only this evaluator (its id)'),
      direction: regressionsQuery.shape.direction.describe('regressed (default: both) or improved'),
      page: pageNumber.default(1),
      pageSize: z.number().int().min(1).max(100).default(20),
    }),
    request: ({ experimentSlug, runId, ...rest }) => ({ path: `/api/experiments/${seg(experimentSlug)}/compare/regressions`, query: { runs: runId, ...rest } }),
    render: (a: z.infer<typeof regressionsResponse>) => {
      const verdict = (s: { passed: boolean | null; status: string; score: number | null }) => (s.passed === true ? 'pass' : s.passed === false ? 'fail' : s.status) + (s.score !== null ? ` (${s.score})` : '');
      const head = `Run ${a.runId} against ${a.baselineRunId}: ${a.counts.regressed} regressed, ${a.counts.improved} improved.`;
      if (!a.rows.length) return head;
      const { page, totalHits } = a.pagination;
      const rows = a.rows.map(
        (r) =>
          `- row ${r.index}${r.targetId ? ` (target ${r.targetId})` : ''} · ${r.evaluator} ${r.direction}: ${verdict(r.baseline)} -> ${verdict(r.current)}\n  entry: ${oneLine(JSON.stringify(r.entry), 300)}\n  baseline output: ${oneLine(JSON.stringify(r.baseline.predicted), 200)}\n  this run: ${oneLine(JSON.stringify(r.current.predicted ?? r.current.error), 200)}${r.current.traceId ? `\n  trace: ${r.current.traceId}` : ''}`,
      );
      const more = a.pagination.hasMore ? `\n(page ${page}; ${totalHits} in all: ask page ${page + 1} for more)` : '';
      return [head, ...rows].join('\n') + more;
    },
  }),
  tool({
    name: 'list_evaluators',
    title: 'List evaluators',
    description: 'The evaluator catalogue: each evaluator\'s path (for run_evaluator), what it checks, the data keys it reads and whether it can run on this server.',
    route: 'GET /api/evaluations',
    readOnly: true,
    input: z.strictObject({}),
    request: () => ({ path: '/api/evaluations' }),
    render: (answer: z.infer<typeof catalogueResponse>) => {
      const list = answer.evaluators;
      return [
        `${list.length} evaluators:`,
        ...list.map((e) => {
          const schema = e.data as { properties?: Record<string, unknown>; required?: string[] };
          const keys = Object.keys(schema.properties ?? {});
          const required = new Set(schema.required ?? []);
          const data = keys.map((k) => (required.has(k) ? `${k}*` : k)).join(', ');
          return `- ${e.path}: ${oneLine(e.description, 160)} · data: ${data || '-'}${e.available ? '' : ` · unavailable: ${oneLine(e.unavailable_reason ?? '', 120)}`}`;
        }),
        '(* = required data key)',
      ].join('\n');
    },
  }),
  tool({
    name: 'run_evaluator',
    title: 'Run an evaluator',
    description: 'Run one evaluator of the catalogue (its path, e.g. pii/pii_detection) on given data, with optional settings; optionally store the result on a trace (trace_id).',
    route: 'POST /api/evaluations/:family/:name/evaluate',
    readOnly: false,
    input: evaluateBody.extend({ evaluator: z.string().regex(/^[A-Za-z0-9_.-]{1,64}\/[A-Za-z0-9_.-]{1,128}$/, 'an evaluator path: family/name, e.g. pii/pii_detection').describe('the evaluator\'s path, from list_evaluators') }),
    request: ({ evaluator, ...body }) => ({ path: `/api/evaluations/${evaluator.split('/').map(seg).join('/')}/evaluate`, body }),
    render: (answer: EvaluationResult | EvaluationResult[], args) => {
      const results = Array.isArray(answer) ? answer : [answer];
      return results
        .map((r) => {
          const verdict = r.passed === true ? 'passed' : r.passed === false ? 'failed' : null;
          const parts = [`${args.evaluator}: ${r.status}`, verdict, typeof r.score === 'number' ? `score ${r.score}` : null, r.label ? `label ${r.label}` : null, r.cost ? `cost ${usd(r.cost.amount)}` : null];
          const details = r.details ?? r.traceback?.join('\n');
          return `${parts.filter(Boolean).join(' · ')}${details ? `\n${clip(text(details), 4000, 'POST the same request to the API for the whole answer')}` : ''}`;
        })
        .join('\n');
    },
  }),
  tool({
    name: 'add_annotation',
    title: 'Annotate a trace',
    description:
      "Add a comment with a thumbs up or down to a trace (or, with anchorKind span and anchorId, to one of its spans), optionally with scores that follow the project's score configs (their ids: GET /api/score-configs).",
    route: 'POST /api/annotations/trace/:id',
    readOnly: false,
    input: createAnnotationBody.extend({ trace_id: annotationTraceParams.shape.id }),
    request: ({ trace_id, ...body }) => ({ path: `/api/annotations/trace/${seg(trace_id)}`, body }),
    render: (answer: { data: z.infer<typeof annotationSchema> }, args) => {
      const scores = answer.data.scores ?? [];
      return `Annotation ${answer.data.id} added to trace ${args.trace_id}${scores.length ? ` with scores ${scores.map((x) => `${x.name}=${String(x.value)}`).join(', ')}` : ''}.`;
    },
  }),
  tool({
    name: 'list_alert_rules',
    title: 'List alert rules',
    description:
      "The project's alert rules: what each watches, its condition, and its state (ok, firing, resolved) per segment; for a rule on a judge's pass rate or score, whether that judge can be trusted (and whether the rule requires it).",
    route: 'GET /api/alerts/rules',
    readOnly: true,
    input: z.strictObject({}),
    request: () => ({ path: '/api/alerts/rules' }),
    render: (a: { data: z.infer<typeof ruleSchema>[] }) => {
      if (!a.data.length) return 'No alert rules yet.';
      return [
        `${a.data.length} alert rules:`,
        ...a.data.map((r) => {
          const c = r.condition as { kind: string; operator?: string; value?: number; alpha?: number; baseline?: { kind: string } };
          const condition = c.kind === 'threshold' ? `${c.operator} ${c.value}` : `change vs ${c.baseline?.kind ?? 'previous'} (alpha ${c.alpha})`;
          const firing = r.segments.filter((s) => s.state === 'firing').map((s) => s.segment || 'all');
          const judge = r.judge
            ? ` · judge ${r.judge.evaluator} ${r.judge.state} (${oneLine(r.judge.reason, 160)})${r.metric.requireTrusted ? (r.judge.holding ? ' · requires a trusted judge: held' : ' · requires a trusted judge') : ''}`
            : '';
          return `- ${r.id} · ${oneLine(r.name, 80)} · ${r.metric.kind}${r.metric.evaluator ? ` of ${r.metric.evaluator}` : ''}${r.splitBy ? ` by ${r.splitBy}` : ''} · ${r.windowMinutes} min windows · ${condition} · ${r.state}${firing.length ? ` (${firing.join(', ')})` : ''}${r.muted ? ' · muted' : ''}${judge}`;
        }),
      ].join('\n');
    },
  }),
  tool({
    name: 'get_alert_history',
    title: "Read an alert rule's history",
    description: 'The evaluations of one alert rule, newest first: per window and segment the value, the baseline, the counts, the 95 % interval, the p-value and the decision.',
    route: 'GET /api/alerts/rules/:id/history',
    readOnly: true,
    input: historyQuery.extend({ id: z.string().min(1).max(100).describe("the rule's id (list_alert_rules)") }),
    request: ({ id, ...query }) => ({ path: `/api/alerts/rules/${seg(id)}/history`, query }),
    render: (a: z.infer<typeof historyResponse>) => {
      if (!a.data.length) return 'No evaluations yet: the first one comes when the rule\'s first window ends.';
      const n = (v: number | null) => (v === null ? '-' : Number(v.toPrecision(4)).toString());
      return a.data
        .map(
          (e) =>
            `${iso(e.windowStart)} .. ${iso(e.windowEnd)}${e.segment ? ` · ${e.segment}` : ''} · value ${n(e.value)} [${n(e.low)}, ${n(e.high)}] of ${e.count}` +
            `${e.baselineCount !== null ? ` · baseline ${n(e.baseline)} of ${e.baselineCount}` : ''}${e.pValue !== null ? ` · p ${e.pValue.toPrecision(2)}` : ''} · ${e.decision} → ${e.state}${e.held ? ` · held: ${e.held}` : ''}`,
        )
        .join('\n');
    },
  }),
  tool({
    name: 'get_judge_trust',
    title: 'Can this judge be trusted?',
    description:
      "Whether an evaluator's verdicts agree with people's labels enough to trust them: against each human score config that labelled some of its traces, trusted / not trusted / not enough labels with the reason; with passed and judged, that raw pass rate corrected for the judge's errors.",
    route: 'GET /api/judge-alignment/trust',
    readOnly: true,
    input: judgeTrustQuery.extend({ evaluator: judgeTrustQuery.shape.evaluator.describe('the evaluator as its results name it: langevals/exact_match, custom/<slug>') }),
    request: (query) => ({ path: '/api/judge-alignment/trust', query }),
    render: (a: z.infer<typeof judgeTrustResponse>) => {
      const judge = `${a.evaluator}${a.version === null ? '' : ` v${a.version}`}`;
      if (!a.data.length) return `${judge}: no human labels to measure it against yet (label some of its traces with a score config).`;
      const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
      return a.data
        .map(
          (t) =>
            `${judge} against ${t.scoreConfig.name} (${t.scoreConfig.id}): ${t.trust.state}: ${t.trust.reason}` +
            (t.corrected ? ` · corrected pass rate ${pct(t.corrected.value)} [${pct(t.corrected.low)}, ${pct(t.corrected.high)}]` : ''),
        )
        .join('\n');
    },
  }),
  tool({
    name: 'get_dashboard_chart',
    title: "Read a dashboard chart's data",
    description:
      "One chart of a project dashboard (id default: the default dashboard; GET /api/dashboards lists them): its series per interval and its whole-range figure, computed as POST /api/analytics/timeseries computes them, with the query it read.",
    route: 'POST /api/dashboards/:id/charts/:chartId/data',
    readOnly: true,
    input: chartDataBody.omit({ now: true }).extend({
      id: chartParams.shape.id.describe("the dashboard's id ('default' for the default dashboard)"),
      chartId: chartParams.shape.chartId.describe("the chart's id (in the dashboard's definition, GET /api/dashboards/{id})"),
    }),
    request: ({ id, chartId, ...body }) => ({ path: `/api/dashboards/${seg(id)}/charts/${seg(chartId)}/data`, body }),
    render: (a: z.infer<typeof chartDataSchema>) => {
      const n = (v: number | null) => (v === null ? '-' : Number(v.toPrecision(6)).toString());
      const lines = [
        `${a.chart.title} (${a.chart.metric}${a.chart.groupBy ? ` by ${a.chart.groupBy}` : ''}) · ${iso(a.startDate)} .. ${iso(a.endDate)} · one point per ${a.interval}`,
        `whole range: ${n(a.value)}`,
        `query (POST /api/analytics/timeseries): ${JSON.stringify(a.query)}`,
      ];
      if (!a.series.length) lines.push('No series in this range.');
      for (const s of a.series.slice(0, 11)) {
        const points = s.points.filter((p) => p.value !== null);
        lines.push(`- ${oneLine(s.name, 80)}: total ${n(s.total)}; ${points.length ? clip(points.map((p) => `${iso(p.start)} ${n(p.value)}`).join(', '), 1500, 'the API answers every point') : 'no values'}`);
      }
      return lines.join('\n');
    },
  }),
];

export { approxTokens };
