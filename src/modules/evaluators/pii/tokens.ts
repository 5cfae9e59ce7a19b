import { createRequire } from 'node:module';

/**
 * Words, sentences and word tags for the name and place detector (nlp.ts), without a
 * tagger: compromise's lexicon (its word list with tags: "maria" FemaleName, "denver" City,
 * "my" Possessive, "friday" WeekDay) read once, and a few rules for what the lexicon cannot
 * say (acronyms, numbers, a month before a day, a name after a first name or a title). Words
 * split as compromise splits them (punctuation before and after a word apart from it, words
 * joined by a hyphen apart unless the first is a prefix: "Jean-Luc", but "re-entered"), and
 * sentences end at a full stop, question or exclamation mark, or a line break, but not
 * after a title, an abbreviation or an initial ("Dr. Smith", "St. Louis", "Sari J.
 * Paavolainen"). A linear pass: about a microsecond a word, where compromise's tagger
 * spent 30 to 50.
 */
export interface Term {
  /** The word as written, without the punctuation around it. */
  text: string;
  /** Lower case, accents and inner full stops removed ("wislawa", "pm"). */
  normal: string;
  /** The punctuation and white space after the word. */
  post: string;
  tags: Set<string>;
  /** UTF-16 offset of `text` in the text. */
  readonly start: number;
  /** Are `tags` the word's own, unchanged by its neighbours (so anything worked out from them holds for the word wherever it stands)? */
  readonly own: boolean;
  /** WORD_* bits, worked out once per word: those read from its tags hold while `own` does. */
  readonly facts: number;
  /**
   * What a reader worked out from the word and its own tags alone, kept with the word's chunk
   * (so for every occurrence of it) for the next time: to be read and written only while `own`.
   */
  note: string | undefined;
}

/** A word as a chunk of text splits into it, the same wherever the chunk stands (kept with the chunk's parse). */
interface ChunkWord {
  readonly text: string;
  /** Offset in the chunk. */
  readonly start: number;
  readonly normal: string;
  readonly tags: Set<string>;
  readonly facts: number;
  note: string | undefined;
  /** False for a term's copy with the tags its neighbours gave it. */
  readonly own: boolean;
}

/**
 * A Term as tokenize() makes it: made by a constructor, not an object literal, so that V8
 * never decides to allocate terms straight in the old generation (it does so for a literal
 * whose objects it sees surviving, and terms, garbage once a text is read, then cost full
 * collections). What the word is wherever it stands is read from its chunk's word, not copied:
 * three fields a word, not seven (a text of 2 KB makes a few hundred terms).
 */
class Word implements Term {
  constructor(
    // Its chunk's word, or, once its neighbours gave it other tags (retag()), a copy with those.
    private word: ChunkWord,
    public post: string,
    readonly start: number,
  ) {}

  get text(): string {
    return this.word.text;
  }

  get normal(): string {
    return this.word.normal;
  }

  get tags(): Set<string> {
    return this.word.tags;
  }

  set tags(tags: Set<string>) {
    // A copy of the word with the new tags (three fields a term, not four with the new tags
    // apart: retagging is rare, terms are many). Its facts stay those worked out from the own
    // tags, as Term.facts says.
    const w = this.word;
    this.word = { text: w.text, start: w.start, normal: w.normal, tags, facts: w.facts, note: undefined, own: false };
  }

  get own(): boolean {
    return this.word.own;
  }

  get facts(): number {
    return this.word.facts;
  }

  get note(): string | undefined {
    return this.word.note;
  }

  set note(note: string | undefined) {
    this.word.note = note;
  }
}

/** The word starts with an upper-case letter. */
export const WORD_UPPER = 1;
/** An upper-case letter, then a lower-case one (isCapitalisedWord). */
export const WORD_CAPITALISED = 2;
/** A month's name, or tagged Month. */
export const WORD_MONTH = 4;
/** Tagged Demonym. */
export const WORD_DEMONYM = 8;
/** A particle of names (CONNECTORS, by its normal form): read per word by the name detector, which would otherwise look each word up. */
export const WORD_CONNECTOR = 16;
/** A nationality, religion or political group of NRP_SET, capitalised, not one of NRP_AMBIGUOUS. */
export const WORD_NRP = 32;

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
export const NRP_SET = new Set(NRP_WORDS);
// Words that are NRP only when capitalised mid-sentence and next to a noun are not worth
// the false positives; these stay out unless the lexicon tags them Demonym.
const NRP_AMBIGUOUS = new Set(['Green', 'Greens', 'Liberal', 'Conservative', 'Democratic', 'Orthodox', 'Evangelical']);

