import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import { rows, textArray, type Database, type Executor, type Tx } from '../db/index.ts';
import { Keyring, parseKeySpecs } from '../platform/crypto.ts';
import type { Clock } from '../platform/clock.ts';
import type { SealedKind } from '../platform/sealed-kinds.ts';
import { createKeyFile, newEncryptionKeyText, newTokenHashKeyText, readKeyFile, replaceKeyFile } from '../platform/key-files.ts';
import { OpsError } from './errors.ts';
import {
  expectedIds,
  keyProblems,
  KeyMismatchError,
  readExpectations,
  resolveKeys,
  tokenHashVerifier,
  type InstallationKeys,
  type KeyExpectations,
} from './key-check.ts';

/**
 * Deliberate changes of the installation's keys, which update what the data records
 * (ops/key-check.ts) so that the next start accepts the new keys.
 *
 * `spyglass keys rotate-encryption`: every sealed value (agent-cache values, webhook
 * signing secrets, model provider keys, experiment targets' and scenario agents' headers) is sealed again under the keyring's first key, and the record then
 * lists only the ids still in use, so the old key can leave the keyring. With
 * SPYGLASS_ENCRYPTION_KEY the operator puts the new key first (`new,old`); without it,
 * the command makes a new key and writes `new,old` into encryption.key, then only `new`
 * once nothing uses the old one. An interrupted run is finished by running it again.
 *
 * `spyglass keys replace-token-hash`: the token-hash key cannot be rotated (a keyed hash
 * cannot be re-made without the secret it hashed), so every API key is revoked and one new
 * admin key minted; sessions, invitation and reset links end. With SPYGLASS_TOKEN_HASH_KEY
 * the operator sets the new key first; without it, the command makes one
 * (`token-hash.key.new` until the database records it, then renamed over token-hash.key).
 */

// Any constant: the record's rewrite is serialized with the start check of other processes (key-check.ts).
const KEY_RECORD_LOCK = 5_560_002;

/** The kinds of sealed values, in the order the key tools name them. */
const SEALED_KIND_NAMES = ['values', 'secrets', 'providerKeys', 'targetHeaders', 'agentHeaders'] as const;
type SealedKindName = (typeof SEALED_KIND_NAMES)[number];
type SealedCounts = Record<SealedKindName, number>;

/**
 * Every kind of sealed value, each counted per key id by the module that owns it: the rotation
 * re-seals each kind, and a key stays recorded while any value of any kind is sealed with it.
 * Imported when needed: the CLI opens the database while the application's modules load (main.ts).
 */
async function sealedKinds(): Promise<Record<SealedKindName, SealedKind>> {
  const [cache, webhooks, providers, experiments, simulations] = await Promise.all([
    import('../modules/agent-cache/index.ts'),
    import('../modules/webhooks/index.ts'),
    import('../modules/model-providers/index.ts'),
    import('../modules/experiments/index.ts'),
    import('../modules/simulations/index.ts'),
  ]);
  return {
    values: cache.sealedCacheValues,
    secrets: webhooks.sealedSecrets,
    providerKeys: providers.sealedProviderKeys,
    targetHeaders: experiments.sealedTargetHeaders,
    agentHeaders: simulations.sealedAgentHeaders,
  };
}

/** Sealed values per key id. */
async function sealedCounts(db: Executor): Promise<Map<string, SealedCounts>> {
  const counts = new Map<string, SealedCounts>();
  const kinds = await sealedKinds();
  for (const kind of SEALED_KIND_NAMES) {
    for (const r of await kinds[kind].countByKey(db)) {
      const c = counts.get(r.key_id) ?? { values: 0, secrets: 0, providerKeys: 0, targetHeaders: 0, agentHeaders: 0 };
      c[kind] += Number(r.n);
      counts.set(r.key_id, c);
    }
  }
  return counts;
}

