import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Permission } from '../../platform/auth/index.ts';
import { judgeTrustResponse } from '../judge-alignment/index.ts';
import { renderPrompt, renderTraceOutline, TOOLS, type ApiRequest, type JudgeOfAnswer, type ToolSpec } from './tools.ts';

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** What one MCP request may do: the API, called in-process with its caller's credentials. */
export interface McpCaller {
  call(method: string, request: ApiRequest): Promise<ApiAnswer>;
  /** Whether the caller holds a permission on the project it acts on. */
  can(permission: Permission): boolean;
}

/** Each tool with the permission of the route it calls (null: the route's use case decides). */
export type ToolPermissions = Map<string, Permission | null>;

/** The error of an API answer in a sentence: status, code and message, in any of the API's three error shapes. */
export function apiErrorText({ status, body }: ApiAnswer): string {
  const b = (body ?? {}) as { error?: unknown; message?: unknown };
  if (b.error && typeof b.error === 'object') {
    const e = b.error as { code?: string; message?: string };
    return `${status} ${e.code ?? 'error'}: ${e.message ?? ''}`.trim();
  }
  if (typeof b.error === 'string') return `${status} ${b.error}${typeof b.message === 'string' ? `: ${b.message}` : ''}`;
  if (typeof b.message === 'string') return `${status}: ${b.message}`;
  return `${status}`;
}

const methodOf = (spec: ToolSpec) => spec.route.split(' ')[0];
const ok = (a: ApiAnswer) => a.status >= 200 && a.status < 300;

/** A fresh MCP server for one request (the transport is stateless): tools, resources and prompts for this caller. */
export function buildMcpServer(caller: McpCaller, permissions: ToolPermissions, version: string): McpServer {
  const allowed = (spec: ToolSpec) => {
    const permission = permissions.get(spec.name);
    return permission === null || (permission !== undefined && caller.can(permission));
  };
  const refused = TOOLS.filter((t) => !allowed(t));
  const server = new McpServer(
    { name: 'spyglass', title: 'Spyglass', version },
    {
      instructions: [
        'Spyglass holds this project\'s LLM traces, prompts, datasets, experiments and evaluators.',
        'Start with search_traces or list_* tools; get_trace and get_span read one trace or span; answers are clipped and say how to page.',
        refused.length
          ? `This key may not use: ${refused.map((t) => `${t.name} (needs ${permissions.get(t.name)})`).join(', ')}.`
          : '',
      ]
        .filter(Boolean)
        .join('\n'),
    },
  );

  for (const spec of TOOLS) {
    const registered = server.registerTool(
      spec.name,
      { title: spec.title, description: spec.description, inputSchema: spec.input, annotations: { readOnlyHint: spec.readOnly, openWorldHint: false } },
      async (args: unknown) => {
        const parsed = args as z.output<typeof spec.input>;
        const answer = await caller.call(methodOf(spec), spec.request(parsed));
        if (!ok(answer)) return { isError: true, content: [{ type: 'text' as const, text: `The API refused: ${apiErrorText(answer)}` }] };
        const trust = spec.judges ? await judgesTrust(caller, spec.judges(answer.body)) : '';
        return { content: [{ type: 'text' as const, text: spec.render(answer.body, parsed) + trust }] };
      },
    );
    // Listed only to callers that hold the route's permission; a call anyway is refused by the SDK.
    if (!allowed(spec)) registered.disable();
  }

  const readVia = async (request: ApiRequest, uri: string): Promise<unknown> => {
    const answer = await caller.call('GET', request);
    if (ok(answer)) return answer.body;
    throw new McpError(answer.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${uri}: ${apiErrorText(answer)}`);
  };

  server.registerResource(
    'trace',
    new ResourceTemplate('spyglass://trace/{id}', { list: undefined }),
    { title: 'A trace', description: 'A trace of the project as a readable outline (its first spans; get_trace pages the rest)', mimeType: 'text/plain' },
    async (uri, { id }) => {
      const traceId = decodeURIComponent(String(id));
      const trace = await readVia({ path: `/api/trace/${encodeURIComponent(traceId)}/outline` }, uri.href);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: renderTraceOutline(trace as never, 0, 150) }] };
    },
  );
  server.registerResource(
    'prompt',
    new ResourceTemplate('spyglass://prompt/{+handle}', { list: undefined }),
    { title: 'A prompt', description: 'A prompt\'s latest version by handle (e.g. spyglass://prompt/support/triage)', mimeType: 'text/plain' },
    async (uri, { handle }) => {
      const prompt = await readVia({ path: `/api/prompts/${encodeURIComponent(decodeURIComponent(String(handle)))}` }, uri.href);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: renderPrompt(prompt as never) }] };
    },
  );

  server.registerPrompt(
    'explain_failed_trace',
    { title: 'Explain a failed trace', description: 'Why did this trace fail? Reads the trace and walks its failing spans.', argsSchema: { trace_id: z.string().min(1).max(128) } },
    async ({ trace_id }) => {
      const trace = await readVia({ path: `/api/trace/${encodeURIComponent(trace_id)}/outline` }, `spyglass://trace/${trace_id}`);
      return {
        messages: [
          {
            role: 'user' as const,
            content: {
              type: 'text' as const,
              text:
                `Explain why trace ${trace_id} failed. Its outline follows. Read the failing spans with get_span (their inputs, outputs and stack traces), ` +
                'find the first cause rather than its consequences, and say what to change. Quote span ids.',
            },
          },
          { role: 'user' as const, content: { type: 'resource' as const, resource: { uri: `spyglass://trace/${trace_id}`, mimeType: 'text/plain', text: renderTraceOutline(trace as never, 0, 150) } } },
        ],
      };
    },
  );
  server.registerPrompt(
    'find_regressions',
    { title: 'Find regressions in the last run', description: "Judge the latest run of an experiment against its baseline (or the run before it) and show the rows that got worse.", argsSchema: { experiment: z.string().min(1).max(255) } },
    ({ experiment }) => ({
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'text' as const,
            text:
              `Find regressions in the latest run of experiment ${experiment}. Call list_runs with experimentSlug=${experiment} and take the newest run. ` +
              'Call compare_to_baseline with it (when the experiment has no baseline, pass the run before it as baseline): it says per evaluator whether the run is better, worse or not detectably different, with a confidence interval. ' +
              'Trust the verdict over the raw averages: a change inside the interval is noise. For each evaluator judged worse, call list_regressions and read a few regressed rows; open their traces with get_trace where they have one, and report what the regressed rows have in common.',
          },
        },
      ],
    }),
  );
  return server;
}

