import { createRequire } from 'node:module';
import nlp from 'compromise';
import type { EntityType } from './entities.ts';
import type { RawResult, Recognizer } from './recognizer.ts';

/**
 * PERSON, LOCATION and NRP without model weights. compromise's tagger (its Person and Place
 * tags) does most of the work; on top of it:
 * - a first-name list (gender-detection-from-name, MIT) for names compromise does not know,
 *   extended over the capitalised words that follow ("Hijacinta Godina");
 * - wording that marks a name: "Mr./Dr./Sir X", "my name is X", "called X", and names
 *   listed next to a known one ("Marrero and Murphy");
 * - a capitalised word after "in/to/from/at/near" as a place ("flew to LEPPEN");
 * - no PERSON for street names ("3911 Fourth Avenue").
 * Presidio's spaCy recognizer scores every entity 0.85; so do compromise's tags and the
 * wording cues, while list- and position-only guesses get 0.6 (above the default 0.5).
 * On presidio-research's synthetic set this gives span-level F1 of about 0.71 for PERSON
 * and 0.74 for LOCATION (GPE).
 */
export interface NlpEntity {
  entity: EntityType;
  start: number;
  end: number;
  score: number;
}

const TAGGED_SCORE = 0.85;
const NAME_LIST_SCORE = 0.6;
const NRP_SCORE = 0.85;

const require = createRequire(import.meta.url);
let firstNames: ReadonlySet<string> | null = null;
/** ~80k first names, loaded on the first text that needs them. */
function isFirstName(word: string): boolean {
  if (!firstNames) {
    const names = new Set<string>();
    for (const lang of ['en', 'fr', 'de', 'es', 'it', 'tr']) {
      const map = require(`gender-detection-from-name/names/${lang}.js`) as Map<string, string>;
      for (const name of map.keys()) if (name.length > 1 && !name.includes(' ')) names.add(name);
    }
    firstNames = names;
  }
  return firstNames.has(word);
}

/** What compromise knows a word to be; a sentence-initial word it knows as something else is not a name. */
const LEXICON = (nlp.world() as { model: { one: { lexicon: Record<string, string | undefined> } } }).model.one.lexicon;

// Tags that rule a word out as (part of) a personal name, whatever the name list says.
const NOT_A_NAME = [
  'Verb', 'Adjective', 'Adverb', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Date', 'Month', 'WeekDay',
  'Place', 'Organization', 'Value', 'Expression', 'QuestionWord', 'Honorific', 'Possessive', 'Acronym', 'Url',
  'Email', 'PhoneNumber',
];

interface Term {
  text: string;
  normal: string;
  post: string;
  tags: Set<string>;
  offset: { start: number; length: number };
}

