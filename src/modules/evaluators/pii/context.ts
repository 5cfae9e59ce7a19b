import type { RawResult } from './recognizer.ts';

/**
 * Presidio's LemmaContextAwareEnhancer, without spaCy: a recognizer's context word found
 * among the words around a match raises its score by 0.35, to at least 0.4, at most 1.
 *
 * Like Presidio, stop words and punctuation neither count as context nor use up the
 * window, the word the match starts in counts (a context word glued to the value, as in
 * "is030594W903B", still helps), and a context word matches when it is a substring of a
 * surrounding word ("numbers" contains "number"). Unlike Presidio, a context word that is a
 * stop word counts when it is itself in the window (Presidio's phone context "call" is a
 * spaCy stop word, so it never counts there), a window reaches 5 words
 * after the match as well as 5 before (Presidio's default looks only before), and a
 * multi-word context phrase ("national insurance") matches when it occurs in the window;
 * spaCy tokens are single words, so Presidio never matches those.
 */
export const CONTEXT_SIMILARITY_FACTOR = 0.35;
export const MIN_SCORE_WITH_CONTEXT = 0.4;
export const CONTEXT_WORDS_BEFORE = 5;
export const CONTEXT_WORDS_AFTER = 5;

// spaCy's English stop words (spacy/lang/en/stop_words.py), which decide what Presidio
// counts as a context word.
const STOP_WORDS = new Set(
  (
    "a about above across after afterwards again against all almost alone along already also although always am among " +
    "amongst amount an and another any anyhow anyone anything anyway anywhere are around as at back be became because " +
    "become becomes becoming been before beforehand behind being below beside besides between beyond both bottom but by " +
    "ca call can cannot could did do does doing done down due during each eight either eleven else elsewhere empty enough " +
    "even ever every everyone everything everywhere except few fifteen fifty first five for former formerly forty four " +
    "from front full further get give go had has have he hence her here hereafter hereby herein hereupon hers herself him " +
    "himself his how however hundred i if in indeed into is it its itself just keep last latter latterly least less made " +
    "make many may me meanwhile might mine more moreover most mostly move much must my myself n't name namely neither " +
    "never nevertheless next nine no nobody none noone nor not nothing now nowhere of off often on once one only onto or " +
    "other others otherwise our ours ourselves out over own part per perhaps please put quite rather re really regarding " +
    "same say see seem seemed seeming seems serious several she should show side since six sixty so some somehow someone " +
    "something sometime sometimes somewhere still such take ten than that the their them themselves then thence there " +
    "thereafter thereby therefore therein thereupon these they third this those though three through throughout thru " +
    "thus to together too top toward towards twelve twenty two under unless until up upon us used using various very via " +
    "was we well were what whatever when whence whenever where whereafter whereas whereby wherein whereupon wherever " +
    "whether which while whither who whoever whole whom whose why will with within without would yet you your yours " +
    "yourself yourselves 'd 'll 'm 're 's 've"
  ).split(' '),
);

export interface Token {
  start: number;
  end: number;
  lower: string;
  keyword: boolean;
}

// A word is what /[\p{L}\p{N}_]+(?:['’\-#][\p{L}\p{N}_]+)*#?/gu matches: word characters,
// joined by an apostrophe, a hyphen or "#", and a "#" after. contextTokens reads it with a
// loop over character codes (no match objects); the expression decides the characters
// outside ASCII, remembered per character for the Basic Multilingual Plane.
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
// 0: not looked up yet, 1: a word character, 2: not one.
const bmpWordChar = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) bmpWordChar[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ? 1 : 2;

/** The length in UTF-16 units of the word character (code point) at `i`, or 0 when there is none. */
function wordCharAt(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return WORD_CHAR.test(text.slice(i, i + 2)) ? 2 : 0;
  }
  let known = bmpWordChar[c];
  if (known === 0) bmpWordChar[c] = known = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
  return known === 1 ? 1 : 0;
}

/** The end of the run of word characters starting at `i` (`i` when there is none). */
function wordRunEnd(text: string, i: number): number {
  const length = text.length;
  for (;;) {
    // ASCII, nearly every character of most texts, without the call.
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c >= 128) break;
      if (bmpWordChar[c] !== 1) return i;
      i++;
    }
    const n = wordCharAt(text, i);
    if (n === 0) return i;
    i += n;
  }
}

