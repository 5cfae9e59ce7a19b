import { createHmac } from 'node:crypto';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { relationExists, rows, type Database, type Executor } from '../db/index.ts';
import { Keyring, parseKeySpecs } from '../platform/crypto.ts';
import {
  createKeyFile,
  ENCRYPTION_KEY_FILE,
  newEncryptionKeyText,
  newTokenHashKeyText,
  parseTokenHashKeyFile,
  readKeyFile,
  replaceKeyFile,
  TOKEN_HASH_KEY_FILE,
} from '../platform/key-files.ts';

/**
 * The data knows its keys. The database records a verifier of the token-hash key (an
 * HMAC of a fixed label under the key: it confirms a key, and reveals nothing of it) and the
 * ids of the encryption keys values were sealed with. Every start compares the configured
 * keys with that record before anything is written, and refuses (exit 2) when they do not
 * fit: a wrong token-hash key would answer 401 to every API key, a keyring without a key
 * in use could not open the values sealed with it.
 *
 * The order at a start (main.ts): resolve the keys (nothing is created), compare with the
 * database as it is (read only; before the migrations when the record exists), migrate,
 * then compare again and record what is missing in one transaction (serialized across
 * processes on one PostgreSQL), and only then create missing key files. A database without
 * a record yet (an installation made by an earlier version) records the keys of that start.
 */

export interface TokenHashKeyInUse {
  /** The text SPYGLASS_TOKEN_HASH_KEY holds for it. */
  text: string;
  source: 'variable' | 'file' | 'new';
  file: string;
  /** The file holds the key base64-encoded (written by an earlier version). */
  oldForm: boolean;
  fingerprint: string;
  verifier: string;
}

export interface EncryptionKeysInUse {
  /** The text SPYGLASS_ENCRYPTION_KEY holds for them. */
  text: string;
  source: 'variable' | 'file' | 'new';
  file: string;
  keyring: Keyring;
}

export interface InstallationKeys {
  tokenHash: TokenHashKeyInUse;
  encryption: EncryptionKeysInUse;
}

/** A configured key that does not fit the data: the message names the variable, what the data expects and the fix. Exit 2. */
export class KeyMismatchError extends Error {}

const VERIFIER_LABEL = 'spyglass token-hash key verifier v1';
// Any constant: serializes the key check and record of several processes on one PostgreSQL.
const KEY_RECORD_LOCK = 5_560_002;

/** The verifier the database records for a token-hash key, and the fingerprint people see (its first 12 hex digits). */
export function tokenHashVerifier(keyText: string): { fingerprint: string; verifier: string } {
  const verifier = createHmac('sha256', Buffer.from(keyText, 'utf8')).update(VERIFIER_LABEL).digest('hex');
  return { fingerprint: `th-${verifier.slice(0, 12)}`, verifier };
}

/** The keys this process would use: from the variables, else the key files, else new keys (not written yet). */
export function resolveKeys(config: Config): InstallationKeys {
  const tokenFile = path.join(config.dataDir, TOKEN_HASH_KEY_FILE);
  let tokenHash: Omit<TokenHashKeyInUse, 'fingerprint' | 'verifier'>;
  if (config.tokenHashKey) tokenHash = { text: config.tokenHashKey, source: 'variable', file: tokenFile, oldForm: false };
  else {
    const stored = readKeyFile(tokenFile);
    tokenHash = stored === null ? { text: newTokenHashKeyText(), source: 'new', file: tokenFile, oldForm: false } : { ...parseTokenHashKeyFile(stored), source: 'file', file: tokenFile };
  }
  const encryptionFile = path.join(config.dataDir, ENCRYPTION_KEY_FILE);
  let encryption: Omit<EncryptionKeysInUse, 'keyring'>;
  if (config.encryptionKey) encryption = { text: config.encryptionKey, source: 'variable', file: encryptionFile };
  else {
    const stored = readKeyFile(encryptionFile);
    encryption = stored === null ? { text: newEncryptionKeyText(), source: 'new', file: encryptionFile } : { text: stored, source: 'file', file: encryptionFile };
  }
  let keyring: Keyring;
  try {
    keyring = new Keyring(parseKeySpecs(encryption.text));
  } catch (err) {
    throw new KeyMismatchError(`${encryption.file} does not hold a key SPYGLASS_ENCRYPTION_KEY could take: ${(err as Error).message}`);
  }
  return { tokenHash: { ...tokenHash, ...tokenHashVerifier(tokenHash.text) }, encryption: { ...encryption, keyring } };
}

