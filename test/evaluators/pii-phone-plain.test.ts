import { prunedAgainstFull } from '../support/pruned-vs-full.ts';
import { describe, expect, it } from 'vitest';
import { detectPii, type DetectOptions, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * The phone recognizers decide two cases without libphonenumber's matcher: a window holding
 * one national number and only words and punctuation around it (" at (303) 555-0147 or "),
 * whose number is read and validated as the library reads it; and a window whose digits
 * cannot hold a number valid for the region (checked country by country; an international
 * call prefix only where a written group of digits begins, unless an extension mark could
 * move the matcher's start, and then the number dialled after it). Pruning off does neither.
 * Seeded windows at the edges of both (numbers of the +1 countries told apart by their
 * leading digits, national prefixes, call prefixes inside and at the start of groups and
 * followed by calling codes, letters glued on, extension marks, countries named in the
 * text) must give the same findings either way.
 */
const rng = new Rng(20261201);
const random = () => rng.next();
const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');

// National numbers: of the +1 countries (area codes of the US, Canada, Jamaica, Puerto Rico,
// toll-free...), with national or call prefixes, and of other lengths.
function nationalDigits(): string {
  const r = random();
  if (r < 0.35) return `${pick(['303', '415', '212', '604', '416', '876', '787', '246', '800', '900', '555', '011', '100', digits(3)])}${digits(7)}`;
  if (r < 0.5) return `0${digits(5 + Math.floor(random() * 7))}`;
  if (r < 0.6) return `${pick(['00', '011', '001', '0011', '010'])}${digits(2 + Math.floor(random() * 9))}`;
  // Dialled with an international prefix and a calling code (Brazil's and Japan's rewrite their national prefix).
  if (r < 0.68) return `${pick(['00', '011', '0011', '010'])}${pick(['1', '44', '49', '33', '55', '81', '86', '63', '91', '972', '7', '61', '683', '800'])}${pick(['', '0', '1'])}${digits(4 + Math.floor(random() * 8))}`;
  if (r < 0.7) return `1${digits(10)}`;
  if (r < 0.8) return `${pick(['9', '8', '2', '7'])}${digits(8 + Math.floor(random() * 3))}`;
  return digits(4 + Math.floor(random() * 10));
}

function written(d: string): string {
  if (random() < 0.15) return d;
  const groups: string[] = [];
  for (let k = 0; k < d.length; ) {
    const n = 1 + Math.floor(random() * 4);
    groups.push(d.slice(k, k + n));
    k += n;
  }
  const sep = () => pick([' ', '-', '.', ' ', '-', ' ', '-', '/', ' x ', ', ', '#', ' int ', ';']);
  const rest = groups.slice(1).map((g, k) => `${k > 0 || random() < 0.6 ? sep() : ''}${g}`);
  if (groups.length > 1 && random() < 0.4) return `(${groups[0]})${random() < 0.7 ? ' ' : ''}${rest.join('').replace(/^[^0-9]+/, '')}`;
  return [groups[0], ...groups.slice(1).map((g) => `${sep()}${g}`)].join('');
}

const BEFORE = ['Please call me back at ', 'Call ', 'Reach me on ', 'phone: ', 'ticket ', 'order no. ', 'tel', 'fax ', '', '(', 'mobile number "'];
const AFTER = [' or write to me.', '.', ' today', 'abc', ' ext 12', ', thanks', '!', '', 'x', '; later', ' and 5'];
const PLACES = ['', '', '', ' I am in Canada.', ' We are in Jamaica.', ' Office in the Philippines.', ' Our team in Germany.', ' Back in Puerto Rico.', ' Flying to Japan.'];

function texts(): string[] {
  return Array.from({ length: 2500 }, () => `${pick(BEFORE)}${written(nationalDigits())}${pick(AFTER)}${pick(PLACES)}`);
}

const SETTINGS: Array<Omit<DetectOptions, 'entities'> & { entities: readonly EntityType[] }> = [
  { entities: ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'], minThreshold: 0.5 },
  { entities: ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'], minThreshold: 0 },
];

describe('PII detection: phone windows decided without the matcher', () => {
  it('finds what the matcher finds on every window, numbers written nationally and windows no region can read', async () => {
    let found = 0;
    const differ = await prunedAgainstFull(texts(), SETTINGS, (full) => {
      found += full.filter((f) => f.score >= 0.4).length;
    });
    expect(differ.slice(0, 10), `${differ.length} detections differ`).toEqual([]);
    // Not vacuous: many of the windows hold numbers the regions accept.
    expect(found).toBeGreaterThan(1000);
  }, 600_000);

  it.each([
    ['a US number in parentheses', 'Please call me back at (303) 555-0147 or write.', ['PHONE_NUMBER (303) 555-0147 1']],
    ['a Canadian number, told apart by its area code', 'Call 604-555-0147 today', ['PHONE_NUMBER 604-555-0147 1']],
    ['a number with a letter glued after it', 'Call (303) 555-0147abc', []],
    ['a six-digit order number with "00" inside', 'Call about order 961000 today', []],
  ])('%s', (_, text, expected) => {
    const find = (prune: boolean) =>
      detectPii(text, { entities: ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'], minThreshold: 0.5, prune }).map((f) => `${f.entity_type} ${f.text} ${f.score}`);
    expect(find(true)).toEqual(expected);
    expect(find(false)).toEqual(expected);
  });
});
