import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
// see test/fixtures/presidio/README.md.
const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/presidio/${name}`, import.meta.url), 'utf8')) as T;

interface Vector {
  text: string;
  entity: EntityType;
  should_detect: boolean;
  expected_count: number;
  spans: Array<[number, number]> | null;
  extra: {
    expected_score_ranges?: Array<[number | 'max', number | 'max']>;
    expected_score?: number | null | unknown[];
    score?: number;
    leniency?: number;
  };
  recognizer: string | null;
  test: string;
}

interface SynthRow {
  id: number;
  text: string;
  entities: Array<{ type: string; start: number; end: number }>;
}

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

const LENIENCY = { 0: 'POSSIBLE', 1: 'VALID' } as const;

async function checkVector(v: Vector): Promise<void> {
  const leniency = v.extra.leniency;
  // The evaluator has no leniency setting; cases that set one go to detectPii directly.
  let found: Array<{ start: number; end: number }>;
  if (leniency === undefined || leniency === 1) {
    const result = await evaluate({ input: v.text }, only([v.entity], 0));
    expect(['processed', 'skipped']).toContain(result.status);
    found = findingsOf(result).filter((f) => f.entity_type === v.entity);
  } else {
    found = detectPii(v.text, {
      entities: [v.entity],
      minThreshold: 0,
      phoneLeniency: LENIENCY[leniency as 0 | 1] ?? 'VALID',
    });
  }
  expect(found.length, 'number of findings').toBe(v.expected_count);
  if (v.spans) {
    const spans = found.map((f) => [f.start, f.end]).sort((a, b) => a[0] - b[0]);
    expect(spans).toEqual([...v.spans].sort((a, b) => a[0] - b[0]));
  }

  // Presidio's recognizer tests score without NLP artifacts, i.e. without context words.
  const raw = detectPii(v.text, { entities: [v.entity], minThreshold: 0, context: false }).sort((a, b) => a.start - b.start);
  const ranges = v.extra.expected_score_ranges;
  if (ranges && ranges.length === raw.length) {
    ranges.forEach(([lo, hi], i) => {
      expect(raw[i].score).toBeGreaterThanOrEqual((lo === 'max' ? 1 : lo) - 1e-9);
      expect(raw[i].score).toBeLessThanOrEqual((hi === 'max' ? 1 : hi) + 1e-9);
    });
  }
  const expectedScore = typeof v.extra.expected_score === 'number' && v.extra.expected_score > 0 ? v.extra.expected_score : v.extra.score;
  if (expectedScore !== undefined) for (const r of raw) expect(r.score).toBeCloseTo(expectedScore, 6);
}

describe('Presidio recognizer vectors', () => {
  const { rows } = fixture<{ rows: Vector[] }>('recognizer_vectors.json');
  const byEntity = new Map<EntityType, Vector[]>();
  for (const v of rows) byEntity.set(v.entity, [...(byEntity.get(v.entity) ?? []), v]);

  it('covers every entity type in the vectors, and every setting has a recognizer', () => {
    for (const entity of byEntity.keys()) expect(SUPPORTED_ENTITIES.has(entity), entity).toBe(true);
    for (const entity of ENTITY_TYPES) expect(SUPPORTED_ENTITIES.has(entity), entity).toBe(true);
  });

  for (const [entity, vectors] of byEntity) {
    describe(entity, () => {
      for (const [i, v] of vectors.entries()) {
        const title = `#${i} ${v.should_detect ? 'finds' : 'ignores'} ${JSON.stringify(v.text).slice(0, 70)}`;
        const gap = knownGap(v);
        if (gap) it.fails(`${title} — known gap: ${gap.reason}`, () => checkVector(v));
        else it(title, () => checkVector(v));
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

  const text = 'Write to jane.doe@example.com. My SSN is 536-22-8726. Reach me at (415) 555-0132.';

  it.each<[string, unknown, string[]]>([
    ['defaults', {}, ['EMAIL_ADDRESS']],
    ['us_ssn switched on', { entities: { us_ssn: true } }, ['EMAIL_ADDRESS', 'US_SSN']],
    ['email_address switched off', { entities: { email_address: false } }, []],
    ['only us_ssn', only(['US_SSN']), ['US_SSN']],
    // the phone number scores 0.4 (no context word near it): below the default threshold
    ['min_threshold 0.3', { min_threshold: 0.3 }, ['EMAIL_ADDRESS', 'PHONE_NUMBER']],
    ['min_threshold 1 keeps only validated findings', { entities: { us_ssn: true }, min_threshold: 1 }, ['EMAIL_ADDRESS']],
  ])('%s', async (_name, settings, expected) => {
    const result = await evaluate({ input: text }, settings);
    expect(findingsOf(result).map((f) => f.entity_type).sort()).toEqual(expected);
  });

  it.each([
    ['a context word before', 'Call my phone: (415) 555-0132', 0.75],
    ['a context word after', '(415) 555-0132 is my mobile', 0.75],
    ['no context word', 'Reach me at (415) 555-0132', 0.4],
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

  it('keeps both an e-mail and the URL inside it as findings, but anonymizes the e-mail once', async () => {
    const result = await evaluate({ input: 'hey there, my email is foo@bar.com' }, { entities: { url: true } });
    expect(findingsOf(result).map((f) => [f.entity_type, f.text, f.score])).toEqual([
      ['EMAIL_ADDRESS', 'foo@bar.com', 1],
      ['URL', 'bar.com', 0.5],
    ]);
    expect(result.details).toBe('PII detected: EMAIL_ADDRESS (1.00) in input, URL (0.50) in input');
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

// --- PERSON / LOCATION on presidio-research's synthetic set --------------------------

describe('PERSON and LOCATION on the synthetic dataset', () => {
  // Span-level: a prediction is right when it overlaps a gold span of its type; a gold span
  // is found when some prediction overlaps it. LOCATION is scored against GPE; places
  // predicted inside a gold STREET_ADDRESS count neither way (an address's town is a place).
  const GOLD: Record<'PERSON' | 'LOCATION', { gold: string[]; neutral: string[]; floor: number }> = {
    // measured on these 750 rows: PERSON F1 0.706 (P 0.729, R 0.685), LOCATION F1 0.737 (P 0.831, R 0.662)
    PERSON: { gold: ['PERSON'], neutral: [], floor: 0.68 },
    LOCATION: { gold: ['GPE'], neutral: ['STREET_ADDRESS'], floor: 0.71 },
  };

  it('keeps F1 above the floor', { timeout: 120_000 }, async () => {
    const { rows } = fixture<{ rows: SynthRow[] }>('synth_dataset_v2_person_location.json');
    const counts = { PERSON: { tp: 0, fp: 0, found: 0, gold: 0 }, LOCATION: { tp: 0, fp: 0, found: 0, gold: 0 } };
    const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;
    for (const row of rows) {
      const result = await evaluate({ input: row.text }, only(['PERSON', 'LOCATION']));
      const findings = findingsOf(result);
      for (const entity of ['PERSON', 'LOCATION'] as const) {
        const c = counts[entity];
        const gold = row.entities.filter((e) => GOLD[entity].gold.includes(e.type));
        const neutral = row.entities.filter((e) => GOLD[entity].neutral.includes(e.type));
        const predicted = findings.filter((f) => f.entity_type === entity);
        for (const p of predicted) {
          if (gold.some((g) => overlaps(p, g))) c.tp++;
          else if (!neutral.some((n) => overlaps(p, n))) c.fp++;
        }
        c.gold += gold.length;
        c.found += gold.filter((g) => predicted.some((p) => overlaps(p, g))).length;
      }
    }
    for (const entity of ['PERSON', 'LOCATION'] as const) {
      const { tp, fp, found, gold } = counts[entity];
      const precision = tp / (tp + fp);
      const recall = found / gold;
      const f1 = (2 * precision * recall) / (precision + recall);
      expect(f1, `${entity} F1 (P ${precision.toFixed(3)}, R ${recall.toFixed(3)})`).toBeGreaterThanOrEqual(GOLD[entity].floor);
    }
  });
});
