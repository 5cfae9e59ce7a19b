/**
 * LangWatch's Pairwise Compare (`langevals/pairwise_compare`, deprecated there in favour of
 * Comparison but still run for what was set up with it): candidate A against candidate B,
 * against a golden answer by default. With swap_and_confirm the judge is asked twice, the
 * second time with A and B swapped, and two different winners make a tie. Score 0 = A wins,
 * 1 = B wins, 0.5 = tie; the label names the winner by its id. Prompts and tool are upstream's.
 */
import { z } from 'zod';
import type { EvaluationResult, EvaluatorContext } from '../types.ts';
import { optionalText } from './judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings } from './judge.ts';
import { JudgeSession, skipIfTooLong } from './provider.ts';
import { candidateMetrics, COMPARE_DEFAULT_MODEL, fillPlaceholders, includeMetricsSetting } from './select-best-compare.ts';

const DEFAULT_PROMPT = `Compare two candidate outputs against a known-good reference (golden answer).

Task:           {input}
Golden answer:  {golden}

Candidate A:    {candidate_a_output}
Candidate B:    {candidate_b_output}

Reason step-by-step about how closely each candidate matches the
golden answer in correctness, completeness, and style. Then pick
the better candidate, or "tie" if equivalent.
Prefer cheaper/faster only when quality is comparable.
`;

// With has_golden_answer off, the untouched default becomes this one (no "Golden answer:" line
// with nothing after it); a prompt the user wrote is sent as written.
const PROMPT_NO_GOLDEN = `Compare two candidate outputs and decide which one is better on its own merits — there is no reference answer to compare against.

Task:           {input}

Candidate A:    {candidate_a_output}
Candidate B:    {candidate_b_output}

Reason step-by-step about which candidate is more correct, complete, and
well-styled for the given task. Then pick the better candidate, or "tie"
if equivalent.
Prefer cheaper/faster only when quality is comparable.
`;

const SYSTEM = 'You are an impartial judge comparing two candidate outputs. Reason briefly, then pick the winner using the provided function call.';

const data = z.object({
  input: optionalText('The task the two candidates reply to.'),
  golden: optionalText('The golden answer they are compared against.'),
  candidate_a_id: z.string().describe('Candidate A: the label when it wins.'),
  candidate_a_output: z.string().describe("Candidate A's reply."),
  candidate_a_cost: z.number().nullish().describe("Candidate A's cost (shown with include_metrics)."),
  candidate_a_duration: z.number().nullish().describe("Candidate A's duration in seconds (shown with include_metrics)."),
  candidate_b_id: z.string().describe('Candidate B: the label when it wins.'),
  candidate_b_output: z.string().describe("Candidate B's reply."),
  candidate_b_cost: z.number().nullish().describe("Candidate B's cost (shown with include_metrics)."),
  candidate_b_duration: z.number().nullish().describe("Candidate B's duration in seconds (shown with include_metrics)."),
});

const settings = judgeSettings(128_000, COMPARE_DEFAULT_MODEL).extend({
  prompt: z.string().default(DEFAULT_PROMPT).describe('Judge prompt template (golden-aware by default)'),
  has_golden_answer: z
    .boolean()
    .default(true)
    .describe('Compare each candidate against a reference answer. Turn off to have the judge compare Candidate A and Candidate B directly on their own merits, with no reference answer involved.'),
  swap_and_confirm: z
    .boolean()
    .default(true)
    .describe('Run two judge calls with A/B positions swapped; tie on disagreement. Doubles judge cost but materially reduces position bias (PandaLM: 68% -> 51%).'),
  allow_tie: z.boolean().default(true).describe("Allow the judge to return 'tie' when candidates are equivalent"),
  include_metrics: includeMetricsSetting,
});

type Entry = z.output<typeof data>;
type Settings = z.output<typeof settings>;
type Side = 'A' | 'B';

const side = (entry: Entry, which: Side) =>
  which === 'A'
    ? { output: entry.candidate_a_output, cost: entry.candidate_a_cost, duration: entry.candidate_a_duration }
    : { output: entry.candidate_b_output, cost: entry.candidate_b_cost, duration: entry.candidate_b_duration };

