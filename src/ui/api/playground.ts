import { ApiError, sessionFetch, toApiError } from './client.ts';
import type { ModelParameters, RunBody, RunResponse, ToolCall } from '../../modules/prompts/schemas.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type PromptRunResult = Schemas['PromptRunResponse'];

export type { ModelParameters, ToolCall };
export type RunEvent = { type: 'text'; text: string } | ({ type: 'tool_call' } & ToolCall) | ({ type: 'done' } & RunResponse) | { type: 'error'; error: { code: string; message: string } };

/**
 * One run of the prompt, streamed (POST .../run with Accept: text/event-stream): `onEvent` gets
 * each piece of text and tool call as it comes; resolves with the final answer. A refusal
 * before the stream opens throws an ApiError, as the client does. A plain fetch: the client
 * reads answers whole, and this one is read as it comes.
 */
export async function streamPromptRun(projectId: string, promptId: string, body: RunBody, onEvent: (e: RunEvent) => void, signal?: AbortSignal): Promise<RunResponse> {
  const headers = { accept: 'text/event-stream', 'content-type': 'application/json', 'x-project-id': projectId };
  const response = await sessionFetch(`/api/prompts/${encodeURIComponent(promptId)}/run`, { method: 'POST', headers, body: JSON.stringify(body), signal });
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    throw toApiError(response.status, parsed, text);
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let done: RunResponse | null = null;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    buffer += chunk.value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.startsWith('data: ')) continue;
      const event = JSON.parse(frame.slice(6)) as RunEvent;
      if (event.type === 'error') throw new ApiError(502, event.error.code, event.error.message);
      if (event.type === 'done') {
        const { type: _type, ...answer } = event;
        done = answer;
      } else onEvent(event);
    }
  }
  if (!done) throw new ApiError(502, 'stream_ended', 'The answer ended before it was complete');
  return done;
}
