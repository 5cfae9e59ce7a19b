import { z } from 'zod';
import { nonBlank, numbered, optionalContexts, optionalText } from '../llm/judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings, outputAndContexts } from '../llm/judge.ts';
import { JudgeSession } from '../llm/provider.ts';

/** Ragas SummarizationScore's `coeff`: the weight of conciseness in the final score. */
export const CONCISENESS_WEIGHT = 0.5;

const data = z.object({
  output: optionalText('The summary.'),
  contexts: optionalContexts.describe('The text that was summarized, in parts (joined with newlines).'),
});

// Defaults are langevals' RagasSettings.
const settings = judgeSettings(2048);

const keyphrasesTool = {
  name: 'extract_keyphrases',
  description: 'Report the key phrases of the text',
  input: z.object({ keyphrases: z.array(z.string()).describe('The key phrases, as they appear in the text.') }),
};

const questionsTool = {
  name: 'generate_questions',
  description: 'Report closed-ended questions the text answers with yes',
  input: z.object({ questions: z.array(z.string()).describe('Closed-ended questions whose answer, by the text, is always yes (1).') }),
};

const answersTool = {
  name: 'answer_questions',
  description: 'Report for each question whether the summary answers it',
  input: z.object({
    answers: z
      .array(z.enum(['0', '1']))
      .describe("One answer per question, in order: '1' if the summary holds enough information to answer it, '0' if not."),
  }),
};

/** Length in code points, as Python's len() that Ragas uses. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Ragas SummarizationScore (length_penalty on, coeff 0.5), in three judge calls over
 * text = contexts joined with "\n":
 * 1. key phrases are extracted from the text (people, organizations, places, dates, amounts...);
 * 2. closed-ended questions are generated from the text and key phrases, each answered "yes" by the text;
 * 3. each question is answered from the summary alone: '1' answerable, '0' not.
 * QA score = questions answered '1' / questions (a question without an answer counts as '0');
 * conciseness = 1 - min(len(summary), len(text)) / (len(text) + 1e-10), lengths in code points;
 * score = (1 - 0.5) * QA + 0.5 * conciseness. A copy of the text answers everything but scores
 * 0 on conciseness, so it gets 0.5.
 */
export const summarizationScore = judgeEvaluator({
  path: 'rag/summarization_score',
  name: 'Summarization Score',
  description:
    'How well the summary captures the important information of the contexts: questions generated from the key phrases of the contexts are answered from the summary (QA score), combined half and half with a conciseness score (1 - summary length / text length).',
  category: 'quality',
  data,
  settings,
  async evaluate({ data: entry, settings: config, ctx }) {
    const subject = outputAndContexts(entry, config, {
      noOutput: 'Output is empty: there is no summary to score.',
      noContexts: 'No contexts were given: there is no text the summary summarizes.',
    });
    if (subject.skipped) return subject.skipped;
    const summary = subject.output;
    const text = subject.contexts.join('\n');

    const judge = new JudgeSession(config.model, ctx);
    const { keyphrases } = await judge.call({
      system:
        'You extract the key phrases of a text: people, organizations, locations, dates and times, monetary values, percentages, and other central entities, events and terms.',
      prompt: `Text:\n${text}`,
      tool: keyphrasesTool,
    });
    const phrases = nonBlank(keyphrases);
    if (phrases.length === 0) {
      return judgedResult(judge, 'skipped', { details: 'The judge found no key phrases in the contexts to ask questions about.' }, { keyphrases: [] });
    }

    const { questions: generated } = await judge.call({
      system:
        "From the text and its key phrases, write closed-ended questions that can be answered '1' (yes) or '0' (no). Every question must be answered '1' by the text.",
      prompt: `Text:\n${text}\n\nKey phrases:\n${phrases.map((p) => `- ${p}`).join('\n')}`,
      tool: questionsTool,
    });
    const questions = nonBlank(generated);
    if (questions.length === 0) {
      return judgedResult(judge, 'skipped', { details: 'The judge generated no questions from the contexts.' }, { keyphrases: phrases, questions: [] });
    }

    const { answers } = await judge.call({
      system:
        "For each closed-ended question, decide whether the summary contains enough information to answer it: '1' if it does, '0' if it does not. Use only the summary. Answer every question, in order.",
      prompt: `Summary:\n${summary}\n\nQuestions:\n${numbered(questions)}`,
      tool: answersTool,
    });
    const answered = questions.filter((_, i) => answers[i] === '1').length;
    const qaScore = answered / questions.length;
    const textLength = codePoints(text);
    const conciseness = 1 - Math.min(codePoints(summary), textLength) / (textLength + 1e-10);
    const score = qaScore * (1 - CONCISENESS_WEIGHT) + conciseness * CONCISENESS_WEIGHT;
    const details = `QA score: ${round(qaScore)} (${answered} of ${questions.length} questions answered by the summary); conciseness score: ${round(conciseness)}; score = ${1 - CONCISENESS_WEIGHT} x QA + ${CONCISENESS_WEIGHT} x conciseness.`;
    return judgedResult(judge, 'processed', { score, details }, {
      qa_score: qaScore,
      conciseness_score: conciseness,
      keyphrases: phrases,
      questions: questions.map((question, i) => ({ question, answer: answers[i] ?? null })),
    });
  },
});

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
