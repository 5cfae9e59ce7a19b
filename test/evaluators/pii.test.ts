import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EvaluationResult, EvaluatorContext } from '../../src/modules/evaluators/types.ts';
import {
  detectPii,
  ENTITY_DEFAULTS,
  ENTITY_TYPES,
  MAX_INPUT_BYTES,
  piiDetection,
  SUPPORTED_ENTITIES,
  type EntityType,
} from '../../src/modules/evaluators/pii/index.ts';

// Fixtures: Presidio's recognizer test tables and presidio-research's synthetic set (MIT);
// see test/fixtures/presidio/README.md. The checks themselves are the bench's, so the two
// always measure the same thing.
import { corpusSettings, CORPUS_TARGETS, isHeldOut, loadCorpus, scoreCorpus, type CorpusRow, type CorpusType } from '../../bench/pii-corpus.ts';
import { checkVector, loadVectors, type Detect, type Vector } from '../../bench/pii-vectors.ts';

/** Held-out precision and recall as measured when the recognizers were finished. */
const HELD_OUT_FLOORS: Partial<Record<CorpusType, { precision: number; recall: number }>> = {
  PERSON: { precision: 0.9224, recall: 0.6997 },
  LOCATION: { precision: 0.9006, recall: 0.8969 },
  PHONE_NUMBER: { precision: 0.9211, recall: 0.7143 },
  CREDIT_CARD: { precision: 1, recall: 0.9808 },
};

const ctx: EvaluatorContext = { env: {}, fetch, now: () => new Date() };

interface Finding {
  field: 'input' | 'output';
  entity_type: string;
  start: number;
  end: number;
  score: number;
  text: string;
}

async function evaluate(data: { input?: string | null; output?: string | null }, settings: unknown = {}): Promise<EvaluationResult> {
  return piiDetection.evaluate({ data, settings: piiDetection.settings.parse(settings), ctx });
}

function findingsOf(result: EvaluationResult): Finding[] {
  return ((result.raw_response?.findings ?? []) as Finding[]);
}

/** Settings with exactly these entities switched on. */
function only(entities: readonly EntityType[], minThreshold = 0.5) {
  return {
    entities: Object.fromEntries(ENTITY_TYPES.map((t) => [t.toLowerCase(), entities.includes(t)])),
    min_threshold: minThreshold,
  };
}

// --- Presidio's recognizer vectors ---------------------------------------------------

/**
 * Cases this evaluator deliberately answers differently. Each still runs, as `it.fails`,
 * so a change that closes the gap shows up.
 */
const KNOWN_GAPS: Array<{ entity: EntityType; text: string; test: string; leniency?: number; reason: string }> = [
  ...['DE123456789', 'DE987654321', 'DE100000001'].map((text) => ({
    entity: 'DE_VAT_ID' as const,
    text,
    test: 'test_when_de_vat_ids_in_strict_mode_then_checksum_is_enforced',
    reason:
      "needs Presidio's strict-checksum configuration; the default (recall-preserving) mode is implemented, " +
      'and upstream expects this very ID to be found in default mode',
  })),
  {
    entity: 'PHONE_NUMBER',
    text: 'My US number is (415) 555-0132, and my international one is 91-415-555-0132',
    test: 'test_when_phone_with_leniency_then_succeed',
    leniency: 2,
    reason: 'leniency 2 (STRICT_GROUPING): libphonenumber-js only implements POSSIBLE and VALID',
  },
  {
    entity: 'PHONE_NUMBER',
    text: 'My US number is (415) 555-0132, and my international one is +91 4155 550132',
    test: 'test_when_phone_with_leniency_then_succeed',
    leniency: 3,
    reason: 'leniency 3 (EXACT_GROUPING): libphonenumber-js only implements POSSIBLE and VALID',
  },
];

function knownGap(v: Vector) {
  return KNOWN_GAPS.find(
    (g) => g.entity === v.entity && g.text === v.text && v.test.endsWith(g.test) && g.leniency === v.extra.leniency,
  );
}

const detect = detectPii as unknown as Detect;

