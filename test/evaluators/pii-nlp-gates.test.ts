import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lookupArea, mayStartArea } from '../../src/modules/evaluators/pii/gazetteer.ts';
import { extractNlpEntities } from '../../src/modules/evaluators/pii/nlp.ts';

const require = createRequire(import.meta.url);

/** Every country and region name the data packages hold, in every language they have. */
function areaNames(): string[] {
  const names: string[] = [];
  const langs = path.join(path.dirname(require.resolve('i18n-iso-countries/langs/en.json')));
  for (const file of readdirSync(langs).filter((f) => f.endsWith('.json'))) {
    const { countries } = JSON.parse(readFileSync(path.join(langs, file), 'utf8')) as { countries: Record<string, string | string[]> };
    for (const value of Object.values(countries)) names.push(...(Array.isArray(value) ? value : [value]));
  }
  const { data } = require('iso-3166-2') as { data: Record<string, { sub: Record<string, { name: string }> }> };
  for (const country of Object.values(data)) for (const sub of Object.values(country.sub)) names.push(sub.name);
  return names;
}

/**
 * The name detector looks a phrase of two words or more up as a country or region only when
 * mayStartArea() accepts its first word: every such name the gazetteer holds must start with
 * a word it accepts, however the word is written, or a name would be missed.
 */
describe('names and places: phrases looked up as countries and regions only after a word that starts one', () => {
  it('accepts the first word of every country or region of two words or more', () => {
    let checked = 0;
    for (const raw of areaNames()) {
      const name = raw.trim();
      const space = name.indexOf(' ');
      if (space < 0) continue;
      const first = name.slice(0, space);
      for (const written of [first, first.toUpperCase(), first.toLowerCase()]) {
        // Only the phrases the gazetteer knows (its languages, not every file's; "BATI SAHARA" is not "Batı Sahara").
        if (lookupArea(written + name.slice(space)) === null) continue;
        if (!mayStartArea(written)) throw new Error(`"${written}" starts "${name}" but is not accepted`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('finds such names in text, and turns down words that start none', () => {
    expect(mayStartArea('Maria')).toBe(false);
    expect(mayStartArea('New')).toBe(true);
    const found = extractNlpEntities('We moved from New Zealand to the Czech Republic, then to Bosnia and Herzegovina.').map((e) => e.entity);
    expect(found).toEqual(['LOCATION', 'LOCATION', 'LOCATION']);
  });
});
