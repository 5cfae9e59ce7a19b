import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectPii, ENTITY_TYPES, type DetectOptions, type EntityType } from '../../src/modules/evaluators/pii/index.ts';
// The texts are the PII tests' corpora and the privacy bench's, loaded as they load them.
import { loadCorpus } from '../../bench/pii-corpus.ts';
import { generateTypedSet } from '../../bench/pii-typed-set.ts';
import { loadVectors } from '../../bench/pii-vectors.ts';
import { privateText2kb } from '../../bench/privacy.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * Work that makes detection cheaper must not change what it finds. Every text of the PII
 * tests' corpora (presidio-research's synthetic set, Presidio's recognizer vectors, the typed
 * IBAN and date set), texts of the privacy bench, cased copies of them and a seeded set of
 * phone-shaped texts are run through the detector under several settings, and what it finds
 * is compared with a snapshot taken from the engine before such work
 * (pii-findings-frozen.snapshot.json). The snapshot holds, for every text that finds
 * anything, a hash of its findings under each setting, keyed by a hash of the text; a text
 * missing from it found nothing. A failure shows the text and what it finds now.
 * `PII_FROZEN_WRITE=1` writes it again: only for a change meant to alter findings.
 */
const SNAPSHOT = new URL('./pii-findings-frozen.snapshot.json', import.meta.url);

type Settings = Omit<DetectOptions, 'entities'> & { entities: readonly EntityType[] };
const ALL = ENTITY_TYPES;
const PHONES: readonly EntityType[][] = [['PHONE_NUMBER'], ['PH_MOBILE_NUMBER']];
/** Every type with and without context words (threshold 0: the recognizers' own results), and the phone recognizers alone. */
const FULL: Record<string, Settings> = {
  all: { entities: ALL, minThreshold: 0 },
  'all-raw': { entities: ALL, minThreshold: 0, context: false },
};
const PHONE_ONLY: Record<string, Settings> = Object.fromEntries(
  PHONES.flatMap((entities) =>
    (['VALID', 'POSSIBLE'] as const).map((phoneLeniency) => [`${entities[0]}-${phoneLeniency}`, { entities, minThreshold: 0, context: false, phoneLeniency }]),
  ),
);

/** A seeded generator, so the generated texts are the same every run. */
const rng = (seed: number): (() => number) => {
  const r = new Rng(seed);
  return () => r.next();
};

/**
 * Digit runs as people and machines write them, with the prefixes the phone scans care about
 * (country codes, call prefixes, trunk prefixes, the Philippines' mobile and area codes),
 * separators libphonenumber accepts and some it does not, and letters or digits glued on.
 */
function phoneShapedTexts(count: number): string[] {
  const random = rng(20261129);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');
  const PREFIXES = ['', '', '', '+', '+63 ', '+63', '0063 ', '011 63 ', '63', '639', '09', '0', '(0', '(02) ', '02 8', '(032) ', '+1 ', '+44 ', '0044 ', '+49 ', '+91 ', '+81 ', '+86 ', '+972-', '+55 ', '+33 ', '(', '＋63 ', '1-800-', '00', '011 '];
  const SEPARATORS = [' ', ' ', '-', '-', '.', '', '', '/', '–', ' - ', '  ', ')', '\u00a0'];
  const BEFORE = ['', 'Call me at ', 'tel: ', 'mobile no ', 'order ', 'ref', 'Tawag sa ', 'my number is ', 'ID ', 'x'];
  const AFTER = ['', '.', ' ext. 12', 'x3', ' today', 'a', '5', ', thanks', ' or 0917 555 0101'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const groups = 1 + Math.floor(random() * 5);
    let number = pick(PREFIXES);
    for (let g = 0; g < groups; g++) number += (g > 0 ? pick(SEPARATORS) : '') + digits(1 + Math.floor(random() * 5));
    if (random() < 0.05) number = number.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
    out.push(pick(BEFORE) + number + pick(AFTER));
  }
  // Another country's numbers dialled with a region's international call prefix (011 from
  // the US and Canada, 010 from Japan, 00 elsewhere), and Philippine numbers in their forms.
  const foreign = ['44 20 7946 0958', '33 1 23 45 67 89', '49 30 1234567', '63 917 123 4567', '63 2 8123 4567', '81 3 1234 5678', '61 2 9374 4000', '7 495 123 45 67', '234 803 123 4567'];
  for (const idd of ['011 ', '010 ', '00', '00 ', '0011 ', '(011) ']) for (const n of foreign) out.push(`Call ${idd}${n} today`);
  for (const n of ['0917 123 4567', '09171234567', '(02) 8123 4567', '02-8123-4567', '(032) 234 5678', '63 917 123 4567', '639171234567', '1800 1 234 5678', '0917-123-4567 ext. 12']) out.push(`Tawag sa ${n}.`, `mobile no ${n}`);
  return out;
}

