import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../../src/modules/evaluators/types.ts';
import {
  contextPrecision,
  contextPrecisionEvaluator,
  contextRecall,
  contextRecallEvaluator,
  hammingDistance,
  jaroSimilarity,
  levenshteinDistance,
  normalizedDistance,
  stringSimilarity,
  toCodePoints,
  type DistanceMeasure,
} from '../../src/modules/evaluators/rag/index.ts';

// ---------------------------------------------------------------------------------------
// String distances. Worked by hand with rapidfuzz's definitions; lengths in code points.

interface DistanceCase {
  name: string;
  a: string;
  b: string;
  /** Raw edit / mismatch counts, for the two integer measures. */
  levenshtein?: number;
  hamming?: number;
  /** Expected similarity (= 1 - normalized distance) per measure. */
  similarity: Record<DistanceMeasure, number>;
}

const distanceCases: DistanceCase[] = [
  {
    // Levenshtein: k->s, e->i, +g = 3 edits; 3/7 -> similarity 4/7.
    // Hamming (pad): k/s and e/i differ in the first 6, +1 for the extra "g" = 3; 3/7.
    // Jaro: bound = floor(7/2)-1 = 2; matches i,t,t,n (k and e have none in reach), in the same
    //   order in both -> 0 transpositions; (4/6 + 4/7 + 4/4)/3 = 47/63.
    // Jaro-Winkler: k != s, common prefix 0 -> no boost: 47/63.
    name: 'kitten / sitting',
    a: 'kitten',
    b: 'sitting',
    levenshtein: 3,
    hamming: 3,
    similarity: { levenshtein: 4 / 7, hamming: 4 / 7, jaro: 47 / 63, jaro_winkler: 47 / 63 },
  },
  {
    // Levenshtein: "th" vs "ht" is two substitutions; 2/6 -> 2/3. Hamming: same 2 positions.
    // Jaro: all 6 match, t/h and h/t out of order = 2 half-transpositions = 1;
    //   (6/6 + 6/6 + 5/6)/3 = 17/18. Jaro-Winkler: 17/18 > 0.7, prefix "mar" = 3:
    //   17/18 + 3 * 0.1 * (1/18) = 17.3/18.
    name: 'martha / marhta',
    a: 'martha',
    b: 'marhta',
    levenshtein: 2,
    hamming: 2,
    similarity: { levenshtein: 2 / 3, hamming: 2 / 3, jaro: 17 / 18, jaro_winkler: 17.3 / 18 },
  },
  {
    // Levenshtein: x->c, +k, +s, +x = 4 (3 insertions are the minimum and "dixon" is not a
    //   subsequence of "dicksonx"); 4/8 -> exactly 0.5.
    // Hamming (pad): d,i equal, x/c o/k n/s differ = 3, +3 for the longer tail = 6; 6/8 -> 0.25.
    // Jaro: bound = floor(8/2)-1 = 3; d,i,o,n match (x is 5 away); no transpositions;
    //   (4/5 + 4/8 + 4/4)/3 = 23/30. Jaro-Winkler: prefix "di" = 2: 23/30 + 0.2 * 7/30 = 24.4/30.
    name: 'dixon / dicksonx (unequal lengths)',
    a: 'dixon',
    b: 'dicksonx',
    levenshtein: 4,
    hamming: 6,
    similarity: { levenshtein: 0.5, hamming: 0.25, jaro: 23 / 30, jaro_winkler: 24.4 / 30 },
  },
  {
    // Jaro: bound = floor(6/2)-1 = 2; only "a" matches; (1/2 + 1/6 + 1)/3 = 5/9 ~ 0.556.
    // Jaro-Winkler: prefix "a" = 1 but 5/9 <= 0.7, so rapidfuzz adds no boost: 5/9.
    // Levenshtein: b->x + 4 insertions = 5; 1 - 5/6. Hamming: 1 (b/x) + 4 = 5; same.
    name: 'ab / axxxxx (no Winkler boost at or below 0.7)',
    a: 'ab',
    b: 'axxxxx',
    levenshtein: 5,
    hamming: 5,
    similarity: { levenshtein: 1 / 6, hamming: 1 / 6, jaro: 5 / 9, jaro_winkler: 5 / 9 },
  },
  {
    // 2 code points each (4 UTF-16 units for the emoji pairs). Levenshtein and Hamming: 1/2.
    // In UTF-16 units it would be 1/3 (the high surrogates are equal).
    // Jaro: bound = floor(2/2)-1 = 0; only "x" matches; (1/2 + 1/2 + 1)/3 = 2/3 (UTF-16: 7/9).
    // Jaro-Winkler: 2/3 <= 0.7, no boost.
    name: 'emoji: 😀x / 😃x',
    a: '😀x',
    b: '😃x',
    levenshtein: 1,
    hamming: 1,
    similarity: { levenshtein: 0.5, hamming: 0.5, jaro: 2 / 3, jaro_winkler: 2 / 3 },
  },
  {
    // 3 code points each. Levenshtein/Hamming: 1 substitution; 1/3 -> 2/3 (UTF-16: 1/4).
    // Jaro: bound 0; a and b match; (2/3 + 2/3 + 1)/3 = 7/9. Jaro-Winkler: prefix "a":
    //   7/9 + 0.1 * 2/9 = 7.2/9 = 0.8.
    name: 'emoji inside: a😀b / a😃b',
    a: 'a😀b',
    b: 'a😃b',
    levenshtein: 1,
    hamming: 1,
    similarity: { levenshtein: 2 / 3, hamming: 2 / 3, jaro: 7 / 9, jaro_winkler: 0.8 },
  },
  {
    // Precomposed é (U+00E9): 4 code points each; 1 substitution; 1/4 -> 0.75.
    // Jaro: bound = 1; c,a,f match; (3/4 + 3/4 + 1)/3 = 5/6. Jaro-Winkler: prefix "caf" = 3:
    //   5/6 + 0.3 * 1/6 = 5.3/6.
    name: 'accent: café / cafe',
    a: 'caf\u00e9',
    b: 'cafe',
    levenshtein: 1,
    hamming: 1,
    similarity: { levenshtein: 0.75, hamming: 0.75, jaro: 5 / 6, jaro_winkler: 5.3 / 6 },
  },
  {
    // No Unicode normalization (rapidfuzz has none): é (1 code point) vs e + U+0301 (2):
    // Levenshtein é->e, +U+0301 = 2; 2/2 -> 0. Hamming: é/e + 1 = 2 -> 0.
    // Jaro: bound = 0; é vs e no match -> 0.
    name: 'precomposed vs decomposed é are different code points',
    a: '\u00e9',
    b: 'e\u0301',
    levenshtein: 2,
    hamming: 2,
    similarity: { levenshtein: 0, hamming: 0, jaro: 0, jaro_winkler: 0 },
  },
  {
    // Case-sensitive: K != k. Levenshtein/Hamming 1/6 -> 5/6.
    // Jaro: bound 2; 5 match in order; (5/6 + 5/6 + 1)/3 = 8/9. Jaro-Winkler: prefix 0 -> 8/9.
    name: 'case-sensitive: Kitten / kitten',
    a: 'Kitten',
    b: 'kitten',
    levenshtein: 1,
    hamming: 1,
    similarity: { levenshtein: 5 / 6, hamming: 5 / 6, jaro: 8 / 9, jaro_winkler: 8 / 9 },
  },
  {
    // Nothing in common once case counts: 3 substitutions -> 0; Jaro has no match -> 0.
    name: 'case-sensitive: ABC / abc',
    a: 'ABC',
    b: 'abc',
    levenshtein: 3,
    hamming: 3,
    similarity: { levenshtein: 0, hamming: 0, jaro: 0, jaro_winkler: 0 },
  },
  {
    // Two empty strings are identical: distance 0, similarity 1 for every measure.
    name: 'both empty',
    a: '',
    b: '',
    levenshtein: 0,
    hamming: 0,
    similarity: { levenshtein: 1, hamming: 1, jaro: 1, jaro_winkler: 1 },
  },
  {
    // One empty: 3 insertions / 3 -> 0; Jaro of an empty string is 0.
    name: 'one empty',
    a: '',
    b: 'abc',
    levenshtein: 3,
    hamming: 3,
    similarity: { levenshtein: 0, hamming: 0, jaro: 0, jaro_winkler: 0 },
  },
  {
    // Single characters: Jaro's special case, equal -> 1, different -> 0.
    name: 'single different characters',
    a: 'a',
    b: 'b',
    levenshtein: 1,
    hamming: 1,
    similarity: { levenshtein: 0, hamming: 0, jaro: 0, jaro_winkler: 0 },
  },
];

