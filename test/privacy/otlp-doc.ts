import { otlpJsonRequest, stringAttributes } from '../support/otlp-json.ts';

/** An hour before the ManualClock of useProjectApp. */
export const T0 = Date.parse('2026-11-22T09:00:00Z');

/** An OTLP/JSON request of one LLM span: prompt and completion as GenAI attributes, plus other attributes. */
export function otlpDoc(traceId: string, spanId: string, prompt: string, completion: string, attributes: Record<string, string> = {}) {
  return otlpJsonRequest('privacy-test', [
    {
      traceId,
      spanId,
      name: 'chat',
      startTimeUnixNano: String(T0 * 1e6),
      endTimeUnixNano: String((T0 + 5) * 1e6),
      attributes: stringAttributes({
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': prompt,
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': completion,
        ...attributes,
      }),
    },
  ]);
}
