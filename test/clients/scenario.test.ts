/**
 * LangWatch's Scenario package (`@langwatch/scenario`, unmodified) reporting agent simulations to
 * Spyglass: a small agent in the test, the loopback OpenAI-compatible server playing the judge,
 * and the runs read back over the API. On both databases: what the package posts becomes rows
 * that each database must hold the same way.
 */
import { createOpenAI } from '@ai-sdk/openai';
import scenario, { AgentRole, type AgentAdapter } from '@langwatch/scenario';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { startFakeServer, toolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';

const CRITERIA = ['The agent names Paris as the capital of France', 'The agent is polite'];
const paramOf = (criterion: string) => criterion.replace(/[^a-zA-Z0-9]/g, '_').toLowerCase().substring(0, 70);

/** What the judge model answers: its verdict on each criterion, through the package's finish_test tool. */
const verdict = (met: boolean[], reasoning: string) =>
  toolCallReply('finish_test', {
    criteria: Object.fromEntries(CRITERIA.map((c, i) => [paramOf(c), met[i] ? 'true' : 'false'])),
    reasoning,
    verdict: met.every(Boolean) ? 'success' : 'failure',
  });

describe.each(databaseKinds)("LangWatch's Scenario package reporting to Spyglass (%s)", (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  // The package reads the batch id once per process, so both databases' runs share it.
  const batchRunId = 'nightly-batch';

  beforeAll(async () => {
    fake = await startFakeServer();
    t = await startApp(kind);
    // The package reads its reporting settings from the environment on each run.
    Object.assign(process.env, {
      LANGWATCH_API_KEY: t.creds.projectApiKey,
      LANGWATCH_ENDPOINT: t.baseUrl,
      SCENARIO_BATCH_RUN_ID: batchRunId,
      SCENARIO_DISABLE_SIMULATION_REPORT_INFO: '1',
      LOG_LEVEL: 'ERROR',
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const read = (url: string) => t.request('GET', url, { authToken: t.creds.projectApiKey });

  async function simulate(name: string, answer: string, met: boolean[], reasoning: string) {
    const openai = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test' });
    const model = openai.chat('gpt-4o-mini');
    const agent: AgentAdapter = { role: AgentRole.AGENT, call: async () => answer };
    fake.queue(verdict(met, reasoning));
    return scenario.run({
      name,
      description: 'A traveller asks about France',
      setId: 'geography',
      agents: [agent, scenario.userSimulatorAgent({ model }), scenario.judgeAgent({ model, criteria: CRITERIA })],
      script: [scenario.user('What is the capital of France?'), scenario.agent(), scenario.judge()],
    });
  }

  it('a passing and a failing run are stored with their conversation, verdict, criteria and reasoning', async () => {
    const good = await simulate('capital question', 'Paris, of course! Happy to help.', [true, true], 'It named Paris, politely.');
    const bad = await simulate('capital question, rude agent', 'Lyon. Stop asking.', [false, false], 'It named Lyon and was curt.');
    expect(good.success).toBe(true);
    expect(bad.success).toBe(false);

    const sets = await read('/api/simulations/sets');
    expect(sets.status, JSON.stringify(sets.body)).toBe(200);
    expect(sets.body.sets).toEqual([{ scenarioSetId: 'geography', batches: 1, runs: 2, passed: 1, failed: 1, inProgress: 0, passRate: 0.5, lastRunAt: expect.any(Number) }]);

    const batches = await read('/api/simulations/sets/geography/batches');
    expect(batches.body.batches).toEqual([
      { batchRunId, scenarioSetId: 'geography', label: null, runs: 2, passed: 1, failed: 1, inProgress: 0, passRate: 0.5, startedAt: expect.any(Number), finishedAt: expect.any(Number) },
    ]);

    const runs = await read(`/api/simulations/batches/${batchRunId}/runs`);
    expect(runs.status).toBe(200);
    const byName = Object.fromEntries((runs.body.runs as Array<{ name: string }>).map((r) => [r.name, r])) as Record<string, any>;
    expect(byName['capital question']).toMatchObject({
      status: 'SUCCESS',
      description: 'A traveller asks about France',
      results: { verdict: 'success', metCriteria: CRITERIA, unmetCriteria: [], reasoning: 'It named Paris, politely.' },
      messageCount: 2,
    });
    expect(byName['capital question'].durationMs).toBeGreaterThanOrEqual(0);
    expect(byName['capital question, rude agent']).toMatchObject({ status: 'FAILED', results: { verdict: 'failure', metCriteria: [], unmetCriteria: CRITERIA } });

    const run = await read(`/api/simulations/runs/${byName['capital question, rude agent'].scenarioRunId}`);
    expect(run.status).toBe(200);
    expect(run.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What is the capital of France?'],
      ['assistant', 'Lyon. Stop asking.'],
    ]);
    expect(run.body.scenarioSetId).toBe('geography');
  });

  it('archiving a set needs its id, and hides its runs', async () => {
    const refused = await t.request('DELETE', '/api/scenario-events', { authToken: t.creds.projectApiKey });
    expect(refused.status).toBe(400);
    expect(refused.body.error.meta.field).toBe('querystring.scenarioSetId');
    const archived = await t.request('DELETE', '/api/scenario-events?scenarioSetId=geography', { authToken: t.creds.projectApiKey });
    expect(archived.body).toEqual({ archived: 2 });
    expect((await read('/api/simulations/sets')).body.sets).toEqual([]);
    expect((await read(`/api/simulations/batches/${batchRunId}/runs`)).status).toBe(404);
  });
});
