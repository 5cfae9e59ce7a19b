/**
 * Ragas' two claim steps, shared by the judges that use them (faithfulness, factual
 * correctness, answer correctness): a text broken into standalone statements, and statements
 * verified against a premise (1 = can be directly inferred from it, 0 = cannot).
 */
import { z } from 'zod';
import { nonBlank, numbered } from './judge-content.ts';
import type { JudgeSession } from './provider.ts';

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

const EXTRACT =
  'You break an answer down into the statements it makes. Write each claim as a short standalone sentence that can be understood without the answer: replace pronouns with what they refer to. Leave out greetings, questions and filler that claim nothing.';

/** The statements of `text` (blank ones left out); `how` adds to the instruction (Ragas' atomicity and coverage). */
export async function extractStatements(judge: JudgeSession, text: string, how = '', question?: string | null): Promise<string[]> {
  const { statements } = await judge.call({
    system: how ? `${EXTRACT} ${how}` : EXTRACT,
    prompt: `${question ? `Question:\n${question}\n\n` : ''}Answer:\n${text}`,
    tool: statementsTool,
  });
  return nonBlank(statements);
}

export interface StatementVerdict {
  statement: string;
  supported: boolean;
  reason: string;
}

/**
 * Each statement judged against `premise`. Verdicts are matched to statements by position; a
 * statement the judge gave no verdict for counts as unsupported, extra verdicts are ignored.
 */
export async function verifyStatements(judge: JudgeSession, premise: string, statements: string[]): Promise<StatementVerdict[]> {
  if (statements.length === 0) return [];
  const { verdicts } = await judge.call({
    system:
      'You judge the faithfulness of statements to a context. For each statement decide whether it can be directly inferred from the context: verdict 1 if it can, 0 if it cannot (contradicted or not mentioned). Use only the context, not your own knowledge.',
    prompt: `Context:\n${premise}\n\nStatements:\n${numbered(statements)}`,
    tool: verdictsTool,
  });
  return statements.map((statement, i) => ({
    statement,
    supported: verdicts[i]?.verdict === 1,
    reason: verdicts[i]?.reason ?? 'no verdict given by the judge',
  }));
}
