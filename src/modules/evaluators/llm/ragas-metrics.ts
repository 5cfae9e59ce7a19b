/**
 * Ragas' LLM metrics by LangWatch's names and settings (Ragas' `model`, `max_tokens` 2048 and,
 * where the original embeds, `embeddings_model`), following Ragas' algorithms through the
 * judges' forced tool calls (claims.ts for statement extraction and verification):
 * response relevancy, factual correctness, answer correctness, context recall, context
 * precision, context utilization and context relevancy.
 */
import { z } from 'zod';
import type { EvaluationResult } from '../types.ts';
import { extractStatements, verifyStatements, type StatementVerdict } from './claims.ts';
import { cosineSimilarity, embeddingsModelSetting } from './embeddings.ts';
import { nonBlank, numbered, usableContexts } from './judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings } from './judge.ts';
import { JudgeSession, requiredEnvForModel, skipIfTooLong } from './provider.ts';

const ragasSettings = judgeSettings(2048);
const ragasEmbeddingSettings = ragasSettings.extend({ embeddings_model: embeddingsModelSetting('openai/text-embedding-ada-002') });

/** Ragas' check_max_tokens: the entry's text above min(max_tokens, 16384) tokens is skipped. */
function tooLong(parts: Array<string | null | undefined | string[]>, s: { model: string; max_tokens: number }): EvaluationResult | null {
  const text = parts.flatMap((p) => (Array.isArray(p) ? p : [p ?? ''])).join(' ');
  return skipIfTooLong(text, s.model, Math.min(s.max_tokens, 16_384));
}

/** Judges that also embed need the keys of both models. */
const withEmbeddings = <T extends { requiredEnvFor?: (s: never) => string[] }>(d: T) => ({
  ...d,
  requiredEnvFor: (s: { model: string; embeddings_model: string }) => [...new Set([...requiredEnvForModel(s.model), ...requiredEnvForModel(s.embeddings_model)])],
});

const round2 = (x: number) => Math.round(x * 100) / 100;

// ---------------------------------------------------------------- response relevancy

/** Ragas' strictness: how many questions are generated from the answer. */
const STRICTNESS = 3;

const generatedQuestion = z.object({
  question: z.string().describe('A question the answer answers.'),
  noncommittal: z.union([z.literal(0), z.literal(1)]).describe('1 if the answer is noncommittal (evasive, vague or ambiguous, e.g. "I don\'t know"), 0 if it is committal.'),
});

/**
 * Ragas ResponseRelevancy: 3 questions are generated from the answer (temperature 0.7, as
 * langevals), each embedded with the original question; score = the mean cosine similarity,
 * or 0 when every generation found the answer noncommittal.
 */
export const responseRelevancy = withEmbeddings(
  judgeEvaluator({
    path: 'ragas/response_relevancy',
    name: 'Ragas Response Relevancy',
    description: 'Evaluates how pertinent the generated answer is to the given prompt. Higher scores indicate better relevancy.',
    category: 'quality',
    data: z.object({ input: z.string().describe('The question.'), output: z.string().describe('The answer.') }),
    settings: ragasEmbeddingSettings,
    async evaluate({ data, settings, ctx }) {
      const skip = tooLong([data.input, data.output], settings);
      if (skip) return skip;
      const judge = new JudgeSession(settings.model, ctx);
      const answers = [];
      for (let i = 0; i < STRICTNESS; i++) {
        answers.push(
          await judge.call({
            system:
              'Generate a question for the given answer and identify if the answer is noncommittal. Give noncommittal as 1 if the answer is noncommittal and 0 if the answer is committal. A noncommittal answer is one that is evasive, vague, or ambiguous. For example, "I don\'t know" or "I\'m not sure" are noncommittal answers.',
            prompt: `Answer:\n${data.output}`,
            tool: { name: 'generated_question', description: 'Write the question the answer answers, and whether the answer is noncommittal.', input: generatedQuestion },
            temperature: 0.7,
          }),
        );
      }
      const questions = answers.map((a) => a.question.trim());
      if (questions.every((q) => !q)) return judgedResult(judge, 'skipped', { details: 'No questions could be generated from output.' }, { answers });
      const [original, ...generated] = await judge.embed(settings.embeddings_model, [data.input, ...questions]);
      const similarities = generated.map((g) => cosineSimilarity(original, g));
      const meanSimilarity = similarities.reduce((a, b) => a + b, 0) / similarities.length;
      const allNoncommittal = answers.every((a) => a.noncommittal === 1);
      return judgedResult(
        judge,
        'processed',
        {
          score: allNoncommittal ? 0 : meanSimilarity,
          details: `Questions generated from output:\n\n${questions.map((q) => `- ${q}`).join('\n')}\n\nSimilarity to original question: ${meanSimilarity}\nEvasive answer: ${answers.some((a) => a.noncommittal === 1) ? 'True' : 'False'}`,
        },
        { answers, similarities },
      );
    },
  }),
);

