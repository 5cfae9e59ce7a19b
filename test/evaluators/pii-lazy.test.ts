import { describe, expect, it } from 'vitest';
import { gazetteerLoaded } from '../../src/modules/evaluators/pii/gazetteer.ts';
import { lexiconLoaded } from '../../src/modules/evaluators/pii/lexicon.ts';
import { piiDetection } from '../../src/modules/evaluators/pii/index.ts';

// Its own file, so no other test has loaded anything in this process yet.
describe('PII word lists and gazetteers load on first use', () => {
  const ctx = { env: {}, fetch, now: () => new Date() };
  const run = (input: string, settings: unknown) => piiDetection.evaluate({ data: { input }, settings: piiDetection.settings.parse(settings), ctx });

  it('the defaults load neither towns nor word lists; names and places load them', async () => {
    expect(gazetteerLoaded()).toEqual({ areas: false, cities: false });
    // The US scan takes the number, so the countries the text names are not looked up.
    await run('Write to jane@example.com or call (415) 555-0132 in Belgium.', {});
    expect(gazetteerLoaded()).toEqual({ areas: false, cities: false });
    // No default region takes this one: the phone scan asks which countries the text names.
    await run('My number in Cyprus is 22 123456.', {});
    expect(gazetteerLoaded()).toEqual({ areas: true, cities: false });
    expect(lexiconLoaded()).toBe(false);
    await run('Maria Garcia lives in Lappeenranta.', { entities: { person: true, location: true } });
    expect(gazetteerLoaded().cities).toBe(true);
    expect(lexiconLoaded()).toBe(true);
  });
});
