import { beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../src/modules/evaluators/pii/index.ts';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
// The seeded set and its scoring are the bench's, so the test and `npm run bench` measure the same thing.
import { generateTypedSet, scoreTypedSet, TYPED_TARGETS, type TypedFinding, type TypedGoldType, type TypedRow } from '../../bench/pii-typed-set.ts';

const rows = generateTypedSet();

/** ISO 13616 mod 97, written independently of the evaluator's checksum code. */
function mod97Valid(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  const digits = [...(compact.slice(4) + compact.slice(0, 4))].map((ch) => (/[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch)).join('');
  return BigInt(digits) % 97n === 1n;
}

describe('the seeded set of IBANs and dates', () => {
  it('is the same every time and holds what the targets are about', () => {
    expect(generateTypedSet()).toEqual(rows);
    const ibans = rows.filter((r) => r.gold.type === 'IBAN_CODE');
    expect(ibans.every((r) => mod97Valid(r.gold.value))).toBe(true);
    expect(new Set(ibans.map((r) => r.gold.value.slice(0, 2))).size).toBeGreaterThanOrEqual(60);
    expect(new Set(ibans.map((r) => r.form))).toEqual(new Set(['compact', 'grouped']));
    const dates = rows.filter((r) => r.gold.type === 'DATE_TIME').map((r) => r.gold.value);
    for (const written of [/^\d{4}-\d\d-\d\d$/, /^\d\d\/\d\d\/\d{4}$/, /^[A-Z][a-z]+ \d{1,2}, \d{4}$/, /^\d{1,2} [A-Z][a-z]+ \d{4}$/, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/]) {
      expect(dates.filter((d) => written.test(d)).length, String(written)).toBeGreaterThanOrEqual(8);
    }
    for (const r of rows) expect(r.text.slice(r.gold.start, r.gold.end)).toBe(r.gold.value);
  });
});

/**
 * Hardening item 8: with every entity enabled, an IBAN with a valid checksum is named
 * IBAN_CODE (not the card, national id or bank number some of its digits spell) and a date
 * DATE_TIME (not a licence plate, a phone number or a street address).
 */
describe.each(appDatabaseKinds)('pii/pii_detection names IBANs and dates as what they are, every entity enabled (%s)', (kind) => {
  let app: ProjectApp;
  useProjectApp(kind, (started) => (app = started));
  const all = { entities: Object.fromEntries(ENTITY_TYPES.map((t) => [t.toLowerCase(), true])) };
  const found: TypedFinding[][] = [];

  beforeAll(async () => {
    const evaluate = async (row: TypedRow): Promise<TypedFinding[]> => {
      const res = await app.t.request('POST', '/api/evaluations/pii/pii_detection/evaluate', {
        authToken: app.key,
        body: { data: { input: row.text }, settings: all },
      });
      expect(res.status).toBe(200);
      expect(res.body[0].status).toBe('processed');
      return res.body[0].raw_response.findings;
    };
    // A few requests in flight at a time: the server is the same either way, and the set is 346 rows.
    for (let i = 0; i < rows.length; i += 8) {
      const batch = await Promise.all(rows.slice(i, i + 8).map(evaluate));
      found.push(...batch);
    }
  }, 240_000);

  it.each(Object.entries(TYPED_TARGETS) as Array<[TypedGoldType, number]>)('%s recall by type is at least %s', (type, target) => {
    const score = scoreTypedSet(rows, (_row, i) => found[i])[type];
    const misnamed = rows
      .map((row, i) => ({ row, named: found[i].filter((f) => f.start < row.gold.end && row.gold.start < f.end).map((f) => f.entity_type) }))
      .filter(({ row, named }) => row.gold.type === type && !named.includes(type))
      .map(({ row, named }) => `${row.form}: ${row.gold.value} -> ${named.join(', ') || 'nothing'}`);
    expect(score.recall, misnamed.join('\n')).toBeGreaterThanOrEqual(target);
  });
});