const MEASURES: DistanceMeasure[] = ['levenshtein', 'hamming', 'jaro', 'jaro_winkler'];

describe('string distances (rapidfuzz definitions)', () => {
  for (const c of distanceCases) {
    it(c.name, () => {
      const a = toCodePoints(c.a);
      const b = toCodePoints(c.b);
      if (c.levenshtein !== undefined) {
        expect(levenshteinDistance(a, b)).toBe(c.levenshtein);
        expect(levenshteinDistance(b, a)).toBe(c.levenshtein);
      }
      if (c.hamming !== undefined) expect(hammingDistance(a, b)).toBe(c.hamming);
      for (const measure of MEASURES) {
        expect(stringSimilarity(c.a, c.b, measure), measure).toBeCloseTo(c.similarity[measure], 12);
        expect(normalizedDistance(c.a, c.b, measure), measure).toBeCloseTo(1 - c.similarity[measure], 12);
      }
    });
  }

  it('counts code points, not UTF-16 units', () => {
    expect(toCodePoints('a😀b')).toEqual([0x61, 0x1f600, 0x62]);
    expect('a😀b'.length).toBe(4);
  });
});

// Straightforward references, to check the fast implementations on many random strings:
// the textbook DP for Levenshtein, and rapidfuzz's Jaro_py loop for Jaro.
function referenceLevenshtein(a: number[], b: number[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = cur;
  }
  return prev[b.length];
}