describe('Presidio recognizer vectors', () => {
  const rows = loadVectors();
  const byEntity = new Map<string, Vector[]>();
  for (const v of rows) byEntity.set(v.entity, [...(byEntity.get(v.entity) ?? []), v]);

  it('covers every entity type in the vectors, and every setting has a recognizer', () => {
    for (const entity of byEntity.keys()) expect(SUPPORTED_ENTITIES.has(entity as EntityType), entity).toBe(true);
    for (const entity of ENTITY_TYPES) expect(SUPPORTED_ENTITIES.has(entity), entity).toBe(true);
  });

  it('answers every case as Presidio does but the known gaps: 1479 of 1484', () => {
    const passed = rows.filter((v) => checkVector(v, detect) === null).length;
    expect(rows).toHaveLength(1484);
    expect(passed).toBe(rows.length - KNOWN_GAPS.length);
  });

  for (const [entity, vectors] of byEntity) {
    describe(entity, () => {
      for (const [i, v] of vectors.entries()) {
        const title = `#${i} ${v.should_detect ? 'finds' : 'ignores'} ${JSON.stringify(v.text).slice(0, 70)}`;
        const gap = knownGap(v);
        // A known gap still runs: when it starts to pass, the list above is out of date.
        if (gap) it(`${title} — known gap: ${gap.reason}`, () => expect(checkVector(v, detect)).not.toBeNull());
        else it(title, () => expect(checkVector(v, detect)).toBeNull());
      }
    });
  }
});

// --- settings ------------------------------------------------------------------------

describe('settings', () => {
  it('defaults to langevals entity keys and defaults, and min_threshold 0.5', () => {
    const s = piiDetection.settings.parse(undefined);
    expect(s.min_threshold).toBe(0.5);
    const on = Object.entries(s.entities).filter(([, v]) => v).map(([k]) => k).sort();
    expect(on).toEqual(['credit_card', 'crypto', 'email_address', 'iban_code', 'ip_address', 'medical_license', 'phone_number']);
    for (const key of ['location', 'person', 'us_ssn', 'uk_nhs', 'sg_nric_fin', 'au_abn', 'in_pan', 'fi_personal_identity_code']) {
      expect(s.entities).toHaveProperty(key, false);
    }
    expect(Object.keys(s.entities)).toHaveLength(Object.keys(ENTITY_DEFAULTS).length);
  });

  it('describes data and settings as JSON Schema (for the evaluator list)', () => {
    const settings = z.toJSONSchema(piiDetection.settings) as { properties: Record<string, { default?: unknown }> };
    expect(settings.properties.min_threshold.default).toBe(0.5);
    const data = z.toJSONSchema(piiDetection.data) as { properties: Record<string, unknown> };
    expect(Object.keys(data.properties)).toEqual(['input', 'output']);
  });

  it.each([
    [{ entities: { not_an_entity: true } }, 'not_an_entity'],
    [{ min_threshold: 1.5 }, 'min_threshold'],
    [{ min_threshold: -0.1 }, 'min_threshold'],
    [{ entities: { person: 'yes' } }, 'person'],
  ])('rejects %j, naming the field', (settings, field) => {
    const parsed = piiDetection.settings.safeParse(settings);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(field);
  });

  const text = 'Write to jane.doe@example.com. My SSN is 536-22-8726. Office: (415) 555-0132.';

  it.each<[string, unknown, string[]]>([
    // the grouped (415) number, valid in the US, scores 0.75 without a context word
    ['defaults', {}, ['EMAIL_ADDRESS', 'PHONE_NUMBER']],
    ['us_ssn switched on', { entities: { us_ssn: true } }, ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'US_SSN']],
    ['email_address switched off', { entities: { email_address: false } }, ['PHONE_NUMBER']],
    ['only us_ssn', only(['US_SSN']), ['US_SSN']],
    ['min_threshold 1 keeps only validated findings', { entities: { us_ssn: true }, min_threshold: 1 }, ['EMAIL_ADDRESS']],
  ])('%s', async (_name, settings, expected) => {
    const result = await evaluate({ input: text }, settings);
    expect(findingsOf(result).map((f) => f.entity_type).sort()).toEqual(expected);
  });

  it.each([
    ['a bare run, a context word before', 'Call my phone: 4155550132', 0.75],
    ['a bare run, a context word after', '4155550132 is my mobile', 0.75],
    ['a bare run, no context word', 'Office: 4155550132', 0.4],
    ['a grouped national number valid in a default region', 'Office: (415) 555-0132', 0.75],
    ['a grouped national number and a context word', 'Call my phone: (415) 555-0132', 1],
    ['a country code', 'Office: +1 415 555 2509', 0.75],
    ['a country code and a context word ("reach", beyond Presidio\'s words)', 'Reach me at +1 415 555 2509', 1],
    ['a phone-shaped group no region takes, and a context word', 'Phone: 451 5986', 0.55],
    ['a phone-shaped group no region takes, no context word', 'Ticket 451 5986', 0.2],
  ])('phone score with %s', async (_name, input, score) => {
    const found = findingsOf(await evaluate({ input }, { min_threshold: 0 })).filter((f) => f.entity_type === 'PHONE_NUMBER');
    expect(found).toHaveLength(1);
    expect(found[0].score).toBeCloseTo(score, 6);
  });

  it('applies min_threshold after context enhancement', async () => {
    const input = 'My SSN is 078051123';
    // 9 bare digits score 0.05; "SSN" lifts that to the 0.4 floor.
    const raw = detectPii(input, { entities: ['US_SSN'], minThreshold: 0, context: false });
    expect(raw.map((f) => f.score)).toEqual([0.05]);
    expect(findingsOf(await evaluate({ input }, only(['US_SSN'], 0.4))).map((f) => f.score)).toEqual([0.4]);
    expect(findingsOf(await evaluate({ input }, only(['US_SSN'], 0.41)))).toEqual([]);
  });
});

