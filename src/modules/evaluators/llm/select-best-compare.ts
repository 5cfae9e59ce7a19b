/**
 * LangWatch's Comparison judge (`langevals/select_best_compare`): the judge sees two or more
 * candidate replies as anonymous slots (A, B, C, ...) in an order shuffled by the row index
 * exactly as Python's `random.Random(row_index).shuffle` orders them, and names the best
 * one, or "tie". By default it is asked twice, the second time with the order reversed; two
 * different answers leave the row without a verdict (skipped, the calls' cost kept), which is
 * neither a tie nor either answer taken on trust. Prompts, tool and wording are upstream's.
 */
import { z } from 'zod';
import { InvalidProviderResponseError } from '../errors.ts';
import type { EvaluationResult, EvaluatorContext } from '../types.ts';
import { optionalText } from './judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings } from './judge.ts';
import { JudgeSession, skipIfTooLong } from './provider.ts';
import { pythonShuffle } from './python-shuffle.ts';
import { slotLabel, translateSlotReferences } from './slot-references.ts';

/** LangWatch's default judge of both comparison evaluators. */
export const COMPARE_DEFAULT_MODEL = 'openai/gpt-5-mini';

const DEFAULT_PROMPT = `Pick the best of N candidate replies to the task.

Task:       {input}
Reference:  {golden}

Candidates:
{candidates}

Look across the candidates and decide which one is the best reply.
Briefly explain WHY it's better than the others, then pick the winning
slot label. Use "tie" only when no candidate is clearly better.
`;

const PROMPT_NO_GOLDEN = `Pick the best of N candidate replies to the task — there is no reference
answer, so compare them on their own merits.

Task:  {input}

Candidates:
{candidates}

Look across the candidates and decide which one is the best reply.
Briefly explain WHY it's better than the others, then pick the winning
slot label. Use "tie" only when no candidate is clearly better.
`;

const PROMPT_GOLDEN_NO_INPUT = `Pick the best of N candidate replies.

Reference:  {golden}

Candidates:
{candidates}

Compare each candidate against the reference answer and decide which one
is closest. Briefly explain WHY it's better than the others, then pick the
winning slot label. Use "tie" only when no candidate is clearly better.
`;

const PROMPT_NO_GOLDEN_NO_INPUT = `Pick the best of N candidate replies — there is no task description or
reference answer, so compare them on their own merits.

Candidates:
{candidates}

Look across the candidates and decide which one is the best reply.
Briefly explain WHY it's better than the others, then pick the winning
slot label. Use "tie" only when no candidate is clearly better.
`;

// An untouched default prompt is swapped for the one that fits what the row gives (a
// reference, a task, both or neither); a hand-written prompt matches none and is sent as is.
const DEFAULT_PROMPTS = [DEFAULT_PROMPT, PROMPT_GOLDEN_NO_INPUT, PROMPT_NO_GOLDEN, PROMPT_NO_GOLDEN_NO_INPUT].map((p) => p.trim());

function defaultPromptFor(hasGolden: boolean, hasInput: boolean): string {
  if (hasGolden) return hasInput ? DEFAULT_PROMPT : PROMPT_GOLDEN_NO_INPUT;
  return hasInput ? PROMPT_NO_GOLDEN : PROMPT_NO_GOLDEN_NO_INPUT;
}

const METRICS_NOTE =
  '\n\nSome candidates above are annotated with cost and/or duration. Factor these into your decision, preferring a cheaper or faster candidate only when quality is comparable.';

const SYSTEM =
  'You are an impartial judge picking the best of several candidate outputs. Reason briefly, then pick the winning slot label using the provided function call. ' +
  'Judge the candidates\' content only, ignore the order in which they are presented. In your reasoning write every slot as "Candidate A", "Candidate B" and so on, ' +
  'never as a bare letter; the winner field still takes the bare label.';

/** The per-candidate metrics both comparison judges may show the judge. */
export const includeMetricsSetting = z
  .array(z.enum(['cost', 'duration']))
  .default([])
  .describe('Per-candidate metrics to inject into the judge prompt');

/** "cost=$0.001200", "duration=0.450s": the metrics asked for that the candidate has. */
export function candidateMetrics(include: readonly string[], candidate: { cost?: number | null; duration?: number | null }): string[] {
  const parts: string[] = [];
  if (include.includes('cost') && candidate.cost != null) parts.push(`cost=$${candidate.cost.toFixed(6)}`);
  if (include.includes('duration') && candidate.duration != null) parts.push(`duration=${candidate.duration.toFixed(3)}s`);
  return parts;
}

/** The template's known placeholders replaced literally, one after another: unknown braces stay as written. */
export function fillPlaceholders(template: string, values: Record<string, string>): string {
  return Object.entries(values).reduce((text, [key, value]) => text.split(`{${key}}`).join(value), template);
}

