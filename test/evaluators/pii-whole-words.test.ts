import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, type DetectOptions } from '../../src/modules/evaluators/pii/index.ts';
import { wholeWord } from '../../src/modules/evaluators/pii/text-runs.ts';
import { prunedAgainstFull } from '../support/pruned-vs-full.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * A pattern whose every alternative is "\b", word characters and assertions only, then "\b"
 * matches whole words of the text (maximal runs of [A-Za-z0-9_]) of the lengths read from its
 * source (wholeWord), and is tried only at such words when they are few. The reading must hold
 * for every match, and detection with it must find what searching every position finds.
 */
describe('wholeWord: patterns whose every match is one whole word', () => {
  it.each([
    [String.raw`\b[A-Z]{2}\d{4}\b`, { min: 6, max: 6 }],
    [String.raw`\b[A-Z]{2}(?!0000)\d{4}\b`, { min: 6, max: 6 }],
    [String.raw`\b\d{8}[A-Z]\b|\b\d{9}[A-Z]\b|\b(T|S|R)\d{2}[A-Z]{2}\d{4}[A-Z]\b`, { min: 9, max: 10 }],
    [String.raw`\b([A-Za-z]{3}[AaBbCcFfGgHhJjLlPpTt]{1}[A-Za-z]{1}[0-9]{4}[A-Za-z]{1})\b`, { min: 10, max: 10 }],
    [String.raw`\b\d{1,3}(CD|CC|UN)[1-9]{1}[0-9]{1,3}\b`, { min: 5, max: 9 }],
    [String.raw`\b\w{2,5}\b`, { min: 2, max: 5 }],
    // A space, a separator or a class with other characters inside: not one word.
    [String.raw`\bHR[AB]\s*\d{1,6}\b`, null],
    [String.raw`\b[A-Z]{3}[- ]?\d{3}[A-Z]{2}\b`, null],
    [String.raw`\b[A-z]{3}\b`, null],
    [String.raw`\b[^ ]{3}\b`, null],
    // Unbounded, or not bounded by "\b" at both ends of every alternative.
    [String.raw`\b\d+\b`, null],
    [String.raw`[A-Z]{2}\d{4}\b`, null],
    [String.raw`\b\d{4}|\d{5}\b`, null],
    [String.raw`\b\d{4}(?:\b|x)`, null],
    [String.raw`\b(\d{2})\1\b`, null],
    [String.raw`\b(?:\d{2})?\b`, null],
  ])('%s', (source, expected) => {
    expect(wholeWord(source)).toEqual(expected);
  });

  // Every match found by searching seeded random texts is a whole word of a length the reading allows.
  const SOURCES = [
    String.raw`\b[A-Z]{2}\d{1}[A-Z]{1,3}(?!0000)\d{4}\b`,
    String.raw`\b\d{8}[A-Z]\b|\b\d{9}[A-Z]\b|\b(T|S|R)\d{2}[A-Z]{2}\d{4}[A-Z]\b`,
    String.raw`\b[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{7}[0-9]\b`,
    String.raw`\b\d{1,3}(CD|CC|UN)[1-9]{1}[0-9]{1,3}\b`,
    String.raw`\b(?!00)\d{2}(A|B|C|D|E|F|H|K|P|R|X)\d{6}[A-Z]{1}\b`,
    String.raw`\b\w{2,5}\b`,
  ];
  it.each(SOURCES)('%s: every match is a whole word of its lengths', (source) => {
    const reading = wholeWord(source);
    expect(reading).not.toBeNull();
    const rng = new Rng(20261203);
    const search = new RegExp(source, 'gims');
    // Values of the sources' shapes, changed a character at a time and glued to one another or
    // to letters, digits, "_", "ſ" and "é", so that matches and near misses are both common.
    const SAMPLES = ['MH12AB1234', 'KA1A1234', '12345678A', '123456789Z', 'T08LL0001A', 'C01X00T47', 'L01X00T47', '10CD123', '12A123456B', 'ab', 'xyz12', '9999'];
    const EDITS = ['', '', '0', '7', 'A', 'z', '_', 'ſ', 'é', '-', ' '];
    let matches = 0;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: rng.int(1, 8) }, () => {
        let v = rng.pick(SAMPLES);
        if (rng.chance(0.4)) {
          const at = rng.int(0, v.length);
          v = v.slice(0, at) + rng.pick(EDITS) + v.slice(at + rng.int(0, 1));
        }
        return v + rng.pick(['', ' ', ' ', '-', '.', '/', 'K', '_', 'ſ']);
      }).join('');
      for (const m of text.matchAll(search)) {
        matches++;
        const end = m.index + m[0].length;
        const wordAt = (k: number) => k >= 0 && k < text.length && /[A-Za-z0-9_]/.test(text[k]);
        expect(!wordAt(m.index - 1) && !wordAt(end) && /^[A-Za-z0-9_]+$/.test(m[0]), `${JSON.stringify(m[0])} in ${JSON.stringify(text)}`).toBe(true);
        expect(m[0].length).toBeGreaterThanOrEqual(reading!.min);
        expect(m[0].length).toBeLessThanOrEqual(reading!.max);
      }
    }
    expect(matches).toBeGreaterThan(50);
  });

  it('detection trying them at words finds what searching every position finds, on seeded texts of word-shaped identifiers', async () => {
    const rng = new Rng(20261204);
    const digits = (n: number) => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');
    const letters = (n: number) => Array.from({ length: n }, () => rng.pick(['A', 'B', 'C', 'D', 'F', 'G', 'H', 'K', 'L', 'P', 'R', 'S', 'T', 'X', 'Z', 'a', 'e'])).join('');
    const PIECES: Array<() => string> = [
      // Passport and ID card numbers, PAN, UEN, vehicle plates: letters and digits in one word.
      () => letters(rng.int(1, 5)) + digits(rng.int(1, 9)) + rng.pick(['', letters(1), letters(2)]),
      () => digits(rng.int(1, 10)) + letters(rng.int(1, 3)) + rng.pick(['', digits(rng.int(1, 6))]),
      () => rng.pick(['T', 'S', 'R', 'MH', 'KA', 'DL']) + digits(2) + letters(rng.int(1, 2)) + digits(4) + rng.pick(['', 'A', 'Z']),
      () => digits(rng.int(1, 3)) + rng.pick(['CD', 'CC', 'UN']) + digits(rng.int(1, 4)),
      () => rng.pick(['passport', 'ausweis', 'pan', 'uen', 'vehicle', 'registration', 'the', 'Reisepass', 'card', 'number']),
      () => rng.pick([' ', ' ', ', ', '. ', ': ', '-', '_', '/', ' (', ') ']),
    ];
    // Prose around them, so that the words of each length are few in some texts and many in others.
    const FILLER = 'the customer wrote to support about a refund and the office answered within the day; ';
    const texts = Array.from({ length: 600 }, () => {
      const pieces = Array.from({ length: rng.int(2, 40) }, () => rng.pick(PIECES)()).join(rng.pick([' ', '', ' ']));
      return rng.chance(0.5) ? `${FILLER.repeat(rng.int(2, 20))}${pieces} ${FILLER.repeat(rng.int(0, 8))}` : pieces;
    });
    const types = ENTITY_TYPES.filter((t) => t !== 'PERSON' && t !== 'LOCATION' && t !== 'NRP');
    const settings: DetectOptions[] = [
      { entities: types, minThreshold: 0 },
      { entities: types, minThreshold: 0.5 },
    ];
    const found = new Map<string, number>();
    const differ = await prunedAgainstFull(texts, settings, (full) => {
      for (const f of full) found.set(f.entity_type, (found.get(f.entity_type) ?? 0) + 1);
    });
    expect(differ.slice(0, 10), `${differ.length} detections differ`).toEqual([]);
    // Not vacuous: the types of whole-word patterns are found.
    for (const type of ['DE_PASSPORT', 'DE_ID_CARD', 'IN_PAN', 'IN_VEHICLE_REGISTRATION']) expect(found.get(type) ?? 0, type).toBeGreaterThan(10);
    expect(found.get('SG_UEN') ?? 0, 'SG_UEN').toBeGreaterThan(0);
  }, 600_000);
});
