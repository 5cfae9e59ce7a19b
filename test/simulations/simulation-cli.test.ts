/**
 * `spyglass simulation run --set NAME` end to end: a spawned server process, scenarios run
 * against a loopback HTTP agent with the loopback OpenAI-compatible server as user and judge,
 * followed by the CLI with the key from SPYGLASS_API_KEY: a line per run, its JUnit file, and
 * each exit code (all passed, some failed, an error, timeout, no key, a refused key, an unknown set).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { appDatabaseKinds, openTestDatabase, request } from '../support/harness.ts';
import { runCli, signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';
import { scriptedModel, startAgent } from './loopback-agent.ts';

const alnum = (n: number) => {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(n), (b) => chars[b % chars.length]).join('');
};

describe.each(appDatabaseKinds)('spyglass simulation run against a server process (%s)', (kind) => {
  const tmp = useTmpDirs();
  const key = `sgp-${alnum(16)}_${alnum(48)}`;
  let server: Running;
  let openai: FakeServer;
  let agent: Awaited<ReturnType<typeof startAgent>>;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    openai = await startFakeServer();
    openai.fallback = scriptedModel;
    agent = await startAgent();
    const env: Record<string, string> = { SPYGLASS_DATA_DIR: tmp(), SPYGLASS_INIT_PROJECT_API_KEY: key, LOG_LEVEL: 'warn', OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` };
    if (kind === 'postgres') {
      const database = await openTestDatabase('postgres');
      drop = database.drop;
      env.DATABASE_URL = database.url!;
    }
    server = await startServer(env);
    const define = async (set: string, name: string, agentPath: string) => {
      const res = await request(server.baseUrl, 'POST', '/api/simulations/scenarios', {
        authToken: key,
        body: {
          name,
          scenarioSetId: set,
          persona: 'A customer with a broken parcel',
          goal: 'A refund for order 42',
          criteria: ['The agent approves the refund'],
          maxTurns: 2,
          target: { type: 'http', url: `${agent.url}${agentPath}`, timeout_ms: agentPath === '/slow' ? 300 : 20_000 },
        },
      });
      expect(res.status, res.text).toBe(201);
    };
    await define('green', 'Refund granted', '/good');
    await define('green', 'Refund granted again', '/good');
    await define('mixed', 'Refund granted', '/good');
    await define('mixed', 'Refund refused', '/stubborn');
    await define('broken', 'Refund granted', '/good');
    await define('broken', 'Agent answers HTML', '/garbage');
    await define('slow', 'Slow agent', '/slow');
  }, 180_000);

  afterAll(async () => {
    if (server) {
      signalTree(server.child.pid!, 'SIGTERM');
      await server.exited;
    }
    await agent?.close();
    await openai?.close();
    await drop?.();
  });

  const cli = (args: string[], env: Record<string, string> = { SPYGLASS_API_KEY: key }) =>
    runCli(['simulation', 'run', '--server', server.baseUrl, '--interval', '200', ...args], { HOME: tmp(), ...env }, { timeoutMs: 120_000 });

  it('every run passed: exit 0, a line per run, JUnit with a passing testcase per run', async () => {
    const junit = path.join(tmp(), 'green.xml');
    const res = await cli(['--set', 'green', '--repeat', '2', '--junit', junit]);
    expect(res.code, res.out).toBe(0);
    expect(res.stderr).toMatch(/started batch batch_\w+ of green: 4 runs/);
    expect(res.stdout.match(/^PASSED {2}Refund granted/gm)).toHaveLength(4);
    expect(res.stdout).toContain('green: 4 passed, 0 failed, 0 errors of 4');
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toContain('tests="4" failures="0" errors="0"');
  }, 180_000);

  it('a run failed its criteria: exit 1, the unmet criterion on its line and as a JUnit failure', async () => {
    const junit = path.join(tmp(), 'mixed.xml');
    const res = await cli(['--set', 'mixed', '--junit', junit]);
    expect(res.code, res.out).toBe(1);
    expect(res.stdout).toMatch(/^FAILED {2}Refund refused \([\d.]+ s, 4 messages\) - unmet: The agent approves the refund$/m);
    expect(res.stdout).toMatch(/^PASSED {2}Refund granted /m);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml).toContain('tests="2" failures="1" errors="0"');
    expect(xml).toMatch(/<testcase classname="simulations\.mixed" name="Refund refused" time="[\d.]+"><failure message="unmet: The agent approves the refund">/);
  }, 180_000);

  it('a run ended as an error (garbage from the agent): exit 3 and a JUnit error; the other run still passed', async () => {
    const junit = path.join(tmp(), 'broken.xml');
    const res = await cli(['--set', 'broken', '--junit', junit]);
    expect(res.code, res.out).toBe(3);
    expect(res.stdout).toMatch(/^ERROR {3}Agent answers HTML \(.*\) - invalid_json: /m);
    expect(res.stdout).toMatch(/^PASSED {2}Refund granted /m);
    expect(fs.readFileSync(junit, 'utf8')).toContain('tests="2" failures="0" errors="1"');
  }, 180_000);

  it('a batch that does not end within --timeout exits 5; no key 2; a refused key 4; an unknown set 4; a bad --repeat 2', async () => {
    // The slow agent times out after 300 ms each turn; the run ends as an error well after 0.1 s... the CLI gives up first.
    const late = await cli(['--set', 'slow', '--timeout', '0.1']);
    expect(late.code, late.out).toBe(5);
    expect(late.stderr).toMatch(/did not end within 0\.1 s/);
    const noKey = await cli(['--set', 'green'], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SPYGLASS_API_KEY');
    const badKey = await cli(['--set', 'green'], { SPYGLASS_API_KEY: `sgp-${alnum(16)}_${alnum(48)}` });
    expect(badKey.code, badKey.out).toBe(4);
    expect(badKey.stderr).toContain('401');
    const unknown = await cli(['--set', 'no-such-set']);
    expect(unknown.code, unknown.out).toBe(4);
    expect(unknown.stderr).toContain('404');
    const repeat = await cli(['--set', 'green', '--repeat', '99']);
    expect(repeat.code).toBe(2);
  }, 180_000);
});