// ---------------------------------------------------------------- factual correctness

const ATOMICITY = {
  low: 'Keep related facts of a sentence together in one statement (low atomicity).',
  high: 'Break every sentence into its smallest atomic facts, one fact per statement (high atomicity).',
};
const COVERAGE = {
  low: 'Keep only the main claims and leave out secondary details (low coverage).',
  high: 'Cover every piece of information in the text, details included (high coverage).',
};

function verdictLines(title: string, premise: string, verdicts: StatementVerdict[]): string {
  return `# ${title}\nPremise: ${premise}\nHypothesis list:\n${verdicts.map((v) => `- "${v.statement}": ${v.supported ? 'True' : 'False'}\n`).join('')}`;
}

/** F-beta from true positives, false positives and false negatives (Ragas' fbeta_score). */
function fbeta(tp: number, fp: number, fn: number, beta = 1): number {
  const precision = tp / (tp + fp + 1e-10);
  const recall = tp / (tp + fn + 1e-10);
  return ((1 + beta * beta) * precision * recall) / (beta * beta * precision + recall + 1e-10);
}

/**
 * Ragas FactualCorrectness: the output's claims (decomposed at the settings' atomicity and
 * coverage) are verified against the expected output (precision), and, unless mode is
 * precision, the expected output's claims against the output (recall); score = precision,
 * recall or F1 of the two, rounded to 2 decimals as Ragas does.
 */
export const factualCorrectness = judgeEvaluator({
  path: 'ragas/factual_correctness',
  name: 'LLM Factual Match',
  description: 'Computes with an LLM how factually similar the generated answer is to the expected output.',
  category: 'quality',
  data: z.object({ output: z.string().describe('The answer.'), expected_output: z.string().describe('The reference answer.') }),
  settings: ragasSettings.extend({
    mode: z.enum(['f1', 'precision', 'recall']).default('f1').describe('The mode to use for the factual correctness metric.'),
    atomicity: z.enum(['low', 'high']).default('low').describe('The level of atomicity for claim decomposition.'),
    coverage: z.enum(['low', 'high']).default('low').describe('The level of coverage for claim decomposition.'),
  }),
  async evaluate({ data, settings, ctx }) {
    const skip = tooLong([data.output, data.expected_output], settings);
    if (skip) return skip;
    const judge = new JudgeSession(settings.model, ctx);
    const how = `${ATOMICITY[settings.atomicity]} ${COVERAGE[settings.coverage]}`;
    const responseClaims = await extractStatements(judge, data.output, how);
    if (responseClaims.length === 0) return judgedResult(judge, 'skipped', { details: 'No claims could be generated from output.' }, {});
    const referenceClaims = settings.mode === 'precision' ? [] : await extractStatements(judge, data.expected_output, how);
    const precisionVerdicts = await verifyStatements(judge, data.expected_output, responseClaims);
    const recallVerdicts = settings.mode === 'precision' ? [] : await verifyStatements(judge, data.output, referenceClaims);
    const tp = precisionVerdicts.filter((v) => v.supported).length;
    const fp = precisionVerdicts.length - tp;
    const fn = recallVerdicts.filter((v) => !v.supported).length;
    const score = settings.mode === 'precision' ? tp / (tp + fp + 1e-8) : settings.mode === 'recall' ? tp / (tp + fn + 1e-8) : fbeta(tp, fp, fn);
    const details =
      verdictLines('Precision', data.expected_output, precisionVerdicts) +
      (settings.mode === 'precision' ? '' : `\n${verdictLines('Recall', data.output, recallVerdicts)}`);
    return judgedResult(judge, 'processed', { score: round2(score), details }, { precision: precisionVerdicts, recall: recallVerdicts });
  },
});

