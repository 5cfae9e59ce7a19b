import { z } from 'zod';

export const PROVIDER_KINDS = ['openai', 'openai_compatible', 'azure_openai', 'anthropic'] as const;

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(500)
  .describe('The API base: OpenAI-compatible servers up to /v1 (e.g. http://localhost:11434/v1); Azure the resource endpoint (https://<resource>.openai.azure.com); Anthropic optional');

export const createProviderBody = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1..64 letters, digits, _ . or -')
    .describe('The provider part of model names: models of this provider are written <name>/<model>'),
  kind: z.enum(PROVIDER_KINDS),
  api_key: z
    .string()
    .trim()
    .max(1000)
    .nullish()
    .describe('Sealed at rest; never shown again (only its last four characters). Optional for an OpenAI-compatible server without authentication; required for the other kinds'),
  base_url: httpUrl.nullish(),
  models: z
    .array(z.string().trim().min(1).max(200).regex(/^\S+$/, 'must not contain spaces'))
    .min(1)
    .max(100)
    .refine((m) => new Set(m).size === m.length, 'model names must be unique')
    .describe('The models offered (for Azure: deployment names)'),
  scope: z.enum(['project', 'organization']).default('project').describe('organization: every project of the organization may use it'),
});
export type CreateProviderBody = z.output<typeof createProviderBody>;

export const providerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(PROVIDER_KINDS),
    base_url: z.string().nullable(),
    models: z.array(z.string()),
    scope: z.enum(['project', 'organization']),
    api_key_hint: z.string().nullable().describe('The key\'s last four characters, e.g. ****abcd; null for a provider without a key'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ModelProvider' });
export type ProviderView = z.output<typeof providerSchema>;

export const providerListResponse = z.object({ data: z.array(providerSchema) });

/** The provider's own list of models (its /models), for a provider set or about to be set. */
export const discoverModelsBody = z.strictObject({
  kind: z.enum(PROVIDER_KINDS),
  base_url: httpUrl.nullish(),
  api_key: z.string().trim().max(1000).nullish(),
});
export type DiscoverModelsBody = z.output<typeof discoverModelsBody>;
export const providerModelsResponse = z
  .object({ models: z.array(z.string()).describe("The model ids the provider's /models answered, sorted") })
  .meta({ id: 'ProviderModels' });

export const testProviderBody = z.strictObject({
  model: z.string().trim().min(1).max(200).optional().describe('One of its models; default: the first'),
});

export const testProviderResponse = z
  .object({
    ok: z.boolean(),
    model: z.string(),
    latency_ms: z.number().int(),
    output: z.string().nullable().describe('What the model answered to a one-word prompt'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'ModelProviderTest' });
export type TestProviderResponse = z.output<typeof testProviderResponse>;

export const modelOptionSchema = z.object({
  model: z.string().describe('provider/model, as settings.model and a prompt\'s model take it'),
  provider: z.string(),
  kind: z.enum(PROVIDER_KINDS),
  source: z.enum(['project', 'organization', 'environment']),
});
export const modelListResponse = z.object({ data: z.array(modelOptionSchema) }).meta({ id: 'ModelOptions' });
export type ModelOption = z.output<typeof modelOptionSchema>;
