import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { createKeyFile, ENCRYPTION_KEY_FILE, newEncryptionKeyText, readKeyFile } from './key-files.ts';

/**
 * Envelope encryption for values kept at rest (the agent cache): each value gets its own
 * random data key; the value is sealed with AES-256-GCM under that data key, and the data
 * key is sealed with AES-256-GCM under a master key. The master key's id is stored with
 * the value, so old keys keep decrypting after a rotation. Associated data (e.g. project
 * id + entry name) is bound into both seals: a ciphertext copied to another row fails to
 * open.
 *
 * Master keys come from SPYGLASS_ENCRYPTION_KEY (`key` or `kid:key`, comma-separated; the
 * first encrypts, all decrypt) or, when unset, from `<data dir>/encryption.key` (0600).
 */

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const MIN_MATERIAL_BYTES = 32;
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HKDF_INFO = 'spyglass envelope master key v1';

export interface KeySpec {
  id: string;
  /** Raw key material (>= 32 bytes); the AES key is derived from it with HKDF-SHA256. */
  material: Buffer;
}

/** What is stored with an encrypted value. */
export interface SealedValue {
  keyId: string;
  /** `v1.<wrapped data key>.<ciphertext>`, each part base64url(iv | ciphertext | tag). */
  sealed: string;
}

/** A value did not open: wrong key, unknown key id, tampered or moved ciphertext. Never carries plaintext. */
export class DecryptionError extends Error {}

/**
 * Parses SPYGLASS_ENCRYPTION_KEY: comma-separated entries, each `kid:base64key` or just
 * `base64key` (its id is then a fingerprint of the key). Keys decode to at least 32 bytes.
 * Throws an Error whose message names the bad entry by position, never by value.
 */
export function parseKeySpecs(value: string): KeySpec[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('no key given');
  const specs: KeySpec[] = [];
  for (const [i, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon >= 0 ? entry.slice(0, colon) : null;
    const encoded = colon >= 0 ? entry.slice(colon + 1) : entry;
    if (id !== null && !KEY_ID_PATTERN.test(id)) {
      throw new Error(`entry ${i + 1}: the key id must be 1..32 letters, digits, _ or -`);
    }
    if (!BASE64_PATTERN.test(encoded)) throw new Error(`entry ${i + 1}: the key must be base64 (e.g. \`openssl rand -base64 32\`)`);
    const material = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
    if (material.length < MIN_MATERIAL_BYTES) {
      throw new Error(`entry ${i + 1}: the key must decode to at least ${MIN_MATERIAL_BYTES} bytes (got ${material.length})`);
    }
    const spec = { id: id ?? fingerprint(material), material };
    if (specs.some((s) => s.id === spec.id)) throw new Error(`entry ${i + 1}: key id ${spec.id} is used twice`);
    specs.push(spec);
  }
  return specs;
}

/** A stable id for a key given without one: a short hash, which reveals nothing usable about the key. */
function fingerprint(material: Buffer): string {
  return 'k' + createHash('sha256').update('spyglass key id').update(material).digest('hex').slice(0, 12);
}

export class Keyring {
  private readonly keys: Map<string, Buffer>;
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;

  constructor(specs: KeySpec[]) {
    if (specs.length === 0) throw new Error('a keyring needs at least one key');
    this.keys = new Map(specs.map((s) => [s.id, deriveKey(s.material)]));
    this.currentKeyId = specs[0].id;
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  seal(plaintext: string, associated: readonly string[]): SealedValue {
    const aad = associatedData(associated);
    const dataKey = randomBytes(KEY_BYTES);
    try {
      const body = gcmSeal(dataKey, Buffer.from(plaintext, 'utf8'), aad);
      const wrapped = gcmSeal(this.keys.get(this.currentKeyId)!, dataKey, wrapAad(this.currentKeyId, aad));
      return { keyId: this.currentKeyId, sealed: `${FORMAT}.${wrapped.toString('base64url')}.${body.toString('base64url')}` };
    } finally {
      dataKey.fill(0);
    }
  }

  open(value: SealedValue, associated: readonly string[]): string {
    const master = this.keys.get(value.keyId);
    if (!master) throw new DecryptionError(`the value was sealed with key ${value.keyId}, which is not configured`);
    const parts = value.sealed.split('.');
    if (parts.length !== 3 || parts[0] !== FORMAT) throw new DecryptionError('the stored value has an unknown format');
    const aad = associatedData(associated);
    const dataKey = gcmOpen(master, Buffer.from(parts[1], 'base64url'), wrapAad(value.keyId, aad));
    try {
      return gcmOpen(dataKey, Buffer.from(parts[2], 'base64url'), aad).toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }
}

/**
 * The keyring of this installation: SPYGLASS_ENCRYPTION_KEY when set, otherwise
 * `<dataDir>/encryption.key` (mode 0600; the variable's text, platform/key-files.ts),
 * created on first use. Several server processes on one PostgreSQL must share the variable.
 */
export function loadKeyring(configured: string | null, dataDir: string): Keyring {
  if (configured) return new Keyring(parseKeySpecs(configured));
  const file = path.join(dataDir, ENCRYPTION_KEY_FILE);
  return new Keyring(parseKeySpecs(readKeyFile(file) ?? createKeyFile(file, newEncryptionKeyText())));
}

function deriveKey(material: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), HKDF_INFO, KEY_BYTES));
}

// Length-prefixed so that ("ab", "c") and ("a", "bc") never share associated data.
function associatedData(parts: readonly string[]): Buffer {
  return Buffer.concat(
    parts.map((p) => {
      const bytes = Buffer.from(p, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(bytes.length);
      return Buffer.concat([len, bytes]);
    }),
  );
}

// The key id is bound too: pointing a row at another key id fails to open.
function wrapAad(keyId: string, aad: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`data-key:${keyId}:`, 'utf8'), aad]);
}

function gcmSeal(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function gcmOpen(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('the stored value is truncated');
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DecryptionError('the stored value does not authenticate (wrong key, or the ciphertext was altered or moved)');
  }
}