// --- result shape, anonymization, offsets ----------------------------------------------

describe('result', () => {
  it('reports findings over input and output together', async () => {
    const result = await evaluate({
      input: 'My card is 4111 1111 1111 1111',
      output: 'I will email jane@example.com about it.',
    });
    expect(result).toMatchObject({
      status: 'processed',
      score: 2,
      passed: false,
      details: 'PII detected: CREDIT_CARD (1.00) in input, EMAIL_ADDRESS (1.00) in output',
    });
    expect(result.raw_response).toEqual({
      findings: [
        { field: 'input', entity_type: 'CREDIT_CARD', start: 11, end: 30, score: 1, text: '4111 1111 1111 1111' },
        { field: 'output', entity_type: 'EMAIL_ADDRESS', start: 13, end: 29, score: 1, text: 'jane@example.com' },
      ],
      anonymized: { input: 'My card is <CREDIT_CARD>', output: 'I will email <EMAIL_ADDRESS> about it.' },
    });
  });

  it('passes when nothing is found', async () => {
    const result = await evaluate({ input: 'What is the capital of France?', output: null });
    expect(result).toMatchObject({ status: 'processed', score: 0, passed: true, details: 'No PII detected' });
    expect(result.raw_response).toEqual({ findings: [], anonymized: { input: 'What is the capital of France?' } });
  });

  it('counts offsets in code points, so an emoji before a finding counts once', async () => {
    const input = '😀👍 mail me at jane@example.com or 🇩🇪 call +49 30 1234567, thanks 🙏';
    const result = await evaluate({ input }, { min_threshold: 0 });
    const found = findingsOf(result);
    expect(found.map((f) => [f.entity_type, f.start, f.end])).toEqual([
      ['EMAIL_ADDRESS', 14, 30],
      ['PHONE_NUMBER', 42, 56],
    ]);
    const codePoints = Array.from(input);
    for (const f of found) expect(codePoints.slice(f.start, f.end).join('')).toBe(f.text);
    expect((result.raw_response as { anonymized: { input: string } }).anonymized.input).toBe(
      '😀👍 mail me at <EMAIL_ADDRESS> or 🇩🇪 call <PHONE_NUMBER>, thanks 🙏',
    );
  });

  it('an e-mail address and the URL inside it: the e-mail, the more specific explanation, wins', async () => {
    const result = await evaluate({ input: 'hey there, my email is foo@bar.com' }, { entities: { url: true } });
    expect(findingsOf(result).map((f) => [f.entity_type, f.text, f.score])).toEqual([['EMAIL_ADDRESS', 'foo@bar.com', 1]]);
    expect(result.details).toBe('PII detected: EMAIL_ADDRESS (1.00) in input');
    expect((result.raw_response as { anonymized: { input: string } }).anonymized.input).toBe('hey there, my email is <EMAIL_ADDRESS>');
  });

  it('finds names and places when asked to', async () => {
    const result = await evaluate(
      { output: 'Maria Garcia flew from Lisbon to Berlin.' },
      { entities: { person: true, location: true } },
    );
    expect(findingsOf(result).map((f) => [f.entity_type, f.text])).toEqual([
      ['PERSON', 'Maria Garcia'],
      ['LOCATION', 'Lisbon'],
      ['LOCATION', 'Berlin'],
    ]);
    expect((result.raw_response as { anonymized: { output: string } }).anonymized.output).toBe(
      '<PERSON> flew from <LOCATION> to <LOCATION>.',
    );
  });

  it('skips when input and output are both empty, and the data schema says why', async () => {
    expect(await evaluate({ input: '  ', output: null })).toMatchObject({ status: 'skipped' });
    const parsed = piiDetection.data.safeParse({ input: null });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toMatch(/input or output/);
    expect(piiDetection.data.safeParse({ input: null, output: 'x' }).success).toBe(true);
  });
});

