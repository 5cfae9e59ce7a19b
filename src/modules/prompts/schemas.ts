import { z } from 'zod';

/** Lowercase letters, digits, _ and -, optionally one `/` and a second such segment. */
export const HANDLE_PATTERN = /^[a-z0-9_-]+(\/[a-z0-9_-]+)?$/;
/** Tags start with a letter so `handle:3` (a version) and `handle:prod` (a tag) never collide. */
export const TAG_PATTERN = /^[a-z][a-z0-9_-]{0,49}$/;

export const INPUT_TYPES = ['str', 'float', 'bool', 'image', 'list[str]', 'list[float]', 'list[int]', 'list[bool]', 'dict'] as const;
export const OUTPUT_TYPES = ['str', 'float', 'bool', 'json_schema'] as const;
export type InputType = (typeof INPUT_TYPES)[number];

export const handleSchema = z
  .string()
  .max(255)
  .regex(HANDLE_PATTERN, 'must be lowercase letters, digits, _ or -, optionally followed by one / and a second such segment (e.g. support/triage)')
  .describe('lowercase letters, digits, _ or -; optionally one / and a second segment: `triage`, `support/triage`');

export const messageSchema = z
  .strictObject({
    role: z.enum(['user', 'assistant', 'system']),
    content: z.string().max(200_000),
  })
  .meta({ id: 'PromptMessage' });

export const inputSchema = z
  .strictObject({
    identifier: z.string().min(1).max(100),
    type: z.enum(INPUT_TYPES),
  })
  .meta({ id: 'PromptInputDeclaration' });

export const outputSchema = z
  .strictObject({
    identifier: z.string().min(1).max(100),
    type: z.enum(OUTPUT_TYPES),
    json_schema: z
      .looseObject({ type: z.string().min(1) })
      .optional()
      .describe('a JSON Schema; required when type is json_schema; becomes response_format'),
  })
  .meta({ id: 'PromptOutputDeclaration' });

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A tool the model may call, declared as OpenAI's function tools are: its arguments as a JSON Schema. */
export const toolSchema = z
  .strictObject({
    type: z.literal('function'),
    function: z.strictObject({
      name: z.string().regex(TOOL_NAME, 'must be 1..64 letters, digits, _ or -'),
      description: z.string().max(1024).optional(),
      parameters: z
        .looseObject({ type: z.literal('object', { error: 'must be "object" (a tool takes an object of arguments)' }) })
        .optional()
        .describe('JSON Schema of the arguments (type object); default: no arguments'),
    }),
  })
  .meta({ id: 'PromptTool' });

export const responseFormatParameter = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      json_schema: z.strictObject({
        name: z.string().regex(TOOL_NAME, 'must be 1..64 letters, digits, _ or -'),
        schema: z.looseObject({ type: z.string().min(1) }).describe('a JSON Schema'),
        strict: z.boolean().optional().describe("OpenAI's strict mode; default false (any JSON Schema goes)"),
      }),
    }),
  ])
  .describe("text, json_object, or json_schema (default: the version's JSON Schema output, if any)");

/**
 * Model parameters and tools, as OpenAI's chat completions take them. A version keeps its own;
 * a run's override them key by key.
 */
export const modelParameters = z
  .strictObject({
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().min(1).max(1_000_000).optional().describe('the most tokens the answer may have'),
    top_p: z.number().min(0).max(1).optional(),
    stop: z
      .union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).min(1).max(4)])
      .optional()
      .describe('up to 4 sequences where the answer stops'),
    seed: z.number().int().min(-(2 ** 53) + 1).max(2 ** 53 - 1).optional(),
    response_format: responseFormatParameter.optional(),
    tools: z
      .array(toolSchema)
      .max(64)
      .refine((tools) => new Set(tools.map((t) => t.function.name)).size === tools.length, 'tool names must be unique')
      .optional(),
    tool_choice: z
      .union([z.enum(['auto', 'none', 'required']), z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().regex(TOOL_NAME) }) })])
      .optional()
      .describe('auto (default), none, required, or one tool by name'),
  })
  .meta({ id: 'PromptModelParameters' });
export type ModelParameters = z.output<typeof modelParameters>;

const versionFields = {
  name: z.string().trim().min(1).max(255).optional().describe('display name; defaults to the handle'),
  authorId: z.string().min(1).max(255).optional().describe("author of this version; defaults to the calling key's user"),
  model: z.string().trim().min(1).max(200).optional().describe('`provider/model`; default openai/gpt-4o-mini'),
  prompt: z.string().max(200_000).optional().describe('the system prompt; may use {{variables}}'),
  messages: z.array(messageSchema).max(500).optional(),
  inputs: z.array(inputSchema).max(100).optional(),
  outputs: z.array(outputSchema).max(100).optional(),
  parameters: modelParameters.optional().describe('model parameters and tools a run of this version sends'),
};

export const createPromptBody = z.strictObject({
  handle: handleSchema,
  scope: z.enum(['ORGANIZATION', 'PROJECT']).default('PROJECT'),
  ...versionFields,
  commitMessage: z.string().trim().min(1).max(1000).optional().describe('default "Initial version"'),
});
export type CreatePromptBody = z.infer<typeof createPromptBody>;