// ---------------------------------------------------------------- answer correctness

const classification = z.object({
  TP: z.array(z.string()).describe('Statements of the answer that the ground truth supports.'),
  FP: z.array(z.string()).describe('Statements of the answer that the ground truth does not support.'),
  FN: z.array(z.string()).describe('Statements of the ground truth that are missing from the answer.'),
});

/** Ragas' weights of factuality and semantic similarity. */
const CORRECTNESS_WEIGHTS = [0.75, 0.25] as const;

/**
 * Ragas AnswerCorrectness (the legacy metric langevals runs): the answer's and the ground
 * truth's statements are classified TP / FP / FN by the judge; factuality = TP / (TP + (FP +
 * FN) / 2); similarity = the cosine of the two texts' embeddings; score = 0.75 factuality +
 * 0.25 similarity.
 */
export const answerCorrectness = withEmbeddings(
  judgeEvaluator({
    path: 'ragas/answer_correctness',
    name: 'Ragas Answer Correctness',
    description: 'Computes with an LLM a weighted combination of factual as well as semantic similarity between the generated answer and the expected output.',
    category: 'rag',
    data: z.object({
      input: z.string().nullish().describe('The question.'),
      output: z.string().describe('The answer.'),
      expected_output: z.string().describe('The ground truth.'),
    }),
    settings: ragasEmbeddingSettings,
    async evaluate({ data, settings, ctx }) {
      const skip = tooLong([data.input, data.output, data.expected_output], settings);
      if (skip) return skip;
      const judge = new JudgeSession(settings.model, ctx);
      const answerStatements = await extractStatements(judge, data.output, '', data.input);
      const truthStatements = await extractStatements(judge, data.expected_output, '', data.input);
      const classified = await judge.call({
        system:
          'Given a ground truth and an answer statements, analyze each statement and classify it in one of the following categories: TP (true positive): statements that are present in the answer that are also directly supported by one or more statements in the ground truth; FP (false positive): statements present in the answer but not directly supported by any statement in the ground truth; FN (false negative): statements found in the ground truth but not present in the answer. Each statement can only belong to one of the categories.',
        prompt: `${data.input ? `Question:\n${data.input}\n\n` : ''}Answer statements:\n${numbered(answerStatements)}\n\nGround truth statements:\n${numbered(truthStatements)}`,
        tool: { name: 'classify_statements', description: 'Classify every statement as TP, FP or FN.', input: classification },
      });
      const [tp, fp, fn] = [nonBlank(classified.TP).length, nonBlank(classified.FP).length, nonBlank(classified.FN).length];
      const factuality = tp + fp + fn === 0 ? 0 : tp / (tp + 0.5 * (fp + fn));
      const [answerVector, truthVector] = await judge.embed(settings.embeddings_model, [data.output, data.expected_output]);
      const similarity = cosineSimilarity(answerVector, truthVector);
      const score = CORRECTNESS_WEIGHTS[0] * factuality + CORRECTNESS_WEIGHTS[1] * similarity;
      return judgedResult(
        judge,
        'processed',
        { score, details: `Factuality ${factuality.toFixed(2)} (TP ${tp}, FP ${fp}, FN ${fn}), semantic similarity ${similarity.toFixed(2)}` },
        { classification: classified, factuality, similarity },
      );
    },
  }),
);

// ---------------------------------------------------------------- context recall

const attribution = z.object({
  classifications: z
    .array(
      z.object({
        statement: z.string().describe('A sentence of the reference answer.'),
        reason: z.string().describe('Why it can or cannot be attributed to the context.'),
        attributed: z.union([z.literal(0), z.literal(1)]).describe('1 if the context supports the sentence, 0 if not.'),
      }),
    )
    .describe('One classification per sentence of the reference answer.'),
});