// --- size limit ------------------------------------------------------------------------

describe('input size', () => {
  it.each([
    ['input and output together over 512 KiB', { input: 'a'.repeat(300_000), output: 'b'.repeat(300_000) }],
    ['2-byte characters: 262,145 chars are 524,290 bytes', { input: 'é'.repeat(MAX_INPUT_BYTES / 2 + 1) }],
  ])('returns InputTooLarge for %s, without throwing', async (_name, data) => {
    const result = await evaluate(data);
    expect(result.status).toBe('error');
    expect(result.error_type).toBe('InputTooLarge');
    expect(result.details).toContain('524288');
  });

  it('accepts exactly 512 KiB', async () => {
    const input = 'x'.repeat(MAX_INPUT_BYTES - 30) + ' jane@example.com ' + 'y'.repeat(12);
    expect(Buffer.byteLength(input)).toBe(MAX_INPUT_BYTES);
    const result = await evaluate({ input });
    expect(result).toMatchObject({ status: 'processed', score: 1 });
  });
});

// --- presidio-research's synthetic corpus (the detection's measurement) ---------------------

describe("presidio-research's synthetic corpus", () => {
  const rows = loadCorpus();
  const settings = corpusSettings(ENTITY_TYPES.map((t) => t.toLowerCase()));
  let findings: Map<number, Finding[]>;

  beforeAll(async () => {
    findings = new Map();
    for (const row of rows) findings.set(row.id, findingsOf(await evaluate({ input: row.text }, settings)));
  }, 120_000);

  const score = (part: CorpusRow[]) => scoreCorpus(part, (row) => findings.get(row.id) ?? []);

  it('meets the targets on the whole corpus', () => {
    const all = score(rows);
    for (const [type, target] of Object.entries(CORPUS_TARGETS) as Array<[CorpusType, NonNullable<(typeof CORPUS_TARGETS)[CorpusType]>]>) {
      const s = all[type];
      const label = `${type}: P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`;
      expect(s[target.metric], label).toBeGreaterThanOrEqual(target.min);
      expect(s.precision, label).toBeGreaterThanOrEqual(target.precision);
    }
    expect(all.EMAIL_ADDRESS).toMatchObject({ precision: 1, recall: 1 });
  });

  // Measured once the recognizers were done, never tuned on (see bench/pii-corpus.ts); a
  // change that loses more than 0.02 on these templates shows here.
  it.each(Object.entries(HELD_OUT_FLOORS))('keeps %s on the held-out templates', (type, floor) => {
    const s = score(rows.filter(isHeldOut))[type as CorpusType];
    expect(s.precision, `${type} precision`).toBeGreaterThanOrEqual(floor.precision - 0.02);
    expect(s.recall, `${type} recall`).toBeGreaterThanOrEqual(floor.recall - 0.02);
  });
});
