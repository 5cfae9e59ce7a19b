import { describe, expect, it } from 'vitest';
import { newTokenHashKeyText, parseTokenHashKeyFile } from '../../src/platform/key-files.ts';

/** The two forms of token-hash.key (platform/key-files.ts): the variable's text, or base64 of it as earlier versions wrote it. */
describe('token-hash.key forms', () => {
  it('reads the old form (base64 of the key) and the new form (the key itself), and never takes a made key for the old form', () => {
    const key = 'aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1aC3eG5iK7mO9qS1uW3y';
    expect(parseTokenHashKeyFile(Buffer.from(key).toString('base64') + '\n')).toEqual({ text: key, oldForm: true });
    expect(parseTokenHashKeyFile(key + '\n')).toEqual({ text: key, oldForm: false });
    // Valid base64 that decodes to bytes which are not printable text: the new form.
    expect(parseTokenHashKeyFile('A'.repeat(64))).toEqual({ text: 'A'.repeat(64), oldForm: false });
    // A key of other characters (what `openssl rand -base64 48` prints is base64 of random bytes: not text once decoded).
    const openssl = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 200) % 256)).toString('base64');
    expect(parseTokenHashKeyFile(openssl)).toEqual({ text: openssl, oldForm: false });
    for (let i = 0; i < 200; i++) {
      const made = newTokenHashKeyText();
      expect(parseTokenHashKeyFile(made)).toEqual({ text: made, oldForm: false });
    }
  });
});