const TITLE_CASE = /^\p{Lu}[\p{Ll}\p{Lu}'’-]*$/u;

function hasAny(tags: Set<string>, list: readonly string[]): boolean {
  return list.some((t) => tags.has(t));
}

function isPersonTerm(t: Term, first: boolean): boolean {
  if (t.tags.has('Person') && !t.tags.has('Honorific')) return true;
  if (!TITLE_CASE.test(t.text) || hasAny(t.tags, NOT_A_NAME)) return false;
  return first ? isFirstName(t.normal) : t.tags.has('ProperNoun');
}

// Nationalities, religions and political groups (Presidio's NRP, from spaCy's NORP).
const NRP_WORDS = (
  'Afghan African Albanian Algerian American Andorran Angolan Argentine Argentinian Armenian Asian Australian Austrian ' +
  'Azerbaijani Bahraini Bangladeshi Belarusian Belgian Bolivian Bosnian Brazilian British Bulgarian Burmese Cambodian ' +
  'Cameroonian Canadian Chilean Chinese Colombian Congolese Croatian Cuban Cypriot Czech Danish Dominican Dutch ' +
  'Ecuadorian Egyptian Emirati English Eritrean Estonian Ethiopian European Filipino Finnish French Georgian German ' +
  'Ghanaian Greek Guatemalan Haitian Honduran Hungarian Icelandic Indian Indonesian Iranian Iraqi Irish Israeli ' +
  'Italian Ivorian Jamaican Japanese Jordanian Kazakh Kenyan Korean Kosovar Kurdish Kuwaiti Kyrgyz Lao Latvian ' +
  'Lebanese Liberian Libyan Lithuanian Luxembourgish Macedonian Malagasy Malaysian Maltese Mexican Moldovan ' +
  'Mongolian Montenegrin Moroccan Mozambican Namibian Nepalese Nepali Nicaraguan Nigerian Norwegian Omani Pakistani ' +
  'Palestinian Panamanian Paraguayan Persian Peruvian Polish Portuguese Qatari Romanian Russian Rwandan Saudi ' +
  'Scottish Senegalese Serbian Singaporean Slovak Slovenian Somali Spanish Sudanese Swedish Swiss Syrian Taiwanese ' +
  'Tajik Tanzanian Thai Tibetan Tunisian Turkish Turkmen Ugandan Ukrainian Uruguayan Uzbek Venezuelan Vietnamese ' +
  'Welsh Yemeni Zambian Zimbabwean Arab Arabic Hispanic Latino Latina Latinx Caucasian Sikh Hindu Hindus Muslim ' +
  'Muslims Islamic Christian Christians Catholic Catholics Protestant Protestants Jewish Jew Jews Buddhist Buddhists ' +
  'Atheist Atheists Orthodox Mormon Mormons Evangelical Evangelicals Lutheran Baptist Methodist Anglican Sunni Shia ' +
  "Shi'ite Jain Taoist Democrat Democrats Democratic Republican Republicans Conservative Conservatives Liberal " +
  'Liberals Labour Tory Tories Socialist Socialists Communist Communists Libertarian Libertarians Green Greens'
).split(' ');
const NRP_SET = new Set(NRP_WORDS);
// Words that are NRP only when capitalised mid-sentence and next to a noun are not worth
// the false positives; these stay out unless compromise tags them Demonym.
const NRP_AMBIGUOUS = new Set(['Green', 'Greens', 'Liberal', 'Conservative', 'Democratic', 'Orthodox', 'Evangelical']);

// Words that end a street name: a "name" next to them is part of an address.
const STREET_WORDS = new Set(
  ('street st avenue ave road rd drive dr lane ln boulevard blvd way court ct place pl square sq terrace ' +
    'highway hwy parkway pkwy crescent close row alley apt apartment suite unit floor').split(' '),
);
const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'madam', 'dame', 'lord', 'lady']);
// "in Tobel", "flew to LEPPEN": a capitalised word after these is most often a place.
const PLACE_PREPOSITIONS = new Set(['in', 'to', 'from', 'near', 'at', 'visiting', 'visited', 'around']);
const NOT_A_PLACE = ['Person', 'Organization', 'Date', 'Month', 'WeekDay', 'Pronoun', 'Value', 'Verb', 'Adjective', 'Determiner', 'Url', 'Email'];
const UPPER_WORD = /^\p{Lu}[\p{L}'’-]+$/u;

function isNumberTerm(t: Term | undefined): boolean {
  return !!t && /^[0-9]/.test(t.text);
}

function breaksAfter(t: Term): boolean {
  return /[,;:.!?()\n"]/.test(t.post);
}

/** A capitalised run that the sentence's wording marks as a name ("Mr. X", "my name is X"). */
function personCue(sentence: readonly Term[], i: number): boolean {
  const prev = sentence[i - 1];
  if (!prev) return false;
  if (HONORIFICS.has(prev.normal.replace(/\.$/, '')) || prev.tags.has('Honorific')) return true;
  if (prev.normal === 'named' || prev.normal === 'called') return true;
  const prev2 = sentence[i - 2];
  return prev.normal === 'is' && prev2?.normal === 'name';
}

const SEGMENT = /[^\n.!?]*(?:[.!?]+|\n|$)/g;
const WORD_RE = /\p{L}[\p{L}'’-]*/gu;
const NAME_OR_PLACE_TAG = /Name|Person|Place|City|Country|Region|Demonym|Honorific/;

/** Could this sentence hold a name, place or NRP? Only capitalised words can. */
function mayHoldEntities(segment: string): boolean {
  WORD_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = WORD_RE.exec(segment)) !== null) {
    const word = m[0];
    if (/^\p{Lu}/u.test(word)) {
      if (!first) return true;
      // A capitalised first word is only a candidate when it is not just any word.
      const lower = word.toLowerCase();
      const tag = LEXICON[lower];
      if (tag === undefined || NAME_OR_PLACE_TAG.test(tag) || isFirstName(lower) || HONORIFICS.has(lower) || NRP_SET.has(word)) {
        return true;
      }
    }
    first = false;
  }
  return false;
}

/**
 * compromise costs several milliseconds per kilobyte, so sentences without a capitalised
 * word worth looking at are blanked out first (same length, so offsets stay valid).
 * Returns null when nothing is left to tag.
 */
function keepCandidateSentences(text: string): string | null {
  let out = '';
  let kept = false;
  SEGMENT.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = SEGMENT.exec(text)) !== null) {
    if (m[0].length === 0) {
      if (SEGMENT.lastIndex >= text.length) break;
      SEGMENT.lastIndex++;
      continue;
    }
    if (mayHoldEntities(m[0])) {
      out += m[0];
      kept = true;
    } else {
      out += m[0].replace(/[^\n]/g, ' ');
    }
  }
  return kept ? out : null;
}

