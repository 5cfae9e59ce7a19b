import { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../types.ts';

/** langevals' CompetitorBlocklistSettings default. */
export const DEFAULT_COMPETITORS = ['OpenAI', 'Google', 'Microsoft'];

const data = z.object({
  input: z.string().nullish().describe('The user message to check for competitor mentions.'),
  output: z.string().nullish().describe('The assistant reply to check for competitor mentions.'),
});

const settings = z.object({
  competitors: z
    .array(
      z
        .string()
        // A blank name would match between every pair of characters.
        .refine((name) => name.trim().length > 0, 'a competitor name must not be blank'),
    )
    .min(1)
    .default(DEFAULT_COMPETITORS)
    .describe(
      'Competitor names that must not be mentioned. Matched case-insensitively anywhere in the text, also inside longer words ("Google" matches "Googled").',
    ),
});

export interface CompetitorMatch {
  competitor: string;
  /** The text as it appears in the message. */
  text: string;
  field: 'input' | 'output';
}

/**
 * Every mention, input first, then output, as langevals finds them: one alternation of the
 * escaped names, case-insensitive, non-overlapping, leftmost match first and, at the same
 * position, the earlier name in the list first ("Man City" before "Man City Women" hides the
 * longer one). Plain substring search, no word boundaries, like langevals: a blocklist would
 * rather flag "Googled" than miss "OpenAI's". Names that need a boundary can carry the
 * spaces themselves (" Bard ").
 */
export function findCompetitorMentions(
  competitors: readonly string[],
  texts: { input?: string | null; output?: string | null },
): CompetitorMatch[] {
  const names = competitors.filter((name) => name.length > 0);
  if (names.length === 0) return [];
  // One group per name tells which name matched. `u` gives Unicode case folding, as Python's
  // re.IGNORECASE does on str patterns.
  const pattern = new RegExp(names.map((name) => `(${escapeRegExp(name)})`).join('|'), 'giu');
  const matches: CompetitorMatch[] = [];
  for (const field of ['input', 'output'] as const) {
    const text = texts[field];
    if (!text) continue;
    for (const m of text.matchAll(pattern)) {
      const group = m.findIndex((g, i) => i > 0 && g !== undefined);
      matches.push({ competitor: names[group - 1], text: m[0], field });
    }
  }
  return matches;
}

/** Escapes exactly the syntax characters (valid under the `u` flag, unlike escaping `-`). */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

export const competitorBlocklist: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'llm/competitor_blocklist',
  name: 'Competitor Blocklist',
  description:
    'Checks whether any of the listed competitors is mentioned in the input or output (case-insensitive substring match). Score = number of mentions; passes when there is none.',
  category: 'policy',
  data,
  settings,
  requiredEnv: [],
  isCostly: false,
  // Nothing to wait for: the result is ready at once (a throw still reaches the runner as a rejection).
  evaluate({ data: entry, settings: config }) {
    // Empty or missing input and output fall through to "processed, passed, score 0", as in
    // langevals: an empty text mentions no competitor, and monitors count such traces as passing.
    const matches = findCompetitorMentions(config.competitors, entry);
    const counts = new Map<string, number>();
    for (const m of matches) counts.set(m.competitor, (counts.get(m.competitor) ?? 0) + 1);
    // List order, not text order: the same configuration always reads the same way.
    const mentioned = config.competitors
      .filter((name, i) => counts.has(name) && config.competitors.indexOf(name) === i)
      .map((name) => ({ competitor: name, count: counts.get(name) as number }));
    return Promise.resolve<EvaluationResult>({
      status: 'processed',
      score: matches.length,
      passed: matches.length === 0,
      details:
        matches.length === 0
          ? 'No competitors mentioned.'
          : `Competitors mentioned: ${mentioned.map((m) => `${m.competitor} (${m.count})`).join(', ')}`,
      raw_response: { mentions: mentioned, matches },
    });
  },
};
