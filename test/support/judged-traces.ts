import { expect } from 'vitest';

type Call = (method: string, url: string, body?: unknown) => Promise<{ status: number; text: string }>;

/**
 * Traces a judge (exact match) passes or fails, labelled by people when `human` is given: the
 * material of the tests where an alert rule waits for its judge to be trusted.
 */
export function judgedTraces(call: Call, prefix: string) {
  let n = 0;
  return async (at: number, passes: boolean, human?: { configId: string; pass: boolean }) => {
    const id = `${prefix}-${n++}`;
    const sent = await call('POST', '/api/collector', {
      trace_id: id,
      spans: [{ span_id: `${id}-1`, type: 'llm', input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, timestamps: { started_at: at, finished_at: at + 100 } }],
    });
    expect(sent.status, sent.text).toBe(200);
    const res = await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: passes ? 'yes' : 'no', expected_output: 'yes' }, trace_id: id });
    expect(res.status, res.text).toBe(200);
    if (human) {
      const labelled = await call('POST', `/api/annotations/trace/${id}`, { comment: '', isThumbsUp: human.pass, scores: [{ configId: human.configId, value: human.pass }] });
      expect(labelled.status, labelled.text).toBe(200);
    }
  };
}