const candidate = z.object({
  id: z.string().describe('The candidate (e.g. the target) the verdict names when it wins.'),
  output: z.string().describe('Its reply; a blank one takes no part.'),
  cost: z.number().nullish().describe('What producing it cost (shown to the judge with include_metrics).'),
  duration: z.number().nullish().describe('How long producing it took, in seconds (shown with include_metrics).'),
});

const data = z.object({
  input: optionalText('The task the candidates reply to.'),
  golden: optionalText('The reference answer (used with has_golden_answer).'),
  candidates: z.array(candidate).default([]).describe('Two or more candidate replies.'),
  row_index: z.number().int().nullish().describe("The row's index: seeds the order the candidates are shown in (0 when absent)."),
});

const settings = judgeSettings(128_000, COMPARE_DEFAULT_MODEL).extend({
  prompt: z
    .string()
    .default(DEFAULT_PROMPT)
    .describe('Judge prompt template. Placeholders: {input}, {golden}, {candidates} (a pre-rendered bulleted list with slot labels and optional per-candidate metrics).'),
  has_golden_answer: z
    .boolean()
    .default(false)
    .describe('Compare each candidate against a reference answer. Turn off to have the judge compare the candidates directly on their own merits, with no reference answer involved.'),
  randomize_order: z
    .boolean()
    .default(true)
    .describe('Shuffle candidate order per row (deterministically, seeded by row_index) before presenting them to the judge. Reduces position bias when the judge is called once per row.'),
  allow_tie: z.boolean().default(true).describe("Allow the judge to return 'tie' when candidates are equivalent"),
  include_metrics: includeMetricsSetting,
  temperature: z.number().min(0).max(2).default(0).describe('Sampling temperature for the judge call. Lower is more deterministic.'),
  swap_and_reconcile: z
    .boolean()
    .default(true)
    .describe(
      'Check each row twice, the second time with the candidate order reversed, and record no result for that row when the two disagree — rather than a tie, which would claim the candidates are equally good. Doubles judge-call cost per row (literature: swapping candidate order alone flips 10-30% of verdicts on contested rows).',
    ),
});

type Candidate = z.output<typeof candidate>;
type Entry = z.output<typeof data>;
type Settings = z.output<typeof settings>;

/** One judge call's finding: the winner's id, "tie", or null (no usable answer: `unanswered`; the passes disagreed: not). */
interface Finding {
  winner: string | null;
  reasoning: string;
  unanswered?: boolean;
}

/** gpt-5 models take no temperature but 1 (upstream sends 1 and lets the provider drop it). */
function effectiveTemperature(s: Settings): number {
  return s.model.includes('gpt-5') ? 1 : s.temperature;
}

const unanswered = (whatHappened: string): Finding => ({
  winner: null,
  unanswered: true,
  reasoning: `The judge ${whatHappened}, so this row has no verdict. The call was still made and billed.`,
});

/** The user message for one order of the candidates. */
function renderPrompt(entry: Entry, s: Settings, slots: ReadonlyArray<[string, Candidate]>): string {
  let template = s.prompt;
  if (DEFAULT_PROMPTS.includes(template.trim())) {
    const hasInput = Boolean(entry.input?.trim());
    const hasGolden = s.has_golden_answer && Boolean(entry.golden?.trim());
    template = defaultPromptFor(hasGolden, hasInput);
    if (s.include_metrics.length) template += METRICS_NOTE;
  }
  const block = slots
    .map(([slot, c]) => {
      const metrics = candidateMetrics(s.include_metrics, c);
      return `- ${slot}: ${c.output}${metrics.length ? `  [${metrics.join(', ')}]` : ''}`;
    })
    .join('\n');
  return fillPlaceholders(template, { input: entry.input ?? '', golden: entry.golden ?? '', candidates: block });
}

