import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { randomAlphanumeric } from './ids.ts';
import { createKeyFile, newTokenHashKeyText, parseTokenHashKeyFile, readKeyFile, TOKEN_HASH_KEY_FILE } from './key-files.ts';

/**
 * API tokens: `<prefix><16 alphanumeric id>_<48 alphanumeric secret>`.
 * `sg-` for organization keys (personal and service), `sgp-` for project keys.
 * The id finds the row; only a keyed hash (HMAC-SHA256) of the secret is stored.
 */
export type TokenPrefix = 'sg-' | 'sgp-';
const TOKEN_PATTERN = /^(sgp?-)([A-Za-z0-9]{16})_([A-Za-z0-9]{48})$/;

export interface ParsedToken {
  prefix: TokenPrefix;
  id: string;
  secret: string;
}

export function mintToken(prefix: TokenPrefix): ParsedToken & { token: string } {
  const id = randomAlphanumeric(16);
  const secret = randomAlphanumeric(48);
  return { prefix, id, secret, token: `${prefix}${id}_${secret}` };
}

export function parseToken(token: string): ParsedToken | null {
  const m = TOKEN_PATTERN.exec(token);
  if (!m) return null;
  return { prefix: m[1] as TokenPrefix, id: m[2], secret: m[3] };
}

export const TOKEN_FORMAT_HINT = '<sg-|sgp-><16 letters or digits>_<48 letters or digits>';

export class TokenHasher {
  constructor(private readonly key: Buffer) {}

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret).digest('base64url');
  }

  /** Constant-time comparison of a presented secret with a stored hash. */
  verify(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(secret));
    const b = Buffer.from(storedHash);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/**
 * The token-hash key: SPYGLASS_TOKEN_HASH_KEY when set, otherwise `<dataDir>/token-hash.key`
 * (mode 0600, either form: platform/key-files.ts), created on first use. Several server
 * processes on one PostgreSQL must share it (set the variable). A server start reads it
 * through ops/key-check.ts instead, which verifies it against the data before creating anything.
 */
export function loadTokenHashKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  const file = path.join(dataDir, TOKEN_HASH_KEY_FILE);
  const stored = readKeyFile(file) ?? createKeyFile(file, newTokenHashKeyText());
  return Buffer.from(parseTokenHashKeyFile(stored).text, 'utf8');
}

/** A random secret kept base64-encoded in `file` (0600), created on first use: the data directory's control key. */
export function loadOrCreateKeyFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = Buffer.from(randomAlphanumeric(64));
  try {
    fs.writeFileSync(file, key.toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    throw err;
  }
}