/** What the database expects: the recorded token-hash key and every encryption key id recorded or found on a sealed value. */
export interface KeyExpectations {
  /** The database has the record (installation_keys); false before the migration that makes it. */
  recorded: boolean;
  tokenHash: { fingerprint: string; verifier: string } | null;
  /** Encryption key ids in the record. */
  recordedIds: Set<string>;
  /** Encryption key ids found on sealed values. */
  sealedIds: Set<string>;
}

/** Every encryption key id the data needs: recorded or in use. */
export const expectedIds = (e: KeyExpectations): string[] => [...new Set([...e.recordedIds, ...e.sealedIds])].sort();

export async function readExpectations(db: Executor): Promise<KeyExpectations> {
  const recorded = await relationExists(db, 'installation_keys');
  const expectations: KeyExpectations = { recorded, tokenHash: null, recordedIds: new Set(), sealedIds: await sealedValueKeyIds(db) };
  if (recorded) {
    for (const r of await rows<{ kind: string; key_id: string; verifier: string | null }>(db, sql`SELECT kind, key_id, verifier FROM installation_keys`)) {
      if (r.kind === 'token-hash') expectations.tokenHash = { fingerprint: r.key_id, verifier: r.verifier ?? '' };
      else expectations.recordedIds.add(r.key_id);
    }
  }
  return expectations;
}

/**
 * The key ids on sealed values the start check knows: agent-cache values and webhook signing
 * secrets, each read by its module (none while its table does not exist yet).
 */
async function sealedValueKeyIds(db: Executor): Promise<Set<string>> {
  // Imported when needed: the CLI opens the database while the application's modules load (main.ts).
  const [{ cacheValueKeyIds }, { secretKeyIds }] = await Promise.all([import('../modules/agent-cache/index.ts'), import('../modules/webhooks/index.ts')]);
  return new Set([...(await cacheValueKeyIds(db)), ...(await secretKeyIds(db))]);
}

/** The problems of the configured keys against what the database expects; empty when they fit. */
export function keyProblems(keys: InstallationKeys, expected: KeyExpectations, dataDir: string): string[] {
  const problems: string[] = [];
  const th = keys.tokenHash;
  if (expected.tokenHash && expected.tokenHash.verifier !== th.verifier) problems.push(tokenHashProblem(th, expected.tokenHash.fingerprint));
  const lacking = expectedIds(expected).filter((id) => !keys.encryption.keyring.keyIds.includes(id));
  if (lacking.length) problems.push(encryptionProblem(keys.encryption, lacking, dataDir));
  return problems;
}

function tokenHashProblem(th: TokenHashKeyInUse, expected: string): string {
  const inUse =
    th.source === 'variable'
      ? `SPYGLASS_TOKEN_HASH_KEY is set to a key of fingerprint ${th.fingerprint}`
      : th.source === 'file'
        ? `SPYGLASS_TOKEN_HASH_KEY is unset and ${th.file} holds a key of fingerprint ${th.fingerprint}`
        : `SPYGLASS_TOKEN_HASH_KEY is unset and there is no ${th.file}`;
  const lines = [
    `SPYGLASS_TOKEN_HASH_KEY does not match this database: its API keys, sessions and links were made with the token-hash key of fingerprint ${expected}, but ${inUse}.`,
  ];
  // The trap this check was made for: the base64 text of an earlier version's key file in the variable.
  const decoded = th.source === 'variable' ? parseTokenHashKeyFile(th.text) : null;
  if (decoded?.oldForm && tokenHashVerifier(decoded.text).fingerprint === expected) {
    lines.push(
      '  The value is that key base64-encoded, as token-hash.key files of earlier versions hold it: set the decoded text instead (what `base64 -d` makes of it). A start of this version with the file alone rewrites the file in the form the variable takes.',
    );
  } else {
    lines.push(
      `  Fix: set SPYGLASS_TOKEN_HASH_KEY to the key this database was made with: the text of token-hash.key in the data directory of the installation it came from (SPYGLASS_TOKEN_HASH_KEY="$(cat <that data dir>/token-hash.key)") or the value \`spyglass move-to-postgres\` printed; \`spyglass keys status\` shows the fingerprint of the key configured now.`,
      `  To replace the key on purpose (every API key must then be issued again): spyglass keys replace-token-hash --dry-run.`,
    );
  }
  lines.push('  Nothing was written.');
  return lines.join('\n');
}