/** "1 agent-cache value and 2 webhook secrets": the kinds present, in the catalogue's order. */
function describeCounts(c: SealedCounts, kinds: Record<SealedKindName, SealedKind>): string {
  const parts = SEALED_KIND_NAMES.filter((kind) => c[kind] > 0).map((kind) => `${c[kind]} ${c[kind] === 1 ? kinds[kind].one : kinds[kind].many}`);
  if (!parts.length) return 'nothing';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

export interface RotationTarget {
  /** The keyring text after the rotation starts: the new key first. */
  text: string;
  keyring: Keyring;
  source: 'variable' | 'file';
  file: string;
  /** A new key is made (file only; a file that holds several keys already is a rotation to finish). */
  generates: boolean;
}

/** What the rotation will use; writes nothing. Null: no key yet, so nothing is encrypted. */
export function rotationTarget(config: Config): RotationTarget | null {
  const keys = resolveKeys(config);
  const enc = keys.encryption;
  if (enc.source === 'variable') return { text: enc.text, keyring: enc.keyring, source: 'variable', file: enc.file, generates: false };
  if (enc.source === 'new') return null;
  const generates = enc.keyring.keyIds.length === 1;
  const text = generates ? `${newEncryptionKeyText()},${enc.text}` : enc.text;
  return { text, keyring: new Keyring(parseKeySpecs(text)), source: 'file', file: enc.file, generates };
}

function withEncryption(keys: InstallationKeys, target: RotationTarget): InstallationKeys {
  return { ...keys, encryption: { text: target.text, source: target.source, file: target.file, keyring: target.keyring } };
}

function refuseMismatch(keys: InstallationKeys, expected: KeyExpectations, dataDir: string): void {
  const problems = keyProblems(keys, expected, dataDir);
  if (problems.length) throw new KeyMismatchError(problems.join('\n'));
}

/** `--dry-run`: what the rotation would change, read only. */
export async function planRotation(db: Database, config: Config, target: RotationTarget): Promise<string[]> {
  const keys = withEncryption(resolveKeys(config), target);
  const expected = await readExpectations(db.orm);
  refuseMismatch(keys, expected, config.dataDir);
  const current = target.keyring.currentKeyId;
  const kinds = await sealedKinds();
  const counts = await sealedCounts(db.orm);
  const moving = [...counts].filter(([id]) => id !== current);
  const old = [...new Set([...expectedIds(expected), ...target.keyring.keyIds])].filter((id) => id !== current).sort();
  return [
    'Dry run: nothing was changed.',
    target.generates
      ? `Would make a new encryption key (id ${current}) and write it first in ${target.file}, keeping key ${old.join(', ')} there for decrypting.`
      : `The first key of ${target.source === 'variable' ? 'SPYGLASS_ENCRYPTION_KEY' : target.file} (id ${current}) encrypts.`,
    moving.length
      ? `Would re-encrypt under key ${current}: ${moving.map(([id, c]) => `${describeCounts(c, kinds)} sealed with key ${id}`).join('; ')} (expired cache values are deleted instead).`
      : `Nothing to re-encrypt: every value is sealed with key ${current}.`,
    `Key ids recorded as in use: now ${expectedIds(expected).join(', ') || 'none'}; afterwards ${current}.`,
    target.source === 'variable'
      ? old.length
        ? `Afterwards remove key id ${old.join(', ')} from SPYGLASS_ENCRYPTION_KEY (keep only the entry of ${current}) and restart every process.`
        : 'No other key to remove afterwards.'
      : `Afterwards ${target.file} holds only the key of id ${current}.`,
  ];
}

/** Before the rotation opens the database: a file rotation writes the new keyring first (an interrupted run finds it there). */
export function prepareRotation(target: RotationTarget): void {
  if (target.source === 'file' && target.generates) replaceKeyFile(target.file, target.text);
}

/**
 * The rotation, once the start check has passed with the target keyring (it records the new
 * key's id): values sealed again under the first key, then the record rewritten to the ids
 * still in use, then (file) the old keys dropped from the file.
 */
export async function rotate(db: Database, clock: Clock, target: RotationTarget): Promise<string[]> {
  const current = target.keyring.currentKeyId;
  const resealed: SealedCounts = { values: 0, secrets: 0, providerKeys: 0, targetHeaders: 0, agentHeaders: 0 };
  const kinds = await sealedKinds();
  for (const kind of SEALED_KIND_NAMES) resealed[kind] = await kinds[kind].reseal({ db, clock, keyring: target.keyring });
  const stillUsed = await db.orm.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(${KEY_RECORD_LOCK})`);
    const inUse = [...(await sealedCounts(tx)).keys()].filter((id) => id !== current);
    const keep = [current, ...inUse];
    await tx.execute(sql`DELETE FROM installation_keys WHERE kind = 'encryption' AND NOT (key_id = ANY(${textArray(keep)}))`);
    return inUse;
  });
  const lines = [`Re-encrypted ${describeCounts(resealed, kinds)} under key ${current}.`];
  const old = target.keyring.keyIds.filter((id) => id !== current);
  if (stillUsed.length) {
    lines.push(
      `Key id ${stillUsed.join(', ')} is still in use (a server wrote with it meanwhile: restart every process with key ${current} first in SPYGLASS_ENCRYPTION_KEY) and stays recorded; run this again afterwards.`,
    );
  } else if (target.source === 'file') {
    replaceKeyFile(target.file, target.text.split(',')[0].trim());
    lines.push(`${target.file} now holds only the key of id ${current}; the old key is no longer needed (backups made before keep it).`);
  } else if (old.length) {
    lines.push(`Key id ${old.join(', ')} is no longer in use: remove it from SPYGLASS_ENCRYPTION_KEY (keep only the entry of ${current}) and restart every process.`);
  }
  lines.push(`Key ids recorded as in use: ${[current, ...stillUsed].join(', ')}.`);
  return lines;
}

export interface Replacement {
  text: string;
  fingerprint: string;
  verifier: string;
  source: 'variable' | 'file';
  file: string;
  /** The file case: where the new key waits until the database records it. */
  pendingFile: string;
  /** The pending file exists (an interrupted run). */
  pending: boolean;
}

/** The new token-hash key; writes nothing. */
export function replacementKey(config: Config): Replacement {
  const keys = resolveKeys(config);
  const file = keys.tokenHash.file;
  const pendingFile = `${file}.new`;
  if (keys.tokenHash.source === 'variable') return { ...tokenHashVerifier(config.tokenHashKey!), text: config.tokenHashKey!, source: 'variable', file, pendingFile, pending: false };
  const waiting = readKeyFile(pendingFile);
  const text = waiting ?? newTokenHashKeyText();
  return { ...tokenHashVerifier(text), text, source: 'file', file, pendingFile, pending: waiting !== null };
}

/** Refuses a replacement that replaces nothing; answers what the database expects now. Read only. */
export async function checkReplacement(db: Database, config: Config, next: Replacement): Promise<KeyExpectations> {
  const expected = await readExpectations(db.orm);
  // The token-hash key is the one that changes; the encryption keys must still fit.
  refuseMismatch(resolveKeys(config), { ...expected, tokenHash: null }, config.dataDir);
  if (expected.tokenHash?.verifier === next.verifier && !next.pending) {
    throw new OpsError(
      `the database already records the key of SPYGLASS_TOKEN_HASH_KEY (fingerprint ${next.fingerprint}): nothing to replace. ` +
        'To replace it, set SPYGLASS_TOKEN_HASH_KEY to a new key of at least 32 characters (e.g. `openssl rand -base64 48`) and run this again.',
    );
  }
  return expected;
}

/** `--dry-run` of the replacement. */
export async function planReplacement(db: Database, config: Config, next: Replacement): Promise<string[]> {
  const expected = await checkReplacement(db, config, next);
  const [{ liveKeyCount }, { liveSessionsAndLinks }] = await Promise.all([import('../modules/api-keys/index.ts'), import('../modules/organizations/index.ts')]);
  const counts = { keys: await liveKeyCount(db.orm), ...(await liveSessionsAndLinks(db.orm)) };
  return [
    'Dry run: nothing was changed.',
    `Would record the token-hash key of fingerprint ${next.fingerprint}${expected.tokenHash ? ` in place of ${expected.tokenHash.fingerprint}` : ''}` +
      (next.source === 'variable' ? ' (from SPYGLASS_TOKEN_HASH_KEY).' : `, a new key written to ${next.file}.`),
    `Would revoke every API key (${counts.keys} live: their stored hashes cannot match under a new key), end ${counts.sessions} browser session${counts.sessions === 1 ? '' : 's'} and ${counts.links} invitation or password-reset link${counts.links === 1 ? '' : 's'}.`,
    'Would mint one new organization admin key for the first ADMIN user and print it; issue the other keys again with it.',
  ];
}

/** Before the database changes: the file case keeps the new key beside the old one (an interrupted run finds it). */
export function prepareReplacement(next: Replacement): void {
  if (next.source === 'file' && !next.pending) createKeyFile(next.pendingFile, next.text);
}

/** The replacement, in one transaction: the record, the keys, sessions and links; then the file. */
export async function replace(
  db: Database,
  next: Replacement,
  reissue: (tx: Tx) => Promise<{ revoked: number; adminToken: string | null; sessions: number; links: number }>,
): Promise<string[]> {
  const done = await db.orm.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(${KEY_RECORD_LOCK})`);
    const [recorded] = await rows<{ verifier: string }>(tx, sql`SELECT verifier FROM installation_keys WHERE kind = 'token-hash'`);
    // An interrupted file run whose transaction had committed: only the rename is left.
    if (recorded?.verifier === next.verifier) return null;
    await tx.execute(sql`DELETE FROM installation_keys WHERE kind = 'token-hash'`);
    await tx.execute(sql`INSERT INTO installation_keys (kind, key_id, verifier) VALUES ('token-hash', ${next.fingerprint}, ${next.verifier})`);
    return reissue(tx);
  });
  if (next.source === 'file') {
    fs.renameSync(next.pendingFile, next.file);
    const dir = fs.openSync(path.dirname(next.file), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
  }
  if (!done) return [`Finished an interrupted replacement: ${next.file} now holds the key of fingerprint ${next.fingerprint}.`];
  return [
    `The token-hash key is now the key of fingerprint ${next.fingerprint}${next.source === 'file' ? ` (in ${next.file})` : ' (SPYGLASS_TOKEN_HASH_KEY): start every process with it'}.`,
    `Revoked ${done.revoked} API key${done.revoked === 1 ? '' : 's'}; ended ${done.sessions} session${done.sessions === 1 ? '' : 's'} and ${done.links} link${done.links === 1 ? '' : 's'}.`,
    done.adminToken
      ? `New organization admin key (shown once; issue the other keys again with it):\n${done.adminToken}`
      : 'No organization has an ADMIN member: no admin key was minted (`spyglass init` sets one up).',
  ];
}
