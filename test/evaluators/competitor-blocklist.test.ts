import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../../src/modules/evaluators/types.ts';
import {
  competitorBlocklist,
  DEFAULT_COMPETITORS,
  findCompetitorMentions,
} from '../../src/modules/evaluators/llm/competitor-blocklist.ts';

interface Case {
  name: string;
  data: unknown;
  settings?: unknown;
  expected: {
    status: EvaluationResult['status'];
    score?: number;
    passed?: boolean;
    details?: string;
    /** The matched text, in order (input first, then output), as langevals lists it. */
    matches?: string[];
  };
}

async function run(definition: EvaluatorDefinition, c: Case): Promise<EvaluationResult> {
  return definition.evaluate({
    data: definition.data.parse(c.data),
    settings: definition.settings.parse(c.settings ?? {}),
    ctx: { env: {}, fetch, now: () => new Date() },
  });
}

function check(result: EvaluationResult, expected: Case['expected']): void {
  expect(result.status).toBe(expected.status);
  if (expected.score !== undefined) expect(result.score).toBe(expected.score);
  if (expected.passed !== undefined) expect(result.passed).toBe(expected.passed);
  if (expected.details !== undefined) expect(result.details).toBe(expected.details);
  if (expected.matches !== undefined) {
    const matches = (result.raw_response?.matches ?? []) as Array<{ text: string }>;
    expect(matches.map((m) => m.text)).toEqual(expected.matches);
  }
}

const cases: Case[] = [
  {
    // Default list. input: OpenAI 1, Google 1; output: openai, OPENAI = 2 more. 4 mentions.
    // Details list the names as configured, in list order, with their counts.
    name: 'default competitors, repeats counted in input and output',
    data: { input: 'Should I use OpenAI or Google?', output: "openai is fine; OPENAI's newest model too." },
    expected: {
      status: 'processed',
      score: 4,
      passed: false,
      details: 'Competitors mentioned: OpenAI (3), Google (1)',
      matches: ['OpenAI', 'Google', 'openai', 'OPENAI'],
    },
  },
  {
    name: 'case-insensitive',
    data: { output: 'Have you tried MICROSOFT copilot or microsoft word?' },
    expected: { status: 'processed', score: 2, passed: false, details: 'Competitors mentioned: Microsoft (2)' },
  },
  {
    // Every name is literal: "C++", "Yahoo!", "a|b", "(Acme)", "$5", "^Top" each occur once.
    // "A.I.Corp" must not match "AxIxCorp" and "[x]" must not match a lone "x", which an
    // unescaped pattern would do ("a|b" alone would match every "a").
    name: 'regex metacharacters in names are literal',
    data: { output: 'We beat C++ and yahoo! and a|b, not AxIxCorp or x; (acme) costs $5 ^top' },
    settings: { competitors: ['C++', 'Yahoo!', 'A.I.Corp', 'a|b', '[x]', '(Acme)', '$5', '^Top'] },
    expected: {
      status: 'processed',
      score: 6,
      passed: false,
      details: 'Competitors mentioned: C++ (1), Yahoo! (1), a|b (1), (Acme) (1), $5 (1), ^Top (1)',
      matches: ['C++', 'yahoo!', 'a|b', '(acme)', '$5', '^top'],
    },
  },
  {
    name: 'none found',
    data: { input: 'What is the weather today?', output: 'Sunny, 24 degrees.' },
    expected: { status: 'processed', score: 0, passed: true, details: 'No competitors mentioned.', matches: [] },
  },
  {
    // Substring search as langevals: "Googled" contains "Google".
    name: 'substring inside a longer word counts',
    data: { input: 'I Googled it.' },
    expected: { status: 'processed', score: 1, passed: false, details: 'Competitors mentioned: Google (1)' },
  },
  {
    // A name can carry its own spaces to act as a word boundary: " Bard " is not in "Bardot".
    name: 'spaces in a name act as boundaries',
    data: { input: 'Bardot met Bard today' },
    settings: { competitors: [' Bard '] },
    expected: { status: 'processed', score: 1, passed: false, matches: [' Bard '] },
  },
  {
    // Unicode case folding: "ÜBER" and "über" both match "Über".
    name: 'non-ASCII names match case-insensitively',
    data: { output: 'ÜBER is a rival, and über too.' },
    settings: { competitors: ['Über'] },
    expected: { status: 'processed', score: 2, details: 'Competitors mentioned: Über (2)' },
  },
  {
    // Input and output are searched separately: "Open" + "AI" is no mention.
    name: 'no mention across the input/output boundary',
    data: { input: 'Open', output: 'AI' },
    settings: { competitors: ['OpenAI'] },
    expected: { status: 'processed', score: 0, passed: true },
  },
  {
    name: 'only input given',
    data: { input: 'Compare with Google' },
    expected: { status: 'processed', score: 1, passed: false },
  },
  {
    // langevals: an empty text mentions no competitor (processed, passed, score 0).
    name: 'empty input and output: processed and passed',
    data: { input: '', output: '' },
    expected: { status: 'processed', score: 0, passed: true, details: 'No competitors mentioned.', matches: [] },
  },
  {
    name: 'missing input and output: processed and passed',
    data: {},
    expected: { status: 'processed', score: 0, passed: true, matches: [] },
  },
  {
    name: 'null and whitespace only: processed and passed',
    data: { input: null, output: '  \n' },
    expected: { status: 'processed', score: 0, passed: true, matches: [] },
  },
];