function encryptionProblem(enc: EncryptionKeysInUse, lacking: string[], dataDir: string): string {
  const from = enc.source === 'variable' ? 'SPYGLASS_ENCRYPTION_KEY' : enc.source === 'file' ? enc.file : `a new key (SPYGLASS_ENCRYPTION_KEY is unset and there is no ${enc.file})`;
  const ids = lacking.join(', ');
  return [
    `SPYGLASS_ENCRYPTION_KEY lacks key id${lacking.length > 1 ? 's' : ''} ${ids}, which this database's encrypted values (agent-cache values, webhook signing secrets, model provider keys, experiment target and scenario agent headers) use; the keys configured now (from ${from}) have id${enc.keyring.keyIds.length > 1 ? 's' : ''} ${enc.keyring.keyIds.join(', ')}.`,
    `  Fix: give SPYGLASS_ENCRYPTION_KEY the key${lacking.length > 1 ? 's' : ''} the data was encrypted with: the text of encryption.key of the installation it came from (SPYGLASS_ENCRYPTION_KEY="$(cat <that data dir>/encryption.key)") or the value \`spyglass move-to-postgres\` printed; ${path.join(dataDir, ENCRYPTION_KEY_FILE)} is used when the variable is unset. Several keys: comma-separated, the first encrypts, every one decrypts ("<new key>,<old key>").`,
    `  To stop using a key on purpose: spyglass keys rotate-encryption --dry-run (it re-encrypts every value under the first key).`,
    '  Nothing was written.',
  ].join('\n');
}

/** Read-only: throws KeyMismatchError when the keys do not fit what the database records now. */
export async function checkKeys(db: Database, keys: InstallationKeys, dataDir: string): Promise<KeyExpectations> {
  const expected = await readExpectations(db.orm);
  const problems = keyProblems(keys, expected, dataDir);
  if (problems.length) throw new KeyMismatchError(problems.join('\n'));
  return expected;
}

/**
 * After the migrations: compares again and records what the database does not know yet
 * (the token-hash verifier; the id of the key this process seals with), in one
 * transaction that two processes joining one PostgreSQL at once take in turn.
 */