export const updatePromptBody = z.strictObject({
  commitMessage: z.string().trim().min(1).max(1000).describe('what changed in this version'),
  handle: handleSchema.optional(),
  scope: z.enum(['ORGANIZATION', 'PROJECT']).optional(),
  ...versionFields,
});
export type UpdatePromptBody = z.infer<typeof updatePromptBody>;

export const restoreBody = z
  .strictObject({
    commitMessage: z.string().trim().min(1).max(1000).optional().describe('default "Restored from version N"'),
    authorId: z.string().min(1).max(255).optional(),
  })
  .nullish()
  .describe('optional');

export const tagBody = z.strictObject({
  versionId: z.string().min(1).max(100).optional().describe('the version to point at (its versionId)'),
  version: z.number().int().positive().optional().describe('or its version number'),
});

export const compileBody = z.strictObject({
  variables: z.record(z.string(), z.unknown()).default({}).describe('values of the inputs the template uses'),
});

export const responseFormatSchema = z
  .object({
    type: z.literal('json_schema'),
    json_schema: z.object({ name: z.string(), schema: z.record(z.string(), z.unknown()) }),
  })
  .nullable();

export const promptSchema = z
  .object({
    id: z.string(),
    handle: z.string().nullable(),
    scope: z.enum(['ORGANIZATION', 'PROJECT']),
    name: z.string(),
    updatedAt: z.string(),
    projectId: z.string(),
    organizationId: z.string(),
    version: z.number().int(),
    versionId: z.string(),
    versionCreatedAt: z.string(),
    model: z.string(),
    prompt: z.string(),
    messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.string() })),
    response_format: responseFormatSchema,
    parameters: modelParameters,
    authorId: z.string().nullable(),
    commitMessage: z.string().nullable(),
    inputs: z.array(z.object({ identifier: z.string(), type: z.string() })),
    outputs: z.array(z.object({ identifier: z.string(), type: z.string(), json_schema: z.record(z.string(), z.unknown()).optional() })),
    tags: z.array(z.string()).describe('tags pointing at this version'),
    createdAt: z.string(),
  })
  .meta({ id: 'Prompt' });

export const tagSchema = z.object({
  promptId: z.string(),
  tag: z.string(),
  versionId: z.string(),
  version: z.number().int(),
  updatedAt: z.string(),
});

/** Errors on prompt routes: `{error: string}`, the message naming the field. */
export const promptErrorSchema = z.object({ error: z.string() }).describe('{error: message}');

/** "Try it": run a version of the prompt against the configured model. */
export const runBody = z
  .strictObject({
    variables: z.record(z.string(), z.unknown()).default({}).describe('values of the inputs the template uses (checked as compile checks them)'),
    version: z.number().int().min(1).optional().describe('the version to run; default: the newest'),
    tag: z.string().regex(TAG_PATTERN, 'a tag: a letter, then letters, digits, _ or -').optional().describe('the version a tag points at, e.g. production'),
    model: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("provider/model instead of the version's model, e.g. openai/gpt-4.1 (openai: the OpenAI API or the server in OPENAI_BASE_URL)"),
    parameters: modelParameters.optional().describe("over the version's parameters, key by key"),
  })
  .meta({ id: 'PromptRunRequest' });
export type RunBody = z.input<typeof runBody>;

export const toolCallSchema = z
  .object({ id: z.string(), name: z.string(), arguments: z.unknown().describe('as the model sent them (an object when they parse as JSON)') })
  .meta({ id: 'PromptToolCall' });
export type ToolCall = z.output<typeof toolCallSchema>;

export const runResponse = z
  .object({
    output: z.object({ role: z.literal('assistant'), content: z.string() }),
    tool_calls: z.array(toolCallSchema).describe('the tools the model called (the run does not execute them)'),
    finish_reason: z.string().describe('stop, length, tool-calls, content-filter, other'),
    model: z.string().describe('The model that answered, as the provider names it'),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
    cost: z.object({ currency: z.literal('USD'), amount: z.number() }).nullable().describe('From the model price table; null for a model not in it'),
    latency_ms: z.number().int(),
    ttft_ms: z.number().int().nullable().describe('time to the first token (or tool call); null when the provider answered in one piece'),
    parameters: modelParameters.describe('the parameters sent: the version\'s, then the run\'s over them'),
    trace_id: z.string().describe('The run, recorded as a trace of the project (label prompt-run)'),
  })
  .meta({ id: 'PromptRunResponse' });
export type RunResponse = z.infer<typeof runResponse>;

/** Which version a read names: a number, latest, or a tag (GET /api/prompts/{id}, compile). */
export const selectionQuery = z.object({
  version: z
    .string()
    .regex(/^([1-9]\d{0,8}|latest)$/, 'a version number (1 or more) or latest')
    .optional()
    .describe('a version number, or latest'),
  tag: z.string().regex(TAG_PATTERN, 'a tag: a letter, then letters, digits, _ or -').optional().describe('a tag, e.g. production'),
  label: z
    .string()
    .regex(TAG_PATTERN, 'a tag: a letter, then letters, digits, _ or -')
    
    .optional()
    .describe('the same as tag (the name some LangWatch SDK releases send)'),
});
