/**
 * langevals' azure/content_safety (text analysis by category and severity) and
 * azure/prompt_injection (Prompt Shields on the input and the contexts), through Azure AI
 * Content Safety's REST API with AZURE_CONTENT_SAFETY_ENDPOINT and AZURE_CONTENT_SAFETY_KEY.
 */
import { z } from 'zod';
import { InvalidProviderResponseError } from '../errors.ts';
import { truncate } from '../llm/provider.ts';
import type { EvaluatorDefinition } from '../types.ts';
import { contentSafetyCall, contentSafetyUrl } from './content-safety-client.ts';
import { MAX_CHUNK_CHARS, splitForShield } from './jailbreak.ts';

const AZURE_ENV = ['AZURE_CONTENT_SAFETY_ENDPOINT', 'AZURE_CONTENT_SAFETY_KEY'];
const CATEGORIES = ['Hate', 'SelfHarm', 'Sexual', 'Violence'] as const;

const safetyData = z.object({
  input: z.string().nullish().describe('The user message.'),
  output: z.string().nullish().describe('The assistant reply.'),
});

const safetySettings = z.object({
  severity_threshold: z
    .number()
    .int()
    .min(1)
    .max(7)
    .default(1)
    .describe('The minimum severity level to consider content as unsafe, from 1 to 7.'),
  categories: z
    .object(Object.fromEntries(CATEGORIES.map((c) => [c, z.boolean().default(true)])) as Record<(typeof CATEGORIES)[number], z.ZodDefault<z.ZodBoolean>>)
    .strict()
    .default({ Hate: true, SelfHarm: true, Sexual: true, Violence: true })
    .describe('The categories of moderation to check for.'),
  output_type: z
    .enum(['FourSeverityLevels', 'EightSeverityLevels'])
    .default('FourSeverityLevels')
    .describe('The severity scale of the answer: four levels (0, 2, 4, 6) or the whole 0-7 range.'),
});

const analysis = z.object({ categoriesAnalysis: z.array(z.object({ category: z.string(), severity: z.number().nullish() })) });

export const azureContentSafety: EvaluatorDefinition<typeof safetyData, typeof safetySettings> = {
  path: 'azure/content_safety',
  name: 'Azure Content Safety',
  description:
    'This evaluator detects potentially unsafe content in text, including hate speech, self-harm, sexual content, and violence. It allows customization of the severity threshold and the specific categories to check.',
  category: 'safety',
  data: safetyData,
  settings: safetySettings,
  requiredEnv: AZURE_ENV,
  externalService: 'Azure AI Content Safety (text analysis)',
  isCostly: true,
  isGuardrail: true,
  async evaluate({ data: entry, settings: s, ctx }) {
    const content = [entry.input ?? '', entry.output ?? ''].join('\n\n').trim();
    if (!content) return { status: 'skipped', details: 'Input and output are both empty' };
    const categories = CATEGORIES.filter((c) => s.categories[c]);
    const { url, key } = contentSafetyUrl(ctx, 'text:analyze');
    // langevals sends the first 10,000 characters, the service's limit for one request.
    const { body, text } = await contentSafetyCall(url, key, { text: content.slice(0, MAX_CHUNK_CHARS), categories, outputType: s.output_type }, ctx);
    const parsed = analysis.safeParse(body);
    if (!parsed.success) throw new InvalidProviderResponseError(`Azure AI Content Safety answered without categoriesAnalysis: ${truncate(text, 200)}`);
    const severities = parsed.data.categoriesAnalysis.map((c) => [c.category, c.severity ?? 0] as const);
    const score = Math.max(0, ...severities.map(([, severity]) => severity));
    const detected = severities.filter(([, severity]) => severity >= s.severity_threshold);
    return {
      status: 'processed',
      score,
      passed: score < s.severity_threshold,
      ...(detected.length ? { details: `Detected ${detected.map(([c, severity]) => `${c} (severity ${severity})`).join(', ')}` } : {}),
      raw_response: { categories_analysis: Object.fromEntries(severities) },
    };
  },
};

const shieldData = z.object({
  input: z.string().describe('The user message to check for a prompt injection.'),
  contexts: z.array(z.string()).nullish().describe('Documents (retrieved contexts) to check for an indirect injection.'),
});

const shieldAnswer = z.object({
  userPromptAnalysis: z.object({ attackDetected: z.boolean() }),
  documentsAnalysis: z.array(z.object({ attackDetected: z.boolean() })).nullish(),
});

/**
 * As langevals: the input goes in 10,000-character parts, the contexts spread over the parts
 * as documents; the first part with an attack (in the prompt or a document) stops the checks.
 * score = 1 when one was detected; passed = none was.
 */
export const azurePromptInjection: EvaluatorDefinition<typeof shieldData, z.ZodObject<Record<string, never>>> = {
  path: 'azure/prompt_injection',
  name: 'Azure Prompt Shield',
  description: "This evaluator checks for prompt injection attempt in the input and the contexts using Azure's Content Safety API.",
  category: 'safety',
  data: shieldData,
  settings: z.object({}),
  requiredEnv: AZURE_ENV,
  externalService: 'Azure AI Content Safety (Prompt Shields)',
  isCostly: true,
  isGuardrail: true,
  async evaluate({ data: entry, ctx }) {
    if (!entry.input) return { status: 'skipped', details: 'Input is empty' };
    const contexts = entry.contexts ?? [];
    const parts = splitForShield(entry.input);
    const perPart = Math.max(1, Math.ceil(contexts.length / parts.length));
    const { url, key } = contentSafetyUrl(ctx, 'text:shieldPrompt');
    let promptAttack = false;
    let documentAttack = false;
    for (const [i, userPrompt] of parts.entries()) {
      const documents = contexts.slice(i * perPart, (i + 1) * perPart);
      const { body, text } = await contentSafetyCall(url, key, { userPrompt, documents }, ctx);
      const parsed = shieldAnswer.safeParse(body);
      if (!parsed.success) throw new InvalidProviderResponseError(`Azure AI Content Safety answered without userPromptAnalysis.attackDetected: ${truncate(text, 200)}`);
      promptAttack = parsed.data.userPromptAnalysis.attackDetected;
      documentAttack = (parsed.data.documentsAnalysis ?? []).some((d) => d.attackDetected);
      if (promptAttack || documentAttack) break;
    }
    const detected = promptAttack || documentAttack;
    const details =
      promptAttack && documentAttack
        ? 'User Prompt Injection attempt and Malicious Contexts detected'
        : promptAttack
          ? 'User Prompt Injection attempt detected'
          : documentAttack
            ? 'Malicious Contexts detected'
            : undefined;
    return { status: 'processed', score: detected ? 1 : 0, passed: !detected, ...(details ? { details } : {}) };
  },
};
