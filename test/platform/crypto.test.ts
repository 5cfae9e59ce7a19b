import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DecryptionError, Keyring, loadKeyring, parseKeySpecs } from '../../src/platform/crypto.ts';

const key = (id: string) => ({ id, material: randomBytes(32) });

describe('envelope encryption (AES-256-GCM)', () => {
  it('round-trips and never carries the plaintext in the sealed form', () => {
    const ring = new Keyring([key('k1')]);
    const value = 'top secret ✓ ' + 'x'.repeat(1000);
    const sealed = ring.seal(value, ['proj_1', 'NAME']);
    expect(sealed.keyId).toBe('k1');
    expect(sealed.sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed.sealed).not.toContain('top secret');
    expect(ring.open(sealed, ['proj_1', 'NAME'])).toBe(value);
    // A fresh data key and IV each time: equal values do not look equal at rest.
    expect(ring.seal(value, ['proj_1', 'NAME']).sealed).not.toBe(sealed.sealed);
  });

  it('binds the associated data: another project or name fails to open', () => {
    const ring = new Keyring([key('k1')]);
    const sealed = ring.seal('v', ['proj_1', 'NAME']);
    expect(() => ring.open(sealed, ['proj_2', 'NAME'])).toThrow(DecryptionError);
    expect(() => ring.open(sealed, ['proj_1', 'OTHER'])).toThrow(DecryptionError);
    // Length-prefixed parts: moving characters between project and name does not match either.
    const shifted = ring.seal('v', ['proj_1N', 'AME']);
    expect(() => ring.open(shifted, ['proj_1', 'NAME'])).toThrow(DecryptionError);
  });

  it('detects tampering and a swapped key id', () => {
    const a = key('a');
    const b = key('b');
    const ring = new Keyring([a, b]);
    const sealed = ring.seal('value', ['p', 'N']);
    const parts = sealed.sealed.split('.');
    const body = Buffer.from(parts[2], 'base64url');
    body[15] ^= 1;
    const tampered = { keyId: sealed.keyId, sealed: [parts[0], parts[1], body.toString('base64url')].join('.') };
    expect(() => ring.open(tampered, ['p', 'N'])).toThrow(DecryptionError);
    expect(() => ring.open({ keyId: 'b', sealed: sealed.sealed }, ['p', 'N'])).toThrow(DecryptionError);
    expect(() => ring.open({ keyId: 'zz', sealed: sealed.sealed }, ['p', 'N'])).toThrow(/not configured/);
    expect(() => ring.open({ keyId: 'a', sealed: 'v2.x.y' }, ['p', 'N'])).toThrow(DecryptionError);
    expect(() => ring.open({ keyId: 'a', sealed: 'v1.AA.AA' }, ['p', 'N'])).toThrow(DecryptionError);
  });

  it('rotates: the first key seals, every key opens', () => {
    const oldKey = key('old');
    const newKey = key('new');
    const before = new Keyring([oldKey]).seal('kept', ['p', 'N']);
    const rotated = new Keyring([newKey, oldKey]);
    expect(rotated.open(before, ['p', 'N'])).toBe('kept');
    expect(rotated.seal('fresh', ['p', 'N']).keyId).toBe('new');
    expect(() => new Keyring([newKey]).open(before, ['p', 'N'])).toThrow(DecryptionError);
  });
});

describe('SPYGLASS_ENCRYPTION_KEY', () => {
  const b64 = (n = 32) => randomBytes(n).toString('base64');

  it('takes one bare key (id = a fingerprint) or several kid:key entries', () => {
    const bare = b64();
    const [single] = parseKeySpecs(bare);
    expect(single.id).toMatch(/^k[0-9a-f]{12}$/);
    expect(single.material).toHaveLength(32);
    // The same key gets the same id, so a bare key can later be listed beside a new one.
    expect(parseKeySpecs(`new:${b64()},${bare}`)[1].id).toBe(single.id);
    expect(parseKeySpecs(`a:${b64()}, b:${randomBytes(48).toString('base64url')}`).map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('refuses bad values at start with a message naming the variable, never echoing the key', () => {
    const short = b64(16);
    for (const value of [short, 'not base64!', `bad id:${b64()}`, `a:${b64()},a:${b64()}`]) {
      let message = '';
      try {
        loadConfig({ SPYGLASS_ENCRYPTION_KEY: value });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message, value).toContain('SPYGLASS_ENCRYPTION_KEY');
      expect(message).not.toContain(short);
    }
    const ok = `main:${b64()}`;
    expect(loadConfig({ SPYGLASS_ENCRYPTION_KEY: ok }).encryptionKey).toBe(ok);
    expect(loadConfig({}).encryptionKey).toBeNull();
  });

  it('without the variable, creates <data dir>/encryption.key (0600) once and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-crypto-'));
    try {
      const first = loadKeyring(null, dir);
      const file = path.join(dir, 'encryption.key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const sealed = first.seal('persisted', ['p', 'N']);
      const second = loadKeyring(null, dir);
      expect(second.currentKeyId).toBe(first.currentKeyId);
      expect(second.open(sealed, ['p', 'N'])).toBe('persisted');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
