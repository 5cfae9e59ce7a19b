import { describe, expect, it } from 'vitest';
import { detectPii, ENTITY_TYPES, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
import { loadCorpus } from '../../bench/pii-corpus.ts';
import { Rng } from '../support/fuzz.ts';

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

describe('PII detection: street addresses tried only at and before their numbers', () => {
  // The street alternatives that start with a house number are tried at numbers only, those
  // that end with one only in a window of words before a number that may end them.
  const addresses = (text: string, prune: boolean) =>
    detectPii(text, { entities: ['LOCATION'], minThreshold: 0, context: false, prune }).map((f) => `${f.start} ${f.end} ${f.text}`);

  /**
   * Address-like texts in several languages, seeded: house numbers of one to seven digits,
   * with letters, "." or "-" glued on either side; street types before and after the name,
   * joined onto it and standing alone, in every case; names with particles, capitals inside
   * words ("McDonald"), letters that are not ASCII, "’"; zero to eight words between a street
   * type and the number (around the window's reach); spaces, tabs, no-break spaces, line
   * breaks and punctuation between them; post boxes and military addresses; and everyday words.
   */
  function addressLikeTexts(count: number): string[] {
    const rng = new Rng(20261201);
    const digits = (n: number) => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');
    const number = () => {
      const n = digits(rng.pick([1, 2, 3, 4, 4, 5, 5, 6, 7]));
      return rng.chance(0.15) ? `${rng.pick(['', 'x', '#', '-', '.', '/', '(', 'No'])}${n}${rng.pick(['', 'a', 'B', '.', ',', 'th', '-2', 'ſ', ')'])}` : n;
    };
    const TYPES = [
      'St', 'st', 'St.', 'ST', 'Street', 'Ave', 'ave.', 'Avenue', 'Rd', 'Road', 'Dr', 'Drive', 'Blvd', 'Ln', 'Lane', 'Way', 'Ct', 'Pl', 'Sq', 'Hwy', 'is', 'Un', 'ky',
      'Via', 'via', 'Viale', 'Piazza', 'Corso', 'Rua', 'rua', 'Avenida', 'Av.', 'Calle', 'C.', 'c', 'Carrer', 'Rúa', 'Praça', 'rue', 'Rue', 'RUE', 'Chemin', 'Allée', 'Quai', 'Place',
      'ul.', 'Ul.', 'ulica', 'Aleja', 'al.', 'Plac', 'os.', 'prospekt', 'nám.', 'Náměstí', 'třída', 'trg', 'Odos', 'οδός', 'Λεωφόρος', 'Calea', 'Str.', 'str', 'Bulevardul',
      'u.', 'U.', 'út', 'útja', 'tér', 'köz', 'rkp', 'rkp.', 'Strasse', 'Straße', 'straße', 'Gasse', 'Weg', 'weg', 'Platz', 'Allee', 'Damm', 'Ufer', 'Straat', 'Laan', 'Plein', 'Gracht',
      'Gatan', 'vägen', 'gade', 'Vej', 'Torv', 'gate', 'Veien', 'katu', 'tie', 'Kuja', 'tänav', 'iela', 'gatvė', 'utca', 'körút', 'ulice', 'cesta', 'nábřeží',
    ];
    const JOINED = ['Hammarvägen', 'Pohlstrasse', 'Koskikatu', 'Hauptstraße', 'Kirchgasse', 'Lindenweg', 'Marktplatz', 'Storgatan', 'Vesterbrogade', 'Karl Johans gate', 'Brīvības iela', 'Gedimino prospektas', 'Váci utca', 'Mannerheimintie', 'x9Bergstraße', 'HAUPTSTRASSE', 'hauptstraße'];
    const NAMES = ['Roma', 'Miła', 'Cheriton', 'Clarke', 'Lilas', 'Arenque', 'Pennsylvania', 'Imre', 'Kálmán', 'McDonald', 'Mac', "O'Brien", 'D’Angelo', 'Saint-Jean', 'Ōsaka', 'Élysée', 'Nimitz', 'Katrina', 'Jana', 'Nerudy', 'Allika', 'Floriánem', 'Maracajá', 'Cidade', 'Oak', 'Elm', 'Grand', 'Monday.', 'Dr.', 'A.'];
    const PARTICLES = ['de', 'do', 'da', 'dos', 'del', 'della', 'di', 'du', 'des', 'la', 'le', 'van', 'von', 'der', 'den', 'ten', 'z', 'na', 'pod', 'am', 'an', 'im', 'e', 'y', 'of', 'the'];
    const WORDS = ['order', 'at', 'is', 'on', 'lives', 'address', 'located', 'the', 'and', 'was', 'to', 'ending', 'ticket', 'Please', 'call', 'me', 'corner', 'Box', 'Unit', 'PSC', 'CMR', 'APO', 'AE', 'FPO', 'AP', 'USS', 'P.O.', 'Postfach', 'Apartado', 'Caixa', 'Postal', 'Apt', 'Suite', 'Flat', 'IBAN', 'DE89', 'Mr.', 'April', 'born'];
    const SEPARATORS = [' ', ' ', ' ', ' ', ' ', '  ', '\t', '\u00a0', '\n', ', ', '. ', ' - ', ' (', ') ', ': ', '/', ' ’'];
    const word = (): string => {
      const r = rng.next();
      if (r < 0.22) return number();
      if (r < 0.42) return rng.pick(TYPES);
      if (r < 0.5) return rng.pick(JOINED);
      if (r < 0.72) return rng.pick(NAMES);
      if (r < 0.8) return rng.pick(PARTICLES);
      return rng.pick(WORDS);
    };
    const texts: string[] = [];
    for (let i = 0; i < count; i++) {
      // A street type, then up to eight words and a number, among other words.
      const parts: string[] = Array.from({ length: rng.int(0, 4) }, word);
      if (rng.chance(0.6)) parts.push(...(rng.chance(0.5) ? [number()] : []), rng.pick([...TYPES, ...JOINED]), ...Array.from({ length: rng.int(0, 8) }, () => (rng.chance(0.8) ? rng.pick(NAMES) : rng.pick(PARTICLES))), number());
      parts.push(...Array.from({ length: rng.int(0, 12) }, word));
      let text = parts[0] ?? '';
      for (const part of parts.slice(1)) text += (rng.chance(0.85) ? ' ' : rng.pick(SEPARATORS)) + part;
      texts.push(text, text.toLowerCase());
    }
    return texts;
  }

  it('finds what searching every position finds, on seeded address-like texts and in lower case', async () => {
    let found = 0;
    for (const [n, text] of addressLikeTexts(2500).entries()) {
      // A turn of the event loop now and then, so the test worker keeps answering its runner.
      if (n % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
      const pruned = addresses(text, true);
      expect(pruned, text).toEqual(addresses(text, false));
      found += pruned.length;
    }
    expect(found).toBeGreaterThan(1000);
  });

  it.each([
    // A type five names and a number away (the most), and six (one too many); a leading number
    // six words back; a joined type after a digit and after a bracket; a type inside a word.
    'Our office at 12 Rua Cidade de Maracajá do Norte 468, and Via A B C D E F 12.',
    '7 Via Roma Alta Bassa Nuova Vecchia 131 and (Hauptstraße 5 and x9Bergstraße 6.',
    'Ask Mac Donald 12 at Kálmán Imre u. 12. or 1737 Cheriton Dr., not at order 92077.',
    'IBAN DE89 3704 0044 0532 0130 00; call (303) 555-1234 on March 17th; 12a rue des Lilas 3.',
    // A corner with "the" and spaces or a tab before it, inside a word, in capitals, and two in a row.
    'Meet at the  corner of Main and Elm. Bathe corner of Oak St and 5th? THE\tCORNER OF PINE AND 12TH corner of A and B corner of C and D.',
    'Send to 12 P.O. Box 77, 12 Postfach 4411, Apartado 9 and APO AE 09012, Unit 4 Box 5, USS Nimitz, Caixa Postal 8 or CMR 4, Box 12.',
  ])('%s', (text) => {
    for (const t of [text, text.toLowerCase()]) expect(addresses(t, true)).toEqual(addresses(t, false));
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
