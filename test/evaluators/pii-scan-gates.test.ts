import { describe, expect, it } from 'vitest';
import { detectPii, ENTITY_TYPES, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
import { loadCorpus } from '../../bench/pii-corpus.ts';

/**
 * The scans the engine leaves out or shortens must find what a full scan finds: e-mail
 * addresses are searched from shortly before each "@" (at most 64 code points of local part),
 * and patterns needing a run of N word characters are not run on a text without one.
 */
const find = (text: string, entities: readonly EntityType[] = ENTITY_TYPES, prune = true) =>
  detectPii(text, { entities, minThreshold: 0.5, prune }).map((f) => `${f.entity_type} ${f.text}`);

describe('PII detection: e-mail addresses found from their "@"', () => {
  const astral = '𝒜'; // one code point, two UTF-16 units, a letter
  it.each([
    ['a 64-character local part', `${'a'.repeat(64)}@example.com`, true],
    ['a 65-character one (too long, and no part of a word is an address)', `${'b'.repeat(65)}@example.com`, false],
    ['64 astral letters (128 UTF-16 units)', `${astral.repeat(64)}@example.com`, true],
    ['several "@" in a row', 'x@@y.com and z@example.org', true],
    ['no domain after the "@"', 'write to someone@ please', false],
  ])('%s', (_, address, found) => {
    const text = `Please write to ${address} today; ${'filler words '.repeat(20)}and then to jane.doe@example.com.`;
    const emails = find(text, ['EMAIL_ADDRESS']);
    expect(emails).toContain('EMAIL_ADDRESS jane.doe@example.com');
    expect(emails.length > 1).toBe(found);
    // The same as a text that puts the address at the start of its own scan.
    const alone = find(address, ['EMAIL_ADDRESS']);
    expect(emails.filter((e) => e !== 'EMAIL_ADDRESS jane.doe@example.com')).toEqual(alone);
    if (address.startsWith('a'.repeat(64))) expect(alone).toEqual([`EMAIL_ADDRESS ${address}`]);
    if (address.startsWith(astral)) expect(alone).toEqual([`EMAIL_ADDRESS ${address}`]);
  });
});

describe('PII detection: searches started shortly before what every match holds, or tried at each position near it', () => {
  const host = (units: number) => `${'a'.repeat(units - 4)}.b.c`;
  it.each([
    ['a host of 253 characters before its top-level domain (the longest)', `see ${host(253)}.com now`],
    ['one of 254 characters (too long for one match)', `see ${host(254)}.com now`],
    ['"www", three digits and a 253-character host', `see www123.${host(253)}.org/path now`],
    ['a quoted address', `link: '${host(250)}.net' and "x.org"`],
    ['dots that end sentences only', 'One. Two. Three.Four 1.5 and a.1b'],
    ['an e-mail local part after a space, a "+" and an astral letter', 'write to x +a𝒜b.c+d@example.com, y@e.org'],
    ['a combining mark that case-folds to a letter in a local part', 'mail ab\u0345cd@example.com please'],
    ['a local part longer than 64 code points', `mail ${'z'.repeat(70)}@example.com, then q@example.com`],
    ['addresses and dates whose separators come a few characters in, side by side', '10.0.0.1.2 1.2.3.4/24 01-02-2024-03-04 2024-01-02T10:20Z 2024/1/2 3.4.2020 12-JAN-24 JAN-2024'],
    ['separators without a value before them', '. - / : :: .1.2.3.4 -01-02-2024 ::ffff:10.0.0.1 fe80::1%eth0 ::'],
    ['MAC addresses, colon, dash and dotted', 'aa:bb:cc:dd:ee:0f-11-22-33-44-55-66 and 0a1b.2c3d.4e5f.6a7b, ab:cd'],
  ])('%s: the same as searching every position', (_, text) => {
    const entities: EntityType[] = ['URL', 'EMAIL_ADDRESS', 'IP_ADDRESS', 'DATE_TIME', 'MAC_ADDRESS'];
    expect(find(text, entities)).toEqual(find(text, entities, false));
  });
});

describe('PII detection: patterns needing a run of word characters', () => {
  it.each([
    ['a UK driving licence (16 characters in a row)', 'Licence MORGA753116SM9IJ on file', 'UK_DRIVING_LICENCE'],
    ['a GSTIN (15)', 'GSTIN 22AAAAA0000A1Z5 of the supplier', 'IN_GSTIN'],
    ['an Italian fiscal code (16)', 'codice fiscale RSSMRA85T10A562S', 'IT_FISCAL_CODE'],
    ['a Bitcoin address (26 and more)', 'wallet 1BoatSLRHtKNngkdXEeobR76b53LETtpyT please', 'CRYPTO'],
  ] as const)('%s is found as with nothing left out, and not in a text one character short', (_, text, entity) => {
    const withGates = find(text, [entity]);
    expect(withGates).toEqual(find(text, [entity], false));
    expect(withGates.some((f) => f.startsWith(entity))).toBe(true);
    // The same value with a space in its middle: no run long enough, nothing found either way.
    const value = text.split(' ').find((w) => w.length >= 15)!;
    const broken = text.replace(value, `${value.slice(0, 7)} ${value.slice(7)}`);
    expect(find(broken, [entity])).toEqual(find(broken, [entity], false));
  });

  it('counts "ſ" and the Kelvin sign in a run, as case-insensitive Unicode patterns match them', () => {
    for (const text of ['Licence MORGAſ53116SM9IJ', 'Licence \u212Aorga753116SM9IJ', 'GSTIN 22AAAAA0000A1Zſ and 22AAAAA0000A1Z5']) {
      expect(find(text)).toEqual(find(text, ENTITY_TYPES, false));
    }
  });
});

describe('PII detection: street addresses from their expression\'s alternatives one by one', () => {
  // Pruning off searches the alternation itself.
  const addresses = (text: string, prune: boolean) =>
    detectPii(text, { entities: ['LOCATION'], minThreshold: 0, prune }).map((f) => `${f.start} ${f.end} ${f.text}`);

  it('finds what the alternation finds in the synthetic corpus, as written and in lower case', () => {
    let found = 0;
    for (const row of loadCorpus()) {
      for (const text of [row.text, row.text.toLowerCase()]) {
        const alone = addresses(text, true);
        expect(alone, text).toEqual(addresses(text, false));
        found += alone.length;
      }
    }
    expect(found).toBeGreaterThan(100);
  });

  it.each([
    // Two alternatives matching at one position (a number, then a street type either side),
    // one starting inside another's match, a crossing street, post boxes and military addresses.
    'Send it to 12 Via Roma 131 or to 3369 24 Clarke Avenue, Springfield.',
    'At the corner of Katrina and Rúa do Paseo 46 there is 1737 Cheriton Dr.',
    'PSC 6293, Box 8158 / APO AP 04336, or P.O. Box 77 and USS Nimitz; Hammarvägen 15 and Kálmán Imre u. 12.',
    '20789 Allika 46 and ul. Miła 53, 26 rue des Lilas, Villacher Strasse 89.',
  ])('%s', (text) => {
    expect(addresses(text, true)).toEqual(addresses(text, false));
    expect(addresses(text, true).length).toBeGreaterThan(0);
  });
});

describe('PII detection: card numbers from runs of digit groups', () => {
  it.each([
    ['a 12-digit Maestro number, the shortest card', 'Card 675900000000 on file', '675900000000'],
    ['the same in groups', 'Card 6759 0000 0000 on file', '6759 0000 0000'],
    ['a Luhn-valid number in no issuer range, with a context word', 'credit card 33333333333330', '33333333333330'],
  ])('%s', (_, text, card) => {
    expect(find(text, ['CREDIT_CARD'])).toEqual([`CREDIT_CARD ${card}`]);
  });

  it('finds none in a run one digit short', () => {
    expect(find('Card 67590000000 on file', ['CREDIT_CARD'])).toEqual([]);
  });
});
