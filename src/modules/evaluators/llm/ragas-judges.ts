/**
 * Ragas' single-question LLM metrics, by LangWatch's names and settings (Ragas' `model` and
 * `max_tokens` 2048): `ragas/sql_query_equivalence` (do two SQL queries give the same results
 * on the schema?) and `ragas/rubrics_based_scoring` (a score by the rubric's levels). Ragas'
 * instructions and answer fields, asked through the judges' forced tool call.
 */
import { z } from 'zod';
import { InvalidProviderResponseError } from '../errors.ts';
import { shortReasoning } from './judge-content.ts';
import { judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

const ragasSettings = judgeSettings(2048);

const equivalence = z.object({
  response_query_explaination: z.string().describe('What the response query (Q2) does.'),
  reference_query_explaination: z.string().describe('What the reference query (Q1) does.'),
  equivalence: z.boolean().describe('True when the two queries have no significant logical difference on this schema.'),
});

export const sqlQueryEquivalence = judgeEvaluator({
  path: 'ragas/sql_query_equivalence',
  name: 'SQL Query Equivalence',
  description: 'Checks if the SQL query is equivalent to a reference one by using an LLM to infer if it would generate the same results given the table schemas.',
  category: 'quality',
  data: z.object({
    output: z.string().describe('The generated SQL query.'),
    expected_output: z.string().describe('The reference SQL query.'),
    expected_contexts: z.array(z.string()).describe('The database schema (table definitions).'),
  }),
  settings: ragasSettings,
  evaluate: ({ data, settings, ctx }) => {
    const tooLong = skipIfTooLong(`${data.output} ${data.expected_output}`, settings.model, settings.max_tokens);
    if (tooLong) return Promise.resolve(tooLong);
    return judgeOnce(
      settings.model,
      ctx,
      {
        system:
          'Explain and compare two SQL queries (Q1 and Q2) based on the provided database schema. First, explain each query, then determine if they have significant logical differences.',
        prompt: `# Q1 (reference)\n${data.expected_output}\n\n# Q2 (response)\n${data.output}\n\n# Database schema\n${data.expected_contexts.join('\n')}`,
        tool: { name: 'equivalence', description: 'Explain both queries, then say whether they are equivalent.', input: equivalence },
      },
      (answer) => ({
        score: answer.equivalence ? 1 : 0,
        passed: answer.equivalence,
        details: `Response query explaination: ${answer.response_query_explaination}\nReference query explaination: ${answer.reference_query_explaination}\nEquivalence: ${answer.equivalence ? 'True' : 'False'}`,
      }),
    );
  },
});

const RUBRICS = [
  'The response is incorrect, irrelevant.',
  'The response partially answers the question but includes significant errors, omissions, or irrelevant information.',
  'The response partially answers the question but includes minor errors, omissions, or irrelevant information.',
  'The response fully answers the question and includes minor errors, omissions, or irrelevant information.',
  'The response fully answers the question and includes no errors, omissions, or irrelevant information.',
];

const rubricVerdict = z.object({
  feedback: z.string().describe('Feedback on the response against the scoring criteria.'),
  score: z.number().int().describe('The score the criteria give (score1 is the lowest).'),
});

export const rubricsBasedScoring = judgeEvaluator({
  path: 'ragas/rubrics_based_scoring',
  name: 'Rubrics Based Scoring',
  description:
    'Rubric-based evaluation metric that is used to evaluate responses. The rubric consists of descriptions for each score, typically ranging from 1 to 5',
  category: 'quality',
  data: z.object({
    input: z.string().describe('The question.'),
    output: z.string().describe('The response.'),
    expected_output: z.string().nullish().describe('A reference answer, when there is one.'),
  }),
  settings: ragasSettings.extend({
    rubrics: z
      .array(z.object({ description: z.string().trim().min(1) }))
      .min(1)
      .max(10)
      .default(RUBRICS.map((description) => ({ description })))
      .describe('The scores, lowest first: score1 is the first description.'),
  }),
  evaluate: ({ data, settings, ctx }) => {
    const tooLong = skipIfTooLong(`${data.input} ${data.output} ${data.expected_output ?? ''}`, settings.model, settings.max_tokens);
    if (tooLong) return Promise.resolve(tooLong);
    const rubrics = Object.fromEntries(settings.rubrics.map((r, i) => [`score${i + 1}_description`, r.description]));
    const reference = data.expected_output ? `\n\n# Reference\n${data.expected_output}` : '';
    return judgeOnce(
      settings.model,
      ctx,
      {
        system: 'Your task is to assign an appropriate score and provide feedback to the inputs based solely on the scoring criteria passed in the input.',
        prompt: `# User input\n${data.input}\n\n# Response\n${data.output}${reference}\n\n# Scoring criteria\n${JSON.stringify(rubrics, null, 1)}`,
        tool: { name: 'evaluation', description: 'Give your feedback, then the score.', input: rubricVerdict },
      },
      (answer) => {
        if (answer.score < 1 || answer.score > settings.rubrics.length) {
          throw new InvalidProviderResponseError(`the judge gave score ${answer.score}, outside the rubric's 1..${settings.rubrics.length}`);
        }
        return { score: answer.score, details: shortReasoning(answer.feedback) };
      },
    );
  },
});
