import { z } from 'zod';
import { nonBlank, numbered, optionalContexts, optionalText, shortReasoning } from '../llm/judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings, outputAndContexts } from '../llm/judge.ts';
import { JudgeSession } from '../llm/provider.ts';

const data = z.object({
  output: optionalText('The answer whose claims are checked.'),
  contexts: optionalContexts.describe('The contexts the answer must be grounded in.'),
});

// Defaults are langevals' legacy RagasSettings (its embeddings_model is not needed by faithfulness).
const settings = judgeSettings(2048);

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
export const ragFaithfulness = judgeEvaluator({
  path: 'legacy/rag_faithfulness',
  name: 'Ragas Faithfulness',
  description:
    'How consistent the answer is with the given contexts: the claims of the answer are extracted and each is checked against the contexts; score = supported claims / claims. Higher is more faithful; useful for detecting hallucinations.',
  category: 'rag',
  data,
  settings,
  async evaluate({ data: entry, settings: config, ctx }) {
    const subject = outputAndContexts(entry, config, {
      noOutput: 'Output is empty: there is no answer to check.',
      noContexts: 'No contexts were given to check the output against.',
    });
    if (subject.skipped) return subject.skipped;
    const { output, contexts } = subject;

    const judge = new JudgeSession(config.model, ctx);
    const { statements: extracted } = await judge.call({
      system:
        'You break an answer down into the statements it makes. Write each claim as a short standalone sentence that can be understood without the answer: replace pronouns with what they refer to. Leave out greetings, questions and filler that claim nothing.',
      prompt: `Answer:\n${output}`,
      tool: statementsTool,
    });
    const statements = nonBlank(extracted);
    if (statements.length === 0) {
      return judgedResult(judge, 'skipped', { details: 'No claims found in the output to measure faithfulness against the contexts.' }, { statements: [] });
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
    const verdict = {
      score: supported / statements.length,
      details:
        `${supported} of ${statements.length} statements are supported by the contexts.` +
        (unsupported.length
          ? ` Not supported: ${unsupported.map((u) => `"${u.statement}" (${shortReasoning(u.reason, 300)})`).join('; ')}`
          : ''),
    };
    return judgedResult(judge, 'processed', verdict, { statements: judged, verdicts_given: verdicts.length });
  },
});
