/**
 * Threads judged as threads, for the tests that need thread results: a project with a thread
 * monitor whose custom judge (the loopback OpenAI-compatible fake) fails a conversation where
 * the assistant states two different departure times, and a way to write turns.
 */
import { expect } from 'vitest';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import type { ManualClock, TestApp } from './harness.ts';

export const MINUTE = 60_000;

const promptOf = (r: RecordedRequest) => (r.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content ?? '';
const departures = (prompt: string) => [...prompt.matchAll(/Assistant: [^\n]*departs at (\d\d:\d\d)/g)].map((m) => m[1]);

export interface ThreadJudge {
  fake: FakeServer;
  monitorId: string;
  /** A thread of turns a minute apart; `departs[i]` is the time the assistant states in turn i + 1. */
  thread(threadId: string, departs: string[]): Promise<string[]>;
  /** Runs the due jobs (thread monitors run once their thread is idle). */
  runJobs(): Promise<void>;
}

/** The judge fake, a custom judge `custom/consistent` and a thread monitor "Consistency" (idle 10 minutes) in the app's project. */
export async function threadJudge(t: TestApp, clock: ManualClock, key: string): Promise<ThreadJudge> {
  const fake = await startFakeServer();
  fake.fallback = (r: RecordedRequest) => {
    const facts = departures(promptOf(r));
    const consistent = new Set(facts).size <= 1;
    return toolCallReply('verdict', { reasoning: consistent ? `the assistant said ${facts[0]} throughout` : `it said ${facts[0]}, later ${facts.find((f) => f !== facts[0])}`, passed: consistent });
  };
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  const provider = await t.request('POST', '/api/model-providers', {
    token: t.creds.adminApiKey,
    projectId: t.creds.project.id,
    body: { name: 'local', kind: 'openai_compatible', api_key: 'fake-key-5678', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
  });
  expect(provider.status, provider.text).toBe(201);
  const judge = await req('POST', '/api/custom-evaluators', {
    slug: 'consistent',
    name: 'Consistent',
    prompt: '{{conversation}}\n\nDoes the assistant ever contradict what it said earlier?',
    model: 'local/gpt-4o-mini',
    answer: { type: 'pass_fail' },
  });
  expect(judge.status, judge.text).toBe(201);
  const monitor = await req('POST', '/api/monitors', { name: 'Consistency', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 10 });
  expect(monitor.status, monitor.text).toBe(200);
  return {
    fake,
    monitorId: monitor.body.id,
    async thread(threadId, departs) {
      const ids: string[] = [];
      for (let i = 0; i < departs.length; i++) {
        const at = clock.now().getTime();
        const traceId = `${threadId}-t${i + 1}`;
        const res = await req('POST', '/api/collector', {
          trace_id: traceId,
          metadata: { thread_id: threadId, user_id: `user-${threadId}` },
          spans: [
            {
              span_id: `${traceId}-agent`,
              type: 'agent',
              input: { type: 'text', value: `Question ${i + 1} about my trip` },
              output: { type: 'text', value: `Noted. Your flight departs at ${departs[i]}.` },
              timestamps: { started_at: at, finished_at: at + 900 },
            },
          ],
        });
        expect(res.status, res.text).toBe(200);
        ids.push(traceId);
        clock.advance(MINUTE);
      }
      return ids;
    },
    async runJobs() {
      for (let i = 0; i < 5; i++) await t.app.services.jobs.runDue();
    },
  };
}