function texts(): Array<{ text: string; settings: Record<string, Settings> }> {
  const vectors = [...new Set(loadVectors().map((v) => v.text))];
  const corpus = loadCorpus().map((r) => r.text);
  const typed = generateTypedSet().map((r) => r.text);
  // The detection bench's texts (bench/pii-detect-cpu.ts) and some of the ingest bench's.
  const bench = [...Array.from({ length: 60 }, (_, n) => privateText2kb(n + 1_000_000)), ...Array.from({ length: 20 }, (_, n) => privateText2kb(n * 7919))];
  const short = [...vectors, ...corpus, ...typed];
  const cased = short.filter((_, i) => i % 3 === 0).flatMap((t) => [t.toLowerCase(), t.toUpperCase()]);
  const both = { ...FULL, ...PHONE_ONLY };
  return [
    ...[...short, ...bench].map((text) => ({ text, settings: both })),
    ...cased.map((text) => ({ text, settings: FULL })),
    ...phoneShapedTexts(3000).map((text) => ({ text, settings: { all: FULL.all, ...PHONE_ONLY } })),
  ];
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/**
 * Hash of a text -> a hash of what it finds under each of its settings, for the texts that
 * find anything; with the findings themselves in `shown`, for a failure to show.
 */
function findingsNow(): { count: number; digest: string; findings: Record<string, string>; shown: Record<string, { text: string; found: string }> } {
  const findings: Record<string, string> = {};
  const shown: Record<string, { text: string; found: string }> = {};
  const all = createHash('sha256');
  let count = 0;
  for (const { text, settings } of texts()) {
    const key = hash(`${Object.keys(settings).join(',')}\u0000${text}`);
    all.update(key);
    const lines: string[] = [];
    for (const [label, s] of Object.entries(settings)) {
      count++;
      const found = detectPii(text, s);
      if (found.length > 0) lines.push(`${label}: ${found.map((f) => `${f.entity_type} ${f.start}-${f.end} ${f.score}`).join('; ')}`);
    }
    if (lines.length > 0) {
      findings[key] = hash(lines.join('\n'));
      shown[key] = { text, found: lines.join('\n') };
    }
  }
  return { count, digest: all.digest('hex').slice(0, 16), findings, shown };
}

describe('PII findings stay what they were', () => {
  it('finds exactly what the snapshot holds on every text of the corpora, the bench and the phone-shaped set', () => {
    const now = findingsNow();
    if (process.env.PII_FROZEN_WRITE === '1') {
      const { count, digest, findings } = now;
      writeFileSync(SNAPSHOT, JSON.stringify({ count, digest, findings }).replace(/","/g, '",\n"') + '\n');
    }
    expect(existsSync(SNAPSHOT), 'the snapshot file exists').toBe(true);
    const frozen = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Pick<typeof now, 'count' | 'digest' | 'findings'>;
    // The same texts and settings as when the snapshot was taken.
    expect({ count: now.count, digest: now.digest }).toEqual({ count: frozen.count, digest: frozen.digest });
    const changed = [...new Set([...Object.keys(now.findings), ...Object.keys(frozen.findings)])]
      .filter((k) => now.findings[k] !== frozen.findings[k])
      .map((k) => ({ key: k, text: now.shown[k]?.text ?? '(a text that found something before)', now: now.shown[k]?.found ?? '(nothing)', before: frozen.findings[k] ? 'other findings' : '(nothing)' }));
    expect(changed.slice(0, 20), `${changed.length} texts find something else (of ${now.count} detections)`).toEqual([]);
    // Not a vacuous comparison: the texts hold findings of many types, phone numbers among them.
    expect(Object.keys(now.findings).length).toBeGreaterThan(3000);
    const values = Object.values(now.shown).map((s) => s.found).join('\n');
    for (const type of ['PHONE_NUMBER', 'PH_MOBILE_NUMBER', 'PERSON', 'LOCATION', 'EMAIL_ADDRESS', 'CREDIT_CARD', 'IBAN_CODE', 'US_SSN']) expect(values).toContain(`${type} `);
  }, 600_000);
});
