import type { EntityType } from '../evaluators/index.ts';
import type { PrivacyContext } from './context.ts';
import type { CachedPolicy, Policies } from './policies.ts';
import { compilePolicy, Redactor, type CompiledPolicy } from './redaction.ts';
import * as store from './store.ts';

/**
 * How long a server process uses its copy of a project's settings before reading them
 * again, unless it has heard from the primary that no settings changed since (db/changes.ts).
 * A save renews the copy of the process that saved at once; other processes on the same
 * PostgreSQL see the change at most this long after it (docs/privacy.md says so).
 */
export const SETTINGS_REFRESH_MS = 1_000;

const OFF: CompiledPolicy = compilePolicy({ mode: 'off', entities: [], untouchedKeys: [], patterns: [] });

/**
 * Each process's copy of the projects' settings, so that ingest with privacy off costs no
 * database read: a project's copy is read once, renewed on save, and read again after
 * SETTINGS_REFRESH_MS (a change made by another process on the same database).
 */
export class PolicyCache implements Policies {
  private readonly entries = new Map<string, CachedPolicy>();
  /** One read at a time per project: a burst of requests waits for one query, not one each. */
  private readonly reading = new Map<string, Promise<CachedPolicy>>();

  constructor(private readonly ctx: PrivacyContext) {}

  async get(projectId: string): Promise<CachedPolicy> {
    const cached = this.entries.get(projectId);
    if (cached && this.ctx.db.changes.current('privacy_settings', cached, SETTINGS_REFRESH_MS)) return cached;
    let pending = this.reading.get(projectId);
    if (!pending) {
      pending = this.read(projectId).finally(() => this.reading.delete(projectId));
      this.reading.set(projectId, pending);
    }
    return pending;
  }

  /** The copy after a save in this process: applies to the next request at once. */
  renew(projectId: string, row: store.PrivacySettingsRow | null): void {
    this.entries.set(projectId, this.entry(projectId, row));
  }

  forget(projectId: string): void {
    this.entries.delete(projectId);
  }

  private async read(projectId: string): Promise<CachedPolicy> {
    const read = { stamp: this.ctx.db.changes.stamp('privacy_settings'), readAt: performance.now() };
    const row = await store.findSettings(this.ctx.db.orm, projectId);
    const previous = this.entries.get(projectId);
    const version = versionOf(row);
    // Unchanged: the same policy, with the findings it remembers.
    const entry = previous && previous.version === version ? { ...previous, ...read } : { ...this.entry(projectId, row), ...read };
    this.entries.set(projectId, entry);
    return entry;
  }

  private entry(projectId: string, row: store.PrivacySettingsRow | null): CachedPolicy {
    const policy = row ? compilePolicy({ mode: row.mode, entities: row.entities as EntityType[], untouchedKeys: row.untouchedKeys, patterns: row.patterns }) : OFF;
    if (policy.mode !== 'off') warmUp(this.ctx, policy);
    return { policy, version: versionOf(row), hashKey: projectHashKey(this.ctx, projectId), readAt: performance.now(), stamp: this.ctx.db.changes.stamp('privacy_settings') };
  }
}

/**
 * Detection loads what it needs on first use (the name and place tagger takes seconds on a
 * busy machine): done here, outside any value's time budget, so the first span after a start
 * is not stored as [redaction failed] for the loading alone. With the detection pool, its
 * workers start (each loads and warms the engine before it takes a text; the budget runs from
 * then); the main thread loads nothing.
 */
function warmUp(ctx: PrivacyContext, policy: CompiledPolicy): void {
  if (ctx.detection) return ctx.detection.start();
  try {
    ctx.detector('Maria Gonzalez from Denver wrote to maria@example.com, call +1 303 555 0147.', policy.entities);
  } catch {
    // A detector that fails fails again on the values, which are then stored as [redaction failed].
  }
}

function versionOf(row: store.PrivacySettingsRow | null): string {
  return row ? JSON.stringify([row.mode, row.entities, row.untouchedKeys, row.patterns]) : 'off';
}

/**
 * The redactor of a project's incoming data, with the settings as they are now (this
 * process's copy, see PolicyCache). `path` names the ingest path in /metrics (otlp,
 * collector, annotations, ...).
 */
export async function redactorFor(ctx: PrivacyContext, projectId: string, path: string): Promise<Redactor> {
  const { policy, hashKey } = await ctx.policies.get(projectId);
  return new Redactor(policy, hashKey, { detector: ctx.detector, budgetMs: ctx.budgetMs, meter: ctx.meter, path, pool: ctx.detection });
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
  await redactor.prepare(() => redactor.text(text, 'search'));
  const out = redactor.text(text, 'search');
  redactor.discard();
  return out;
}