/** The longest stop word: a longer word is a keyword without looking it up. */
const LONGEST_STOP_WORD = Math.max(...[...STOP_WORDS].map((w) => w.length));

/**
 * The stop words by first character (all are ASCII) and length: a word is compared with the
 * few it could be, not hashed to be looked up in the set (a word is a new string each time,
 * and hashing it was about half of reading a text's words).
 */
const STOP_WORDS_BY_START = new Array<string[] | undefined>(128 * (LONGEST_STOP_WORD + 1));
for (const w of STOP_WORDS) (STOP_WORDS_BY_START[w.charCodeAt(0) * (LONGEST_STOP_WORD + 1) + w.length] ??= []).push(w);

/** Whether a lower-cased word is a stop word. */
function isStopWord(lower: string): boolean {
  const c = lower.charCodeAt(0);
  if (c >= 128 || lower.length > LONGEST_STOP_WORD) return false;
  const same = STOP_WORDS_BY_START[c * (LONGEST_STOP_WORD + 1) + lower.length];
  return same !== undefined && same.includes(lower);
}

/** The words of a text as context words are looked for among them. */
export function contextTokens(text: string): Token[] {
  const tokens: Token[] = [];
  const length = text.length;
  // Lower-cased once, each word a slice of it: the same as lower-casing each word, unless
  // lower-casing changes a length ("İ") or looks past the word (a final sigma).
  const lowered = text.toLowerCase();
  const lowerText = lowered.length === length && !text.includes('Σ') ? lowered : null;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    // Not a word character: the next code point (a surrogate pair is one, as with the u flag).
    const first = c < 128 ? (bmpWordChar[c] === 1 ? 1 : 0) : wordCharAt(text, i);
    if (first === 0) {
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      continue;
    }
    const start = i;
    let end = wordRunEnd(text, i + first);
    // A joiner followed by a word character continues the word.
    for (;;) {
      const j = text.charCodeAt(end);
      if (!(j === 39 || j === 0x2019 || j === 45 || j === 35) || wordCharAt(text, end + 1) === 0) break;
      end = wordRunEnd(text, end + 1);
    }
    if (text.charCodeAt(end) === 35) end++;
    const lower = lowerText !== null ? lowerText.slice(start, end) : text.slice(start, end).toLowerCase();
    tokens.push({ start, end, lower, keyword: !isStopWord(lower) });
    i = end;
  }
  return tokens;
}

/** Index of the first token ending after `offset` (the one the match starts in, or the next). */
function tokenAt(tokens: readonly Token[], offset: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid].end <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A score raised by a context word found around its match. */
export function withContext(score: number): number {
  return Math.min(1, Math.max(score + CONTEXT_SIMILARITY_FACTOR, MIN_SCORE_WITH_CONTEXT));
}

export function enhanceUsingContext(text: string, results: RawResult[], tokens: readonly Token[] = contextTokens(text)): RawResult[] {
  if (results.length === 0) return results;
  if (tokens.length === 0) return results;
  return results.map((r) => {
    if (r.context.length === 0 || r.score >= 1) return r;
    const i = Math.min(tokenAt(tokens, r.start), tokens.length - 1);
    const words: string[] = [];
    let first = i;
    let last = i;
    // Stop words the window passes over, which count only as a recognizer's own context word.
    const stopWords: string[] = [];
    for (let j = i, left = CONTEXT_WORDS_BEFORE + 1; j >= 0 && left > 0; j--) {
      if (tokens[j].keyword) {
        words.push(tokens[j].lower);
        left--;
        first = j;
      } else stopWords.push(tokens[j].lower);
    }
    for (let j = i, left = CONTEXT_WORDS_AFTER + 1; j < tokens.length && left > 0; j++) {
      if (tokens[j].keyword) {
        words.push(tokens[j].lower);
        left--;
        last = j;
      } else stopWords.push(tokens[j].lower);
    }
    let phraseWindow: string | null = null;
    const found = r.context.some((cw) => {
      if (!cw.includes(' ')) return words.some((w) => w.includes(cw)) || stopWords.includes(cw);
      phraseWindow ??= tokens
        .slice(first, last + 1)
        .map((t) => t.lower)
        .join(' ');
      return phraseWindow.includes(cw);
    });
    if (!found) return r;
    return { ...r, score: withContext(r.score) };
  });
}

