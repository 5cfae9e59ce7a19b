import { prunedAgainstFull } from '../support/pruned-vs-full.ts';
import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, type DetectOptions, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
import { loadVectors } from '../../bench/pii-vectors.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * Detection with a threshold also leaves out (a) a phone window of fewer than 7 digits with
 * no country code when no context word of the recognizer is within reach of it, and (b) a
 * pattern that needs a longer run of digits than the text holds. Neither may change a
 * finding. Texts are made where both rules sit on their edge: six-digit numbers (valid
 * German, French, Indian... numbers among them) with the recognizers' context words placed
 * from right beside them to past the window's reach, among stop words that do not use it up,
 * with call prefixes and "+"; and identifiers whose digit runs are one shorter than, as long
 * as, and one longer than the patterns need. Each is compared with the same detection with
 * nothing left out.
 */
/** A seeded generator, so the generated texts are the same every run. */
const rng = (seed: number): (() => number) => {
  const r = new Rng(seed);
  return () => r.next();
};

const random = rng(20261130);
const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');

const KEYWORDS = ['ticket', 'order', 'logs', 'reviewed', 'refund', 'issued', 'account', 'billing', 'support', 'found', 'office', 'code'];
const STOP = ['the', 'for', 'and', 'was', 'on', 'with', 'no', 'further', 'to', 'of', 'me', 'is', 'at'];
const CONTEXT = ['phone', 'number', 'numbers', 'cell', 'call', 'fax', 'reach', 'contact', 'numero', 'tawag', 'mobile number', 'contact number', 'cellphone'];

function sixDigitNumbers(): string[] {
  const forms = [
    () => digits(6),
    () => `0${digits(5)}`,
    () => `00${digits(4)}`,
    () => `011${digits(3)}`,
    () => `${digits(2)} ${digits(2)} ${digits(2)}`,
    () => `(0${digits(2)}) ${digits(3)}`,
    () => `+${digits(6)}`,
    () => `${digits(3)}-${digits(3)}`,
    () => digits(7),
    () => `${digits(3)} ${digits(4)}`,
  ];
  return Array.from({ length: 1500 }, () => {
    const before = Array.from({ length: 1 + Math.floor(random() * 9) }, () => pick(random() < 0.4 ? STOP : KEYWORDS));
    const after = Array.from({ length: 1 + Math.floor(random() * 9) }, () => pick(random() < 0.4 ? STOP : KEYWORDS));
    const context = pick(CONTEXT);
    // The context word from beside the number to about twice the window's reach, either side.
    if (random() < 0.85) (random() < 0.5 ? before : after).splice(Math.floor(random() * 8), 0, random() < 0.2 ? context.toUpperCase() : context);
    const glue = pick([' ', ' ', ': ', ' #', ' (', ', ']);
    return `${before.join(' ')}${glue}${pick(forms)()} ${after.join(' ')}.`;
  });
}

function digitRunIdentifiers(): string[] {
  const letters = () => Array.from({ length: Math.floor(random() * 3) }, () => pick('ABCDEFGHJKLMNPRSTXYZ'.split(''))).join('');
  return Array.from({ length: 1500 }, () => {
    const n = 5 + Math.floor(random() * 12);
    const id = `${letters()}${digits(n)}${letters()}`;
    return `${pick(KEYWORDS)} ${id} ${pick(['', 'id', 'number', 'passport', 'licence', 'tax', 'ssn'])} ${digits(1 + Math.floor(random() * 6))}`;
  });
}

const SETTINGS: Array<Omit<DetectOptions, 'entities'> & { entities: readonly EntityType[] }> = [
  { entities: ENTITY_TYPES, minThreshold: 0.5 },
  { entities: ENTITY_TYPES, minThreshold: 0.45, context: false },
  { entities: ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'], minThreshold: 0.5 },
  { entities: ['PHONE_NUMBER'], minThreshold: 0.5, phoneLeniency: 'POSSIBLE' },
];

describe('PII detection leaving out phone windows and patterns that cannot find anything', () => {
  it('finds what it finds with nothing left out, on numbers and identifiers at the edges of both rules', async () => {
    const vectors = [...new Set(loadVectors().map((v) => v.text))];
    const texts = [...sixDigitNumbers(), ...digitRunIdentifiers(), ...vectors];
    let phones = 0;
    let ids = 0;
    const differ = await prunedAgainstFull(texts, SETTINGS, (full) => {
      phones += full.filter((f) => f.entity_type === 'PHONE_NUMBER' && f.text.replace(/\D/g, '').length === 6).length;
      ids += full.filter((f) => f.entity_type !== 'PHONE_NUMBER' && /\d{7}/.test(f.text)).length;
    });
    expect(differ.slice(0, 10), `${differ.length} detections differ`).toEqual([]);
    // Not vacuous: six-digit phone numbers pass with a context word, and long digit runs are found.
    expect(phones).toBeGreaterThan(100);
    expect(ids).toBeGreaterThan(100);
  }, 600_000);
});