/**
 * Ragas LLMContextRecall: each sentence of the expected output is classified as attributable
 * to the retrieved contexts or not; score = attributed / sentences.
 */
export const responseContextRecall = judgeEvaluator({
  path: 'ragas/response_context_recall',
  name: 'Ragas Response Context Recall',
  description:
    'Uses an LLM to measure how many of relevant documents attributable the claims in the output were successfully retrieved in order to generate an expected output.',
  category: 'rag',
  data: z.object({
    input: z.string().describe('The question.'),
    output: z.string().nullish().describe('The answer (not read by the metric).'),
    contexts: z.array(z.string()).describe('The retrieved contexts.'),
    expected_output: z.string().describe('The reference answer.'),
  }),
  settings: ragasSettings,
  async evaluate({ data, settings, ctx }) {
    const skip = tooLong([data.output, data.expected_output], settings);
    if (skip) return skip;
    const judge = new JudgeSession(settings.model, ctx);
    const { classifications } = await judge.call({
      system:
        'Given a context and an answer, analyze each sentence in the answer and classify if the sentence can be attributed to the given context or not. Use only 1 (yes) or 0 (no) as a binary classification.',
      prompt: `Question:\n${data.input}\n\nContext:\n${usableContexts(data.contexts).join('\n')}\n\nAnswer:\n${data.expected_output}`,
      tool: { name: 'classify_attribution', description: 'Classify every sentence of the answer.', input: attribution },
    });
    if (classifications.length === 0) return judgedResult(judge, 'skipped', { details: 'No statements found in the expected output.' }, { classifications });
    const attributed = classifications.filter((c) => c.attributed === 1).length;
    return judgedResult(
      judge,
      'processed',
      {
        score: attributed / classifications.length,
        details: classifications.map((c) => `Statement: ${c.statement}\nReason: ${c.reason}\nAttributed: ${c.attributed}`).join('\n\n'),
      },
      { classifications },
    );
  },
});

// ---------------------------------------------------------------- context precision / utilization

const usefulness = z.object({
  reason: z.string().describe('Why the context was or was not useful.'),
  verdict: z.union([z.literal(0), z.literal(1)]).describe('1 if the context was useful in arriving at the answer, 0 if not.'),
});

/**
 * Ragas LLMContextPrecision: one verdict per retrieved context (was it useful in arriving at
 * `answer`?); score = average precision over the ranking, sum_k(precision@k * v_k) / (sum v + 1e-10).
 */
async function contextPrecisionByJudge(judge: JudgeSession, question: string, answer: string, contexts: string[]) {
  const verdicts = [];
  for (const context of contexts) {
    verdicts.push(
      await judge.call({
        system:
          'Given question, answer and context verify if the context was useful in arriving at the given answer. Give verdict as 1 if useful and 0 if not.',
        prompt: `Question:\n${question}\n\nContext:\n${context}\n\nAnswer:\n${answer}`,
        tool: { name: 'verification', description: 'Say why, then whether the context was useful.', input: usefulness },
      }),
    );
  }
  let relevant = 0;
  let numerator = 0;
  verdicts.forEach((v, k) => {
    relevant += v.verdict;
    if (v.verdict === 1) numerator += relevant / (k + 1);
  });
  return { score: numerator / (relevant + 1e-10), verdicts };
}

const precisionData = z.object({
  input: z.string().describe('The question.'),
  output: z.string().nullish().describe('The answer (used when there is no expected output).'),
  contexts: z.array(z.string()).describe('The retrieved contexts, in rank order.'),
  expected_output: z.string().nullish().describe('The reference answer (preferred when given).'),
});