/**
 * Whether one of `words` could count as a context word for a result starting anywhere in
 * [start, end): every window enhanceUsingContext would look at for such a result lies
 * between the sixth keyword before the token at `start` and the sixth after the token at
 * `end - 1`, and a context word it finds there (a substring of a keyword, a stop word, a
 * phrase of the window) is a substring of those tokens joined by spaces. So false means no
 * result there can be raised by a context word; true means one might.
 */
export function contextMayCount(tokens: readonly Token[], start: number, end: number, words: readonly string[]): boolean {
  if (tokens.length === 0 || words.length === 0) return false;
  let first = Math.min(tokenAt(tokens, start), tokens.length - 1);
  for (let left = CONTEXT_WORDS_BEFORE + 1; first >= 0; first--) {
    if (tokens[first].keyword && --left === 0) break;
  }
  let last = Math.min(tokenAt(tokens, Math.max(start, end - 1)), tokens.length - 1);
  for (let left = CONTEXT_WORDS_AFTER + 1; last < tokens.length; last++) {
    if (tokens[last].keyword && --left === 0) break;
  }
  let around = '';
  for (let k = Math.max(first, 0); k <= Math.min(last, tokens.length - 1); k++) around += (k > 0 ? ' ' : '') + tokens[k].lower;
  return words.some((w) => around.includes(w));
}

/**
 * The text's words joined by spaces: every window `contextMayCount` reads is a part of it,
 * so a context word that is no substring of it cannot raise any result of the text.
 */
export function joinedTokens(tokens: readonly Token[]): string {
  let all = '';
  for (let k = 0; k < tokens.length; k++) all += (k > 0 ? ' ' : '') + tokens[k].lower;
  return all;
}

/**
 * The context word lists recognizers ask about for a whole text (`contextInText`: each pattern
 * recognizer's own list, the same array every time), and which of their words are substrings
 * of a text's joined tokens, found in one pass over that string instead of one search per
 * word. The pass is a global expression of every listed word, longest first, in a look-ahead,
 * tried at each position: at a position where listed words occur, it names the longest; the
 * others occurring there are its prefixes, listed beside it. So a word is found exactly when
 * it is a substring (`includes`), with the same code-unit comparison (no flags).
 */
const MAX_WORD_LISTS = 256;
const wordLists = new Set<readonly string[]>();
let finder: { pass: RegExp; prefixes: Map<string, readonly string[]> } | null = null;

function buildFinder(): { pass: RegExp; prefixes: Map<string, readonly string[]> } | null {
  const words = [...new Set([...wordLists].flat())].filter((w) => w.length > 0).sort((a, b) => b.length - a.length);
  if (words.length === 0) return null;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const listed = new Set(words);
  const prefixes = new Map<string, readonly string[]>();
  for (const w of words) {
    const own: string[] = [];
    for (let k = 1; k <= w.length; k++) if (listed.has(w.slice(0, k))) own.push(w.slice(0, k));
    prefixes.set(w, own);
  }
  return { pass: new RegExp(`(?=(${words.map(escape).join('|')}))`, 'g'), prefixes };
}

/** Which listed words a text's joined tokens hold (see above), computed on first use. */
export class ContextWordsInText {
  private found: Set<string> | null = null;

  constructor(private readonly joined: () => string) {}

  /** Whether one of `words` is a substring of the joined tokens. */
  any(words: readonly string[]): boolean {
    if (!wordLists.has(words)) {
      // A list made anew for each call would grow the expression for ever: searched word by word.
      if (wordLists.size >= MAX_WORD_LISTS) return words.some((w) => this.joined().includes(w));
      wordLists.add(words);
      finder = null;
      this.found = null;
    }
    const found = (this.found ??= this.find());
    return words.some((w) => w.length === 0 || found.has(w));
  }

  private find(): Set<string> {
    const found = new Set<string>();
    finder ??= buildFinder();
    if (!finder) return found;
    const { pass, prefixes } = finder;
    const joined = this.joined();
    pass.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = pass.exec(joined)) !== null) {
      for (const w of prefixes.get(m[1])!) found.add(w);
      pass.lastIndex = m.index + 1;
    }
    return found;
  }
}
