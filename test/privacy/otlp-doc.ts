/** An hour before the ManualClock of useProjectApp. */
export const T0 = Date.parse('2026-11-22T09:00:00Z');
const str = (stringValue: string) => ({ stringValue });

/** An OTLP/JSON request of one LLM span: prompt and completion as GenAI attributes, plus other attributes. */
export function otlpDoc(traceId: string, spanId: string, prompt: string, completion: string, attributes: Record<string, string> = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: str('privacy-test') }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId,
                name: 'chat',
                startTimeUnixNano: String(T0 * 1e6),
                endTimeUnixNano: String((T0 + 5) * 1e6),
                attributes: [
                  { key: 'gen_ai.request.model', value: str('gpt-4o-mini') },
                  { key: 'gen_ai.prompt.0.role', value: str('user') },
                  { key: 'gen_ai.prompt.0.content', value: str(prompt) },
                  { key: 'gen_ai.completion.0.role', value: str('assistant') },
                  { key: 'gen_ai.completion.0.content', value: str(completion) },
                  ...Object.entries(attributes).map(([key, v]) => ({ key, value: str(v) })),
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}