export function extractNlpEntities(text: string): NlpEntity[] {
  const candidates = /\p{Lu}/u.test(text) ? keepCandidateSentences(text) : null;
  if (candidates === null) return [];
  const doc = nlp(candidates);
  doc.compute('offset');
  const out: NlpEntity[] = [];
  for (const sentence of doc.docs as unknown as Term[][]) {
    const found: Array<{ entity: EntityType; i: number; j: number; score: number }> = [];
    let i = 0;
    while (i < sentence.length) {
      const t = sentence[i];
      if (!t.offset) {
        i++;
        continue;
      }
      const cue =
        UPPER_WORD.test(t.text) &&
        !hasAny(t.tags, ['Date', 'Month', 'WeekDay', 'Pronoun']) &&
        personCue(sentence, i);
      if (cue || isPersonTerm(t, true)) {
        const tagged = t.tags.has('Person') || cue;
        let j = i;
        let anyTagged = tagged;
        while (j + 1 < sentence.length && !breaksAfter(sentence[j]) && isPersonTerm(sentence[j + 1], false)) {
          j++;
          anyTagged ||= sentence[j].tags.has('Person');
        }
        // A lone sentence-initial word known to the lexicon as something else ("Will", "May").
        const lexTag = LEXICON[t.normal];
        const lone = i === j && !tagged && i === 0 && lexTag !== undefined && !/Name$/.test(lexTag);
        // "3911 Fourth Avenue", "1737 Cheriton Dr": street names, not people.
        const street = isNumberTerm(sentence[i - 1]) || STREET_WORDS.has(sentence[j + 1]?.normal.replace(/\.$/, '') ?? '');
        if (!lone && !street) {
          found.push({ entity: 'PERSON', i, j, score: anyTagged ? TAGGED_SCORE : NAME_LIST_SCORE });
        }
        i = j + 1;
        continue;
      }
      if (t.tags.has('Place')) {
        let j = i;
        while (j + 1 < sentence.length && !breaksAfter(sentence[j]) && sentence[j + 1].tags.has('Place')) j++;
        found.push({ entity: 'LOCATION', i, j, score: TAGGED_SCORE });
        i = j + 1;
        continue;
      }
      const prev = sentence[i - 1];
      if (
        prev && PLACE_PREPOSITIONS.has(prev.normal) && !breaksAfter(prev) && UPPER_WORD.test(t.text) &&
        !hasAny(t.tags, NOT_A_PLACE) && !NRP_SET.has(t.text)
      ) {
        let j = i;
        while (j + 1 < sentence.length && !breaksAfter(sentence[j]) && UPPER_WORD.test(sentence[j + 1].text) && !hasAny(sentence[j + 1].tags, NOT_A_PLACE)) j++;
        found.push({ entity: 'LOCATION', i, j, score: NAME_LIST_SCORE });
        i = j + 1;
        continue;
      }
      if ((NRP_SET.has(t.text) && !NRP_AMBIGUOUS.has(t.text)) || t.tags.has('Demonym')) {
        found.push({ entity: 'NRP', i, j: i, score: NRP_SCORE });
      }
      i++;
    }
    addCoordinatedNames(sentence, found);
    for (const f of found) out.push(span(f.entity, sentence[f.i], sentence[f.j], f.score));
  }
  return out;
}

