/**
 * What the span's status and events say, whatever convention produced them: errors
 * (status ERROR with its message, `exception` events with type, message and
 * stack trace) and the time of the first streamed token or chunk.
 */
import { str, type SpanMapping } from '../mapping-context.ts';

/** `first_token`, `gen_ai.content.first_token`, `ai.stream.firstChunk`, `First Token Stream Event`, ... */
function isFirstTokenEvent(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.includes('first') && (lower.includes('token') || lower.includes('chunk'));
}

function stackLines(stack: unknown): string[] {
  if (typeof stack !== 'string' || stack.length === 0) return [];
  const lines = stack.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  return lines;
}

export function mapStatusAndEvents(ctx: SpanMapping): void {
  let exceptionMessage: string | null = null;
  let stacktrace: string[] = [];
  let sawException = false;
  for (const event of ctx.events) {
    if (event.name === 'exception') {
      if (sawException) continue;
      sawException = true;
      const type = str(event.attributes['exception.type']);
      const message = str(event.attributes['exception.message']);
      exceptionMessage =
        message !== null && type !== null && !message.startsWith(type) ? `${type}: ${message}` : (message ?? type);
      stacktrace = stackLines(event.attributes['exception.stacktrace']);
    } else if (ctx.firstTokenAt === null && isFirstTokenEvent(event.name)) {
      ctx.setFirstToken(event.time);
    }
  }
  const status = ctx.raw.status;
  if (status.code === 'error' || sawException) {
    const message =
      (status.code === 'error' ? status.message : null) ?? exceptionMessage ?? str(ctx.attrs.get('error.type')) ?? 'error';
    ctx.error = { has_error: true, message, stacktrace };
  }
}
