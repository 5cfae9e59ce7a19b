/**
 * A seeded set of IBANs and dates in sentences, for the question "with every entity
 * enabled, is each one named as what it is?" (hardening issue, item 8). Shared by the test
 * that keeps the targets (test/evaluators/pii-typed.test.ts) and `npm run bench`.
 *
 * IBANs: every country of the SWIFT IBAN registry listed below, with a BBAN of the
 * registry's structure and correct mod-97 check digits, written compact
 * ("DE89370400440532013000") and grouped by four ("DE89 3704 0044 0532 0130 00").
 * Dates: the forms people write (2024-03-05, 05/03/2024, March 5, 2024, 5 March 2024,
 * 2024-03-05T10:00:00Z, ...). The same seed always gives the same set.
 */

export type TypedGoldType = 'IBAN_CODE' | 'DATE_TIME';
export const TYPED_SET_TYPES: readonly TypedGoldType[] = ['IBAN_CODE', 'DATE_TIME'];

export interface TypedRow {
  text: string;
  gold: { type: TypedGoldType; start: number; end: number; value: string };
  /** The form it was written in ("grouped", "dd/mm/yyyy", ...), to say what failed. */
  form: string;
}

/** Targets of the issue: recall by type with every entity enabled. */
export const TYPED_TARGETS: Record<TypedGoldType, number> = { IBAN_CODE: 0.98, DATE_TIME: 0.9 };

export const TYPED_SEED = 20240305;

/** mulberry32: small, seeded, the same sequence on every platform. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * BBAN structures of the SWIFT IBAN registry: `n` digits, `a` upper-case letters, `c`
 * either. A few registries fix a leading character (Costa Rica's reserved 0), written as a
 * literal.
 */
const BBAN_STRUCTURES: Record<string, string> = {
  AD: '4n4n12c', AE: '3n16n', AL: '8n16c', AT: '5n11n', AZ: '4a20c', BA: '3n3n8n2n', BE: '3n7n2n',
  BG: '4a4n2n8c', BH: '4a14c', BR: '8n5n10n1a1c', CH: '5n12c', CR: '0 17n', CY: '3n5n16c', CZ: '4n6n10n',
  DE: '8n10n', DK: '4n9n1n', DO: '4a20n', EE: '2n2n11n1n', EG: '4n4n17n', ES: '4n4n1n1n10n', FI: '3n11n',
  FO: '4n9n1n', FR: '5n5n11c2n', GB: '4a6n8n', GE: '2a16n', GI: '4a15c', GL: '4n9n1n', GR: '3n4n16c',
  GT: '4c20c', HR: '7n10n', HU: '3n4n1n15n1n', IE: '4a6n8n', IL: '3n3n13n', IS: '4n2n6n10n',
  IT: '1a5n5n12c', JO: '4a4n18c', KW: '4a22c', KZ: '3n13c', LB: '4n20c', LI: '5n12c', LT: '5n11n',
  LU: '3n13c', LV: '4a13c', MC: '5n5n11c2n', MD: '2c18c', ME: '3n13n2n', MK: '3n10c2n', MR: '5n5n11n2n',
  MT: '4a5n18c', MU: '4a2n2n12n3n3a', NL: '4a10n', NO: '4n6n1n', PK: '4a16c', PL: '8n16n', PS: '4a21c',
  PT: '4n4n11n2n', QA: '4a21c', RO: '4a16c', RS: '3n13n2n', SA: '2n18c', SE: '3n16n1n', SI: '5n8n2n',
  SK: '4n6n10n', SM: '1a5n5n12c', TN: '2n3n13n2n', TR: '5n1n16c', UA: '6n19c', VA: '3n15n', VG: '4a16n',
  XK: '4n10n2n',
};

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function bban(structure: string, random: () => number): string {
  let out = '';
  const pick = (chars: string) => chars[Math.floor(random() * chars.length)];
  for (const [, literal, count, kind] of structure.matchAll(/([0-9A-Z]+) |(\d+)([nac])/g)) {
    if (literal) {
      out += literal;
      continue;
    }
    for (let i = 0; i < Number(count); i++) {
      // Account numbers in the `c` positions are mostly digits; letters appear now and then.
      out += kind === 'n' ? pick(DIGITS) : kind === 'a' ? pick(LETTERS) : random() < 0.2 ? pick(LETTERS) : pick(DIGITS);
    }
  }
  return out;
}

/** ISO 13616 check digits: 98 - (BBAN + country + "00") mod 97, letters as 10..35. */
function ibanOf(country: string, body: string): string {
  let remainder = 0;
  for (const ch of body + country + '00') {
    const v = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = (v >= 10 ? remainder * 100 + v : remainder * 10 + v) % 97;
  }
  return country + String(98 - remainder).padStart(2, '0') + body;
}

const grouped = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');

