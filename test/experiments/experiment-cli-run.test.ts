import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds, openTestDatabase, request } from '../support/harness.ts';
import { runCli, signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';

/**
 * `npx spyglass experiment run <slug> --server URL` end to end: a spawned server process (as a
 * CI job meets it), a platform run of an HTTP agent scored by an evaluator, followed to its end
 * by the CLI with the key from SPYGLASS_API_KEY; its summary, JUnit file and exit codes.
 */
const alnum = (n: number) => {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(n), (b) => chars[b % chars.length]).join('');
};

describe.each(appDatabaseKinds)('spyglass experiment run against a server process (%s)', (kind) => {
  const tmp = useTmpDirs();
  const key = `sgp-${alnum(16)}_${alnum(48)}`;
  let server: Running;
  let agent: http.Server;
  let agentUrl = '';
  let drop: (() => Promise<void>) | undefined;
  let slowMs = 0;

  beforeAll(async () => {
    // The user's agent: upper-cases the question; `slowMs` makes every answer late.
    agent = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if (req.headers['x-agent-key'] !== 'agent-key-for-ci-7781') return void res.writeHead(401).end('{}');
        const row = JSON.parse(text) as { question: string };
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: row.question.toUpperCase() })), slowMs);
      });
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/answer`;

    const env: Record<string, string> = { SPYGLASS_DATA_DIR: tmp(), SPYGLASS_INIT_PROJECT_API_KEY: key, LOG_LEVEL: 'warn' };
    if (kind === 'postgres') {
      const database = await openTestDatabase('postgres');
      drop = database.drop;
      env.DATABASE_URL = database.url!;
    }
    server = await startServer(env);
    const call = (method: string, url: string, body: unknown) => request(server.baseUrl, method, url, { authToken: key, body });
    const ds = await call('POST', '/api/dataset', { name: 'CI questions', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected', type: 'string' }] });
    expect(ds.status, ds.text).toBe(201);
    // 8 of 10 expected answers are what the agent says.
    const entries = Array.from({ length: 10 }, (_, i) => ({ question: `question ${i}`, expected: i < 8 ? `QUESTION ${i}` : `something else ${i}` }));
    expect((await call('POST', '/api/dataset/ci-questions/records', { entries })).status).toBe(201);
    const def = await call('PUT', '/api/experiments/ci-agent/definition', {
      dataset: { id: 'ci-questions' },
      targets: [{ id: 'agent', type: 'http', url: agentUrl, headers: { 'x-agent-key': 'agent-key-for-ci-7781' }, output_field: 'answer' }],
      evaluators: [{ id: 'exact', evaluator: 'checks/exact_match', mapping: { expected_output: 'dataset.expected' } }],
      concurrency: 2,
    });
    expect(def.status, def.text).toBe(200);
  }, 180_000);

  afterAll(async () => {
    if (server) {
      signalTree(server.child.pid!, 'SIGTERM');
      await server.exited;
    }
    agent?.closeAllConnections();
    await new Promise((r) => agent?.close(r));
    await drop?.();
  });

  const cli = (args: string[], env: Record<string, string> = { SPYGLASS_API_KEY: key }) =>
    runCli(['experiment', 'run', 'ci-agent', '--server', server.baseUrl, '--interval', '200', ...args], { HOME: tmp(), ...env }, { timeoutMs: 120_000 });

  it('runs, follows the run to its end, prints its summary, writes JUnit XML; a gate that holds exits 0, one that fails exits 1', async () => {
    const junit = path.join(tmp(), 'report.xml');
    const ok = await cli(['--junit', junit, '--fail-under', 'pass_rate=0.75', '--fail-under', 'pass_rate:exact=80%']);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.stderr).toMatch(/started run run_\w+ of ci-agent \(10 cells\)/);
    expect(ok.stdout).toMatch(/run "[^"]+ · [^"]+" \(run_\w+\) of ci-agent: completed/);
    expect(ok.stdout).toMatch(/exact\s+80\.0% \[/);
    expect(ok.stdout).toMatch(new RegExp(`${server.baseUrl}/p/[^/]+/experiments/ci-agent\\?runId=run_`));
    const xml = fs.readFileSync(junit, 'utf8');
    // Three gates (the run completed, two --fail-under) that held, and the rows apart: no failure.
    expect(xml.match(/<testcase /g)).toHaveLength(13);
    expect(xml).toMatch(/<testsuite name="run &quot;[^&]+ · [^&]+&quot; \(run_\w+\) of ci-agent: gates" tests="3" failures="0" errors="0" skipped="0">/);
    expect(xml).toMatch(/<testsuite name="run &quot;[^&]+ · [^&]+&quot; \(run_\w+\) of ci-agent: rows" tests="10" failures="0" errors="0" skipped="0">/);
    expect(xml).not.toContain('<failure');

    const failed = await cli(['--fail-under', 'pass_rate:exact=0.9']);
    expect(failed.code, failed.out).toBe(1);
    expect(failed.stderr).toMatch(/FAILED pass_rate:exact=0\.9: 80\.0% is below 90\.0%/);
    // Each call started a run of its own.
    const runs = await request(server.baseUrl, 'GET', '/api/experiments/runs?experimentSlug=ci-agent', { authToken: key });
    expect(runs.body.runs).toHaveLength(2);
  }, 300_000);

  it('a run that does not end within --timeout exits 5; no key exits 2; a key the server refuses exits 4', async () => {
    slowMs = 1_500;
    const late = await cli(['--timeout', '1']);
    slowMs = 0;
    expect(late.code, late.out).toBe(5);
    expect(late.stderr).toMatch(/did not end within 1 s/);
    const noKey = await cli([], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SPYGLASS_API_KEY');
    const badKey = await cli([], { SPYGLASS_API_KEY: `sgp-${alnum(16)}_${alnum(48)}` });
    expect(badKey.code, badKey.out).toBe(4);
    expect(badKey.stderr).toContain('401');
  }, 300_000);
});
