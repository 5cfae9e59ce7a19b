import { lookupArea, lookupPlace, mayStartArea } from './gazetteer.ts';
import { isCommonWord, isFirstName, isProperNoun, isSurname } from './lexicon.ts';
import type { EntityType } from './entities.ts';
import type { NlpEntity } from './nlp-entity.ts';
import type { RawResult, Recognizer } from './recognizer.ts';
import {
  breaksAfterPost,
  isCapitalisedWord,
  lexiconTag,
  NRP_SET,
  startsUpper,
  tokenize,
  WORD_CONNECTOR,
  WORD_DEMONYM,
  WORD_NRP,
  WORD_UPPER,
  type Term,
} from './tokens.ts';

/**
 * PERSON, LOCATION and NRP without model weights. tokens.ts splits sentences and tags words
 * from compromise's lexicon and a few rules of context (its tagger is not run: it cost 15 to 20 ms
 * per 2 KB); each capitalised run of words is then weighed:
 * - what its words are: a listed first name or surname (gender-detection-from-name, the US
 *   Census lists), an English word (SCOWL's en_US dictionary: "Shadow", "Can"), a proper
 *   noun of that dictionary, or a word no list knows ("Szczepańska");
 * - wording that marks a person ("Mr./Dr. X", "my name is X", "Name: X", "I'm X", "X said",
 *   "X's"), names listed next to a known one ("Marrero and Murphy"), and what marks a firm
 *   ("Russell Investments", "at Jones, Mitchell and Williams") or a title ("The Big Three
 *   Killed My Baby"), which are neither;
 * - places: countries and regions of the gazetteer (gazetteer.ts) wherever they are named,
 *   towns when large or after words that introduce a place ("in", "from", "grew up in",
 *   "Where:", "University of"), and a word no list knows after "in/from/to".
 * Presidio's spaCy recognizer scores every entity 0.85; so do the lexicon's name tags, the
 * gazetteer and the wording cues, while list- and position-only guesses get 0.6 (above the
 * default 0.5). Street addresses are address.ts's.
 */
export type { NlpEntity } from './nlp-entity.ts';

const TAGGED_SCORE = 0.85;
const NAME_LIST_SCORE = 0.6;
const NRP_SCORE = 0.85;

/** What a run of words is, and how sure: decide()'s answers, made once. */
interface Verdict {
  entity: EntityType;
  score: number;
}
const PERSON_TAGGED: Verdict = { entity: 'PERSON', score: TAGGED_SCORE };
const PERSON_LISTED: Verdict = { entity: 'PERSON', score: NAME_LIST_SCORE };
const LOCATION_TAGGED: Verdict = { entity: 'LOCATION', score: TAGGED_SCORE };
const LOCATION_LISTED: Verdict = { entity: 'LOCATION', score: NAME_LIST_SCORE };

/**
 * An entity found in a sentence: its words i to j. Made by a constructor, not an object
 * literal, for the reason tokens.ts's Word is.
 */
class Found {
  constructor(
    readonly entity: EntityType,
    readonly i: number,
    readonly j: number,
    readonly score: number,
  ) {}
}

// Words compromise knows as these are never (part of) a name, whatever a name list says ("My").
const FUNCTION_WORD_TAG = /Possessive|Pronoun|Determiner|Preposition|Conjunction|Modal|Copula|Auxiliary|QuestionWord/;

function hasAny(tags: Set<string>, list: readonly string[]): boolean {
  for (const t of list) if (tags.has(t)) return true;
  return false;
}

