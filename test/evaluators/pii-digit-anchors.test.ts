import { prunedAgainstFull } from '../support/pruned-vs-full.ts';
import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, type DetectOptions, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
import { digitAnchor } from '../../src/modules/evaluators/pii/text-runs.ts';
import { loadVectors } from '../../bench/pii-vectors.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * A pattern whose every match holds a block of N digits beginning at most `within` units after
 * its start is tried only near the text's runs of at least N digits (digitAnchor, read from the
 * pattern's source). The reading must hold for every match, and detection with it (and with the
 * anchors of web, MAC and IP addresses) must find what searching every position finds
 * (`prune: false`).
 */

describe('digitAnchor: where every match holds its block of digits', () => {
  it.each([
    [String.raw`\b[A-Z]{2}\d{7}\b`, { digits: 7, within: 2 }],
    [String.raw`\b([0-9]{3})[- ]?([0-9]{3})[- ]?([0-9]{4})\b`, { digits: 4, within: 8 }],
    [String.raw`(\d{6,8})([-+]?)\d{4}`, { digits: 6, within: 0 }],
    [String.raw`(?:x\d|\d{2})\d{3}`, { digits: 4, within: 1 }],
    [String.raw`(?:ab|c\d{4})\d{3}`, { digits: 3, within: 5 }],
    [String.raw`a+\d{3}`, null],
    [String.raw`(a)\1\d{3}`, null],
    [String.raw`[a-z]*\d`, null],
    [String.raw`\bHR[AB]\s*\d{1,6}\b`, null],
    [String.raw`abc`, null],
  ])('%s', (source, expected) => {
    expect(digitAnchor(source)).toEqual(expected);
  });

  // Every match found at any position of seeded random texts holds the block where the reading says.
  const SOURCES = [
    String.raw`[A-Z]{2}\d{3}`,
    String.raw`(?:x\d|\d{2})\d{3}`,
    String.raw`(?:ab|c\d{4})\d{3}`,
    String.raw`\d(?:\d\d|\d)+`,
    String.raw`(?:\d{2}|a)?b?\d{3}`,
    String.raw`(?:(?:\d-)?\d{2}){2}`,
    String.raw`\b([0-9][ _]?){4}\b`,
    String.raw`(?<!\d)(\d{2})[- ]?(\d{2})[- ]?(\d{4})(?!\d)`,
    String.raw`[a-b]{1,3}(?:-|\d)\d{2,4}(?:x|\d\d)`,
    String.raw`(?=\d)(?:\d{2}|\d-\d)\d`,
    String.raw`(a|b\d)\d{2}|\d{3}`,
  ];
  it.each(SOURCES)('%s: every match holds it', (source) => {
    const anchor = digitAnchor(source);
    expect(anchor).not.toBeNull();
    const rng = new Rng(20261201);
    const sticky = new RegExp(source, 'iy');
    const block = new RegExp(`^[0-9]{${anchor!.digits}}`);
    let matches = 0;
    for (let n = 0; n < 3000; n++) {
      // Runs of digits (most characters), of letters and of separators, so that every source matches often.
      const text = Array.from({ length: rng.int(1, 12) }, () =>
        rng.chance(0.6)
          ? Array.from({ length: rng.int(1, 9) }, () => rng.pick(['0', '1', '7', '9'])).join('')
          : rng.chance(0.6)
            ? Array.from({ length: rng.int(1, 3) }, () => rng.pick(['a', 'b', 'c', 'x', 'Z', 'A'])).join('')
            : rng.pick(['-', ' ', '_', '-', ' ']),
      ).join('');
      for (let at = 0; at < text.length; at++) {
        sticky.lastIndex = at;
        const m = sticky.exec(text);
        if (!m) continue;
        matches++;
        const holds = Array.from({ length: anchor!.within + 1 }, (_, k) => k).some((k) => k + anchor!.digits <= m[0].length && block.test(m[0].slice(k)));
        expect(holds, `${JSON.stringify(m[0])} in ${JSON.stringify(text)}`).toBe(true);
      }
    }
    expect(matches).toBeGreaterThan(50);
  });
});