// Particles inside names ("Willemine ten Pas", "Ludwig van Beethoven").
const CONNECTORS = new Set(['van', 'von', 'de', 'der', 'den', 'ten', 'ter', 'da', 'di', 'du', 'del', 'della', 'le', 'la', 'bin', 'ibn', 'al', 'el']);


type LexiconEntry = string | string[] | undefined;
interface TagInfo {
  parents?: string[];
}

const require = createRequire(import.meta.url);
let lexicon: Record<string, LexiconEntry> | null = null;
// The lexicon's few words that start with a digit ("4chan", "49ers"), apart: looking a number
// up in the lexicon itself, a large object in dictionary mode, costs far more than in a small map.
let digitLed: Map<string, LexiconEntry> | null = null;
// Does any of them have digits alone (none does today)? If not, a number is not looked up there.
let digitsOnlyLed = true;
let tagSet: Record<string, TagInfo> | null = null;
const expanded = new Map<string, readonly string[]>();

function load(): Record<string, LexiconEntry> {
  if (lexicon) return lexicon;
  // compromise's CommonJS build, for its data only: its tagger is never run.
  const world = (require('compromise/two') as { world(): { model: { one: { lexicon: Record<string, LexiconEntry>; tagSet: Record<string, TagInfo> } } } }).world();
  tagSet = world.model.one.tagSet;
  lexicon = world.model.one.lexicon;
  digitLed = new Map(Object.entries(lexicon).filter(([word]) => isDigit(word.charCodeAt(0))));
  digitsOnlyLed = [...digitLed.keys()].some((word) => /^[0-9]+$/.test(word));
  return lexicon;
}

/** What compromise's lexicon says a word is ("Modal", "FirstName", "Possessive,Pronoun", "Country"), if anything. */
export function lexiconTag(word: string): string | undefined {
  const tag = load()[word];
  return Array.isArray(tag) ? tag.join(',') : tag;
}

/** A tag and every tag it implies (MaleName: FirstName, Person, ProperNoun, Noun, Singular). */
function withParents(tag: string): readonly string[] {
  let all = expanded.get(tag);
  if (!all) {
    load();
    all = [tag, ...(tagSet![tag]?.parents ?? [])];
    expanded.set(tag, all);
  }
  return all;
}

const PREFIXES = new Set(['re', 'e', 'co', 'pre', 'non', 'anti', 'ex', 'de', 'un', 'sub', 'mid', 'pro', 'self', 'multi', 'semi', 'post', 'over', 'under', 'inter', 'non']);
const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);
const DATE_LEADS = new Set(['in', 'on', 'since', 'until', 'by', 'of', 'before', 'after', 'during', 'from', 'through']);
const IMPERATIVE_OBJECTS = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those', 'it', 'them', 'your', 'my', 'our', 'his', 'her', 'their', 'me', 'us', 'him']);
// ł, ø, đ ... have no decomposition; compromise's normal form writes them as these.
const UNDECOMPOSED: Record<string, string> = { ł: 'l', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ß: 'ss', æ: 'ae', œ: 'oe', ı: 'i' };

