/**
 * String distances with rapidfuzz's definitions (the library Ragas' non-LLM metrics call):
 * sequences of Unicode code points (not UTF-16 units, not graphemes, no normalization),
 * case-sensitive, no preprocessing.
 *
 * normalized distance, in [0, 1]:
 * - levenshtein: edit distance (unit costs) / max(len1, len2)
 * - hamming: rapidfuzz's default `pad=True`, so the length difference counts as mismatches;
 *   / max(len1, len2)
 * - jaro: 1 - Jaro similarity
 * - jaro_winkler: 1 - Jaro-Winkler similarity (prefix weight 0.1, common prefix up to 4,
 *   boost applied only when the Jaro similarity is > 0.7)
 * Two empty strings are identical (distance 0); one empty string against a non-empty one
 * is as far as it gets (distance 1).
 */

export const DISTANCE_MEASURES = ['levenshtein', 'hamming', 'jaro', 'jaro_winkler'] as const;
export type DistanceMeasure = (typeof DISTANCE_MEASURES)[number];

/** A string as its code points; convert once, compare many times. */
export type CodePoints = readonly number[];

export function toCodePoints(text: string): number[] {
  const out: number[] = [];
  // for-of walks code points, so a surrogate pair is one element.
  for (const ch of text) out.push(ch.codePointAt(0) as number);
  return out;
}

// ---------------------------------------------------------------------------------------
// Levenshtein

