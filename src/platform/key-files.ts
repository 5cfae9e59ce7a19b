import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { randomAlphanumeric } from './ids.ts';

/**
 * The installation's key files, `<data dir>/token-hash.key` and `<data dir>/encryption.key`.
 * Each holds exactly the text its variable takes (SPYGLASS_TOKEN_HASH_KEY,
 * SPYGLASS_ENCRYPTION_KEY), so `SPYGLASS_TOKEN_HASH_KEY="$(cat token-hash.key)"` is the
 * same key as the file.
 *
 * Versions before this one wrote token-hash.key as base64 of the key's characters (the
 * "old form"). The two forms are told apart by what the text decodes to:
 * - old form: canonical padded base64 (A-Z a-z 0-9 + /, `=` padding, length a multiple of
 *   4) that decodes to 32 or more printable ASCII characters. That is exactly what the old
 *   versions wrote (base64 of 64 letters and digits);
 * - new form: any other text of 32 or more characters, taken as it is.
 * A text that is both (a deliberately base64-encoded passphrase written into the file by
 * hand) is read the old way: such a key belongs in the variable. Keys Spyglass makes (64
 * letters and digits) decode to 48 random bytes, never printable text; `newTokenHashKeyText`
 * checks it anyway. A file in the old form is rewritten in the new form once a start has
 * verified it against the data (ops/key-check.ts).
 *
 * encryption.key always held base64 of the key material, which is what its variable takes
 * (its key id, a fingerprint of the material, is the same either way); it may now also hold
 * the variable's full form, `kid:key,kid2:key2`, which `spyglass keys rotate-encryption`
 * writes while it moves values to a new key.
 */

export const TOKEN_HASH_KEY_FILE = 'token-hash.key';
export const ENCRYPTION_KEY_FILE = 'encryption.key';
export const MIN_TOKEN_HASH_KEY_CHARS = 32;

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

export interface TokenHashKeyText {
  /** What SPYGLASS_TOKEN_HASH_KEY would hold for this key. */
  text: string;
  /** The file was in the old (base64) form. */
  oldForm: boolean;
}

/** A token-hash key file's text, in either form, as the variable would hold it. */
export function parseTokenHashKeyFile(content: string): TokenHashKeyText {
  const stored = content.trim();
  if (CANONICAL_BASE64.test(stored) && stored.length % 4 === 0) {
    const decoded = Buffer.from(stored, 'base64').toString('latin1');
    if (decoded.length >= MIN_TOKEN_HASH_KEY_CHARS && PRINTABLE_ASCII.test(decoded)) return { text: decoded, oldForm: true };
  }
  return { text: stored, oldForm: false };
}

/** A new token-hash key: 64 letters and digits, which can never be read as the old form. */
export function newTokenHashKeyText(): string {
  for (;;) {
    const text = randomAlphanumeric(64);
    if (!parseTokenHashKeyFile(text).oldForm) return text;
  }
}

/** A new encryption key as SPYGLASS_ENCRYPTION_KEY takes it: base64 of 32 random bytes. */
export function newEncryptionKeyText(): string {
  return randomBytes(32).toString('base64');
}

/** The file's text (trimmed), or null when there is no file. */
export function readKeyFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Creates the key file with `text` unless it exists (mode 0600); answers the text the file
 * holds afterwards (another process may have created it first).
 */
export function createKeyFile(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, text + '\n', { flag: 'wx', mode: 0o600 });
    return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(file)!;
    throw err;
  }
}

/** Replaces the key file's text whole: written beside it, flushed, renamed over it. */
export function replaceKeyFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const next = `${file}.next`;
  const fd = fs.openSync(next, 'w', 0o600);
  try {
    fs.writeSync(fd, text + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(next, 0o600);
  fs.renameSync(next, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}