// A regular expression with \p{…} in it is written out as new RegExp(…) where it stands by
// esbuild (the server bundle, tsx) and so built at every call inside a function: these are
// built once, here.
const MARKS = /\p{M}/gu;
const STARTS_NUMBER = /^\p{N}/u;
const STARTS_LETTER = /^\p{L}/u;
const ONE_CAPITAL = /^\p{Lu}$/u;
const HYPHENATED_PART = /^\p{L}[\p{L}'’]*$/u;
// A regular expression literal makes a new RegExp object each time it is evaluated: the ones
// read per word are made once, here too.
const NOT_PRINTABLE_ASCII = /[^ -~]/;
const UNDECOMPOSED_LETTER = /[łøđðþßæœı]/g;
const APOSTROPHE = /['’]/;
const NEGATED = /n['’]t$/;
const POSSESSIVE = /['’]s$/;
const URL_START = /^(?:https?:|www\.)/i;
const URL_DOMAIN = /\.(?:com|org|net|io)\b/i;
const ASCII_CAPITALS = /^[A-Z]{2,5}$/;
const FULL_STOP_THEN_SPACE = /^\.?\s+$/;

function normalise(text: string): string {
  let s = text.toLowerCase();
  if (NOT_PRINTABLE_ASCII.test(s)) s = s.normalize('NFD').replace(MARKS, '').replace(UNDECOMPOSED_LETTER, (c) => UNDECOMPOSED[c]);
  return s.includes('.') ? s.replaceAll('.', '') : s;
}

// What surrounds a word in a chunk of text without white space.
const LEADING = /^[^\p{L}\p{N}@#$£€+]+/u;
const TRAILING = /[^\p{L}\p{N}%]+$/u;
const ABBREVIATED = /^(?:\p{L}\.)+\p{L}?\.?$/u;

/** The tags of a number the lexicon does not know ("92647", "555-6655"), shared: tag sets are never changed in place. */
const VALUE_TAGS: ReadonlySet<string> = new Set(['Value']);

function computeTags(text: string, normal: string): Set<string> {
  const lex = load();
  // A word that starts with a digit is a Value, and a lexicon entry for it starts with a digit too.
  const number = isDigit(text.charCodeAt(0));
  let entry = number ? digitLed!.get(normal) : lex[normal];
  const apostrophe = entry === undefined ? normal.search(APOSTROPHE) : -1;
  if (number && entry === undefined && apostrophe < 0) return VALUE_TAGS as Set<string>;
  const tags = new Set<string>();
  if (apostrophe > 0 && NEGATED.test(normal)) {
    // "don't", "CAN'T": a negated verb.
    tags.add('Verb').add('Negative');
    entry = undefined;
  } else if (apostrophe > 0) {
    // "Amanda's", "I'm", "What's": the word before the apostrophe says what it is.
    const stem = normal.slice(0, apostrophe);
    entry = number ? digitLed!.get(stem) : lex[stem];
    if (POSSESSIVE.test(normal)) tags.add('Possessive');
  }
  if (entry !== undefined) for (const tag of typeof entry === 'string' ? [entry] : entry) for (const t of withParents(tag)) tags.add(t);
  if (STARTS_NUMBER.test(text)) tags.add('Value');
  else if (text.includes('@')) tags.add('Email');
  else if (URL_START.test(text) || URL_DOMAIN.test(text)) tags.add('Url');
  else if (ASCII_CAPITALS.test(text) && !tags.has('Person') && !tags.has('Place')) tags.add('Acronym');
  else if (text.length > 2 && ABBREVIATED.test(text)) tags.add('Acronym');
  return tags;
}

// A word's tags depend on the word alone: kept per written form and shared between terms
// (never changed in place: retag() copies first), which spares a set per word.
const tagCache = new Map<string, Set<string>>();
const TAG_CACHE_SIZE = 20_000;
function tagsOf(text: string, normal: string): Set<string> {
  // Numbers are not kept (see chunkParse).
  if (isDigit(text.charCodeAt(0))) return computeTags(text, normal);
  let tags = tagCache.get(text);
  if (!tags) {
    if (tagCache.size >= TAG_CACHE_SIZE) tagCache.clear();
    tags = computeTags(text, normal);
    tagCache.set(text, tags);
  }
  return tags;
}

/** Changes a term's tags: the removed ones first, then the added ones with what they imply. */
function retag(t: Term, change: Retag): void {
  // The same change to the same tags makes the same tags ("Gonzalez" after a first name, text
  // after text): kept per set of tags, which the table drops with the set.
  let tags = change.made.get(t.tags);
  if (tags === undefined) {
    tags = new Set(t.tags);
    for (const n of change.remove) tags.delete(n);
    for (const a of change.add) for (const tag of withParents(a)) tags.add(tag);
    change.made.set(t.tags, tags);
  }
  // The term's own no longer.
  t.tags = tags;
}

/** A change of tags the context rules make: the tags removed, then those added with what they imply, and its results so far. */
class Retag {
  readonly made = new WeakMap<Set<string>, Set<string>>();
  constructor(
    readonly remove: readonly string[],
    readonly add: readonly string[],
  ) {}
}
const TO_MONTH = new Retag(['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName', 'Modal'], ['Month']);
const NOT_MONTH = new Retag(['Month', 'Date'], []);
const TO_FIRST_NAME = new Retag([], ['FirstName']);
const TO_LAST_NAME = new Retag([], ['LastName']);
const TO_VERB = new Retag(['Person', 'FirstName', 'MaleName', 'FemaleName', 'ProperNoun'], ['Verb']);

/** Is a term one a sentence may not end after (a title, an abbreviation, an initial)? */
function holdsSentence(t: Term): boolean {
  return t.tags.has('Abbreviation') || t.tags.has('Honorific') || ONE_CAPITAL.test(t.text) || ABBREVIATED.test(t.text);
}

/** How a chunk of text without white space splits into words (the same for every occurrence of the chunk). */
interface ChunkParse {
  /** Punctuation alone ("-", "..."): no word. */
  punctuationOnly: boolean;
  /** The words with their own tags, offsets relative to the chunk; every word but the last is followed by "-". */
  words: ChunkWord[];
  /** Where the last word's trailing punctuation starts in the chunk. */
  tail: number;
}

function chunkWord(text: string, start: number): ChunkWord {
  const normal = normalise(text);
  const tags = tagsOf(text, normal);
  const facts =
    (startsUpper(text) ? WORD_UPPER : 0) |
    (isCapitalisedWord(text) ? WORD_CAPITALISED : 0) |
    (MONTHS.has(normal) || tags.has('Month') ? WORD_MONTH : 0) |
    (tags.has('Demonym') ? WORD_DEMONYM : 0) |
    (CONNECTORS.has(normal) ? WORD_CONNECTOR : 0) |
    (startsUpper(text) && NRP_SET.has(text) && !NRP_AMBIGUOUS.has(text) ? WORD_NRP : 0);
  return { text, start, normal, tags, facts, note: undefined, own: true };
}

/** How many characters at the end of a chunk TRAILING matches: read from the characters while they are ASCII. */
function trailingPunctuation(chunk: string): number {
  let k = chunk.length;
  while (k > 0) {
    const c = chunk.charCodeAt(k - 1);
    if (c >= 128) return TRAILING.exec(chunk)?.[0].length ?? 0;
    if (isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 37) break;
    k--;
  }
  return chunk.length - k;
}

function parseChunk(chunk: string): ChunkParse {
  // A digit is no leading punctuation (most chunks parsed are numbers).
  const lead = isDigit(chunk.charCodeAt(0)) ? 0 : (LEADING.exec(chunk)?.[0].length ?? 0);
  if (lead === chunk.length) return { punctuationOnly: true, words: [], tail: chunk.length };
  const trail = trailingPunctuation(chunk);
  let word = chunk.slice(lead, chunk.length - trail);
  let start = lead;
  const words: ChunkParse['words'] = [];
  // Words joined by hyphens are apart ("Mayo-Walters", "twenty-one"), but not after a prefix ("re-entered", "e-mail").
  if (word.includes('-') && STARTS_LETTER.test(word)) {
    const parts = word.split('-');
    if (parts.every((p) => HYPHENATED_PART.test(p)) && !PREFIXES.has(parts[0].toLowerCase())) {
      for (let k = 0; k < parts.length - 1; k++) {
        words.push(chunkWord(parts[k], start));
        start += parts[k].length + 1;
      }
      word = parts[parts.length - 1];
    }
  }
  words.push(chunkWord(word, start));
  return { punctuationOnly: false, words, tail: start + word.length };
}

// Chunks repeat ("the", "team", "Denver."): each is split once and kept, as word tags are, in a
// table indexed by a hash of the chunk's characters taken while the chunk is scanned, so a
// chunk seen before is found without being copied out of the text. One chunk a slot: a
// chunk whose slot another took is split again.
const CHUNK_SLOTS = 1 << 14;
const chunkKeys: Array<string | undefined> = new Array<string | undefined>(CHUNK_SLOTS);
const chunkParses: Array<ChunkParse | undefined> = new Array<ChunkParse | undefined>(CHUNK_SLOTS);
// Most chunks are ASCII and at most 8 characters long ("the", "Denver."): such a chunk is also
// written as two numbers while it is scanned (its first four characters, 7 bits each, and the
// next four with its length in the top bits), which say exactly which chunk it is. Its slot
// keeps them side by side in a typed array, so a chunk seen before is recognised from two
// numbers next to each other in memory, not by reading the kept string's characters (a string
// elsewhere in the heap: memory reads that missed the cache were most of the table's cost).
// A slot holding a longer chunk or one with other characters has NOT_PACKED (length field 15).
const chunkPacked = new Int32Array(2 * CHUNK_SLOTS);
const NOT_PACKED = -1;
const PACKED_MAX = 8;

/** The split of text[start, end), whose characters hash to `hash`, and are packed to `low`, `high` when the chunk is ASCII of at most PACKED_MAX characters (else `high` is NOT_PACKED). */
function chunkParse(text: string, start: number, end: number, hash: number, low: number, high: number): ChunkParse {
  const slot = hash & (CHUNK_SLOTS - 1);
  if (high !== NOT_PACKED) {
    if (chunkPacked[2 * slot] === low && chunkPacked[2 * slot + 1] === high) return chunkParses[slot]!;
  } else {
    const key = chunkKeys[slot];
    if (key !== undefined && key.length === end - start) {
      let k = 0;
      while (k < key.length && key.charCodeAt(k) === text.charCodeAt(start + k)) k++;
      if (k === key.length) return chunkParses[slot]!;
    }
  }
  const chunk = text.slice(start, end);
  const parse = isDigit(text.charCodeAt(start)) ? (numberParse(chunk) ?? parseChunk(chunk)) : parseChunk(chunk);
  // Numbers ("66722", "192.168.4.12.") seldom come back: kept, they would only push out
  // words that do, and each would outlive young collections to die in the old generation.
  if (isDigit(text.charCodeAt(start))) return parse;
  chunkKeys[slot] = chunk;
  chunkParses[slot] = parse;
  chunkPacked[2 * slot] = low;
  chunkPacked[2 * slot + 1] = high;
  return parse;
}

/**
 * The parse of a chunk of digits alone ("66722"), the commonest chunk the table does not keep:
 * the word itself, its own normal form, a Value unless the lexicon knows it, which is what
 * parseChunk() makes of it, without reading it through the regular expressions there. The
 * parse is one object, rewritten for each such chunk (tokenize() reads a parse at once and
 * keeps only its words). Undefined for any other chunk.
 */
const NUMBER_PARSE: ChunkParse = { punctuationOnly: false, words: [], tail: 0 };
function numberParse(chunk: string): ChunkParse | undefined {
  for (let k = 0; k < chunk.length; k++) if (!isDigit(chunk.charCodeAt(k))) return undefined;
  load();
  if (digitsOnlyLed && digitLed!.has(chunk)) return undefined;
  NUMBER_PARSE.words = [{ text: chunk, start: 0, normal: chunk, tags: VALUE_TAGS as Set<string>, facts: 0, note: undefined, own: true }];
  NUMBER_PARSE.tail = chunk.length;
  return NUMBER_PARSE;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** JavaScript's `\s`, without a regular expression for the usual characters. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return SPACE.test(String.fromCharCode(c));
}
const SPACE = /\s/;

/** Does a word's post end its sentence: a line break, or a full stop, question or exclamation mark before white space (not after a title, an abbreviation or an initial)? */
function endsSentence(t: Term, spaceAfter: boolean): boolean {
  const post = t.post;
  if (post.length === 1 && post === ' ') return false;
  if (post.includes('\n')) return true;
  if (!spaceAfter) return false;
  const stop = post.includes('.');
  const mark = post.includes('!') || post.includes('?');
  if (!stop && !mark) return false;
  return !(post.charCodeAt(0) === 46 && !mark && holdsSentence(t));
}

/**
 * text[from, to) as a word's post reads it: one line break if it holds one, else one space.
 * Every reader of a post asks only which characters it holds (a comma, a full stop, a line
 * break, only white space) or whether it is exactly " " or "-", and a range of spaces reads as
 * one space there; a blanked sentence is often hundreds of characters, which a post written
 * out in full would copy, and every test of the post would read again.
 */
function blank(text: string, from: number, to: number): string {
  const lineBreak = text.indexOf('\n', from);
  return lineBreak >= 0 && lineBreak < to ? '\n' : ' ';
}

/**
 * text[from, to) as it reads with the blanked ranges (start, end pairs, in order) of
 * blanked[0, upTo) written as blank() writes them; `to` is at or before the start of
 * the ranges after those.
 */
function blankedSlice(text: string, blanked: readonly number[], upTo: number, from: number, to: number): string {
  let r = upTo;
  while (r >= 2 && blanked[r - 1] > from) r -= 2;
  if (r === upTo) return text.slice(from, to);
  let out = '';
  let at = from;
  for (; r < upTo; r += 2) {
    out += text.slice(at, blanked[r]) + blank(text, blanked[r], blanked[r + 1]);
    at = blanked[r + 1];
  }
  return out + text.slice(at, to);
}

/**
 * The text's sentences, as lists of words with their tags. `blanked`: ranges of the text
 * (start, end pairs, in order) read as if every character in them but a line break were a
 * space, which is how sentences that cannot hold a name are left out without copying the text.
 */
export function tokenize(text: string, blanked: readonly number[] = []): Term[][] {
  const sentences: Term[][] = [];
  let sentence: Term[] = [];
  const n = text.length;
  // Blanked ranges passed so far (an index into `blanked`).
  let d = 0;
  // Chunks of text between white space, found by a loop over character codes: no match objects.
  let pos = 0;
  for (;;) {
    if (d < blanked.length && pos === blanked[d]) {
      pos = blanked[d + 1];
      d += 2;
    } else if (pos < n && isSpace(text.charCodeAt(pos))) pos++;
    else break;
  }
  while (pos < n) {
    const chunkStart = pos;
    const blankAt = d < blanked.length ? blanked[d] : n;
    // FNV-1a over the chunk's characters, for the table of chunks seen before.
    let hash = 0x811c9dc5;
    // The chunk packed as chunkParse() reads it: its first four characters, the next four, and
    // every character ORed together (128 or more when one is not ASCII).
    let low = 0;
    let high = 0;
    let chars = 0;
    let end = pos;
    while (end < n && end !== blankAt) {
      const c = text.charCodeAt(end);
      if (isSpace(c)) break;
      hash = Math.imul(hash ^ c, 0x01000193);
      if (end - pos < 4) low = (low << 7) | c;
      else high = (high << 7) | c;
      chars |= c;
      end++;
    }
    high = chars < 128 && end - pos <= PACKED_MAX ? high | ((end - pos) << 28) : NOT_PACKED;
    // The white space up to the next chunk.
    let after = end;
    for (;;) {
      if (d < blanked.length && after === blanked[d]) {
        after = blanked[d + 1];
        d += 2;
      } else if (after < n && isSpace(text.charCodeAt(after))) after++;
      else break;
    }
    pos = after;
    const parse = chunkParse(text, chunkStart, end, hash, low, high);
    if (parse.punctuationOnly) {
      // Punctuation alone ("-", "..."): it belongs after the word before.
      const last = sentence[sentence.length - 1] ?? sentences[sentences.length - 1]?.[sentences[sentences.length - 1].length - 1];
      if (last) last.post = blankedSlice(text, blanked, d, last.start + last.text.length, after);
      continue;
    }
    const words = parse.words;
    for (let k = 0; k < words.length - 1; k++) {
      const w = words[k];
      sentence.push(new Word(w, '-', chunkStart + w.start));
    }
    // The post: the word's trailing punctuation and the white space up to the next chunk.
    const w = words[words.length - 1];
    const start = chunkStart + w.start;
    const t: Term = new Word(w, blankedSlice(text, blanked, d, start + w.text.length, after), start);
    sentence.push(t);
    if (endsSentence(t, after > end)) {
      sentences.push(sentence);
      sentence = [];
    }
  }
  if (sentence.length > 0) sentences.push(sentence);
  for (const s of sentences) contextTags(s);
  return sentences;
}

const STARTS_UPPER = /^\p{Lu}/u;
/** Does a word start with an upper-case letter? */
export function startsUpper(text: string): boolean {
  const c = text.charCodeAt(0);
  if (c < 128) return c >= 65 && c <= 90;
  return STARTS_UPPER.test(text);
}

const CAPITALISED = /^\p{Lu}\p{Ll}/u;
/** An upper-case letter, then a lower-case one ("Maria", not "IBAN" or "maria"). */
export function isCapitalisedWord(text: string): boolean {
  const c = text.charCodeAt(0);
  if (c < 128) {
    if (c < 65 || c > 90) return false;
    const d = text.charCodeAt(1);
    if (d < 128) return d >= 97 && d <= 122;
  }
  return CAPITALISED.test(text);
}
const capitalised = (t: Term | undefined) => !!t && isCapitalisedWord(t.text);
const BREAK = /[,;:.!?()\n"]/;
/** Does punctuation after a word break the run of words it is in (a comma, a full stop, a bracket, a line break)? */
export function breaksAfterPost(post: string): boolean {
  return !(post === ' ') && BREAK.test(post);
}
const breaks = (t: Term) => breaksAfterPost(t.post);

/** What the lexicon cannot say alone, from the neighbours. */
function contextTags(s: Term[]): void {
  for (let i = 0; i < s.length; i++) {
    const t = s[i];
    const month = t.own ? (t.facts & WORD_MONTH) !== 0 : MONTHS.has(t.normal) || t.tags.has('Month');
    const cap = (t.facts & WORD_CAPITALISED) !== 0;
    // Every rule below but the first and the one for a sentence's first word needs a capitalised word.
    if (!cap && !month && i !== 0) continue;
    // (Not s[-1]: an array read below index 0 is a property lookup by name, far slower than an element's.)
    const prev = i > 0 ? s[i - 1] : undefined;
    const next = s[i + 1];
    // "March 3rd", "in May 2020", "on 3 June": a month; "Jan Jílek", "June Carter": a name.
    if (month) {
      const dated = next?.tags.has('Value') || prev?.tags.has('Value') || (!!prev && DATE_LEADS.has(prev.normal) && !breaks(prev));
      if (dated && cap) {
        retag(t, TO_MONTH);
        continue;
      }
      if (!dated && capitalised(next) && !breaks(t)) {
        retag(t, NOT_MONTH);
      }
    }
    // "Ravil G Yefimov", "Alvir D. Pušaver": capitalised words around an initial are a name.
    if (cap && isInitial(next) && !breaks(t) && capitalised(s[i + 2]) && !hasAnyTag(t, NOT_NAME) && !hasAnyTag(s[i + 2], NOT_NAME)) {
      retag(t, TO_FIRST_NAME);
      retag(s[i + 2], TO_LAST_NAME);
    }
    // "She named him Frank", "called Kenneth": a capitalised word after naming is a name.
    // (The naming words first: they are seldom there, and the tags are many to look through.)
    if (cap && prev && !breaks(prev) && (NAMING.has(prev.normal) || (NAMING_OBJECTS.has(prev.normal) && NAMING.has(s[i - 2]?.normal ?? '') && !breaks(s[i - 2]))) && !hasAnyTag(t, NOT_NAME)) {
      retag(t, TO_FIRST_NAME);
    }
    // "Mark the box": a first name opening a sentence before an object is a verb.
    if (i === 0 && t.tags.has('FirstName') && next && IMPERATIVE_OBJECTS.has(next.normal) && !breaks(t)) {
      retag(t, TO_VERB);
      continue;
    }
    // "Dr. Okafor", "Maria Szczepańska": a capitalised word after a title or a first name is a surname.
    if (
      prev &&
      cap &&
      (prev.tags.has('Honorific') || (prev.tags.has('FirstName') && !breaks(prev))) &&
      !hasAnyTag(t, NOT_SURNAME)
    ) {
      retag(t, TO_LAST_NAME);
    }
  }
}

const NOT_NAME = ['Place', 'Date', 'Value', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Organization', 'Modal', 'Copula', 'Acronym', 'Honorific', 'Abbreviation'];
const NAMING = new Set(['named', 'called']);
const NAMING_OBJECTS = new Set(['him', 'her', 'me', 'them', 'it', 'us']);
// (ONE_CAPITAL matches one code point, one or two UTF-16 units: longer words are not read.)
const isInitial = (t: Term | undefined) => !!t && t.text.length <= 2 && ONE_CAPITAL.test(t.text) && FULL_STOP_THEN_SPACE.test(t.post) && !t.post.includes('\n');

const NOT_SURNAME = ['Person', 'Place', 'Date', 'Value', 'Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Verb', 'Adjective', 'Organization', 'Modal', 'Copula'];

function hasAnyTag(t: Term, tags: readonly string[]): boolean {
  for (const x of tags) if (t.tags.has(x)) return true;
  return false;
}
