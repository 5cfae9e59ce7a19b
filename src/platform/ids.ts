import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time (as crypto.randomUUID does): one
 * call to the system's generator per ~100 ids instead of one per id (a 100,000-row upload
 * names 100,000 records).
 */
let pool = Buffer.alloc(0);
let taken = 0;
function randomByte(): number {
  if (taken === pool.length) {
    pool = randomBytes(4096);
    taken = 0;
  }
  return pool[taken++];
}

/** Uniformly random alphanumeric string (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 4 * 62: bytes above it would favour the first characters.
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
  }
  return out;
}

/** Entity ids: a readable prefix and 20 random alphanumerics, e.g. `proj_3kd9...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomAlphanumeric(20)}`;
}
