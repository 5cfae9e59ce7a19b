/**
 * Python's `random.Random(seed).shuffle(items)`, reproduced: LangWatch's Comparison judge
 * orders its candidates this way (seeded by the row index), and the same row must show the
 * judge the same order here as there. CPython seeds its Mersenne Twister (MT19937) from an
 * int with `init_by_array` over the int's 32-bit words, and shuffles with Fisher-Yates,
 * drawing each index by rejection sampling on `getrandbits(bit_length(n))`.
 */

const N = 624;
const M = 397;

class PythonMersenneTwister {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** `random.Random(seed)` for an int seed: CPython uses its absolute value's 32-bit words, least significant first. */
  constructor(seed: number) {
    let n = BigInt(Math.abs(Math.trunc(seed)));
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private genrandUint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % N] & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 1 <= k <= 32 (a shuffle never needs more: fewer than 2^32 items). */
  private getrandbits(k: number): number {
    return this.genrandUint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: rejection sampling on the bits of n. */
  randbelow(n: number): number {
    const k = Math.floor(Math.log2(n)) + 1;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }
}

/** A copy of `items` in the order `random.Random(seed).shuffle` leaves them in Python. */
export function pythonShuffle<T>(items: readonly T[], seed: number): T[] {
  const rng = new PythonMersenneTwister(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.randbelow(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
