import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createTenant, appDatabaseKinds, startApp, type TestApp, type Tenant } from '../support/harness.ts';
import { agentTrace, bigTrace } from '../support/sample-traces.ts';

type ToolAnswer = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (answer: unknown) => ((answer as ToolAnswer).content ?? []).map((c) => c.text ?? '').join('\n');

const WRITE_TOOLS = ['create_prompt_version', 'move_prompt_tag', 'add_dataset_rows', 'add_traces_to_dataset', 'start_run', 'run_evaluator', 'add_annotation'];
const READ_TOOLS = [
  'search_traces',
  'get_trace',
  'get_span',
  'get_thread',
  'list_prompts',
  'get_prompt',
  'list_datasets',
  'list_experiments',
  'list_runs',
  'get_run',
  'compare_to_baseline',
  'list_regressions',
  'list_evaluators',
  'list_alert_rules',
  'get_alert_history',
  'get_judge_trust',
  'get_dashboard_chart',
];

/**
 * The MCP server through the SDK's own client, over Streamable HTTP at /mcp and over stdio
 * (`spyglass mcp`), against a real Spyglass: every tool called, permissions, isolation, bad
 * input, and the size of a 10,000-span trace's answer.
 */
describe.each(appDatabaseKinds)('MCP server (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let readonlyKey: string;
  const clients: Client[] = [];

  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'spyglass-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  let mcp: Client;
  /** The user's own agent, reached over HTTP by a server-run experiment: answers each row. */
  let agent: http.Server;

  beforeAll(async () => {
    agent = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: `Ask Acme about ${JSON.parse(body).question}` })));
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    t = await startApp(kind);
    other = await createTenant(t);
    const key = t.creds.projectApiKey;
    const now = Date.now();
    for (let i = 0; i < 3; i++) {
      const res = await t.request('POST', '/api/collector', { authToken: key, body: agentTrace(`mcp-agent-${i}`, now - 60_000 * (3 - i), { threadId: 'thread-1', userId: 'ada@example.com', failTool: i === 1 }) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const big = await t.request('POST', '/api/collector', { authToken: key, body: bigTrace('mcp-big', now, 10_000) });
    expect(big.status, JSON.stringify(big.body)).toBe(200);
    // Another tenant's trace: its id must not be readable from this project.
    expect((await t.request('POST', '/api/collector', { authToken: other.projectToken, body: agentTrace('foreign-trace', now) })).status).toBe(200);
    const prompt = await t.request('POST', '/api/prompts', {
      authToken: key,
      body: { handle: 'support/triage', prompt: 'You sort support tickets.', messages: [{ role: 'user', content: '{{ticket}}' }], inputs: [{ identifier: 'ticket', type: 'str' }] },
    });
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
    const dataset = await t.request('POST', '/api/dataset', { authToken: key, body: { name: 'Regressions', columnTypes: [{ name: 'input', type: 'string' }, { name: 'output', type: 'string' }] } });
    expect(dataset.status, JSON.stringify(dataset.body)).toBe(201);
    const logged = await t.request('POST', '/api/evaluations/batch/log_results', {
      authToken: key,
      body: {
        experiment_slug: 'triage-eval',
        run_id: 'run-1',
        dataset: [0, 1, 2].map((index) => ({ index, entry: { question: `q${index}` }, predicted: { output: `a${index}` }, duration: 100, cost: 0.01 })),
        evaluations: [0, 1, 2].map((index) => ({ evaluator: 'exact', name: 'Exact match', status: 'processed', index, score: index === 2 ? 0 : 1, passed: index !== 2 })),
        timestamps: { created_at: now - 5000, finished_at: now },
      },
    });
    expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    const minted = await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'mcp readonly', keyType: 'service', permissionMode: 'readonly' } });
    readonlyKey = minted.body.token;
    mcp = await connect({ Authorization: `Bearer ${key}` });
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t.close();
    agent.closeAllConnections();
    await new Promise((r) => agent.close(r));
  });

  it('lists every tool with its schema, and the read tools say they change nothing', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const search = tools.find((x) => x.name === 'search_traces')!;
    expect(search.inputSchema.properties).toHaveProperty('filters');
    expect(search.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((x) => x.name === 'add_annotation')!.annotations?.readOnlyHint).toBe(false);
  });

  it('traces: search, a trace outline, a span, a thread', async () => {
    const found = textOf(await mcp.callTool({ name: 'search_traces', arguments: { filters: { thread_id: 'thread-1' }, pageSize: 2 } }));
    expect(found).toMatch(/^2 of 3 matching traces/);
    expect(found).toContain('scrollId=');
    const failing = textOf(await mcp.callTool({ name: 'search_traces', arguments: { filters: { has_error: true } } }));
    expect(failing).toContain('mcp-agent-1');
    expect(failing).not.toContain('mcp-agent-0');

    const outline = textOf(await mcp.callTool({ name: 'get_trace', arguments: { id: 'mcp-agent-1' } }));
    expect(outline).toContain('Trace mcp-agent-1');
    expect(outline).toContain('Spans with an error');
    const spanId = /ERROR: [^\n]*\(span ([^)]+)\)/.exec(outline.split('Spans with an error')[1])![1];
    const span = textOf(await mcp.callTool({ name: 'get_span', arguments: { id: 'mcp-agent-1', spanId } }));
    expect(span).toContain(`Span ${spanId} of trace mcp-agent-1`);
    expect(span).toContain('ERROR:');

    const thread = textOf(await mcp.callTool({ name: 'get_thread', arguments: { thread_id: 'thread-1' } }));
    expect(thread).toMatch(/Thread thread-1: 3 of 3 turns/);
    expect(thread.indexOf('mcp-agent-0')).toBeLessThan(thread.indexOf('mcp-agent-2'));
    expect(thread).toContain('user: ');
  });

  it('a 10,000-span trace answers in under 25,000 tokens and says how to page', async () => {
    const first = textOf(await mcp.callTool({ name: 'get_trace', arguments: { id: 'mcp-big' } }));
    expect(first.length / 4).toBeLessThan(25_000);
    expect(first).toContain('spans 1-150 of 10000');
    expect(first).toContain('span_offset=150');
    const widest = textOf(await mcp.callTool({ name: 'get_trace', arguments: { id: 'mcp-big', span_offset: 9_800, span_limit: 500 } }));
    expect(widest.length / 4).toBeLessThan(25_000);
    expect(widest).toContain('spans 9801-10000 of 10000');
    expect(widest).not.toContain('more spans');
    // A long text is clipped with a note saying how to read the rest.
    const span = textOf(await mcp.callTool({ name: 'get_span', arguments: { id: 'mcp-big', spanId: 's-2', max_chars: 200 } }));
    expect(span).toContain('Item 2: what next?');
  });

  it('prompts: list, get by handle and tag, a new version, a tag moved', async () => {
    expect(textOf(await mcp.callTool({ name: 'list_prompts', arguments: {} }))).toContain('support/triage · v1');
    const saved = await mcp.callTool({ name: 'create_prompt_version', arguments: { id: 'support/triage', commitMessage: 'shorter', prompt: 'Sort tickets by urgency.' } });
    expect(saved.isError, textOf(saved)).toBeFalsy();
    expect(textOf(saved)).toContain('version 2');
    const tagged = await mcp.callTool({ name: 'move_prompt_tag', arguments: { id: 'support/triage', tag: 'production', version: 1 } });
    expect(textOf(tagged)).toContain('Tag production now points at version 1');
    const production = textOf(await mcp.callTool({ name: 'get_prompt', arguments: { id: 'support/triage', tag: 'production' } }));
    expect(production).toContain('version 1');
    expect(production).toContain('You sort support tickets.');
    expect(textOf(await mcp.callTool({ name: 'get_prompt', arguments: { id: 'support/triage' } }))).toContain('Sort tickets by urgency.');
  });

  it('datasets and experiments: list, add rows and traces, runs and a run summary', async () => {
    expect(textOf(await mcp.callTool({ name: 'list_datasets', arguments: {} }))).toContain('regressions · Regressions · 0 records');
    const rows = await mcp.callTool({ name: 'add_dataset_rows', arguments: { dataset: 'regressions', entries: [{ input: 'hi', output: 'hello' }] } });
    expect(textOf(rows)).toContain('Added 1 rows');
    const traces = await mcp.callTool({ name: 'add_traces_to_dataset', arguments: { dataset: 'regressions', items: [{ traceId: 'mcp-agent-1' }], mapping: { input: 'input', output: 'output' } } });
    expect(traces.isError, textOf(traces)).toBeFalsy();
    const records = await t.request('GET', '/api/dataset/regressions/records', { authToken: t.creds.projectApiKey });
    expect(records.body.data).toHaveLength(2);

    expect(textOf(await mcp.callTool({ name: 'list_experiments', arguments: {} }))).toContain('triage-eval');
    const runs = textOf(await mcp.callTool({ name: 'list_runs', arguments: { experimentSlug: 'triage-eval' } }));
    expect(runs).toContain('run run-1');
    expect(runs).toContain('Exact match: 66.7% pass');
    const run = textOf(await mcp.callTool({ name: 'get_run', arguments: { runId: 'run-1', experimentSlug: 'triage-eval' } }));
    expect(run).toContain('Run run-1: completed');
    expect(run).toContain('evaluator Exact match: 2 passed, 1 failed');
  });

  it('experiments: start a server run and follow it; compare a run with the baseline and list its regressions', async () => {
    const key = t.creds.projectApiKey;
    const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/`;
    const defined = await t.request('PUT', '/api/experiments/mcp-run/definition', {
      authToken: key,
      body: {
        targets: [{ id: 'agent', type: 'http', url: agentUrl }],
        evaluators: [{ id: 'no-competitors', evaluator: 'langevals/competitor_blocklist', settings: { competitors: ['Acme'] }, mapping: { output: 'target.output' } }],
      },
    });
    expect(defined.status, defined.text).toBe(200);
    const started = await mcp.callTool({ name: 'start_run', arguments: { experimentSlug: 'mcp-run', data: [{ question: 'rockets' }, { question: 'boats' }] } });
    expect(started.isError, textOf(started)).toBeFalsy();
    const runId = /^Run (\S+) of mcp-run started: 2 rows/.exec(textOf(started))![1];
    let status = '';
    for (const deadline = Date.now() + 30_000; !status.includes('completed') && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      status = textOf(await mcp.callTool({ name: 'get_run', arguments: { runId, experimentSlug: 'mcp-run' } }));
    }
    expect(status).toContain(`Run ${runId}: completed, 2/2 rows`);
    expect(status).toContain('evaluator Competitor Blocklist: 0 passed, 2 failed');
    // The link points where the agent reached the server, not at the in-process call.
    expect(status).toContain(`page: ${t.baseUrl}/p/`);
    const unknown = await mcp.callTool({ name: 'start_run', arguments: { experimentSlug: 'no-such-experiment' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/404/);

    // A second logged run of triage-eval: row 0 now fails, row 2 now passes; run-1 is the baseline.
    const now = Date.now();
    const logged = await t.request('POST', '/api/evaluations/batch/log_results', {
      authToken: key,
      body: {
        experiment_slug: 'triage-eval',
        run_id: 'run-2',
        dataset: [0, 1, 2].map((index) => ({ index, entry: { question: `q${index}` }, predicted: { output: `b${index}` }, duration: 100, cost: 0.01 })),
        evaluations: [0, 1, 2].map((index) => ({ evaluator: 'exact', name: 'Exact match', status: 'processed', index, score: index === 0 ? 0 : 1, passed: index !== 0 })),
        timestamps: { created_at: now - 1000, finished_at: now },
      },
    });
    expect(logged.status, logged.text).toBe(200);
    expect((await t.request('PUT', '/api/experiments/triage-eval/baseline', { authToken: key, body: { runId: 'run-1' } })).status).toBe(200);
    const compared = textOf(await mcp.callTool({ name: 'compare_to_baseline', arguments: { experimentSlug: 'triage-eval', runId: 'run-2' } }));
    expect(compared).toContain('Run run-2 against baseline run-1 (3 shared rows)');
    expect(compared).toMatch(/- Exact match: not enough data \(20 rows needed\) · pass rate \+0\.0 pts \[95% CI -?\d+\.\d pts to \+\d+\.\d pts\], n=3 · 1 regressed, 1 improved/);
    // each judge's trust follows the verdicts: nobody labelled this one's traces
    expect(compared).toMatch(/\nCan the judges be trusted\?\n- \S+: judge not measured against people \(no human labels on its traces\)$/);
    const regressed = textOf(await mcp.callTool({ name: 'list_regressions', arguments: { experimentSlug: 'triage-eval', runId: 'run-2', direction: 'regressed' } }));
    expect(regressed).toContain('Run run-2 against run-1: 1 regressed, 1 improved.');
    expect(regressed).toContain('- row 0 · exact regressed: pass (1) -> fail (0)');
    expect(regressed).toContain('this run: {"output":"b0"}');
    expect(regressed).not.toContain('row 2');
  });

  it('evaluators and annotations: the catalogue, one run, a comment on a trace', async () => {
    const catalogue = textOf(await mcp.callTool({ name: 'list_evaluators', arguments: {} }));
    expect(catalogue).toContain('pii/pii_detection');
    const result = textOf(await mcp.callTool({ name: 'run_evaluator', arguments: { evaluator: 'pii/pii_detection', data: { input: 'mail me at ada@example.com' } } }));
    expect(result).toMatch(/pii\/pii_detection: processed · failed/);
    const note = await mcp.callTool({ name: 'add_annotation', arguments: { trace_id: 'mcp-agent-1', comment: 'the tool timed out', isThumbsUp: false } });
    expect(note.isError, textOf(note)).toBeFalsy();
    expect(textOf(note)).toMatch(/^Annotation \S+ added to trace mcp-agent-1/);
    const stored = await t.request('GET', '/api/annotations/trace/mcp-agent-1', { authToken: t.creds.projectApiKey });
    expect(stored.body.data.map((a: { comment: string }) => a.comment)).toContain('the tool timed out');

    const config = await t.request('POST', '/api/score-configs', { authToken: t.creds.projectApiKey, body: { name: 'Quality', kind: 'numeric', min: 1, max: 5 } });
    expect(config.status, config.text).toBe(201);
    const scored = await mcp.callTool({ name: 'add_annotation', arguments: { trace_id: 'mcp-agent-2', comment: 'fine', isThumbsUp: true, scores: [{ configId: config.body.data.id, value: 4 }] } });
    expect(textOf(scored)).toMatch(/^Annotation \S+ added to trace mcp-agent-2 with scores Quality=4\./);
    const outOfRange = await mcp.callTool({ name: 'add_annotation', arguments: { trace_id: 'mcp-agent-2', comment: 'no', isThumbsUp: true, scores: [{ configId: config.body.data.id, value: 9 }] } });
    expect(outOfRange.isError).toBe(true);
    expect(textOf(outOfRange)).toContain('scores.0.value');
  });

  it("a judge's trust: against the score configs people labelled its traces with; a count without the other names the field", async () => {
    const key = { authToken: t.creds.projectApiKey };
    const config = await t.request('POST', '/api/score-configs', { ...key, body: { name: 'Right answer', kind: 'boolean' } });
    expect(config.status, config.text).toBe(201);
    for (const [i, output] of ['yes', 'no', 'yes'].entries()) {
      const judged = await t.request('POST', '/api/evaluations/langevals/exact_match/evaluate', { ...key, body: { data: { output, expected_output: 'yes' }, trace_id: `mcp-judged-${i}` } });
      expect(judged.status, judged.text).toBe(200);
      const labelled = await t.request('POST', `/api/annotations/trace/mcp-judged-${i}`, { ...key, body: { comment: '', isThumbsUp: true, scores: [{ configId: config.body.data.id, value: i !== 1 }] } });
      expect(labelled.status, labelled.text).toBe(200);
    }
    const trust = textOf(await mcp.callTool({ name: 'get_judge_trust', arguments: { evaluator: 'langevals/exact_match' } }));
    expect(trust).toContain(`langevals/exact_match against Right answer (${config.body.data.id}): not enough labels: 3 of 50 labels`);
    expect(textOf(await mcp.callTool({ name: 'get_judge_trust', arguments: { evaluator: 'custom/nobody' } }))).toMatch(/^custom\/nobody: no human labels/);
    const half = await mcp.callTool({ name: 'get_judge_trust', arguments: { evaluator: 'langevals/exact_match', passed: '3' } });
    expect(half.isError).toBe(true);
    expect(textOf(half)).toContain('judged');

    // A run judged by that judge: get_run and list_runs say whether it can be trusted, as the run page does.
    const logged = await t.request('POST', '/api/evaluations/batch/log_results', {
      ...key,
      body: {
        experiment_slug: 'judged-eval',
        run_id: 'judged-1',
        dataset: [0, 1, 2, 3].map((index) => ({ index, entry: { question: `q${index}` }, predicted: { output: `a${index}` } })),
        evaluations: [0, 1, 2, 3].map((index) => ({ evaluator: 'langevals/exact_match', name: 'Exact match', status: 'processed', index, passed: index !== 3 })),
        timestamps: { created_at: Date.now() - 1000, finished_at: Date.now() },
      },
    });
    expect(logged.status, logged.text).toBe(200);
    const trustLine = `- langevals/exact_match: judge not enough labels against Right answer: 3 of 50 labels`;
    const run = textOf(await mcp.callTool({ name: 'get_run', arguments: { runId: 'judged-1', experimentSlug: 'judged-eval' } }));
    expect(run).toContain('evaluator Exact match: 3 passed, 1 failed');
    expect(run).toContain(`\nCan the judges be trusted?\n${trustLine}`);
    // with the run's 3 of 4 passed corrected by the judge's measured rates (it passed 2 of 2 people passed, failed 1 of 1 they failed)
    expect(run).toMatch(/labels[^\n]* · pass rate 75\.0 % corrected for its errors: 75\.0 % \[\d+\.\d %, \d+\.\d %\]$/);
    const runs = textOf(await mcp.callTool({ name: 'list_runs', arguments: { experimentSlug: 'judged-eval' } }));
    expect(runs).toContain('- run judged-1');
    expect(runs).toContain(`\nCan the judges be trusted?\n${trustLine}`);
    expect(runs).not.toContain('corrected');
    // The logged run of another judge nobody labelled: said so, not left out.
    const other = textOf(await mcp.callTool({ name: 'get_run', arguments: { runId: 'run-1', experimentSlug: 'triage-eval' } }));
    expect(other).toMatch(/\nCan the judges be trusted\?\n- exact: judge not measured against people \(no human labels on its traces\)$/);

    // A server run's evaluator id (exact) ran that judge: its trust is the judge's, on the run, its summary and its comparison.
    const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/`;
    const defined = await t.request('PUT', '/api/experiments/judged-server/definition', {
      ...key,
      body: {
        targets: [{ id: 'agent', type: 'http', url: agentUrl }],
        evaluators: [{ id: 'exact', evaluator: 'langevals/exact_match', mapping: { output: 'target.output', expected_output: 'dataset.expected' } }],
      },
    });
    expect(defined.status, defined.text).toBe(200);
    const serverRun = async () => {
      const data = [{ question: 'rockets', expected: 'Ask Acme about rockets' }, { question: 'boats', expected: 'no' }];
      const started = await t.request('POST', '/api/experiments/judged-server/run', { ...key, body: { data } });
      expect(started.status, started.text).toBeLessThan(300);
      const runId = started.body.runId as string;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        if ((await t.request('GET', `/api/experiments/runs/${runId}?experimentSlug=judged-server`, key)).body.status === 'completed') break;
      }
      return runId;
    };
    const first = await serverRun();
    const second = await serverRun();
    const judges = [{ evaluator: 'exact', judge: 'langevals/exact_match', version: null }];
    expect((await t.request('GET', `/api/experiments/judged-server/runs/${second}/summary`, key)).body.judges).toEqual(judges);
    expect((await t.request('GET', `/api/experiments/judged-server/compare?runs=${first},${second}`, key)).body.judges).toEqual(judges);
    const served = textOf(await mcp.callTool({ name: 'get_run', arguments: { runId: second, experimentSlug: 'judged-server' } }));
    expect(served).toContain('1 passed, 1 failed');
    expect(served).toContain(`\nCan the judges be trusted?\n${trustLine} · pass rate 50.0 % corrected for its errors: `);
    const servedRuns = textOf(await mcp.callTool({ name: 'list_runs', arguments: { experimentSlug: 'judged-server' } }));
    expect(servedRuns).toContain(`\nCan the judges be trusted?\n${trustLine}`);
    const servedCompared = textOf(await mcp.callTool({ name: 'compare_to_baseline', arguments: { experimentSlug: 'judged-server', runId: second, baseline: first } }));
    expect(servedCompared).toContain(`\nCan the judges be trusted?\n${trustLine}`);
  });

  it('resources and prompts: a trace and a prompt by address; the failed-trace prompt embeds the outline', async () => {
    const trace = await mcp.readResource({ uri: 'spyglass://trace/mcp-agent-1' });
    expect((trace.contents[0] as { text: string }).text).toContain('Trace mcp-agent-1');
    const prompt = await mcp.readResource({ uri: 'spyglass://prompt/support/triage' });
    expect((prompt.contents[0] as { text: string }).text).toContain('Prompt support/triage');
    const { prompts } = await mcp.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['explain_failed_trace', 'find_regressions']);
    const explain = await mcp.getPrompt({ name: 'explain_failed_trace', arguments: { trace_id: 'mcp-agent-1' } });
    expect(JSON.stringify(explain.messages)).toContain('Spans with an error');
    await expect(mcp.readResource({ uri: 'spyglass://trace/foreign-trace' })).rejects.toThrow(/404/);
  });

  it('bad input: unknown tool, arguments failing the schema, a huge page, another project\'s trace: clear errors, the session goes on', async () => {
    const unknown = await mcp.callTool({ name: 'drop_database', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Tool drop_database not found');
    const huge = await mcp.callTool({ name: 'search_traces', arguments: { pageSize: 100_000 } });
    expect(huge.isError).toBe(true);
    expect(textOf(huge)).toMatch(/pageSize/);
    const wrongType = await mcp.callTool({ name: 'get_trace', arguments: { id: 42 } });
    expect(wrongType.isError).toBe(true);
    const foreign = await mcp.callTool({ name: 'get_trace', arguments: { id: 'foreign-trace' } });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toMatch(/404/);
    // Still answering.
    expect((await mcp.listTools()).tools.length).toBe(READ_TOOLS.length + WRITE_TOOLS.length);
  });

  it("dashboards: a chart's data, the analytics API's numbers for the chart's query", async () => {
    const answer = textOf(await mcp.callTool({ name: 'get_dashboard_chart', arguments: { id: 'default', chartId: 'total-traces' } }));
    const query = JSON.parse(/query \(POST \/api\/analytics\/timeseries\): (.*)/.exec(answer)![1]);
    const analytics = await t.request('POST', '/api/analytics/timeseries', { authToken: t.creds.projectApiKey, body: query });
    expect(analytics.status).toBe(200);
    // The agent traces, the big one, and those the other tests' runs made.
    expect(analytics.body.totals.traces).toBeGreaterThanOrEqual(4);
    expect(answer).toContain(`whole range: ${analytics.body.totals.traces}`);
    const missing = await mcp.callTool({ name: 'get_dashboard_chart', arguments: { id: 'default', chartId: 'no-such-chart' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/404/);
  });

  it('permissions: a missing or bad key is refused before any tool; a read-only key sees no write tool and cannot call one', async () => {
    await expect(connect({})).rejects.toThrow(/missing credentials/);
    await expect(connect({ Authorization: 'Bearer sg-nope' })).rejects.toThrow(/invalid, expired or revoked API key/);
    const anyTool = await fetch(new URL('/mcp', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_prompts', arguments: {} } }),
    });
    expect(anyTool.status).toBe(401);

    const readonly = await connect({ Authorization: `Bearer ${readonlyKey}`, 'X-Project-Id': t.creds.project.id });
    const names = (await readonly.listTools()).tools.map((x) => x.name);
    expect(names.sort()).toEqual([...READ_TOOLS].sort());
    const refused = await readonly.callTool({ name: 'add_annotation', arguments: { trace_id: 'mcp-agent-1', comment: 'no', isThumbsUp: true } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('disabled');
    expect(textOf(await readonly.callTool({ name: 'list_prompts', arguments: {} }))).toContain('support/triage');

    // Another organization's admin naming this project: refused like the API.
    await expect(connect({ Authorization: `Bearer ${other.adminToken}`, 'X-Project-Id': t.creds.project.id })).rejects.toThrow(/has no access to project/);
    // That tenant's own project key sees only its own traces.
    const foreign = await connect({ Authorization: `Bearer ${other.projectToken}` });
    const theirs = textOf(await foreign.callTool({ name: 'search_traces', arguments: {} }));
    expect(theirs).toContain('foreign-trace');
    expect(theirs).not.toContain('mcp-agent');
  });

  it('stdio: `spyglass mcp --server URL` relays a session to the server', async () => {
    const client = new Client({ name: 'spyglass-stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve('bin/spyglass.mjs'), 'mcp', '--server', t.baseUrl],
      env: { ...(process.env as Record<string, string>), SPYGLASS_API_KEY: t.creds.projectApiKey },
      stderr: 'pipe',
    });
    await client.connect(transport);
    clients.push(client);
    expect((await client.listTools()).tools.length).toBe(READ_TOOLS.length + WRITE_TOOLS.length);
    expect(textOf(await client.callTool({ name: 'search_traces', arguments: { query: 'nightly batch' } }))).toContain('mcp-big');
  }, 60_000);
});
