import path from 'node:path';
import type { Config } from '../config.ts';
import { parseTokenHashKeyFile, readKeyFile, TOKEN_HASH_KEY_FILE } from '../platform/key-files.ts';

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
    const stored = readKeyFile(file);
    if (stored === null) return { variable: k.variable, value: null, note: `no ${file}: nothing was made with it, nothing to keep` };
    // The variable takes what the file holds; a token-hash.key of an earlier version holds it base64-encoded.
    return { variable: k.variable, value: k.file === TOKEN_HASH_KEY_FILE ? parseTokenHashKeyFile(stored).text : stored, note: `from ${file}` };
  });
}

/** `export NAME='value'`, quoted for a POSIX shell. */
export function exportLine(variable: string, value: string): string {
  return `export ${variable}='${value.replace(/'/g, `'\\''`)}'`;
}