async function judgeOrder(session: JudgeSession, entry: Entry, s: Settings, ordered: readonly Candidate[], asked: unknown[]): Promise<Finding> {
  const slots = ordered.map((c, i) => [slotLabel(i), c] as [string, Candidate]);
  const bySlot = new Map(slots);
  const winnerEnum = [...slots.map(([slot]) => slot), ...(s.allow_tie ? ['tie'] : [])];
  // The schema the judge is shown is upstream's; what it answers is read leniently below, as
  // upstream reads it (a provider need not hold to the enum or the types).
  const answerSchema = z
    .object({
      reasoning: z.unknown().optional().meta({ type: 'string', description: 'Brief explanation of why the winning candidate is the best reply — keep it brief.' }),
      winner: z.unknown().optional().meta({ type: 'string', enum: winnerEnum, description: "The winning slot label. Use 'tie' only when no candidate clearly wins." }),
    })
    .meta({ required: ['reasoning', 'winner'] });
  let answer: z.output<typeof answerSchema>;
  try {
    answer = await session.call({
      system: SYSTEM,
      prompt: renderPrompt(entry, s, slots),
      tool: { name: 'select_best_verdict', description: 'Record the select-best verdict. Reason first, then pick the winning slot label.', input: answerSchema },
      temperature: effectiveTemperature(s),
    });
  } catch (err) {
    // A forced tool call is a request, not a guarantee: no call or unreadable arguments is the
    // judge not answering, a row without a verdict (its call still billed), not a failed evaluator.
    if (!(err instanceof InvalidProviderResponseError)) throw err;
    asked.push({ order: ordered.map((c) => c.id), answer: null });
    const noCall = (err.cause as Error | undefined)?.name === 'AI_ToolChoiceViolationError' || err.message.includes('without calling');
    return unanswered(noCall ? 'returned no answer to read' : 'returned an answer that could not be read');
  }
  asked.push({ order: ordered.map((c) => c.id), answer });
  const displayed = answer.winner;
  if (typeof displayed !== 'string' || !displayed.trim()) return unanswered('answered without naming a winner');
  // A slot never shown (a provider that ignores the enum) degrades to the first slot, as upstream.
  const winner = displayed === 'tie' ? 'tie' : (bySlot.get(displayed) ?? slots[0][1]).id;
  const explanation = typeof answer.reasoning === 'string' && answer.reasoning.trim() ? answer.reasoning : 'The judge gave no explanation.';
  return { winner, reasoning: translateSlotReferences(explanation, new Map(slots.map(([slot, c]) => [slot, c.id]))) };
}

/** Both orders asked; one verdict only when both name the same candidate (or both a tie). */
async function reconcile(session: JudgeSession, entry: Entry, s: Settings, ordered: readonly Candidate[], asked: unknown[]): Promise<Finding> {
  const first = await judgeOrder(session, entry, s, ordered, asked);
  const second = await judgeOrder(session, entry, s, [...ordered].reverse(), asked);
  // One unusable answer is not a disagreement, and two of them do not agree.
  if (first.unanswered || second.unanswered) return first.unanswered ? first : second;
  const pinned = effectiveTemperature(s) === 0;
  if (first.winner === second.winner) {
    const confirmation = pinned ? 'Confirmed under order swap.' : 'Confirmed on a second call with the candidate order reversed.';
    return { winner: first.winner, reasoning: `${confirmation}\n\n${first.reasoning}` };
  }
  const label = pinned ? 'Order-sensitive verdict' : 'Unreproducible verdict';
  const cause = pinned
    ? 'The verdict changed with candidate order.'
    : 'The verdict did not survive being asked again with the candidate order reversed. This judge does not run at a fixed temperature, so the disagreement is not necessarily caused by the order.';
  return {
    winner: null,
    reasoning: `${label}: this row does not establish a winner.\n\nOriginal order picked ${first.winner}:\n${first.reasoning}\n\nReversed order picked ${second.winner}:\n${second.reasoning}\n\n${cause}`,
  };
}

async function selectBest(entry: Entry, s: Settings, ctx: EvaluatorContext): Promise<EvaluationResult> {
  const candidates = entry.candidates.filter((c) => c.output !== '');
  if (candidates.length < 2) {
    return { status: 'skipped', details: `N-way compare needs at least 2 candidates with non-empty outputs (got ${candidates.length})` };
  }
  const ordered = s.randomize_order ? pythonShuffle(candidates, entry.row_index ?? 0) : candidates;
  const tooLong = skipIfTooLong(renderPrompt(entry, s, ordered.map((c, i) => [slotLabel(i), c])), s.model, s.max_tokens);
  if (tooLong) return tooLong;

  const session = new JudgeSession(s.model, ctx);
  const asked: unknown[] = [];
  const finding = s.swap_and_reconcile ? await reconcile(session, entry, s, ordered, asked) : await judgeOrder(session, entry, s, ordered, asked);
  // No winner: skipped, not scored. A score would claim a win or a tie the row never
  // established; the judge calls were made all the same, so their cost stays on the result.
  if (finding.winner === null) return judgedResult(session, 'skipped', { details: finding.reasoning }, { verdicts: asked });
  return judgedResult(session, 'processed', { score: finding.winner === 'tie' ? 0.5 : 1, label: finding.winner, details: finding.reasoning }, { verdicts: asked });
}

export const selectBestCompare = judgeEvaluator({
  path: 'langevals/select_best_compare',
  name: 'Comparison',
  description:
    "Compare two or more candidate outputs and pick the best one, optionally against a reference answer. The judge sees every candidate at once and explains why the winner is better. Candidate order is shuffled so that a candidate's position never sways the verdict, and by default each row is checked twice — once more with the order reversed — recording no result for that row when the two checks disagree, rather than guessing. Score 1 when a winner was picked (label: its id), 0.5 for a tie.",
  category: 'quality',
  data,
  settings,
  isGuardrail: false,
  evaluate: ({ data: entry, settings: s, ctx }) => selectBest(entry, s, ctx),
});
