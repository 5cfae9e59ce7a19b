/** Shared pieces of the LLM judges' data schemas and prompts. */
import { z } from 'zod';

export const optionalText = (description: string) => z.string().nullish().describe(description);

export const optionalContexts = z
  .array(z.string())
  .nullish()
  .describe('Retrieved contexts (RAG), in rank order.');

/** The data of the judges that read the whole exchange (see judgedDocument). */
export const documentData = z.object({
  input: optionalText('The user message.'),
  output: optionalText('The assistant reply.'),
  contexts: optionalContexts,
});

/** Non-blank contexts only: an empty string carries nothing for a judge to read. */
export function usableContexts(contexts: readonly string[] | null | undefined): string[] {
  return (contexts ?? []).filter((c) => c.trim() !== '');
}

/** The items trimmed, blank ones left out: what a judge listed, ready to use. */
export function nonBlank(items: readonly string[]): string[] {
  return items.map((item) => item.trim()).filter(Boolean);
}

export function numbered(items: readonly string[]): string {
  return items.map((item, i) => `${i + 1}. ${item}`).join('\n');
}

/**
 * The "# Input / # Output / # Contexts" document langevals' custom judges read; empty when
 * there is nothing to judge.
 */
export function judgedDocument(entry: { input?: string | null; output?: string | null; contexts?: string[] | null }): string {
  let doc = '';
  if (entry.input?.trim()) doc += `# Input\n${entry.input}\n\n`;
  if (entry.output?.trim()) doc += `# Output\n${entry.output}\n\n`;
  const contexts = usableContexts(entry.contexts);
  if (contexts.length) doc += `# Contexts\n${numbered(contexts)}\n\n`;
  return doc;
}

/** A judge's free-text reasoning, kept readable in `details`. */
export function shortReasoning(reasoning: string, max = 2000): string {
  const trimmed = reasoning.trim();
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max)}...`;
}

export const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