describe('llm/competitor_blocklist', () => {
  it('is declared for the catalogue, with langevals defaults', () => {
    expect(competitorBlocklist.path).toBe('llm/competitor_blocklist');
    expect(competitorBlocklist.category).toBe('policy');
    expect(competitorBlocklist.isCostly).toBe(false);
    expect(competitorBlocklist.requiredEnv).toEqual([]);
    expect(competitorBlocklist.settings.parse({})).toEqual({ competitors: ['OpenAI', 'Google', 'Microsoft'] });
    expect(DEFAULT_COMPETITORS).toEqual(['OpenAI', 'Google', 'Microsoft']);

    const schema = z.toJSONSchema(competitorBlocklist.settings, { io: 'input' }) as {
      properties: Record<string, { default?: unknown; description?: string }>;
    };
    expect(schema.properties.competitors.default).toEqual(['OpenAI', 'Google', 'Microsoft']);
    expect(schema.properties.competitors.description).toMatch(/case-insensitively/);
    const dataSchema = z.toJSONSchema(competitorBlocklist.data, { io: 'input' }) as {
      properties: Record<string, { description?: string }>;
    };
    expect(dataSchema.properties.input.description).toBeTruthy();
    expect(dataSchema.properties.output.description).toBeTruthy();
  });

  it('rejects an empty list or a blank name, naming the field', () => {
    const empty = competitorBlocklist.settings.safeParse({ competitors: [] });
    expect(empty.success).toBe(false);
    expect(empty.error?.issues[0].path).toEqual(['competitors']);
    const blank = competitorBlocklist.settings.safeParse({ competitors: ['OpenAI', ' '] });
    expect(blank.success).toBe(false);
    expect(blank.error?.issues[0].path).toEqual(['competitors', 1]);
    expect(blank.error?.issues[0].message).toMatch(/blank/);
  });

  for (const c of cases) {
    it(c.name, async () => check(await run(competitorBlocklist, c), c.expected));
  }

  it('findCompetitorMentions tells which name matched and where', () => {
    expect(findCompetitorMentions(['Man City', 'Liverpool'], { input: 'liverpool', output: 'Man City' })).toEqual([
      { competitor: 'Liverpool', text: 'liverpool', field: 'input' },
      { competitor: 'Man City', text: 'Man City', field: 'output' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------
// langevals' own cases (test/fixtures/langevals, copied from langwatch/langevals @ 033f1df5, MIT).

interface LangevalsCase {
  id: string;
  entry: { input?: string; output?: string };
  settings: { competitors: string[] };
  expected: { status: string; score: number; passed: boolean; details?: string };
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/langevals/competitor_blocklist_cases.json', import.meta.url), 'utf8'),
) as { cases: LangevalsCase[] };

/**
 * Where Spyglass deliberately differs from langevals:
 * - details name each configured competitor once with its count; the raw matches langevals
 *   prints ("Competitors mentioned: liverpool, Man City") are kept, in the same order, in
 *   raw_response.matches.
 */
const DEVIATIONS: Record<string, Case['expected']> = {};

const LANGEVALS_DETAILS_PREFIX = 'Competitors mentioned: ';

function fromLangevals(c: LangevalsCase): Case {
  const expected: Case['expected'] = DEVIATIONS[c.id] ?? {
    status: c.expected.status as EvaluationResult['status'],
    score: c.expected.score,
    passed: c.expected.passed,
    // Upstream tests that failed without asserting details say nothing about the matches.
    matches: c.expected.details
      ? c.expected.details.slice(LANGEVALS_DETAILS_PREFIX.length).split(', ')
      : c.expected.passed
        ? []
        : undefined,
  };
  return { name: c.id, data: c.entry, settings: c.settings, expected };
}

describe('llm/competitor_blocklist against langevals cases', () => {
  it('has the fixture cases', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(9);
  });
  for (const c of fixture.cases.map(fromLangevals)) {
    it(c.name, async () => check(await run(competitorBlocklist, c), c.expected));
  }

  it('overlapping names: the earlier name in the list wins at the same position, as in Python re', async () => {
    const result = await run(competitorBlocklist, {
      name: 'overlap',
      data: { input: 'Man City Women play today' },
      settings: { competitors: ['Man City', 'Man City Women'] },
      expected: { status: 'processed' },
    });
    expect(result.details).toBe('Competitors mentioned: Man City (1)');
  });
});