const IBAN_SENTENCES = [
  'Please wire the deposit to {} by Friday.',
  'IBAN: {}',
  'The refund goes to {}, thanks.',
  'Account {} was credited yesterday.',
  'my bank details are {} if you need them',
  'Send it to {}.',
  'Beneficiary account: {} (reference 2231).',
  '{}',
];

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number) => String(n).padStart(2, '0');
const ordinal = (d: number) => (d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th');

interface Day {
  y: number;
  m: number;
  d: number;
  hh: number;
  mm: number;
}

/** The forms people write a date in; unambiguous forms only where the day allows it. */
const DATE_FORMS: Record<string, (t: Day) => string> = {
  'yyyy-mm-dd': (t) => `${t.y}-${pad(t.m)}-${pad(t.d)}`,
  'dd/mm/yyyy': (t) => `${pad(t.d)}/${pad(t.m)}/${t.y}`,
  'mm/dd/yyyy': (t) => `${pad(t.m)}/${pad(t.d)}/${t.y}`,
  'd.m.yyyy': (t) => `${t.d}.${t.m}.${t.y}`,
  'dd.mm.yyyy': (t) => `${pad(t.d)}.${pad(t.m)}.${t.y}`,
  'dd-mm-yyyy': (t) => `${pad(t.d)}-${pad(t.m)}-${t.y}`,
  'm/d/yy': (t) => `${t.m}/${t.d}/${pad(t.y % 100)}`,
  'yyyy-mm-dd hh:mm': (t) => `${t.y}-${pad(t.m)}-${pad(t.d)} ${pad(t.hh)}:${pad(t.mm)}`,
  'Month d, yyyy': (t) => `${MONTH_NAMES[t.m - 1]} ${t.d}, ${t.y}`,
  'd Month yyyy': (t) => `${t.d} ${MONTH_NAMES[t.m - 1]} ${t.y}`,
  'Mon d, yyyy': (t) => `${MONTH_NAMES[t.m - 1].slice(0, 3)} ${t.d}, ${t.y}`,
  'dd-Mon-yyyy': (t) => `${pad(t.d)}-${MONTH_NAMES[t.m - 1].slice(0, 3)}-${t.y}`,
  'ISO 8601 UTC': (t) => `${t.y}-${pad(t.m)}-${pad(t.d)}T${pad(t.hh)}:${pad(t.mm)}:00Z`,
  'ISO 8601 offset': (t) => `${t.y}-${pad(t.m)}-${pad(t.d)}T${pad(t.hh)}:${pad(t.mm)}:00+02:00`,
  'yyyy/mm/dd': (t) => `${t.y}/${pad(t.m)}/${pad(t.d)}`,
  'Month yyyy': (t) => `${MONTH_NAMES[t.m - 1]} ${t.y}`,
  'dth of Month yyyy': (t) => `${t.d}${ordinal(t.d)} of ${MONTH_NAMES[t.m - 1]} ${t.y}`,
};

const DATE_SENTENCES = [
  'The contract starts on {}.',
  'Date of birth: {}',
  'We met {} in the lobby.',
  'Invoice issued {}, due in 30 days.',
  'She was admitted on {} and discharged a week later.',
  'Last login {} from the mobile app.',
  'Deadline is {}',
  'Born {} in a small town.',
];

function place(template: string, value: string): { text: string; start: number } {
  const start = template.indexOf('{}');
  return { text: template.slice(0, start) + value + template.slice(start + 2), start };
}

/** Three IBANs per registry country (compact, grouped, and one of either) and eight dates per form. */
export function generateTypedSet(seed = TYPED_SEED): TypedRow[] {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const rows: TypedRow[] = [];
  for (const [country, structure] of Object.entries(BBAN_STRUCTURES)) {
    for (const form of ['compact', 'grouped', random() < 0.5 ? 'compact' : 'grouped'] as const) {
      const iban = ibanOf(country, bban(structure, random));
      const value = form === 'grouped' ? grouped(iban) : iban;
      const { text, start } = place(pick(IBAN_SENTENCES), value);
      rows.push({ text, gold: { type: 'IBAN_CODE', start, end: start + value.length, value }, form });
    }
  }
  for (const [form, write] of Object.entries(DATE_FORMS)) {
    for (let i = 0; i < 8; i++) {
      const y = 1950 + Math.floor(random() * 80);
      const m = 1 + Math.floor(random() * 12);
      const d = 1 + Math.floor(random() * 28);
      const day: Day = { y, m, d, hh: Math.floor(random() * 24), mm: Math.floor(random() * 60) };
      const value = write(day);
      const { text, start } = place(pick(DATE_SENTENCES), value);
      rows.push({ text, gold: { type: 'DATE_TIME', start, end: start + value.length, value }, form });
    }
  }
  return rows;
}

export interface TypedFinding {
  entity_type: string;
  start: number;
  end: number;
}

export interface TypedScore {
  gold: number;
  /** Gold spans a finding of their own type overlaps. */
  namedRight: number;
  /** Gold spans only findings of other types overlap: flagged, but named wrong. */
  namedWrong: number;
  missed: number;
  recall: number;
  /** Findings of other types overlapping a gold span, by type. */
  otherTypes: Record<string, number>;
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

export function scoreTypedSet(rows: readonly TypedRow[], findings: (row: TypedRow, index: number) => readonly TypedFinding[]): Record<TypedGoldType, TypedScore> {
  const scores = Object.fromEntries(
    TYPED_SET_TYPES.map((t) => [t, { gold: 0, namedRight: 0, namedWrong: 0, missed: 0, recall: 0, otherTypes: {} }]),
  ) as Record<TypedGoldType, TypedScore>;
  rows.forEach((row, i) => {
    const s = scores[row.gold.type];
    const over = findings(row, i).filter((f) => overlaps(f, row.gold));
    s.gold++;
    if (over.some((f) => f.entity_type === row.gold.type)) s.namedRight++;
    else if (over.length > 0) s.namedWrong++;
    else s.missed++;
    for (const f of over) if (f.entity_type !== row.gold.type) s.otherTypes[f.entity_type] = (s.otherTypes[f.entity_type] ?? 0) + 1;
  });
  for (const s of Object.values(scores)) s.recall = s.gold === 0 ? 1 : s.namedRight / s.gold;
  return scores;
}