const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'madam', 'dame', 'lord', 'lady']);
// "in Tobel", "flew to LEPPEN": a capitalised word after these is most often a place.
const PLACE_PREPOSITIONS = new Set(['in', 'to', 'from', 'near', 'at', 'visiting', 'visited', 'around']);
const UPPER_WORD = /^\p{Lu}[\p{L}'’-]+$/u;

function breaksAfter(t: Term): boolean {
  return breaksAfterPost(t.post);
}

// A word: a letter, then letters, apostrophes and hyphens. Where one starts: a letter.
const WORD_AT = /\p{L}[\p{L}'’-]*/uy;
const LETTER = /\p{L}/gu;
// An upper-case letter that starts a word (no letter before it joined by letters, apostrophes or hyphens).
const WORD_CAPITAL = /\p{Lu}(?<!\p{L}[\p{L}'’-]*\p{Lu})/gu;
// A regular expression with \p{…} in it is written out as new RegExp(…) where it stands by
// esbuild (the server bundle, tsx) and so built at every call inside a function: these are
// built once, here.
const INITIAL = /^\p{Lu}\.?$/u;
const CAPITALISED_WORD = /^\p{Lu}[\p{L}'’-]*$/u;
const LOWER_CASE_WORD = /^\p{Ll}[\p{L}'’-]+$/u;
const SHORT_CAPITALS = /^\p{Lu}{2,4}$/u;
const CAPITALS_ONLY = /^\p{Lu}+$/u;
const LETTERS_ONLY = /^\p{L}+$/u;
const STARTS_LOWER = /^\p{Ll}/u;
const ANY_UPPER = /\p{Lu}/u;
const NAME_OR_PLACE_TAG = /Name|Person|Place|City|Country|Region|Demonym|Honorific/;
// A regular expression literal makes a new RegExp object each time it is evaluated: the
// ones read per word or per sentence are made once, here.
const QUESTION_OR_COLON = /[?:]/;
const FULL_STOP_THEN_SPACE = /^\.?\s*$/;
const COMMA_THEN_SPACE = /^,\s*$/;
const MAYBE_COMMA_THEN_SPACE = /^,?\s*$/;
const BLANK_OR_QUOTE = /^[>?\s]*$/;
const PLACE_FIELDS = new Set(['where', 'location', 'city', 'country', 'town']);
const SPEAKING = new Set(['says', 'said', 'asks', 'asked', 'replied', 'wrote']);
const FIRM_LEADS = new Set(['the', 'at', 'for', 'of', 'from', 'with']);

/** The word without one final character of `chars` ("st." to "st"): what .replace(/[…]$/, '') makes of it. */
function withoutLast(word: string, chars: string): string {
  return word.length > 0 && chars.includes(word[word.length - 1]) ? word.slice(0, -1) : word;
}

/**
 * Where the next match of a global expression of one character (one code point) starts at or
 * after a position, remembered: the next sentence's search starts where this one's did not
 * look yet, so a text is searched once, not once a sentence. (Neither expression's matches
 * depend on where a search starts: the capital's look-behind reads the text.) Searched with
 * test(), which makes no match object, unlike exec(): the match ends at lastIndex.
 */
class NextMatch {
  // Where the last search started (none yet) and what it found.
  private from = Infinity;
  private at = -1;
  constructor(
    private readonly pattern: RegExp,
    private readonly text: string,
  ) {}

  /** Index of the first match at or after `from`, or -1. */
  find(from: number): number {
    if (from < this.from || (this.at >= 0 && from > this.at)) {
      this.pattern.lastIndex = from;
      this.at = this.pattern.test(this.text) ? matchStart(this.text, this.pattern.lastIndex) : -1;
    }
    this.from = from;
    return this.at;
  }
}

/** Where a match of one code point that ends at `end` starts: a letter outside the BMP is two UTF-16 units. */
function matchStart(text: string, end: number): number {
  const c = text.charCodeAt(end - 1);
  return c >= 0xdc00 && c <= 0xdfff ? end - 2 : end - 1;
}

/** Could the sentence text[start, end) hold a name, place or NRP? Only capitalised words can. */
function mayHoldEntities(text: string, start: number, end: number, letters: NextMatch, capitals: NextMatch): boolean {
  const at = letters.find(start);
  if (at < 0 || at >= end) return false;
  // The first word: from its first letter on, letters, apostrophes and hyphens.
  WORD_AT.lastIndex = at;
  WORD_AT.test(text);
  const wordEnd = WORD_AT.lastIndex;
  const c = text.charCodeAt(at);
  if (c >= 128 || (c >= 65 && c <= 90)) {
    if (candidateFirstWord(text.slice(at, wordEnd))) return true;
  }
  // Any later word that starts with a capital.
  const capital = capitals.find(wordEnd);
  return capital >= 0 && capital < end;
}

// Whether a sentence's first word makes it a candidate depends on the word alone, and
// sentences open with the same few words: the answers are kept.
const firstWordCache = new Map<string, boolean>();

/** A capitalised first word is only a candidate when it is not just any word. */
function candidateFirstWord(word: string): boolean {
  let candidate = firstWordCache.get(word);
  if (candidate === undefined) {
    if (firstWordCache.size >= 20_000) firstWordCache.clear();
    const lower = word.toLowerCase();
    const tag = startsUpper(word) ? lexiconTag(lower) : null;
    candidate = tag !== null && (tag === undefined || NAME_OR_PLACE_TAG.test(tag) || isFirstName(lower) || HONORIFICS.has(lower) || NRP_SET.has(word));
    firstWordCache.set(word, candidate);
  }
  return candidate;
}

/** Is a character one a sentence ends with: a line break, a full stop, a question or an exclamation mark? */
function isSentenceEnd(c: number): boolean {
  return c === 10 || c === 46 || c === 33 || c === 63;
}

// Where a sentence ends, found by the regular expression engine, which reads a text far faster than a loop over its characters.
const SENTENCE_END = /[\n.!?]/g;

/**
 * Sentences (up to a line break or a run of full stops, question and exclamation marks)
 * without a capitalised word worth looking at: start, end pairs, in order, for tokenize() to
 * read as blank. Null when no sentence is left to tag.
 */
function sentencesLeftOut(text: string): number[] | null {
  const out: number[] = [];
  const letters = new NextMatch(LETTER, text);
  const capitals = new NextMatch(WORD_CAPITAL, text);
  let kept = false;
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    SENTENCE_END.lastIndex = pos;
    let end = SENTENCE_END.test(text) ? SENTENCE_END.lastIndex - 1 : n;
    if (end < n) {
      if (text.charCodeAt(end) === 10) end++;
      else while (end < n && isSentenceEnd(text.charCodeAt(end)) && text.charCodeAt(end) !== 10) end++;
    }
    if (mayHoldEntities(text, pos, end, letters, capitals)) kept = true;
    else if (out.length > 0 && out[out.length - 1] === pos) out[out.length - 1] = end;
    else out.push(pos, end);
    pos = end;
  }
  return kept ? out : null;
}

// Words that make a capitalised run an organisation's name, not a person's or a place's.
const ORG_WORDS = new Set(
  ('inc incorporated llc llp ltd limited corp corporation co company companies group holdings partners associates ' +
    'technologies technology systems solutions consulting consultants investments research bank banking insurance ' +
    'orchestra foundation institute university college school agency markets labs laboratories media studios ' +
    'services industries international global enterprises ventures capital financial networks software analytics ' +
    'sons brothers gmbh ag sa plc pty bv nv oy ab as').split(' '),
);
// Verbs whose subject is a person: "X said", "X began writing".
const PERSON_VERBS = new Set(
  ('said says told asked wrote writes explained replied answered began spent listed lives lived works worked married ' +
    'died thinks thought believes believed wants wanted agreed admitted added noted insisted recalled smiled laughed ' +
    'cried shouted whispered').split(' '),
);
// "Name: X", "Dear X": words before a name.
const PERSON_LEADS = new Set(['name:', 'dear', 'hi', 'hello', 'thanks,', 'regards,', 'sincerely,']);
const NAME_TAGS = ['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName'];
const NAME_TAG = /Name$|^Person$/;
const PLACE_TAG = /Country|City|Region|Place/;
const FUNCTION_TAGS = [
  'Acronym', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Modal', 'Auxiliary', 'Copula', 'QuestionWord', 'Date', 'Month',
  'WeekDay', 'Value', 'Url', 'Email', 'PhoneNumber', 'Expression',
];
/** A town this large is a place wherever it is named; a smaller one needs words that say so. */
const MAJOR_CITY = 100_000;

/**
 * What a word can be in a name: a listed name ("name"), a listed name that is also an
 * English word ("ambiguous": Will, Rose, Brown), a proper noun of the dictionary that no
 * name list has ("proper"), a capitalised word no list knows ("unknown": Szczepańska),
 * an initial, a particle ("van", "de"), or none of these.
 */
type Kind = 'name' | 'ambiguous' | 'proper' | 'unknown' | 'initial' | 'connector' | 'other';
const NAMEISH: readonly Kind[] = ['name', 'ambiguous', 'proper', 'unknown'];

function kindOf(t: Term, lowerCaseText: boolean): Kind {
  const text = t.text;
  if (INITIAL.test(text)) return 'initial';
  if ((t.facts & WORD_CONNECTOR) !== 0 && !startsUpper(text)) return 'connector';
  const capitalised = CAPITALISED_WORD.test(text) && text.length > 1;
  if (!capitalised && !(lowerCaseText && LOWER_CASE_WORD.test(text))) return 'other';
  if (hasAny(t.tags, FUNCTION_TAGS) || t.tags.has('Honorific') || NRP_SET.has(text)) return 'other';
  const lower = withoutPossessive(t.normal);
  // `normal` drops accents ("sedlackova"); the lists keep them.
  const written = withoutPossessive(text.normalize('NFC').toLowerCase());
  const listedPart = (p: string, q: string | undefined) => isFirstName(p) || isSurname(p) || (!!q && q !== p && (isFirstName(q) || isSurname(q)));
  const parts = lower.split('-').filter(Boolean);
  const writtenParts = written.split('-').filter(Boolean);
  const listed = hasAny(t.tags, NAME_TAGS) || (parts.length > 0 && parts.every((p, k) => listedPart(writtenParts[k] ?? p, p)));
  const lexTag = lexiconTag(lower);
  if (lexTag !== undefined && FUNCTION_WORD_TAG.test(lexTag)) return 'other';
  if (lexTag !== undefined && PLACE_TAG.test(lexTag)) return 'proper';
  const common = isCommonWord(lower) || (lexTag !== undefined && !NAME_TAG.test(lexTag));
  if (!capitalised) return listed && !common ? 'name' : 'other';
  // "IBAN", "NI", "VIC": short capitals are acronyms and codes unless a list has the name.
  if (SHORT_CAPITALS.test(text) && !listed) return 'other';
  if (listed) return common ? 'ambiguous' : 'name';
  if (common) return 'other';
  return isProperNoun(lower) ? 'proper' : 'unknown';
}

// kindOf reads only the word and its tags: for a word whose tags are its own, the answer is
// kept with the word (Term.note) and read from there the next time.
function cachedKindOf(t: Term, lowerCaseText: boolean): Kind {
  // Most words: in a text with capitals, a word that does not start with one is a particle or nothing.
  if (!lowerCaseText && (t.facts & WORD_UPPER) === 0) return (t.facts & WORD_CONNECTOR) !== 0 ? 'connector' : 'other';
  if (lowerCaseText || !t.own) return kindOf(t, lowerCaseText);
  let kind = t.note as Kind | undefined;
  if (kind === undefined) {
    kind = kindOf(t, false);
    t.note = kind;
  }
  return kind;
}

export function extractNlpEntities(text: string): NlpEntity[] {
  const lowerCaseText = !ANY_UPPER.test(text);
  const leftOut = lowerCaseText ? [] : sentencesLeftOut(text);
  if (leftOut === null) return [];
  const out: NlpEntity[] = [];
  let previousSentence: readonly Term[] = [];
  for (const sentence of tokenize(text, leftOut)) {
    // "What's your last name? Boyle": a question that asks for a name, answered in the next sentence.
    const asked = previousSentence[previousSentence.length - 1]?.normal === 'name' && QUESTION_OR_COLON.test(previousSentence[previousSentence.length - 1].post);
    const found: Found[] = [];
    const kinds: Kind[] = new Array<Kind>(sentence.length);
    for (let k = 0; k < sentence.length; k++) kinds[k] = cachedKindOf(sentence[k], lowerCaseText);
    const areas = namedAreas(sentence, lowerCaseText);
    let i = 0;
    while (i < sentence.length) {
      const t = sentence[i];
      const area = areas === null ? -1 : areas[i];
      if (area >= 0) {
        found.push(new Found('LOCATION', i, area, TAGGED_SCORE));
        i = area + 1;
        continue;
      }
      if (isNameish(kinds[i])) {
        // The run: name-like words, with initials and particles inside ("Alvir D. Pušaver", "Willemine ten Pas").
        let j = i;
        // An initial's full stop ("Alvir D. Pušaver") does not end the name.
        while (j + 1 < sentence.length && !endsRun(sentence, kinds, j) && !(areas !== null && areas[j + 1] >= 0)) {
          const k = kinds[j + 1];
          if (isNameish(k)) j++;
          else if (k === 'initial' && isNameish(kinds[j + 2])) j++;
          else if (k === 'connector' && isNameish(kinds[j + 2]) && !endsRun(sentence, kinds, j + 1)) j += 2;
          else if (k === 'connector' && kinds[j + 2] === 'connector' && isNameish(kinds[j + 3]) && !endsRun(sentence, kinds, j + 1) && !endsRun(sentence, kinds, j + 2)) j += 3;
          else break;
        }
        const decided = i === 0 && asked && kinds[0] !== 'other' ? PERSON_TAGGED : decide(sentence, kinds, i, j, lowerCaseText);
        if (decided) found.push(new Found(decided.entity, i, j, decided.score));
        i = j + 1;
        continue;
      }
      if ((t.facts & WORD_NRP) !== 0 || (t.own ? (t.facts & WORD_DEMONYM) !== 0 : t.tags.has('Demonym'))) {
        found.push(new Found('NRP', i, i, NRP_SCORE));
      }
      i++;
    }
    addCoordinatedNames(sentence, found, kinds);
    if (lowerCaseText) addLowerCaseNameLists(sentence, found, kinds);
    for (const f of found) out.push(span(f.entity, sentence[f.i], sentence[f.j], f.score));
    previousSentence = sentence;
  }
  return out;
}


/** Does a word end in "'s" or "’s" ("Amanda's")? Read from its last two characters: a regular expression would read it whole. */
function isPossessive(word: string): boolean {
  const n = word.length;
  if (n < 2 || word.charCodeAt(n - 1) !== 115) return false;
  const apostrophe = word.charCodeAt(n - 2);
  return apostrophe === 39 || apostrophe === 0x2019;
}

/** The words without a final "'s" or "’s". */
function withoutPossessive(words: string): string {
  return isPossessive(words) ? words.slice(0, -2) : words;
}

/** Is the word "and" or "or"? */
function isAndOr(t: Term | undefined): boolean {
  return t !== undefined && (t.normal === 'and' || t.normal === 'or');
}

function isNameish(kind: Kind | undefined): boolean {
  return kind === 'name' || kind === 'ambiguous' || kind === 'proper' || kind === 'unknown';
}

/** Does a run of name-like words end after word k? An initial's full stop ("Alvir D. Pušaver") does not end it. */
function endsRun(sentence: readonly Term[], kinds: readonly Kind[], k: number): boolean {
  return breaksAfter(sentence[k]) && !(kinds[k] === 'initial' && FULL_STOP_THEN_SPACE.test(sentence[k].post) && !sentence[k].post.includes('\n'));
}

const AREA_JOINERS = new Set(['of', 'and', 'the']);

/**
 * Countries and regions the sentence names, capitalised ("New Zealand", "Czech Republic")
 * or, in a text without capitals, after "in", "from", "to": for each word starting one, the
 * index of its last word (-1 for the others); null when there are none.
 */
function namedAreas(sentence: readonly Term[], lowerCaseText: boolean): Int32Array | null {
  let areas: Int32Array | null = null;
  for (let i = 0; i < sentence.length; i++) {
    if (lowerCaseText) {
      const lead = i > 0 ? sentence[i - 1] : undefined;
      if (!(!!lead && PLACE_PREPOSITIONS.has(lead.normal) && !breaksAfter(lead))) continue;
    } else if (!startsUpper(sentence[i].text)) continue;
    let last = i;
    while (
      last + 1 < sentence.length &&
      last - i < 3 &&
      !breaksAfter(sentence[last]) &&
      (lowerCaseText || startsUpper(sentence[last + 1].text) || AREA_JOINERS.has(sentence[last + 1].normal))
    )
      last++;
    // A phrase of two words or more is looked up only when a name of the list starts with its first word.
    if (!lowerCaseText && last > i && !mayStartArea(sentence[i].text)) last = i;
    for (let j = last; j >= i; j--) {
      let phrase = sentence[i].text;
      for (let k = i + 1; k <= j; k++) phrase += ' ' + sentence[k].text;
      phrase = withoutPossessive(phrase);
      const place = lowerCaseText ? lookupPlace(phrase) : lookupArea(phrase);
      // One capitalised word alone is left to decide(), which weighs names against places.
      if (place && (place.kind === 'country' || j > i || lowerCaseText)) {
        if (areas === null) areas = new Int32Array(sentence.length).fill(-1);
        areas[i] = j;
        i = j;
        break;
      }
    }
  }
  return areas;
}

const STREET_WORDS = new Set(['street', 'avenue', 'road', 'lane', 'drive', 'boulevard', 'st', 'ave', 'rd', 'blvd']);
const STRONG_PLACE_LEADS = new Set(['in', 'near', 'city', 'town', 'visiting', 'around']);

const orgWord = (t: Term | undefined) => !!t && ORG_WORDS.has(withoutLast(t.normal, '.,'));

/** What a run of name-like words is: a person, a place, or (an organisation, a title) nothing. */
function decide(
  sentence: readonly Term[],
  kinds: readonly Kind[],
  i: number,
  j: number,
  lowerCaseText: boolean,
): Verdict | null {
  // The run's words read in one loop, without arrays: its phrase, whether a word names a firm
  // or is tagged a name, and how many of its words (initials and particles aside) are of each kind.
  const runLength = j - i + 1;
  let phrase = '';
  let firmWord = false;
  let tagged = false;
  let named = 0;
  let unknown = 0;
  let ambiguous = 0;
  let nameWords = 0;
  for (let k = i; k <= j; k++) {
    const t = sentence[k];
    phrase = k === i ? withoutPossessive(t.text) : phrase + ' ' + withoutPossessive(t.text);
    if (orgWord(t)) firmWord = true;
    if (hasAny(t.tags, NAME_TAGS)) tagged = true;
    const kind = kinds[k];
    if (kind === 'initial' || kind === 'connector') continue;
    nameWords++;
    if (kind === 'name') named++;
    else if (kind === 'unknown') unknown++;
    else if (kind === 'ambiguous') ambiguous++;
  }
  const prev = before(sentence, i, 1);
  const prev2 = before(sentence, i, 2);
  const next = sentence[j + 1];
  const prevWord = prev === undefined ? '' : withoutLast(prev.normal, '.:,');

  // Streets: "Marina Fort Street", "Isaac Lodge Street" (street addresses are address.ts's).
  if (runLength > 1 && STREET_WORDS.has(sentence[j].normal)) return null;
  // Organisations: "Russell Investments", "Thomas and Sons", "Abt Associates".
  if (firmWord || (orgWord(next) && startsUpper(next.text) && !breaksAfter(sentence[j]))) return null;
  if (next && !breaksAfter(sentence[j]) && (next.normal === 'and' || next.normal === '&') && orgWord(sentence[j + 2])) return null;

  const place = lookupPlace(phrase);
  const area = !!place && place.kind !== 'city';
  const placeLead = !!prev && !breaksAfter(prev) && PLACE_PREPOSITIONS.has(prevWord);
  // Words after which a name is a place's even when it is also a person's ("grew up in Shelly Park").
  const strongLead =
    (!!prev && !breaksAfter(prev) && (STRONG_PLACE_LEADS.has(prevWord) || (prevWord === 'of' && prev2?.normal === 'university'))) ||
    (!!prev && PLACE_FIELDS.has(prevWord) && (prev.text.includes(':') || prev.post.includes(':')));
  const hasName = named > 0;
  const cue = personCue(sentence, i, j);

  // A region named like a person ("Mary", "Victoria") is the person unless the wording says otherwise.
  if (area && !cue && !(hasName && place.kind === 'region')) return LOCATION_TAGGED;
  const sizeable = !!place && (place.kind !== 'city' || place.population >= MAJOR_CITY);
  if (strongLead && !cue) return place ? LOCATION_TAGGED : LOCATION_LISTED;
  // Two words no list knows after "to" or "from" ("change it to Bekbolat Musliyevich") are more
  // often a name than a place the gazetteer lacks.
  const unknownName = !place && nameWords >= 2 && unknown + named === nameWords;
  if (placeLead && !cue && (!hasName || sizeable) && !unknownName) {
    if (place) return LOCATION_TAGGED;
    // A word no list knows after "in", "from", "to": a place, unless it reads as an acronym
    // ("from ATM") or a company ("at Datamarket", "Fuse TV").
    const acronym = SHORT_CAPITALS.test(phrase);
    const continues = !!next && startsUpper(next.text) && !breaksAfter(sentence[j]);
    if (prevWord !== 'at' && !acronym && !continues) return LOCATION_LISTED;
  }
  if (lowerCaseText) {
    // Without capitals only the wording marks a name ("my name is lena andersson").
    return cue && named === nameWords ? PERSON_TAGGED : null;
  }
  if (cue) return PERSON_TAGGED;
  if (place && place.population >= MAJOR_CITY && !hasName) return LOCATION_TAGGED;
  // A capitalised word right after the run that is not a name makes it a title or a brand
  // ("Fuse TV", "Nera Economic Consulting").
  if (next && isCapitalisedWord(next.text) && !breaksAfter(sentence[j]) && kinds[j + 1] === 'other') return null;
  // Inside a title in capitals ("The Big Three Killed My Baby", "Collective Ip") a capitalised word is no name.
  if (prev && startsUpper(prev.text) && kinds[i - 1] === 'other' && !breaksAfter(prev) && (i > 1 || !hasName)) return null;
  // "Mayo-Walters invested": a double-barrelled name alone is a firm's more often than a person's.
  if (runLength === 2 && sentence[i].post === '-') return null;
  if (nameWords === 1) {
    if (kinds[i] !== 'name' && !(tagged && kinds[i] === 'ambiguous' && i > 0)) return null;
    // Every sentence starts with a capital: a lone first word needs the lexicon's name tag.
    if (i === 0 && !tagged) return null;
    return tagged ? PERSON_TAGGED : PERSON_LISTED;
  }
  if (hasName || tagged || unknown >= 2 || (ambiguous > 0 && unknown > 0)) {
    return tagged ? PERSON_TAGGED : PERSON_LISTED;
  }
  return null;
}

/** The n-th word before index i, passing over empty tokens. */
function before(sentence: readonly Term[], i: number, n: number): Term | undefined {
  for (let k = i - 1; k >= 0; k--) {
    if (sentence[k].text === '') continue;
    if (--n === 0) return sentence[k];
  }
  return undefined;
}

/** Wording that marks a run as a person: "Mr. X", "my name is X", "Name: X", "X said", "I'm X". */
function personCue(sentence: readonly Term[], i: number, j: number): boolean {
  const prev = before(sentence, i, 1);
  const prev2 = before(sentence, i, 2);
  const next = sentence[j + 1];
  if (prev) {
    const word = withoutLast(prev.normal, '.');
    if (HONORIFICS.has(word) || prev.tags.has('Honorific')) return true;
    if (word === 'named' || word === 'called') return true;
    if (word === 'is' && prev2?.normal === 'name') return true;
    // "Name: X", "What's your last name? X"
    if (word === 'name' && QUESTION_OR_COLON.test(prev.post)) return true;
    if (PERSON_LEADS.has(prev.post.includes(':') && !prev.normal.endsWith(':') ? prev.normal + ':' : prev.normal)) return true;
    if ((word === "i'm" || (word === 'am' && prev2?.normal === 'i')) && !breaksAfter(prev)) return true;
    // "calls me X", "says Hartvigsson": a verb of naming or speaking before the name.
    if (word === 'me' && (prev2?.normal === 'call' || prev2?.normal === 'calls') && !breaksAfter(prev)) return true;
    if (SPEAKING.has(word) && !breaksAfter(prev)) return true;
    // "a song by Elle Sandström": a full name after "by".
    if (word === 'by' && j > i && !breaksAfter(prev)) return true;
  }
  if (next && !breaksAfter(sentence[j]) && PERSON_VERBS.has(next.normal)) return true;
  // "Wisława Szczepańska's killers": the possessive of a name of two words or more.
  if (j > i && isPossessive(sentence[j].text) && next && STARTS_LOWER.test(next.text)) return true;
  return false;
}

/**
 * Without capitals, a list of three or more single words of which most are listed first
 * names ("silvana, adam, christopher, kristina, chad and caleb") is a list of people.
 */
function addLowerCaseNameLists(sentence: readonly Term[], found: Found[], kinds: readonly Kind[]): void {
  let k = 0;
  while (k < sentence.length) {
    const members = [k];
    let end = k;
    for (;;) {
      if (COMMA_THEN_SPACE.test(sentence[end].post) && sentence[end + 1] !== undefined && sentence[end + 1].normal !== 'and') end += 1;
      else if (MAYBE_COMMA_THEN_SPACE.test(sentence[end].post) && isAndOr(sentence[end + 1]) && sentence[end + 2] !== undefined) end += 2;
      else break;
      members.push(end);
    }
    const named = members.filter((m) => kinds[m] === 'name').length;
    if (members.length >= 3 && named * 3 >= members.length * 2) {
      for (const m of members) if (!found.some((f) => m >= f.i && m <= f.j) && LETTERS_ONLY.test(sentence[m].text)) found.push(new Found('PERSON', m, m, NAME_LIST_SCORE));
    }
    k = end + 1;
  }
}

function hasPerson(found: readonly Found[]): boolean {
  for (const f of found) if (f.entity === 'PERSON') return true;
  return false;
}

// addCoordinatedNames()'s tests of a word k, module functions rather than closures made at
// every call (tsx also names each closure it makes, a call of its own).
function coordinatedCandidate(sentence: readonly Term[], label: ReadonlyArray<EntityType | null>, kinds: readonly Kind[], k: number): boolean {
  const t = sentence[k];
  return t !== undefined && label[k] === null && UPPER_WORD.test(t.text) && !CAPITALS_ONLY.test(t.text) && NAMEISH.includes(kinds[k]);
}

/** Word k joined to a person before it by a comma after that person, or by "and"/"or"/"&" between them. */
function listedAfter(sentence: readonly Term[], label: ReadonlyArray<EntityType | null>, k: number): boolean {
  return (
    // (Read from index 0 on: an array read below 0 is a property lookup by name, far slower than an element's.)
    (k >= 1 && label[k - 1] === 'PERSON' && COMMA_THEN_SPACE.test(sentence[k - 1].post)) ||
    (k >= 2 && label[k - 2] === 'PERSON' && (isAndOr(sentence[k - 1]) || sentence[k - 1]?.normal === '&') && !breaksAfter(sentence[k - 2]))
  );
}

/** Word k joined to a person after it by a comma after word k, or by "and"/"or"/"&" between them. */
function listedBefore(sentence: readonly Term[], label: ReadonlyArray<EntityType | null>, k: number): boolean {
  return (
    (label[k + 1] === 'PERSON' && COMMA_THEN_SPACE.test(sentence[k].post)) ||
    (label[k + 2] === 'PERSON' && (isAndOr(sentence[k + 1]) || sentence[k + 1]?.normal === '&') && !breaksAfter(sentence[k]))
  );
}

/**
 * "Gaetane, Hannah, Anthony and Derek", "Marrero and Murphy": a capitalised word listed
 * next to a recognised name is a name too, even one no list knows. Three or more bare
 * names after "the", "at", "for" ("at Jones, Mitchell and Williams") are a firm.
 */
function addCoordinatedNames(sentence: readonly Term[], found: Found[], kinds: readonly Kind[]): void {
  // Everything below starts from a person found.
  if (!hasPerson(found)) return;
  const n = sentence.length;
  const label = new Array<EntityType | null>(n).fill(null);
  for (const f of found) for (let k = f.i; k <= f.j; k++) label[k] = f.entity;
  for (let pass = 0; pass < 3; pass++) {
    let changed = false;
    for (let k = 0; k < n; k++) {
      // Only a word with a person one or two words away can be listed next to one: four reads
      // of the labels rule out most words before the tests of their punctuation and text.
      const near =
        (k >= 1 && label[k - 1] === 'PERSON') || (k >= 2 && label[k - 2] === 'PERSON') || (k + 1 < n && label[k + 1] === 'PERSON') || (k + 2 < n && label[k + 2] === 'PERSON');
      if (!near) continue;
      if (!(listedAfter(sentence, label, k) || listedBefore(sentence, label, k)) || !coordinatedCandidate(sentence, label, kinds, k)) continue;
      label[k] = 'PERSON';
      found.push(new Found('PERSON', k, k, NAME_LIST_SCORE));
      changed = true;
    }
    if (!changed) break;
  }
  for (let k = 0; k < sentence.length; k++) {
    // After "the", "at", "for", or opening a sentence or line ("Owens, Duran and Oneal\n...").
    if (label[k] !== 'PERSON') continue;
    const lead = k > 0 ? sentence[k - 1] : undefined;
    const opens = !lead || lead.post.includes('\n') || BLANK_OR_QUOTE.test(lead.text);
    if (!(opens || FIRM_LEADS.has(lead.normal))) continue;
    let end = k;
    let members = 1;
    for (;;) {
      // (The labels first: a read of an element, where the tests of words read their text.)
      if (label[end + 1] === 'PERSON' && COMMA_THEN_SPACE.test(sentence[end].post)) end += 1;
      else if (label[end + 2] === 'PERSON' && (sentence[end + 1]?.normal === 'and' || sentence[end + 1]?.normal === '&')) end += 2;
      else break;
      members++;
    }
    if (members < 3) continue;
    for (let f = found.length - 1; f >= 0; f--) if (found[f].entity === 'PERSON' && found[f].i >= k && found[f].j <= end) found.splice(f, 1);
    k = end;
  }
}

/** A found entity as the recognizers read it: made by a constructor, as Found is. */
class Span implements NlpEntity {
  constructor(
    readonly entity: EntityType,
    readonly start: number,
    readonly end: number,
    readonly score: number,
  ) {}
}

function span(entity: EntityType, first: Term, last: Term, score: number): NlpEntity {
  return new Span(entity, first.start, last.start + last.text.length, score);
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