export async function checkAndRecordKeys(db: Database, keys: InstallationKeys, dataDir: string): Promise<void> {
  await db.orm.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(${KEY_RECORD_LOCK})`);
    const expected = await readExpectations(tx);
    const problems = keyProblems(keys, expected, dataDir);
    if (problems.length) throw new KeyMismatchError(problems.join('\n'));
    await recordKeys(tx, keys, expected);
  });
}

async function recordKeys(tx: Executor, keys: InstallationKeys, expected: KeyExpectations): Promise<void> {
  for (const r of missingRecords(keys, expected)) {
    await tx.execute(sql`INSERT INTO installation_keys (kind, key_id, verifier) VALUES (${r.kind}, ${r.keyId}, ${r.verifier}) ON CONFLICT DO NOTHING`);
  }
}

/**
 * The rows the record lacks: the token-hash verifier, every key id found on a sealed value,
 * and the id of the key this process seals with. A key made just now (no variable, no file)
 * is left out when `onlyKept`: it is recorded once its file exists.
 */
export function missingRecords(keys: InstallationKeys, expected: KeyExpectations, onlyKept = false): { kind: 'token-hash' | 'encryption'; keyId: string; verifier: string | null }[] {
  const missing: { kind: 'token-hash' | 'encryption'; keyId: string; verifier: string | null }[] = [];
  if (!expected.tokenHash && !(onlyKept && keys.tokenHash.source === 'new')) {
    missing.push({ kind: 'token-hash', keyId: keys.tokenHash.fingerprint, verifier: keys.tokenHash.verifier });
  }
  const ids = new Set(expectedIds(expected));
  if (!(onlyKept && keys.encryption.source === 'new')) ids.add(keys.encryption.keyring.currentKeyId);
  for (const id of ids) if (!expected.recordedIds.has(id)) missing.push({ kind: 'encryption', keyId: id, verifier: null });
  return missing;
}

/**
 * After the check: writes the key files a start needs (keys made now) and rewrites a
 * token-hash.key of the old form in the form its variable takes.
 */
export function persistKeyFiles(keys: InstallationKeys, logger: Logger): void {
  const th = keys.tokenHash;
  if (th.source === 'new' && createKeyFile(th.file, th.text) !== th.text) {
    throw new KeyMismatchError(`${th.file} was created by another process while this one started; start again`);
  }
  if (th.source === 'file' && th.oldForm) {
    replaceKeyFile(th.file, th.text);
    logger.info({ file: th.file }, `${th.file} rewritten in the form SPYGLASS_TOKEN_HASH_KEY takes (it held the same key base64-encoded)`);
  }
  const enc = keys.encryption;
  if (enc.source === 'new' && createKeyFile(enc.file, enc.text) !== enc.text) {
    throw new KeyMismatchError(`${enc.file} was created by another process while this one started; start again`);
  }
}

/** The whole start-time sequence around the migrations: see the comment at the top. */
export async function verifyKeysAtStart(db: Database, config: Config, logger: Logger, migrate: () => Promise<void>): Promise<InstallationKeys> {
  const keys = resolveKeys(config);
  await checkKeys(db, keys, config.dataDir);
  await migrate();
  await checkAndRecordKeys(db, keys, config.dataDir);
  persistKeyFiles(keys, logger);
  return keys;
}

/** `spyglass keys status`: the configured keys' fingerprints and ids beside what the database records. Read only. */
export async function keyStatus(db: Database, config: Config): Promise<{ lines: string[]; ok: boolean }> {
  const keys = resolveKeys(config);
  const expected = await readExpectations(db.orm);
  const from = (source: 'variable' | 'file' | 'new', variable: string, file: string) =>
    source === 'variable' ? variable : source === 'file' ? file : `nothing yet (${variable} is unset, no ${file}; a start would make one)`;
  const th = keys.tokenHash;
  const lacking = expectedIds(expected).filter((id) => !keys.encryption.keyring.keyIds.includes(id));
  const thOk = !expected.tokenHash || expected.tokenHash.verifier === th.verifier;
  return {
    ok: thOk && lacking.length === 0,
    lines: [
      `SPYGLASS_TOKEN_HASH_KEY: fingerprint ${th.fingerprint}, from ${from(th.source, 'SPYGLASS_TOKEN_HASH_KEY', th.file)}${th.oldForm ? ' (old base64 form)' : ''}; ` +
        (expected.tokenHash ? `the database records ${expected.tokenHash.fingerprint}: ${thOk ? 'matches' : 'DOES NOT MATCH'}` : 'the database records none yet (the next start records it)'),
      `SPYGLASS_ENCRYPTION_KEY: key id${keys.encryption.keyring.keyIds.length > 1 ? 's' : ''} ${keys.encryption.keyring.keyIds.join(', ')} (the first encrypts), from ${from(keys.encryption.source, 'SPYGLASS_ENCRYPTION_KEY', keys.encryption.file)}; ` +
        `the database uses ${expectedIds(expected).join(', ') || 'none'}${lacking.length ? `: MISSING ${lacking.join(', ')}` : ''}`,
    ],
  };
}
