/**
 * A custom evaluator's version as an evaluator the runner runs: its data are the template's
 * variables (each required: a template naming a variable the data lacks is a 400 naming
 * `data.<variable>` before anything runs), its one setting pins a version, and its verdict
 * comes from a forced tool call whose schema is the kind of answer (never parsed from text).
 */
import { z } from 'zod';
import { EvaluatorError, InvalidProviderResponseError } from '../errors.ts';
import { shortReasoning } from '../llm/judge-content.ts';
import { JudgeSession, requiredEnvForModel } from '../llm/provider.ts';
import type { EvaluationResult, EvaluatorDefinition } from '../types.ts';
import type { AnswerKind, CustomConfig } from './schemas.ts';

import { PLACEHOLDER, THREAD_VARIABLES, TRACE_VARIABLES, variablesOf } from './variables.schema.ts';

export { THREAD_VARIABLES, TRACE_VARIABLES, variablesOf };

export const customSettings = z.strictObject({
  version: z.number().int().positive().optional().describe('Run this version instead of the newest (a monitor keeps its version)'),
});

/** A variable's value as the judge reads it. */
function render(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (name === 'conversation' && Array.isArray(value)) {
    const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));
    return value.map((m: unknown) => (m && typeof m === 'object' ? `${text((m as { role?: unknown }).role ?? 'message')}: ${text((m as { content?: unknown }).content)}` : text(m))).join('\n');
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v, i) => `${i + 1}. ${v}`).join('\n');
  return JSON.stringify(value, null, 2);
}

export function renderTemplate(template: string, data: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => render(data[name], name));
}

function verdictTool(answer: AnswerKind) {
  const reasoning = z.string().describe('A short reasoning, written before deciding.');
  switch (answer.type) {
    case 'pass_fail':
      return { description: 'Give your reasoning, then whether the content passes.', input: z.object({ reasoning, passed: z.boolean().describe('true when it passes') }), fits: 'pass or fail' };
    case 'score':
      return {
        description: `Give your reasoning, then a score from ${answer.min} to ${answer.max}.`,
        input: z.object({ reasoning, score: z.number().min(answer.min).max(answer.max).describe(`From ${answer.min} to ${answer.max}`) }),
        fits: `a score from ${answer.min} to ${answer.max}`,
      };
    case 'category': {
      const names = answer.categories.map((c) => c.name) as [string, ...string[]];
      return {
        description: `Give your reasoning, then the category:\n${answer.categories.map((c) => `- ${c.name}${c.description ? `: ${c.description}` : ''}`).join('\n')}`,
        input: z.object({ reasoning, label: z.enum(names).describe('The category') }),
        fits: `one of the categories ${names.join(', ')}`,
      };
    }
  }
}

function verdictOf(answer: AnswerKind, given: Record<string, unknown>): Pick<EvaluationResult, 'score' | 'passed' | 'label'> {
  switch (answer.type) {
    case 'pass_fail': {
      const passed = given.passed === true;
      return { passed, score: passed ? 1 : 0, label: passed ? 'pass' : 'fail' };
    }
    case 'score': {
      const score = given.score as number;
      return { score, ...(answer.threshold !== null && answer.threshold !== undefined ? { passed: score >= answer.threshold } : {}) };
    }
    case 'category': {
      const label = given.label as string;
      return { label, ...(answer.passing ? { passed: answer.passing.includes(label) } : {}) };
    }
  }
}

export function customDefinition(e: { slug: string; name: string; description: string | null; version: number; config: CustomConfig }): EvaluatorDefinition {
  const { config } = e;
  const variables = variablesOf(config.prompt);
  const data = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    for (const v of variables) {
      if (value[v] === undefined || value[v] === null) {
        ctx.addIssue({ code: 'custom', path: [v], message: `the template of custom/${e.slug} (version ${e.version}) names {{${v}}}, which the data lacks` });
      }
    }
  });
  const tool = verdictTool(config.answer);
  return {
    path: `custom/${e.slug}`,
    name: e.name,
    description: e.description ?? `Custom LLM judge (${config.answer.type.replace('_', '/')})`,
    category: 'custom',
    data,
    settings: customSettings,
    requiredEnv: [],
    requiredEnvFor: () => requiredEnvForModel(config.model),
    isCostly: true,
    usesLlm: true,
    async evaluate({ data: entry, ctx }) {
      const judge = new JudgeSession(config.model, ctx);
      let given: Record<string, unknown>;
      try {
        given = (await judge.call({
          prompt: renderTemplate(config.prompt, entry as Record<string, unknown>),
          tool: { name: 'verdict', description: tool.description, input: tool.input },
          maxOutputTokens: config.max_output_tokens,
          temperature: config.temperature,
        }));
      } catch (err) {
        if (err instanceof InvalidProviderResponseError) {
          throw new EvaluatorError('InvalidAnswer', `the model's answer does not fit the evaluator's kind (${tool.fits}): ${err.message}`, { cause: err });
        }
        throw err;
      }
      return {
        status: 'processed',
        ...verdictOf(config.answer, given),
        details: shortReasoning(typeof given.reasoning === 'string' ? given.reasoning : ''),
        cost: judge.cost(),
        raw_response: { ...judge.report(), evaluator: `custom/${e.slug}`, version: e.version, answer: given },
      };
    },
  };
}