/** The prompt with `order[0]` in slot A and `order[1]` in slot B, and whether it is the golden-free default. */
function renderPrompt(entry: Entry, s: Settings, order: readonly [Side, Side]): { prompt: string; goldenFree: boolean } {
  const goldenFree = !s.has_golden_answer && s.prompt === DEFAULT_PROMPT;
  let prompt = fillPlaceholders(goldenFree ? PROMPT_NO_GOLDEN : s.prompt, {
    input: entry.input ?? '',
    golden: entry.golden ?? '',
    candidate_a_output: side(entry, order[0]).output,
    candidate_b_output: side(entry, order[1]).output,
  });
  if (s.include_metrics.length) {
    const lines = (['A', 'B'] as const)
      .map((slot, i) => ({ slot, parts: candidateMetrics(s.include_metrics, side(entry, order[i])) }))
      .filter((m) => m.parts.length)
      .map((m) => `  Candidate ${m.slot}: ${m.parts.join(' ')}`);
    if (lines.length) prompt += `\n\nPer-candidate metrics:\n${lines.join('\n')}`;
  }
  return { prompt, goldenFree };
}

/** One judge call; the winner translated back to the original candidate ("A", "B" or "tie"). */
async function judgeOrder(session: JudgeSession, entry: Entry, s: Settings, order: readonly [Side, Side], asked: unknown[]) {
  const { prompt, goldenFree } = renderPrompt(entry, s, order);
  const answer = await session.call({
    system: SYSTEM,
    prompt,
    tool: {
      name: 'pairwise_verdict',
      description: 'Record the pairwise verdict. Reason first, then pick the winner.',
      input: z.object({
        reasoning: z
          .string()
          .describe(
            goldenFree
              ? 'Step-by-step comparison of the two candidates on their own merits — no reference answer is involved.'
              : 'Step-by-step comparison of the two candidates against the golden answer.',
          ),
        // Shown as upstream's enum; any other answer reads as slot B, as upstream reads it.
        winner: z.string().meta({ enum: s.allow_tie ? ['A', 'B', 'tie'] : ['A', 'B'], description: "Which candidate wins, by slot label. Use 'tie' only when truly equivalent." }),
      }),
    },
  });
  asked.push({ order, answer });
  const winner: Side | 'tie' = answer.winner === 'tie' ? 'tie' : answer.winner === 'A' ? order[0] : order[1];
  return { winner, reasoning: answer.reasoning };
}

async function pairwise(entry: Entry, s: Settings, ctx: EvaluatorContext): Promise<EvaluationResult> {
  if (!entry.candidate_a_output || !entry.candidate_b_output) return { status: 'skipped', details: 'Missing candidate output(s)' };
  const tooLong = skipIfTooLong(renderPrompt(entry, s, ['A', 'B']).prompt, s.model, s.max_tokens);
  if (tooLong) return tooLong;

  const session = new JudgeSession(s.model, ctx);
  const asked: unknown[] = [];
  const first = await judgeOrder(session, entry, s, ['A', 'B'], asked);
  let winner = first.winner;
  let reasoning = first.reasoning;
  if (s.swap_and_confirm) {
    const second = await judgeOrder(session, entry, s, ['B', 'A'], asked);
    if (first.winner !== second.winner) winner = 'tie';
    reasoning = `Call 1 (A in slot A, B in slot B): ${first.reasoning}\n\nCall 2 (B in slot A, A in slot B): ${second.reasoning}`;
  }
  const score = { A: 0, tie: 0.5, B: 1 }[winner];
  const label = winner === 'A' ? entry.candidate_a_id : winner === 'B' ? entry.candidate_b_id : 'tie';
  return judgedResult(session, 'processed', { score, label, details: reasoning }, { verdicts: asked });
}

export const pairwiseCompare = judgeEvaluator({
  path: 'langevals/pairwise_compare',
  name: 'Pairwise Compare (deprecated)',
  description:
    'Compare two candidate outputs against a reference answer and pick the better one. Superseded by Comparison, which judges two or more candidates. Score 0 when A wins, 1 when B wins, 0.5 for a tie; the label is the winner\'s id or "tie".',
  category: 'quality',
  data,
  settings,
  isGuardrail: false,
  evaluate: ({ data: entry, settings: s, ctx }) => pairwise(entry, s, ctx),
});
