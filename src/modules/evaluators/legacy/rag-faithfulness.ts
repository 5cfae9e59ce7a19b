import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { numbered, optionalContexts, optionalText, shortReasoning, usableContexts } from '../llm/judge-content.ts';
import { JudgeSession, maxTokensSetting, modelSetting, requiredEnvForModel, skipIfTooLong } from '../llm/provider.ts';

const data = z.object({
  output: optionalText('The answer whose claims are checked.'),
  contexts: optionalContexts.describe('The contexts the answer must be grounded in.'),
});

// Defaults are langevals' legacy RagasSettings (its embeddings_model is not needed by faithfulness).
const settings = z.object({
  model: modelSetting,
  max_tokens: maxTokensSetting(2048),
});

const statementsTool = {
  name: 'extract_statements',
  description: 'Report the statements the answer makes',
  input: z.object({
    statements: z
      .array(z.string())
      .describe('Every claim of the answer as a standalone sentence (no pronouns that need the answer to be understood).'),
  }),
};

const verdictsTool = {
  name: 'verify_statements',
  description: 'Report for each statement whether the context supports it',
  input: z.object({
    verdicts: z
      .array(
        z.object({
          statement: z.string().describe('The statement, as given.'),
          reason: z.string().describe('Why the context does or does not support it, in one sentence.'),
          verdict: z.union([z.literal(0), z.literal(1)]).describe('1 if the statement can be directly inferred from the context, 0 if not.'),
        }),
      )
      .describe('One verdict per statement, in the order the statements were given.'),
  }),
};

/**
 * Ragas faithfulness as langevals' legacy/rag_faithfulness runs it, in two judge calls:
 * 1. the answer is broken into standalone statements;
 * 2. each statement is judged against the contexts (1 = can be inferred from them, 0 = not).
 * score = supported statements / statements. Verdicts are matched to statements by position;
 * a statement the judge gave no verdict for counts as unsupported, extra verdicts are ignored.
 * Skipped (with the reason) when the output or the contexts are empty, or the answer makes no
 * claim (Ragas' NaN case).
 */
export const ragFaithfulness: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'legacy/rag_faithfulness',
  name: 'Ragas Faithfulness',
  description:
    'How consistent the answer is with the given contexts: the claims of the answer are extracted and each is checked against the contexts; score = supported claims / claims. Higher is more faithful; useful for detecting hallucinations.',
  category: 'rag',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.model),
  isCostly: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const output = entry.output ?? '';
    if (!output.trim()) return { status: 'skipped', details: 'Output is empty: there is no answer to check.' };
    const contexts = usableContexts(entry.contexts);
    if (contexts.length === 0) {
      return { status: 'skipped', details: 'No contexts were given to check the output against.' };
    }
    const tooLong = skipIfTooLong(`${output}\n${contexts.join('\n')}`, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const judge = new JudgeSession(config.model, ctx);
    const { statements: extracted } = await judge.call({
      system:
        'You break an answer down into the statements it makes. Write each claim as a short standalone sentence that can be understood without the answer: replace pronouns with what they refer to. Leave out greetings, questions and filler that claim nothing.',
      prompt: `Answer:\n${output}`,
      tool: statementsTool,
    });
    const statements = extracted.map((s) => s.trim()).filter(Boolean);
    if (statements.length === 0) {
      return {
        status: 'skipped',
        details: 'No claims found in the output to measure faithfulness against the contexts.',
        cost: judge.cost(),
        raw_response: { ...judge.report(), statements: [] },
      };
    }

    const { verdicts } = await judge.call({
      system:
        'You judge the faithfulness of statements to a context. For each statement decide whether it can be directly inferred from the context: verdict 1 if it can, 0 if it cannot (contradicted or not mentioned). Use only the context, not your own knowledge.',
      prompt: `Context:\n${contexts.join('\n')}\n\nStatements:\n${numbered(statements)}`,
      tool: verdictsTool,
    });
    const judged = statements.map((statement, i) => ({
      statement,
      supported: verdicts[i]?.verdict === 1,
      reason: verdicts[i]?.reason ?? 'no verdict given by the judge',
    }));
    const supported = judged.filter((j) => j.supported).length;
    const unsupported = judged.filter((j) => !j.supported);
    return {
      status: 'processed',
      score: supported / statements.length,
      details:
        `${supported} of ${statements.length} statements are supported by the contexts.` +
        (unsupported.length
          ? ` Not supported: ${unsupported.map((u) => `"${u.statement}" (${shortReasoning(u.reason, 300)})`).join('; ')}`
          : ''),
      cost: judge.cost(),
      raw_response: { ...judge.report(), statements: judged, verdicts_given: verdicts.length },
    };
  },
};
