import type { z } from 'zod';
import type { PromptOutput } from '../../db/schema/index.ts';
import type { PromptScope } from './context.ts';
import type { promptSchema, tagSchema } from './schemas.ts';
import type * as store from './store.ts';

/** The answers' types come from their schemas: a field a schema gains and a presenter forgets fails to compile. */
export type PromptView = z.output<typeof promptSchema>;
export type TagView = z.output<typeof tagSchema>;

/** A prompt at one version as the API answers it (`promptSchema`), with the tags pointing at that version. */
export function presentPrompt(p: store.PromptRow, v: store.VersionRow, tags: store.TagRow[], scope: PromptScope): PromptView {
  return {
    id: p.id,
    handle: p.handle,
    scope: p.scope,
    name: p.name,
    updatedAt: p.updatedAt.toISOString(),
    // An ORGANIZATION prompt whose originating project was deleted reads as the caller's.
    projectId: p.projectId ?? scope.projectId,
    organizationId: p.organizationId,
    version: v.version,
    versionId: v.id,
    versionCreatedAt: v.createdAt.toISOString(),
    model: v.model,
    prompt: v.prompt,
    messages: v.messages,
    response_format: responseFormat(v.outputs),
    parameters: v.parameters,
    authorId: v.authorId,
    commitMessage: v.commitMessage,
    inputs: v.inputs,
    outputs: v.outputs,
    tags: tags.filter((t) => t.promptId === p.id && t.versionId === v.id).map((t) => t.tag),
    createdAt: p.createdAt.toISOString(),
  };
}

/** A tag as the API answers it (`tagSchema`). */
export function presentTag(tag: store.TagRow, version: store.VersionRow): TagView {
  return { promptId: tag.promptId, tag: tag.tag, versionId: version.id, version: version.version, updatedAt: tag.updatedAt.toISOString() };
}

function responseFormat(outputs: PromptOutput[]): PromptView['response_format'] {
  const out = outputs.find((o) => o.type === 'json_schema' && o.json_schema);
  return out ? { type: 'json_schema', json_schema: { name: out.identifier, schema: out.json_schema! } } : null;
}