describe('PII detection trying patterns near runs of digits only', () => {
  const rng = new Rng(20261202);
  const digits = (n: number) => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');
  const PIECES: Array<() => string> = [
    () => digits(rng.int(1, 20)),
    () => `${digits(3)} ${digits(3)} ${digits(rng.int(3, 4))}`,
    () => `${digits(rng.int(2, 4))}-${digits(rng.int(2, 7))}`,
    () => `${digits(rng.int(1, 3))}.${digits(rng.int(1, 3))}.${digits(rng.int(1, 4))}`,
    () => `${digits(rng.int(1, 3))}/${digits(rng.int(1, 3))}/${digits(rng.int(2, 5))}`,
    () => rng.pick(['A', 'DE', 'HRB', 'X', 'AB', 'ABC', 'Q', 'RSSMRA', 'T', 'gb', 'U1']) + rng.pick(['', ' ', '-', '.']) + digits(rng.int(1, 12)) + rng.pick(['', 'A', 'B', 'Z', 'R', 'xy', 'DEF']),
    () => digits(rng.int(1, 9)) + rng.pick(['A', 'B', 'C', 'EF', 'K', 'Z', '-', '+', 'X']) + digits(rng.int(0, 6)),
    () => rng.pick(['ssn', 'passport', 'iban', 'license', 'tax', 'id', 'bank', 'account', 'medicare', 'vehicle', 'aadhaar', 'date', 'the', 'number', 'ip']),
    () => rng.pick(['call', 'write', 'order', 'ticket', 'Steuernummer', 'personnummer', 'codice', 'regon', 'pesel', 'hetu']),
    () => rng.pick([' ', ' ', ', ', '. ', ': ', ' (', ') ', ' #', '_', '/']),
    // Hosts, quotes, hex pairs and groups: the anchors of web, MAC and IP addresses.
    () => rng.pick(['', '"', "'", 'www', 'www12.', 'a-b.', 'x.']) + rng.pick(['example', 'ex-ample', 'a1.b2', 'mail.server']) + rng.pick(['.com', '.c', '.co.uk', '.xyz1', '.', '']) + rng.pick(['', '"', "'", '/path', '.']),
    () => Array.from({ length: rng.int(1, 7) }, () => rng.pick(['0a', 'ff', 'B7', '12', 'zz', '0'])).join(rng.pick([':', '-', '.', ':-'])),
    () => Array.from({ length: rng.int(2, 4) }, () => rng.pick(['abcd', '0123', 'ef01', 'AB', '12345'])).join('.'),
    () => `${rng.int(0, 300)}.${rng.int(0, 300)}.${rng.int(0, 300)}.${rng.int(0, 300)}${rng.pick(['', '/24', '/33', '.5'])}`,
  ];
  // Prose without digits around half of them: a long text with few runs of digits is where the
  // places near them are tried one by one rather than the text searched.
  const FILLER = 'the customer wrote to support about a refund and the office answered within the day; ';
  const texts = (count: number) =>
    Array.from({ length: count }, () => {
      const pieces = Array.from({ length: rng.int(3, 30) }, () => rng.pick(PIECES)()).join(rng.pick([' ', '', ' ']));
      return rng.chance(0.5) ? `${FILLER.repeat(rng.int(5, 25))}${pieces} ${FILLER.repeat(rng.int(0, 10))}` : pieces;
    });

  // Every type but names, places and NRP: no digit anchor finds them (street addresses, which
  // are LOCATION, have a recognizer of their own, compared in pii-scan-gates.test.ts), and
  // finding them in both runs cost time for nothing. The types anchors could change are
  // all here, and the others' findings are the same in both runs.
  const PATTERN_TYPES = ENTITY_TYPES.filter((t) => t !== 'PERSON' && t !== 'LOCATION' && t !== 'NRP');
  const SETTINGS: Array<Omit<DetectOptions, 'entities'> & { entities: readonly EntityType[] }> = [
    // No threshold: no pattern is left out for its score, so every one is tried near the runs.
    { entities: PATTERN_TYPES, minThreshold: 0 },
    { entities: PATTERN_TYPES, minThreshold: 0.5 },
    { entities: PATTERN_TYPES, minThreshold: 0.3, context: false },
  ];

  it('finds what searching every position finds, on seeded random texts of digits, letters and separators and on the test vectors', async () => {
    const vectors = [...new Set(loadVectors().map((v) => v.text))];
    const all = [...texts(1500), ...vectors];
    let found = 0;
    const types = new Set<string>();
    const differ = await prunedAgainstFull(all, SETTINGS, (full) => {
      found += full.filter((f) => /[0-9]/.test(f.text)).length;
      for (const f of full) types.add(f.entity_type);
    });
    expect(differ.slice(0, 10), `${differ.length} detections differ`).toEqual([]);
    // Not vacuous: values holding digits are found by the thousand.
    expect(found).toBeGreaterThan(5000);
    for (const type of ['URL', 'MAC_ADDRESS', 'IP_ADDRESS', 'SE_PERSONNUMMER', 'FI_PERSONAL_IDENTITY_CODE']) expect(types).toContain(type);
  }, 600_000);
});
