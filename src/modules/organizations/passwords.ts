import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

/**
 * scrypt with OWASP's first recommendation by default: N=2^17, r=8, p=1 (128 MiB per hash).
 * Measured here (node:crypto, 2 cores): 2^14 60 ms / 16 MiB, 2^15 120 ms, 2^16 370 ms, 2^17
 * 510-550 ms. Hashes carry their parameters, so older ones keep verifying and are rehashed with
 * the configured ones at the next sign-in. The cost is configurable (SPYGLASS_PASSWORD_HASH_COST)
 * only so that a test suite which starts a hundred servers does not spend minutes hashing.
 */
export const DEFAULT_PASSWORD_HASH_COST = 17;

interface Params {
  N: number;
  r: number;
  p: number;
}

function scryptOptions(params: Params) {
  // Node refuses scrypt above 32 MiB unless maxmem says otherwise.
  return { ...params, maxmem: 2 * 128 * params.N * params.r + 1024 * 1024 };
}

function format(params: Params, salt: Buffer, hash: Buffer): string {
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

function parse(stored: string): { params: Params; salt: Buffer; hash: Buffer } | null {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return null;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return null;
  return { params, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/** Password hashes (`scrypt$N$r$p$salt$hash`, base64url parts) at one cost: 2^cost for N. */
export class PasswordHasher {
  private readonly params: Params;
  /**
   * A hash no password matches, at this cost: verifying against it costs what a real
   * verification costs, so an unknown e-mail (or a user without a password) takes as long to
   * refuse as a wrong password.
   */
  readonly unmatchable: string;

  constructor(cost: number = DEFAULT_PASSWORD_HASH_COST) {
    this.params = { N: 2 ** cost, r: 8, p: 1 };
    this.unmatchable = format(this.params, randomBytes(16), randomBytes(32));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    return format(this.params, salt, await scrypt(password, salt, 32, scryptOptions(this.params)));
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (!parsed) return false;
    const actual = await scrypt(password, parsed.salt, parsed.hash.length, scryptOptions(parsed.params));
    return timingSafeEqual(actual, parsed.hash);
  }

  /** True when the hash was made with weaker parameters than this hasher's (rehash after a good sign-in). */
  needsRehash(stored: string): boolean {
    const parsed = parse(stored);
    return !parsed || parsed.params.N < this.params.N || parsed.params.r < this.params.r || parsed.params.p < this.params.p;
  }
}
