import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { OpsError } from './errors.ts';

/**
 * The installation's keys: without them the data is not whole. API keys, share links and
 * sessions are stored as keyed hashes (token-hash key); agent-cache values and webhook
 * signing secrets are encrypted (encryption key). Each comes from its variable when set,
 * else from a file in the data directory.
 */
export const INSTALLATION_KEYS = [
  { file: 'token-hash.key', variable: 'SPYGLASS_TOKEN_HASH_KEY', configured: (c: Config) => c.tokenHashKey },
  { file: 'encryption.key', variable: 'SPYGLASS_ENCRYPTION_KEY', configured: (c: Config) => c.encryptionKey },
] as const;

export type KeyFileName = (typeof INSTALLATION_KEYS)[number]['file'];

export interface KeySetting {
  variable: string;
  /** The value to set, or null: see `note`. */
  value: string | null;
  note: string;
}

/**
 * What to set so that another process (on PostgreSQL) uses this installation's keys: the
 * variable's value as a key file holds it, or a reminder that the variable is already in use.
 */
export function keySettings(config: Config): KeySetting[] {
  return INSTALLATION_KEYS.map((k) => {
    if (k.configured(config)) return { variable: k.variable, value: null, note: `already set: keep the value in use now` };
    const file = path.join(config.dataDir, k.file);
    let stored: string;
    try {
      stored = fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return { variable: k.variable, value: null, note: `no ${file}: nothing was made with it, nothing to keep` };
    }
    return { variable: k.variable, value: variableValue(k.file, stored), note: `from ${file}` };
  });
}

/**
 * A key file holds base64 of the key. The encryption key variable takes that base64 as it
 * is (its key id, a fingerprint of the key, stays the same); the token-hash variable takes
 * the key's own characters.
 */
function variableValue(file: KeyFileName, stored: string): string {
  if (file === 'encryption.key') return stored;
  const bytes = Buffer.from(stored, 'base64');
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes) || text.length < 32) {
    throw new OpsError(`${file} does not hold a key that SPYGLASS_TOKEN_HASH_KEY can carry; keep the file and point SPYGLASS_DATA_DIR at its directory`);
  }
  return text;
}

/** `export NAME='value'`, quoted for a POSIX shell. */
export function exportLine(variable: string, value: string): string {
  return `export ${variable}='${value.replace(/'/g, `'\\''`)}'`;
}
