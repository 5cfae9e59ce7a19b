import type { Executor, Tx } from '../../db/index.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import type { PromptScope, PromptsContext, VersionSelection } from './context.ts';
import { HANDLE_PATTERN, TAG_PATTERN } from './schemas.ts';
import * as store from './store.ts';

/** `latest` always means the newest version; it cannot be moved by hand. */
export const LATEST = 'latest';

/** `idOrHandle`, optionally `:<version number>` or `:<tag>`. */
export interface PromptRef {
  base: string;
  selector: { version: number } | { tag: string } | null;
}

/** The prompt `base` (an id or a handle) names among those the caller sees, or a 404 naming `ref`. */
export async function findPrompt(ctx: PromptsContext, scope: PromptScope, base: string, ref: string): Promise<store.PromptRow> {
  const byId = await store.findVisibleById(ctx.db.orm, scope, base);
  if (byId) return byId;
  const byHandle = HANDLE_PATTERN.test(base) ? await store.findVisibleByHandle(ctx.db.orm, scope, base) : null;
  return byHandle ?? throwNotFound(ref);
}

/** The version a reference selects: the newest, a number, or the one a tag points at. */
export async function selectVersion(db: Executor, prompt: store.PromptRow, ref: PromptRef, raw: string): Promise<store.VersionRow> {
  if (!ref.selector || ('tag' in ref.selector && ref.selector.tag === LATEST)) {
    const latest = (await store.latestVersions(db, [prompt.id])).get(prompt.id);
    return latest ?? throwNotFound(raw);
  }
  if ('version' in ref.selector) {
    const v = await store.findVersionByNumber(db, prompt.id, ref.selector.version);
    if (!v) throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${ref.selector.version}`);
    return v;
  }
  const tag = await store.findTag(db, prompt.id, ref.selector.tag);
  const v = tag ? await store.findVersionById(db, prompt.id, tag.versionId) : null;
  if (!v) throw notFound('tag_not_found', `prompt ${prompt.handle} has no tag ${ref.selector.tag}`);
  return v;
}

/** A version by its id or its number (restore's path). */
export async function findVersion(tx: Tx, promptId: string, versionRef: string): Promise<store.VersionRow | null> {
  if (/^\d+$/.test(versionRef)) return store.findVersionByNumber(tx, promptId, Number(versionRef));
  return store.findVersionById(tx, promptId, versionRef);
}

export function throwNotFound(ref: string): never {
  throw notFound('prompt_not_found', `no prompt "${ref}" in this project`);
}

export function parseRef(ref: string): PromptRef {
  const colon = ref.lastIndexOf(':');
  if (colon < 0) return { base: ref, selector: null };
  const base = ref.slice(0, colon);
  const selector = ref.slice(colon + 1);
  if (/^\d+$/.test(selector)) {
    const version = Number(selector);
    if (version < 1 || !Number.isSafeInteger(version)) throw badRequest('invalid_version', `id: version ${selector} must be 1 or more`, 'id');
    return { base, selector: { version } };
  }
  if (!TAG_PATTERN.test(selector)) {
    throw badRequest('invalid_reference', `id: "${ref}" must be an id or handle, optionally followed by :<version> or :<tag>`, 'id');
  }
  return { base, selector: { tag: selector } };
}

export function withSelection(ref: PromptRef, select: VersionSelection): PromptRef {
  if (select.version !== undefined && select.tag !== undefined) {
    throw badRequest('conflicting_selection', 'version and tag: send one of them, not both', 'version');
  }
  const field = select.version !== undefined ? 'version' : 'tag';
  const wanted: PromptRef['selector'] =
    select.version === 'latest' ? { tag: LATEST } : select.version !== undefined ? { version: select.version } : select.tag !== undefined ? { tag: select.tag } : null;
  if (wanted === null) return ref;
  if (ref.selector !== null && JSON.stringify(ref.selector) !== JSON.stringify(wanted)) {
    throw badRequest('conflicting_selection', `${field}: differs from the version or tag named in the id`, field);
  }
  return { base: ref.base, selector: wanted };
}

/** Writes address the prompt itself, never one version of it. */
export function plainRef(ref: string): string {
  if (ref.includes(':')) {
    throw badRequest('invalid_reference', `id: "${ref}" names a version; address the prompt by its id or handle`, 'id');
  }
  return ref;
}
