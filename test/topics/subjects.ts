/**
 * Traces about five known subjects, and a loopback model that embeds them deterministically
 * (a hashed bag of words: what a real model does, crudely) and names a topic after the subject
 * whose words its prompt uses most. Shared by the topics API and browser tests.
 */
import { createHash } from 'node:crypto';
import { textReply, type RecordedRequest, type Reply } from '../evaluators/fake-servers.ts';

export const SUBJECTS: Record<string, string[]> = {
  refunds: ['refund', 'money', 'back', 'returned', 'charge', 'reimburse', 'order', 'cancelled', 'credit', 'card', 'paid', 'twice'],
  shipping: ['parcel', 'delivery', 'shipping', 'courier', 'tracking', 'arrive', 'package', 'address', 'shipped', 'late', 'warehouse', 'box'],
  passwords: ['password', 'login', 'reset', 'account', 'locked', 'sign', 'email', 'link', 'two-factor', 'code', 'forgot', 'username'],
  recipes: ['recipe', 'bake', 'oven', 'flour', 'sugar', 'cake', 'minutes', 'dough', 'butter', 'eggs', 'bread', 'cookies'],
  weather: ['weather', 'rain', 'forecast', 'sunny', 'temperature', 'wind', 'storm', 'tomorrow', 'umbrella', 'snow', 'cloudy', 'degrees'],
};
const FILLER = ['please', 'help', 'with', 'my', 'the', 'today', 'question', 'thanks', 'about', 'need'];
const DIMENSIONS = 64;

/** A seeded generator, so the traces are the same at every run (the clustering's own). */
export { seededRandom as seeded } from '../../src/modules/topics/index.ts';

/** The fake's embedding: each word adds to two dimensions chosen by its hash. */
function embed(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z-]+/g) ?? []) {
    const h = createHash('sha256').update(word).digest();
    v[h[0] % DIMENSIONS] += 1;
    v[h[1] % DIMENSIONS] += 0.5;
  }
  return v;
}

/** A user's message about `subject`: six of its words and two of anyone's, shuffled. */
export function sentence(subject: string, next: () => number): string {
  const pick = (list: string[], n: number) => Array.from({ length: n }, () => list[Math.floor(next() * list.length)]);
  return [...pick(FILLER, 2), ...pick(SUBJECTS[subject], 6)].sort(() => next() - 0.5).join(' ');
}

/** The loopback provider's answers: embeddings (or a 500 while `failing()`), and topic names. */
export function topicModel(failing: () => boolean = () => false): (r: RecordedRequest) => Reply {
  return (r) => {
    if (r.path.endsWith('/embeddings')) {
      if (failing()) return { kind: 'json', status: 500, body: { error: { message: 'embeddings are down' } } };
      const input = (r.body as { input: string[] }).input;
      return { kind: 'json', body: { object: 'list', model: 'embed-small', data: input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })), usage: { prompt_tokens: 1, total_tokens: 1 } } };
    }
    if (r.method === 'GET' && r.path.endsWith('/models')) return { kind: 'json', body: { object: 'list', data: ['embed-small', 'namer'].map((id) => ({ id, object: 'model' })) } };
    const prompt = ((r.body as { messages?: { content: string }[] } | undefined)?.messages ?? []).map((m) => m.content).join(' ');
    const best = Object.entries(SUBJECTS)
      .map(([name, words]) => ({ name, hits: words.filter((w) => prompt.includes(w)).length }))
      .sort((a, b) => b.hits - a.hits)[0];
    return textReply(`"${best.name[0].toUpperCase()}${best.name.slice(1)} questions."`);
  };
}

/** A trace about `subject` as the JSON collector takes it. */
export function subjectTrace(traceId: string, text: string, startedAt: number) {
  return {
    trace_id: traceId,
    spans: [
      {
        span_id: 's1',
        type: 'llm',
        name: 'answer',
        model: 'gpt-4o-mini',
        input: { type: 'text', value: text },
        output: { type: 'text', value: 'ok' },
        timestamps: { started_at: startedAt, finished_at: startedAt + 500 },
      },
    ],
  };
}