/**
 * "Gaetane, Hannah, Anthony and Derek", "Marrero and Murphy": a capitalised word listed
 * next to a recognised name is a name too, even one no list knows.
 */
function addCoordinatedNames(sentence: readonly Term[], found: Array<{ entity: EntityType; i: number; j: number; score: number }>): void {
  const label = new Array<EntityType | null>(sentence.length).fill(null);
  for (const f of found) for (let k = f.i; k <= f.j; k++) label[k] = f.entity;
  const candidate = (k: number) => {
    const t = sentence[k];
    return !!t?.offset && label[k] === null && UPPER_WORD.test(t.text) && !hasAny(t.tags, NOT_A_NAME) && !/^\p{Lu}+$/u.test(t.text);
  };
  // Joined to a neighbour by a comma after the left word, or by "and"/"or" between them.
  const listedAfter = (k: number) =>
    (label[k - 1] === 'PERSON' && /^,\s*$/.test(sentence[k - 1].post)) ||
    (label[k - 2] === 'PERSON' && /^(and|or|&)$/.test(sentence[k - 1]?.normal ?? '') && !breaksAfter(sentence[k - 2]));
  const listedBefore = (k: number) =>
    (label[k + 1] === 'PERSON' && /^,\s*$/.test(sentence[k].post)) ||
    (label[k + 2] === 'PERSON' && /^(and|or|&)$/.test(sentence[k + 1]?.normal ?? '') && !breaksAfter(sentence[k]));
  for (let pass = 0; pass < 3; pass++) {
    let changed = false;
    for (let k = 0; k < sentence.length; k++) {
      if (!candidate(k) || !(listedAfter(k) || listedBefore(k))) continue;
      label[k] = 'PERSON';
      found.push({ entity: 'PERSON', i: k, j: k, score: NAME_LIST_SCORE });
      changed = true;
    }
    if (!changed) break;
  }
}

function span(entity: EntityType, first: Term, last: Term, score: number): NlpEntity {
  return { entity, start: first.offset.start, end: last.offset.start + last.offset.length, score };
}

/** One recognizer per NLP entity; the tagging itself runs once per text and is shared. */
export function nlpRecognizer(entity: 'PERSON' | 'LOCATION' | 'NRP'): Recognizer {
  return {
    name: `Nlp${entity}Recognizer`,
    entities: [entity],
    analyze(_text, options) {
      const results: RawResult[] = [];
      for (const e of options.nlpEntities()) {
        if (e.entity === entity) results.push({ entity, start: e.start, end: e.end, score: e.score, context: [] });
      }
      return results;
    },
  };
}

export const NLP_RECOGNIZERS: Recognizer[] = [nlpRecognizer('PERSON'), nlpRecognizer('LOCATION'), nlpRecognizer('NRP')];
