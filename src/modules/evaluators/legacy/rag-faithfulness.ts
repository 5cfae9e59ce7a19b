import { z } from 'zod';
import { extractStatements, verifyStatements } from '../llm/claims.ts';
import { optionalContexts, optionalText, shortReasoning } from '../llm/judge-content.ts';
import { judgedResult, judgeEvaluator, judgeSettings, outputAndContexts } from '../llm/judge.ts';
import { JudgeSession } from '../llm/provider.ts';

const data = z.object({
  output: optionalText('The answer whose claims are checked.'),
  contexts: optionalContexts.describe('The contexts the answer must be grounded in.'),
});

// Defaults are langevals' legacy RagasSettings (its embeddings_model is not needed by faithfulness).
const settings = judgeSettings(2048);

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
    const statements = await extractStatements(judge, output);
    if (statements.length === 0) {
      return judgedResult(judge, 'skipped', { details: 'No claims found in the output to measure faithfulness against the contexts.' }, { statements: [] });
    }
    const judged = await verifyStatements(judge, contexts.join('\n'), statements);
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
    return judgedResult(judge, 'processed', verdict, { statements: judged });
  },
});