/** With an expected output Ragas' LLMContextPrecisionWithReference, else WithoutReference (against the output). */
export const responseContextPrecision = judgeEvaluator({
  path: 'ragas/response_context_precision',
  name: 'Ragas Response Context Precision',
  description: 'Uses an LLM to measure the proportion of chunks in the retrieved context that were relevant to generate the output or the expected output.',
  category: 'rag',
  data: precisionData,
  settings: ragasSettings,
  async evaluate({ data, settings, ctx }) {
    const answer = data.expected_output || data.output;
    if (!answer) return { status: 'skipped', details: 'Either output or expected_output must be provided.' };
    const skip = tooLong([data.output, data.expected_output], settings);
    if (skip) return skip;
    const contexts = usableContexts(data.contexts);
    if (contexts.length === 0) return { status: 'skipped', details: 'No contexts were given.' };
    const judge = new JudgeSession(settings.model, ctx);
    const { score, verdicts } = await contextPrecisionByJudge(judge, data.input, answer, contexts);
    return judgedResult(judge, 'processed', { score }, { verdicts, against: data.expected_output ? 'expected_output' : 'output' });
  },
});

/** Ragas ContextUtilization: context precision judged against the output, no reference. */
export const contextUtilization = judgeEvaluator({
  path: 'ragas/context_utilization',
  name: 'Ragas Context Utilization',
  description: 'This metric evaluates whether all of the output relevant items present in the contexts are ranked higher or not. Higher scores indicate better utilization.',
  category: 'rag',
  data: z.object({ input: z.string().describe('The question.'), output: z.string().describe('The answer.'), contexts: z.array(z.string()).describe('The retrieved contexts, in rank order.') }),
  settings: ragasSettings,
  async evaluate({ data, settings, ctx }) {
    const skip = tooLong([data.input, data.output, data.contexts], settings);
    if (skip) return skip;
    const contexts = usableContexts(data.contexts);
    if (contexts.length === 0) return { status: 'skipped', details: 'No contexts were given.' };
    const judge = new JudgeSession(settings.model, ctx);
    const { score, verdicts } = await contextPrecisionByJudge(judge, data.input, data.output, contexts);
    return judgedResult(judge, 'processed', { score }, { verdicts });
  },
});

// ---------------------------------------------------------------- context relevancy

const sentences = (text: string): string[] =>
  [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map((s) => s.segment.trim()).filter(Boolean);

/**
 * Ragas ContextRelevancy (legacy): the judge extracts the context sentences needed to answer
 * the question (none: "Insufficient Information"); score = min(extracted / context sentences, 1).
 */
export const contextRelevancy = judgeEvaluator({
  path: 'ragas/context_relevancy',
  name: 'Ragas Context Relevancy',
  description:
    'This metric gauges the relevancy of the retrieved context, calculated based on both the question and contexts. The values fall within the range of (0, 1), with higher values indicating better relevancy.',
  category: 'rag',
  data: z.object({
    input: z.string().nullish().describe('The question.'),
    output: z.string().describe('The answer.'),
    contexts: z.array(z.string()).describe('The retrieved contexts.'),
  }),
  settings: ragasSettings,
  async evaluate({ data, settings, ctx }) {
    const skip = tooLong([data.input, data.output, data.contexts], settings);
    if (skip) return skip;
    const context = usableContexts(data.contexts).join('\n');
    const contextSentences = sentences(context);
    if (contextSentences.length === 0) return { status: 'skipped', details: 'No contexts were given.' };
    const judge = new JudgeSession(settings.model, ctx);
    const { candidate_sentences: extracted } = await judge.call({
      system:
        'Please extract relevant sentences from the provided context that is absolutely required answer the following question. If no relevant sentences are found, or if you believe the question cannot be answered from the given context, return no sentences. While extracting candidate sentences you\'re not allowed to make any changes to sentences from given context.',
      prompt: `Question:\n${data.input ?? ''}\n\nContext:\n${context}`,
      tool: {
        name: 'candidate_sentences',
        description: 'List the relevant sentences of the context, unchanged.',
        input: z.object({ candidate_sentences: z.array(z.string()).describe('The relevant sentences, copied from the context; empty for insufficient information.') }),
      },
    });
    const relevant = sentences(nonBlank(extracted).filter((s) => !/^insufficient information\.?$/i.test(s)).join(' '));
    return judgedResult(
      judge,
      'processed',
      { score: Math.min(relevant.length / contextSentences.length, 1), details: `${relevant.length} of ${contextSentences.length} context sentences are relevant to the question.` },
      { candidate_sentences: relevant, context_sentences: contextSentences.length },
    );
  },
});
