import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchServer } from './lib.ts';

/** A loopback OpenAI-compatible provider answering every chat completion after `delayMs`. */
export async function startSlowProvider(delayMs: number): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'gpt-4o-mini-2024-07-18',
            choices: [{ index: 0, message: { role: 'assistant', content: 'The answer is 4.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
          }),
        );
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A platform run through the API: `rows` rows, one prompt target against a loopback provider
 * answering after 200 ms, one deterministic evaluator (competitor blocklist), `concurrency`
 * cells at once. The server must be started with OPENAI_BASE_URL pointing at the provider.
 * Measures start to completed (polled every 100 ms).
 */
export async function benchExperimentsRun(server: BenchServer, opts: { rows: number; concurrency: number }) {
  const headers = { authorization: `Bearer ${server.creds.projectApiKey}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, any>;
  };
  await call('POST', '/api/prompts', { handle: 'bench-qa', prompt: 'Answer briefly.', messages: [{ role: 'user', content: '{{question}}' }], inputs: [{ identifier: 'question', type: 'str' }] });
  await call('PUT', '/api/experiments/bench-run/definition', {
    targets: [{ id: 'qa', type: 'prompt', prompt: 'bench-qa' }],
    evaluators: [{ id: 'blocklist', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] }, mapping: { output: 'target.output', input: 'dataset.question' } }],
    concurrency: opts.concurrency,
  });
  const data = Array.from({ length: opts.rows }, (_, i) => ({ question: `What is ${i} + ${i}?` }));
  const t0 = performance.now();
  const start = await call('POST', '/api/experiments/bench-run/run', { data });
  let status: Record<string, any>;
  for (;;) {
    status = await call('GET', `/api/experiments/runs/${start.runId}?experimentSlug=bench-run`);
    if (status.status !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  if (status.status !== 'completed' || status.progress !== opts.rows) throw new Error(`run ended ${JSON.stringify(status).slice(0, 500)}`);
  return { rows: opts.rows, concurrency: opts.concurrency, seconds, failedCells: status.summary?.failedCells as number, floorSeconds: (opts.rows / opts.concurrency) * 0.2 };
}
