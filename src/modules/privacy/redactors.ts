import type { EntityType } from '../evaluators/index.ts';
import type { PrivacyContext } from './context.ts';
import { Redactor } from './redaction.ts';
import * as store from './store.ts';

/**
 * The redactor of a project's incoming data, with the settings as they are now: every ingest
 * reads them, so a change applies to the next request, in every server process. `path` names
 * the ingest path in /metrics (otlp, collector, annotations, ...).
 */
export async function redactorFor(ctx: PrivacyContext, projectId: string, path: string): Promise<Redactor> {
  const row = await store.findSettings(ctx.db.orm, projectId);
  const policy = row
    ? { mode: row.mode, entities: row.entities as EntityType[], untouchedKeys: row.untouchedKeys, patterns: row.patterns }
    : { mode: 'off' as const, entities: [], untouchedKeys: [], patterns: [] };
  return new Redactor(policy, projectHashKey(ctx, projectId), { detector: ctx.detector, budgetMs: ctx.budgetMs, meter: ctx.meter, path });
}

/**
 * A project's key of hash-mode tokens: the installation's keyed hash of the project's id, so
 * tokens differ between projects and between installations, and no key is stored.
 */
function projectHashKey(ctx: PrivacyContext, projectId: string): Buffer {
  return Buffer.from(ctx.keyedHash(`privacy-hash-key:${projectId}`), 'utf8');
}

/**
 * What a searcher's typed text becomes as this project stores it: in hash mode each value
 * found becomes its token, so a search finds traces holding the value it was made from.
 * Nothing is counted: this is a search, not ingest.
 */
export async function storedForm(ctx: PrivacyContext, projectId: string, text: string): Promise<string> {
  const redactor = await redactorFor(ctx, projectId, 'search');
  if (redactor.mode !== 'hash') return text;
  const out = redactor.text(text, 'search');
  redactor.discard();
  return out;
}