/** Unit-cost edit distance. */
export function levenshteinDistance(a: CodePoints, b: CodePoints): number {
  // A common prefix and suffix never change the distance; dropping them shrinks the work.
  const minLen = Math.min(a.length, b.length);
  let start = 0;
  while (start < minLen && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const lenA = endA - start;
  const lenB = endB - start;
  if (lenA === 0) return lenB;
  if (lenB === 0) return lenA;
  // The shorter string is the bit-vector pattern: fewer 32-bit words per step.
  return lenA <= lenB
    ? myersDistance(a, start, lenA, b, start, lenB)
    : myersDistance(b, start, lenB, a, start, lenA);
}

/**
 * Bit-parallel Levenshtein (Myers 1999 / Hyyrö 2003, blocked in 32-bit words, as rapidfuzz
 * does in 64-bit ones): O(ceil(m/32) * n) instead of O(m * n), so long retrieved contexts
 * do not stall the event loop.
 */
function myersDistance(
  p: CodePoints,
  pStart: number,
  m: number,
  t: CodePoints,
  tStart: number,
  n: number,
): number {
  const words = (m + 31) >>> 5;
  const peq = new Map<number, Int32Array>();
  for (let i = 0; i < m; i++) {
    const c = p[pStart + i];
    let vec = peq.get(c);
    if (vec === undefined) {
      vec = new Int32Array(words);
      peq.set(c, vec);
    }
    vec[i >>> 5] |= 1 << (i & 31);
  }
  const noMatch = new Int32Array(words);
  const vp = new Int32Array(words).fill(-1);
  const vn = new Int32Array(words);
  const lastBit = 1 << ((m - 1) & 31);
  const lastWord = words - 1;
  let dist = m;

  for (let j = 0; j < n; j++) {
    const pm = peq.get(t[tStart + j]) ?? noMatch;
    let hpCarry = 1;
    let hnCarry = 0;
    for (let w = 0; w < words; w++) {
      const VP = vp[w];
      const VN = vn[w];
      const X = pm[w] | hnCarry;
      const D0 = ((((X & VP) + VP) | 0) ^ VP) | X | VN;
      let HP = VN | ~(D0 | VP);
      let HN = D0 & VP;
      const hpIn = hpCarry;
      const hnIn = hnCarry;
      if (w < lastWord) {
        hpCarry = HP >>> 31;
        hnCarry = HN >>> 31;
      } else {
        hpCarry = (HP & lastBit) !== 0 ? 1 : 0;
        hnCarry = (HN & lastBit) !== 0 ? 1 : 0;
      }
      HP = (HP << 1) | hpIn;
      HN = (HN << 1) | hnIn;
      vp[w] = HN | ~(D0 | HP);
      vn[w] = HP & D0;
    }
    dist += hpCarry - hnCarry;
  }
  return dist;
}

// ---------------------------------------------------------------------------------------
// Hamming

/** Mismatches over the common length, plus the length difference (rapidfuzz `pad=True`). */
export function hammingDistance(a: CodePoints, b: CodePoints): number {
  const minLen = Math.min(a.length, b.length);
  let dist = Math.max(a.length, b.length);
  for (let i = 0; i < minLen; i++) if (a[i] === b[i]) dist--;
  return dist;
}

// ---------------------------------------------------------------------------------------
// Jaro, Jaro-Winkler

/**
 * Jaro similarity. Characters match when equal and at most floor(max(len)/2) - 1 apart;
 * each character of `a` takes the first unmatched equal character of `b` in its window
 * (rapidfuzz's greedy rule). Per character a cursor over its sorted positions in `b` finds
 * that one in amortised O(1): window starts only move right, so a position left behind is
 * never usable again.
 */
export function jaroSimilarity(a: CodePoints, b: CodePoints): number {
  const lenA = a.length;
  const lenB = b.length;
  if (lenA === 0 && lenB === 0) return 1;
  if (lenA === 0 || lenB === 0) return 0;
  if (lenA === 1 && lenB === 1) return a[0] === b[0] ? 1 : 0;

  const bound = Math.max(0, (Math.max(lenA, lenB) >>> 1) - 1);
  const positions = new Map<number, { at: number[]; next: number }>();
  for (let j = 0; j < lenB; j++) {
    const entry = positions.get(b[j]);
    if (entry === undefined) positions.set(b[j], { at: [j], next: 0 });
    else entry.at.push(j);
  }

  const matchedA = new Uint8Array(lenA);
  const matchedB = new Uint8Array(lenB);
  let common = 0;
  for (let i = 0; i < lenA; i++) {
    const entry = positions.get(a[i]);
    if (entry === undefined) continue;
    const low = i - bound;
    const high = i + bound;
    const at = entry.at;
    let k = entry.next;
    while (k < at.length && at[k] < low) k++;
    if (k < at.length && at[k] <= high) {
      matchedA[i] = 1;
      matchedB[at[k]] = 1;
      common++;
      k++;
    }
    entry.next = k;
  }
  if (common === 0) return 0;

  // Half-transpositions: matched characters of a and b, read in order, that differ.
  let halfTranspositions = 0;
  let j = 0;
  for (let i = 0; i < lenA; i++) {
    if (matchedA[i] === 0) continue;
    while (matchedB[j] === 0) j++;
    if (a[i] !== b[j]) halfTranspositions++;
    j++;
  }
  const transpositions = Math.floor(halfTranspositions / 2);
  return (common / lenA + common / lenB + (common - transpositions) / common) / 3;
}

export const JARO_WINKLER_PREFIX_WEIGHT = 0.1;
const JARO_WINKLER_MAX_PREFIX = 4;
const JARO_WINKLER_BOOST_THRESHOLD = 0.7;

export function jaroWinklerSimilarity(a: CodePoints, b: CodePoints): number {
  const maxPrefix = Math.min(a.length, b.length, JARO_WINKLER_MAX_PREFIX);
  let prefix = 0;
  while (prefix < maxPrefix && a[prefix] === b[prefix]) prefix++;
  let sim = jaroSimilarity(a, b);
  if (sim > JARO_WINKLER_BOOST_THRESHOLD) {
    sim += prefix * JARO_WINKLER_PREFIX_WEIGHT * (1 - sim);
  }
  return sim;
}

// ---------------------------------------------------------------------------------------
// Normalized distance and similarity, by measure

export function normalizedDistanceOfCodePoints(
  a: CodePoints,
  b: CodePoints,
  measure: DistanceMeasure,
): number {
  switch (measure) {
    case 'levenshtein': {
      const max = Math.max(a.length, b.length);
      return max === 0 ? 0 : levenshteinDistance(a, b) / max;
    }
    case 'hamming': {
      const max = Math.max(a.length, b.length);
      return max === 0 ? 0 : hammingDistance(a, b) / max;
    }
    case 'jaro':
      return 1 - jaroSimilarity(a, b);
    case 'jaro_winkler':
      return 1 - jaroWinklerSimilarity(a, b);
  }
}

/**
 * 1 - normalized distance, computed exactly that way (as Ragas does on rapidfuzz's
 * normalized_distance) so threshold comparisons see the same floating-point value.
 */
export function similarityOfCodePoints(a: CodePoints, b: CodePoints, measure: DistanceMeasure): number {
  return 1 - normalizedDistanceOfCodePoints(a, b, measure);
}

export function normalizedDistance(a: string, b: string, measure: DistanceMeasure): number {
  return normalizedDistanceOfCodePoints(toCodePoints(a), toCodePoints(b), measure);
}

export function stringSimilarity(a: string, b: string, measure: DistanceMeasure): number {
  return similarityOfCodePoints(toCodePoints(a), toCodePoints(b), measure);
}