/** Judges named in one answer, at most this many looked up. */
const JUDGES_LOOKED_UP = 10;

/**
 * Whether each judge behind an answer's numbers can be trusted, as lines to follow the answer
 * (the run page's "Can the judges be trusted?"): its state against the score config with the most
 * labels and why, and, given the answer's counts, its raw pass rate corrected for its errors.
 * A caller who may not read the trust route (or a judge it fails on) gets the answer without them.
 */
async function judgesTrust(caller: McpCaller, judges: JudgeOfAnswer[]): Promise<string> {
  const lines: string[] = [];
  const seen = new Set<string>();
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  for (const judge of judges) {
    const name = judge.version == null ? judge.evaluator : `${judge.evaluator} v${judge.version}`;
    if (seen.has(name) || seen.size >= JUDGES_LOOKED_UP) continue;
    seen.add(name);
    const counts = judge.counts ? { passed: judge.counts.passed, judged: judge.counts.judged } : {};
    const version = judge.version == null ? {} : { version: judge.version };
    const answer = await caller.call('GET', { path: '/api/judge-alignment/trust', query: { evaluator: judge.evaluator, ...version, ...counts } });
    if (!ok(answer)) continue;
    const best = (answer.body as z.infer<typeof judgeTrustResponse>).data[0];
    lines.push(
      best
        ? `- ${name}: judge ${best.trust.state} against ${best.scoreConfig.name}: ${best.trust.reason}` +
            (best.corrected && judge.counts ? ` · pass rate ${pct(judge.counts.passed / judge.counts.judged)} corrected for its errors: ${pct(best.corrected.value)} [${pct(best.corrected.low)}, ${pct(best.corrected.high)}]` : '')
        : `- ${name}: judge not measured against people (no human labels on its traces)`,
    );
  }
  return lines.length ? `\nCan the judges be trusted?\n${lines.join('\n')}` : '';
}