function referenceJaro(s1: number[], s2: number[]): number {
  const P = s1.length;
  const T = s2.length;
  if (!P && !T) return 1;
  if (!P || !T) return 0;
  if (P === 1 && T === 1) return s1[0] === s2[0] ? 1 : 0;
  const bound = Math.max(0, Math.floor(Math.max(P, T) / 2) - 1);
  const f1 = new Array<boolean>(P).fill(false);
  const f2 = new Array<boolean>(T).fill(false);
  let common = 0;
  for (let i = 0; i < P; i++) {
    for (let j = Math.max(0, i - bound); j <= Math.min(i + bound, T - 1); j++) {
      if (!f2[j] && s2[j] === s1[i]) {
        f1[i] = f2[j] = true;
        common++;
        break;
      }
    }
  }
  if (!common) return 0;
  let k = 0;
  let trans = 0;
  for (let i = 0; i < P; i++) {
    if (!f1[i]) continue;
    let j = k;
    while (!f2[j]) j++;
    k = j + 1;
    if (s1[i] !== s2[j]) trans++;
  }
  const t = Math.floor(trans / 2);
  return (common / P + common / T + (common - t) / common) / 3;
}

function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fast implementations agree with the references', () => {
  const random = seededRandom(20240611);
  const alphabets = [['a', 'b'], ['a', 'b', 'c', 'd'], ['x', 'y', '😀', 'é', 'Z', ' ']];
  function randomString(maxLen: number): number[] {
    const alphabet = alphabets[Math.floor(random() * alphabets.length)];
    const len = Math.floor(random() * (maxLen + 1));
    return toCodePoints(Array.from({ length: len }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
  }

  it('Levenshtein (bit-parallel, 1 to 5 words) matches the DP on 600 random pairs', () => {
    for (let n = 0; n < 600; n++) {
      const a = randomString(n < 300 ? 40 : 150);
      const b = randomString(n < 300 ? 40 : 150);
      expect(levenshteinDistance(a, b), `${String.fromCodePoint(...a)} | ${String.fromCodePoint(...b)}`).toBe(
        referenceLevenshtein(a, b),
      );
    }
  });

  it('Jaro matches rapidfuzz Jaro_py and is symmetric on 600 random pairs', () => {
    for (let n = 0; n < 600; n++) {
      const a = randomString(n < 300 ? 12 : 80);
      const b = randomString(n < 300 ? 12 : 80);
      const label = `${String.fromCodePoint(...a)} | ${String.fromCodePoint(...b)}`;
      expect(jaroSimilarity(a, b), label).toBe(referenceJaro(a, b));
      expect(jaroSimilarity(b, a), label).toBeCloseTo(jaroSimilarity(a, b), 12);
    }
  });

  it('Levenshtein of two 5,000-code-point strings takes milliseconds, not seconds', () => {
    const a = Array.from({ length: 5000 }, (_, i) => 97 + ((i * 7) % 26));
    const b = Array.from({ length: 5000 }, (_, i) => 97 + ((i * 11) % 26));
    const started = performance.now();
    levenshteinDistance(a, b);
    jaroSimilarity(a, b);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

// ---------------------------------------------------------------------------------------
// The evaluators, as data tables run through the definition's own schemas.

interface EvaluatorCase {
  name: string;
  data: unknown;
  settings?: unknown;
  expected: {
    status: EvaluationResult['status'];
    score?: number;
    details?: string | RegExp;
    raw?: Record<string, unknown>;
  };
}

async function run(definition: EvaluatorDefinition, c: EvaluatorCase): Promise<EvaluationResult> {
  return definition.evaluate({
    data: definition.data.parse(c.data),
    settings: definition.settings.parse(c.settings ?? {}),
    ctx: { env: {}, fetch, now: () => new Date() },
  });
}

/** Raw values are floats: compare to 12 decimals. */
const close = (x: number): number => expect.closeTo(x, 12);

function check(result: EvaluationResult, expected: EvaluatorCase['expected']): void {
  expect(result.status).toBe(expected.status);
  // Scores, not verdicts: these metrics never set passed.
  expect(result.passed).toBeUndefined();
  if (expected.score === undefined) expect(result.score).toBeUndefined();
  else expect(result.score).toBeCloseTo(expected.score, 9);
  if (typeof expected.details === 'string') expect(result.details).toBe(expected.details);
  else if (expected.details) expect(result.details).toMatch(expected.details);
  if (expected.raw) expect(result.raw_response).toMatchObject(expected.raw);
}

// Ranked retrieval shared by several cases. Pairwise similarities (retrieved vs expected):
//                 levenshtein          hamming               jaro
//                 sitting  dicksonx    sitting  dicksonx     sitting  dicksonx
//   "####"        0        0           0        0            0        0
//   "kitten"      4/7      0.25        4/7      1/8          47/63    0.5139
//   "dixon"       2/7      0.5         1/7      0.25         0.5619   23/30
//   "zzzz"        0        0           0        0            0        0
// (kitten/dicksonx Levenshtein 6/8; Jaro: k,i,n match, k/i crossed = 1 transposition,
//  (3/6 + 3/8 + 2/3)/3 = 0.5139. dixon/sitting Levenshtein 5/7; Jaro: i,n match,
//  (2/5 + 2/7 + 1)/3 = 0.5619.)
const RANKED = ['####', 'kitten', 'dixon', 'zzzz'];
const REFERENCE = ['sitting', 'dicksonx'];

const recallCases: EvaluatorCase[] = [
  {
    // sitting: best 4/7 > 0.5, found. dicksonx: best 0.5 (dixon), NOT > 0.5. -> 1/2.
    name: 'levenshtein: a tie at exactly 0.5 does not count',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    expected: {
      status: 'processed',
      score: 0.5,
      details: '1 of 2 expected contexts found among 4 retrieved (best levenshtein similarity > 0.5).',
      raw: {
        distance_measure: 'levenshtein',
        threshold: 0.5,
        expected_contexts: [
          { index: 0, best_similarity: close(4 / 7), best_match_index: 1, recalled: true },
          { index: 1, best_similarity: 0.5, best_match_index: 2, recalled: false },
        ],
      },
    },
  },
  {
    // sitting: best 4/7 (kitten) found; dicksonx: best max(1/8, 1/4) = 0.25 not found -> 1/2.
    name: 'hamming pads unequal lengths',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    settings: { distance_measure: 'hamming' },
    expected: { status: 'processed', score: 0.5 },
  },
  {
    // sitting: best 47/63 = 0.746 found; dicksonx: best 23/30 = 0.767 (dixon) found -> 1.
    name: 'jaro',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    settings: { distance_measure: 'jaro' },
    expected: {
      status: 'processed',
      score: 1,
      raw: { expected_contexts: [{ best_similarity: close(47 / 63) }, { best_similarity: close(23 / 30) }] },
    },
  },
  {
    // As jaro, dicksonx best is now 24.4/30 = 0.813 -> 1.
    name: 'jaro_winkler',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    settings: { distance_measure: 'jaro_winkler' },
    expected: { status: 'processed', score: 1, raw: { expected_contexts: [{}, { best_similarity: close(24.4 / 30) }] } },
  },
  {
    // sitting 4/7 (kitten) yes; dicksonx 0.5 (dixon) no; martha 2/3 (marhta) yes -> 2/3.
    name: 'several expected contexts, order of retrieved irrelevant',
    data: { contexts: ['marhta', 'kitten', 'dixon'], expected_contexts: ['sitting', 'dicksonx', 'martha'] },
    expected: { status: 'processed', score: 2 / 3, details: /^2 of 3 expected contexts found among 3 retrieved/ },
  },
  {
    // 2 code points each, 1 substitution: 1 - 1/2 = 0.5, not > 0.5 -> 0.
    // Counting UTF-16 units would give 1 - 1/3 = 0.667 and a recall of 1.
    name: 'unicode: lengths in code points decide the tie',
    data: { contexts: ['😀x'], expected_contexts: ['😃x'] },
    expected: { status: 'processed', score: 0 },
  },
  {
    // "naïve café" vs "naive cafe": 10 code points each, 2 substitutions -> 0.8 > 0.5 -> 1.
    name: 'unicode: accented text',
    data: { contexts: ['na\u00efve caf\u00e9'], expected_contexts: ['naive cafe'] },
    expected: { status: 'processed', score: 1, raw: { expected_contexts: [{ best_similarity: 0.8 }] } },
  },
  {
    name: 'no expected contexts: skipped',
    data: { contexts: ['kitten'], expected_contexts: [] },
    expected: { status: 'skipped', details: 'No expected contexts were given, so there is nothing to recall.' },
  },
  {
    name: 'both lists empty: skipped',
    data: { contexts: [], expected_contexts: [] },
    expected: { status: 'skipped' },
  },
  {
    // Nothing retrieved: every expected context has best similarity 0 -> 0/2.
    name: 'no retrieved contexts: 0',
    data: { contexts: [], expected_contexts: ['sitting', 'martha'] },
    expected: {
      status: 'processed',
      score: 0,
      details: 'No contexts were retrieved: 0 of 2 expected contexts found.',
      raw: { expected_contexts: [{ best_similarity: 0, best_match_index: null, recalled: false }, {}] },
    },
  },
  {
    // Two empty strings are identical (similarity 1 > 0.5) -> 1.
    name: 'empty strings inside the lists compare as identical',
    data: { contexts: [''], expected_contexts: [''] },
    expected: { status: 'processed', score: 1 },
  },
];

const precisionCases: EvaluatorCase[] = [
  {
    // v = [0, 1 (4/7), 1 (0.5 >= 0.5), 0]; precision@2 = 1/2, precision@3 = 2/3;
    // (1/2 + 2/3) / (2 + 1e-10) = 7/12.
    name: 'levenshtein: a tie at exactly 0.5 is relevant',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    expected: {
      status: 'processed',
      score: 7 / 12,
      details: '2 of 4 retrieved contexts are relevant (best levenshtein similarity >= 0.5); average precision 0.5833.',
      raw: {
        distance_measure: 'levenshtein',
        threshold: 0.5,
        retrieved_contexts: [
          { rank: 1, best_similarity: 0, best_match_index: 0, relevant: false, precision_at_k: 0 },
          { rank: 2, best_similarity: close(4 / 7), best_match_index: 0, relevant: true, precision_at_k: close(1 / 2) },
          { rank: 3, best_similarity: 0.5, best_match_index: 1, relevant: true, precision_at_k: close(2 / 3) },
          { rank: 4, best_similarity: 0, relevant: false, precision_at_k: close(2 / 4) },
        ],
      },
    },
  },
  {
    // v = [0, 1 (4/7), 0 (best 0.25), 0]; (1/2) / (1 + 1e-10) = 0.5.
    name: 'hamming',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    settings: { distance_measure: 'hamming' },
    expected: { status: 'processed', score: 0.5 },
  },
  {
    // v = [0, 1 (0.746), 1 (0.767), 0] -> 7/12, as levenshtein.
    name: 'jaro',
    data: { contexts: RANKED, expected_contexts: REFERENCE },
    settings: { distance_measure: 'jaro' },
    expected: { status: 'processed', score: 7 / 12 },
  },
  {
    // Relevant first: v = [1, 1, 0, 0]; (1/1 + 2/2) / (2 + 1e-10) = 1 - 5e-11.
    name: 'the same contexts ranked well score higher',
    data: { contexts: ['kitten', 'dixon', '####', 'zzzz'], expected_contexts: REFERENCE },
    expected: { status: 'processed', score: 2 / (2 + 1e-10), details: /average precision 1\.$/ },
  },
  {
    // All three relevant (4/7, 0.5, 2/3): (1 + 1 + 1) / (3 + 1e-10).
    name: 'several contexts, all relevant',
    data: { contexts: ['kitten', 'dixon', 'marhta'], expected_contexts: ['sitting', 'dicksonx', 'martha'] },
    expected: { status: 'processed', score: 3 / (3 + 1e-10) },
  },
  {
    // 1 - 1/2 = 0.5 >= 0.5: relevant -> 1/(1 + 1e-10).
    name: 'unicode: lengths in code points decide the tie',
    data: { contexts: ['😀x'], expected_contexts: ['😃x'] },
    expected: { status: 'processed', score: 1 / (1 + 1e-10) },
  },
  {
    // "a😀" vs "a😃", jaro: 2 code points, bound 0, only "a" matches: (1/2 + 1/2 + 1)/3 = 2/3.
    name: 'unicode with jaro',
    data: { contexts: ['a😀'], expected_contexts: ['a😃'] },
    settings: { distance_measure: 'jaro' },
    expected: { status: 'processed', score: 1 / (1 + 1e-10), raw: { retrieved_contexts: [{ best_similarity: close(2 / 3) }] } },
  },
  {
    // v = [0 ("" vs "abc": 0), 1]; precision@2 = 1/2; (1/2) / (1 + 1e-10).
    name: 'an empty retrieved string is just irrelevant',
    data: { contexts: ['', 'abc'], expected_contexts: ['abc'] },
    expected: { status: 'processed', score: 0.5 / (1 + 1e-10) },
  },
  {
    name: 'no expected contexts: skipped',
    data: { contexts: ['kitten'], expected_contexts: [] },
    expected: {
      status: 'skipped',
      details: 'No expected contexts were given, so the relevance of the retrieved contexts cannot be judged.',
    },
  },
  {
    name: 'both lists empty: skipped',
    data: { contexts: [], expected_contexts: [] },
    expected: { status: 'skipped' },
  },
  {
    // Ragas' formula on an empty ranking: 0 / (0 + 1e-10) = 0.
    name: 'no retrieved contexts: 0',
    data: { contexts: [], expected_contexts: ['sitting'] },
    expected: { status: 'processed', score: 0, details: 'No contexts were retrieved: precision is 0.' },
  },
  {
    // Nothing relevant anywhere: 0 / (0 + 1e-10) = 0.
    name: 'nothing relevant: 0',
    data: { contexts: ['####', 'zzzz'], expected_contexts: REFERENCE },
    expected: { status: 'processed', score: 0 },
  },
];

describe('rag/context_recall', () => {
  it('is declared for the catalogue', () => {
    expect(contextRecallEvaluator.path).toBe('rag/context_recall');
    expect(contextRecallEvaluator.category).toBe('rag');
    expect(contextRecallEvaluator.isCostly).toBe(false);
    expect(contextRecallEvaluator.requiredEnv).toEqual([]);
  });
  for (const c of recallCases) {
    it(c.name, async () => check(await run(contextRecallEvaluator, c), c.expected));
  }
});

describe('rag/context_precision', () => {
  it('is declared for the catalogue', () => {
    expect(contextPrecisionEvaluator.path).toBe('rag/context_precision');
    expect(contextPrecisionEvaluator.category).toBe('rag');
  });
  for (const c of precisionCases) {
    it(c.name, async () => check(await run(contextPrecisionEvaluator, c), c.expected));
  }
});

describe('schemas', () => {
  for (const definition of [contextRecallEvaluator, contextPrecisionEvaluator]) {
    it(`${definition.path}: defaults, descriptions and field errors`, () => {
      expect(definition.settings.parse({})).toEqual({ distance_measure: 'levenshtein', threshold: 0.5 });

      const settingsSchema = z.toJSONSchema(definition.settings, { io: 'input' }) as {
        properties: Record<string, { default?: unknown; description?: string; enum?: string[] }>;
      };
      expect(settingsSchema.properties.distance_measure.default).toBe('levenshtein');
      expect(settingsSchema.properties.distance_measure.enum).toEqual(['levenshtein', 'hamming', 'jaro', 'jaro_winkler']);
      expect(settingsSchema.properties.distance_measure.description).toMatch(/similarity/);
      const dataSchema = z.toJSONSchema(definition.data) as {
        properties: Record<string, { description?: string }>;
        required: string[];
      };
      expect(dataSchema.required).toEqual(['contexts', 'expected_contexts']);
      expect(dataSchema.properties.contexts.description).toMatch(/rank/);

      const badSettings = definition.settings.safeParse({ distance_measure: 'cosine' });
      expect(badSettings.success).toBe(false);
      expect(badSettings.error?.issues[0].path).toEqual(['distance_measure']);
      const badData = definition.data.safeParse({ contexts: ['a'] });
      expect(badData.success).toBe(false);
      expect(badData.error?.issues[0].path).toEqual(['expected_contexts']);
    });
  }
});

describe('pure functions for benchmarks', () => {
  it('contextRecall / contextPrecision return the breakdown', () => {
    const recall = contextRecall(RANKED, REFERENCE, 'levenshtein');
    expect(recall.score).toBe(0.5);
    expect(recall.recalled).toBe(1);
    expect(recall.expected).toBe(2);
    const precision = contextPrecision(RANKED, REFERENCE);
    expect(precision.score).toBeCloseTo(7 / 12, 9);
    expect(precision.relevant).toBe(2);
    expect(contextRecall(['a'], []).score).toBeNull();
    expect(contextPrecision(['a'], []).score).toBeNull();
    expect(contextPrecision([], ['a']).score).toBe(0);
  });
});
