import { createHash } from 'node:crypto';

/** Digits of a string, ignoring everything else. */
export function digitsOf(value: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i) - 48;
    if (c >= 0 && c <= 9) out.push(c);
  }
  return out;
}

/** Presidio's `EntityRecognizer.sanitize_value`: drop separators before checking. */
export function stripChars(value: string, chars: string): string {
  let out = '';
  for (const ch of value) if (!chars.includes(ch)) out += ch;
  return out;
}

export function isAllDigits(value: string): boolean {
  return value.length > 0 && /^[0-9]+$/.test(value);
}

/**
 * Luhn (mod 10) over the ASCII digits of a value, check digit last, everything else ignored
 * (a card's spaces, an id's dashes). Read from the string itself: card candidates are many and
 * most fail, so no array of digits is made per candidate.
 */
export function luhnValid(value: string): boolean {
  let sum = 0;
  let k = 0;
  for (let i = value.length - 1; i >= 0; i--) {
    let d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) continue;
    if (k++ % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return k > 0 && sum % 10 === 0;
}

const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** Verhoeff check (Aadhaar, Nigerian NIN). */
export function verhoeffValid(digits: readonly number[]): boolean {
  let c = 0;
  for (let i = 0; i < digits.length; i++) {
    c = VERHOEFF_D[c][VERHOEFF_P[i % 8][digits[digits.length - 1 - i]]];
  }
  return c === 0;
}

/** ISO 7064 MOD 11,10 over `body`; returns the expected check digit. */
export function iso7064Mod11_10(body: readonly number[]): number {
  let product = 10;
  for (const d of body) {
    let total = (d + product) % 10;
    if (total === 0) total = 10;
    product = (total * 2) % 11;
  }
  const check = 11 - product;
  return check === 10 ? 0 : check;
}

/** ICAO Doc 9303 check digit (weights 7, 3, 1; A=10 ... Z=35). Null when a char is not [0-9A-Z]. */
export function icaoCheckDigit(chars: string): number | null {
  const weights = [7, 3, 1];
  let total = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    let value: number;
    if (c >= 48 && c <= 57) value = c - 48;
    else if (c >= 65 && c <= 90) value = c - 55;
    else return null;
    total += value * weights[i % 3];
  }
  return total % 10;
}

/** IBAN mod-97 on the compact upper-case form. */
export function ibanChecksumValid(compact: string): boolean {
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const c = rearranged.charCodeAt(i);
    let chunk: number;
    if (c >= 48 && c <= 57) chunk = c - 48;
    else if (c >= 65 && c <= 90) chunk = c - 55;
    else return false;
    remainder = chunk >= 10 ? (remainder * 100 + chunk) % 97 : (remainder * 10 + chunk) % 97;
  }
  return remainder === 1;
}

/** True when the date exists (month 1-12, day valid for the month and year). */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= days[month - 1];
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

// --- Bitcoin ---------------------------------------------------------------

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** P2PKH / P2SH: base58 decode, last 4 bytes = first 4 bytes of double SHA-256. */
export function base58CheckValid(address: string): boolean {
  // Big-endian base-256 digits, least significant first while decoding.
  const digits: number[] = [];
  for (const ch of address) {
    let carry = BASE58.indexOf(ch);
    if (carry < 0) return false;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i] * 58;
      digits[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      digits.push(carry & 0xff);
      carry >>= 8;
    }
  }
  let leadingZeros = 0;
  while (leadingZeros < address.length && address[leadingZeros] === '1') leadingZeros++;
  const bytes = [...new Array<number>(leadingZeros).fill(0), ...digits.reverse()];
  if (bytes.length < 5) return false;
  const payload = Buffer.from(bytes.slice(0, -4));
  const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  for (let i = 0; i < 4; i++) if (check[i] !== bytes[bytes.length - 4 + i]) return false;
  return true;
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32M_CONST = 0x2bc830a3;

function bech32Polymod(values: readonly number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ gen[i]) >>> 0;
  }
  return chk;
}

/** Bech32 (BIP-173) or Bech32m (BIP-350) checksum, as Presidio's `bech32_decode`. */
export function bech32Valid(address: string): boolean {
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c < 33 || c > 126) return false;
  }
  if (address.toLowerCase() !== address && address.toUpperCase() !== address) return false;
  const bech = address.toLowerCase();
  const pos = bech.lastIndexOf('1');
  if (pos < 1 || pos + 7 > bech.length || bech.length > 90) return false;
  const data: number[] = [];
  for (const ch of bech.slice(pos + 1)) {
    const v = BECH32_CHARSET.indexOf(ch);
    if (v < 0) return false;
    data.push(v);
  }
  const hrp = bech.slice(0, pos);
  const expanded: number[] = [];
  for (const ch of hrp) expanded.push(ch.charCodeAt(0) >> 5);
  expanded.push(0);
  for (const ch of hrp) expanded.push(ch.charCodeAt(0) & 31);
  const constant = bech32Polymod([...expanded, ...data]);
  return constant === 1 || constant === BECH32M_CONST;
}

// --- Ethereum (EIP-55 mixed-case checksum needs Keccak-256) ------------------

const KECCAK_RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
const KECCAK_ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const MASK64 = (1n << 64n) - 1n;

function rotl64(x: bigint, n: number): bigint {
  if (n === 0) return x;
  const s = BigInt(n);
  return ((x << s) | (x >> (64n - s))) & MASK64;
}

function keccakF(state: bigint[]): void {
  for (let round = 0; round < 24; round++) {
    const c: bigint[] = [];
    for (let x = 0; x < 5; x++) c[x] = state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20];
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
      for (let y = 0; y < 25; y += 5) state[y + x] ^= d;
    }
    const b = new Array<bigint>(25);
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(state[x + 5 * y], KECCAK_ROT[x + 5 * y]);
      }
    }
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        state[x + 5 * y] = b[x + 5 * y] ^ (~b[((x + 1) % 5) + 5 * y] & MASK64 & b[((x + 2) % 5) + 5 * y]);
      }
    }
    state[0] ^= KECCAK_RC[round];
  }
}

/** Keccak-256 (the pre-standard padding Ethereum uses, not SHA3-256) as lowercase hex. */
export function keccak256Hex(input: Uint8Array): string {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((input.length + 1) / rate) * rate);
  padded.set(input);
  padded[input.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let b = 7; b >= 0; b--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + b]);
      state[i] ^= lane;
    }
    keccakF(state);
  }
  let hex = '';
  for (let i = 0; i < 4; i++) {
    let lane = state[i];
    for (let b = 0; b < 8; b++) {
      hex += Number(lane & 0xffn).toString(16).padStart(2, '0');
      lane >>= 8n;
    }
  }
  return hex;
}

/**
 * EIP-55: a mixed-case address must carry the checksum (Presidio's rule). An all-lower or
 * all-upper address carries none, so it can be neither confirmed nor refuted: null.
 */
export function ethereumChecksum(address: string): boolean | null {
  const hex = address.slice(2);
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) return false;
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return null;
  const hash = keccak256Hex(Buffer.from(hex.toLowerCase(), 'utf8'));
  for (let i = 0; i < 40; i++) {
    const ch = hex[i];
    if (ch >= '0' && ch <= '9') continue;
    const upper = parseInt(hash[i], 16) > 7;
    if (upper !== (ch === ch.toUpperCase())) return false;
  }
  return true;
}
