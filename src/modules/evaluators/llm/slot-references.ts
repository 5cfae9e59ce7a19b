/**
 * The Comparison judge sees its candidates as anonymous slots (A, B, C, ...) so a name cannot
 * sway it, and then explains its verdict in those letters. This rewrites the letters in its
 * reasoning into the candidates' ids, as LangWatch's `select_best_compare` does: only where a
 * letter cannot be read as ordinary English ("A concise answer" keeps its article), because a
 * corrupted sentence is worse than a letter left standing.
 */

/** 0 -> A, 25 -> Z, 26 -> AA, 27 -> AB, ... */
export function slotLabel(index: number): string {
  if (index < 0) throw new RangeError('a slot index is never negative');
  let letters = '';
  let n = index;
  for (;;) {
    letters = String.fromCharCode(65 + (n % 26)) + letters;
    n = Math.floor(n / 26) - 1;
    if (n < 0) return letters;
  }
}

// A slot label, optionally after the noun the judge puts in front of it; the lookarounds keep
// the label a word of its own ("v0", "A_1" never match).
const SLOT_REFERENCE = /(?<![A-Za-z0-9_])(?:(?<prefix>candidates?|slots?|options?)(?<gap>[ \t]+))?(?<slot>[A-Za-z]{1,2})(?![A-Za-z0-9_])/gi;

// Labels that are also English words: left alone unless the words around them rule English out.
const WORD_LIKE_SLOT_LABELS = new Set(
  'A AI AM AN AS AT BE BY DO GO HE I ID IF IN IS IT ME MY NO OF OK ON OR SO TO UP US WE'.split(' '),
);

// Words that can follow a slot label but never the article "a" or the pronoun "I".
const NON_ARTICLE_FOLLOWERS = new Set(
  [
    "is isn't was wasn't are aren't were weren't has hasn't have haven't had hadn't does doesn't do don't did didn't",
    "cannot can't won't would wouldn't could couldn't should shouldn't",
    'and or but nor however therefore then though although',
    'again also instead only',
    'adds addresses aligns answers appears beats captures cites comes contains covers delivers describes discusses drops',
    'elaborates explains fails follows gets gives handles hedges ignores includes lacks lists loses matches mentions misses',
    'names notes offers omits presents provides quotes ranks reads remains repeats restates says scores seems skips stays',
    'sticks summarizes ties tracks uses wanders wins',
  ]
    .join(' ')
    .split(' '),
);

// Comparisons against another candidate: what follows one of these is a candidate.
const COMPARATIVE_PRECEDERS = new Set(
  'against alongside beats chose outperforms over picked prefers than to unlike versus vs with'.split(' '),
);

// Characters that close a reference right after the label ("A," ends one).
const CLOSING_AFTER_SLOT = ',.;:!?)]}\n\r';
// A lone quoted letter is quoted material (a multiple-choice answer "B", the language `C`).
const OPENING_QUOTES = '"\'“‘`';
const CLOSING_QUOTES = '"\'”’`';
// What may follow a bare label without binding to it: "C++" and "C#" are names, not references.
const UNBOUND_AFTER_SLOT = `${CLOSING_AFTER_SLOT} \t'’${CLOSING_QUOTES}`;

const NEXT_WORD = /^[A-Za-z'’]+/;
const PREVIOUS_WORD = /([A-Za-z'’]+)[^A-Za-z]*$/;

const isUpper = (s: string) => s !== s.toLowerCase() && s === s.toUpperCase();
const normalizeApostrophe = (word: string) => word.replace(/’/g, "'").toLowerCase();

/** `reasoning` with the slot labels of this call (`slots`: label -> candidate id) written as candidate ids. */
export function translateSlotReferences(reasoning: string, slots: ReadonlyMap<string, string>): string {
  if (!reasoning) return reasoning;
  return reasoning.replace(SLOT_REFERENCE, (...args) => {
    const match = args[0];
    const offset = args[args.length - 3] as number;
    const groups = args[args.length - 1] as { prefix?: string; gap?: string; slot: string };
    const id = slots.get(groups.slot.toUpperCase());
    const start = offset + match.length - groups.slot.length;
    if (id === undefined || !readsAsSlotReference(reasoning, groups.slot, start, Boolean(groups.prefix))) return match;
    return `${groups.prefix ?? ''}${groups.gap ?? ''}${id}`;
  });
}

function readsAsSlotReference(text: string, token: string, start: number, hasPrefix: boolean): boolean {
  const end = start + token.length;
  const wordLike = WORD_LIKE_SLOT_LABELS.has(token.toUpperCase());
  if (hasPrefix) {
    // "Candidate C" settles it, unless the label is lowercase and a word ("the candidate a reader would pick").
    if (!(wordLike && !isUpper(token))) return true;
  } else if (!isUpper(token)) {
    return false;
  } else if (isQuoted(text, start, end)) {
    return false;
  } else if (end < text.length && !UNBOUND_AFTER_SLOT.includes(text[end])) {
    return false;
  } else if (!wordLike) {
    return true;
  }
  return englishReadingIsRuledOut(text, start, end);
}

function englishReadingIsRuledOut(text: string, start: number, end: number): boolean {
  const after = text.slice(end);
  if (after === '' || CLOSING_AFTER_SLOT.includes(after[0])) return true;
  if (["'s", '’s'].includes(after.slice(0, 2).toLowerCase())) return true;
  const nextWord = NEXT_WORD.exec(after.replace(/^[ \t]+/, ''))?.[0] ?? '';
  if (NON_ARTICLE_FOLLOWERS.has(normalizeApostrophe(nextWord))) return true;
  const previousWord = PREVIOUS_WORD.exec(text.slice(0, start))?.[1] ?? '';
  // "more complete than A (one-liner)"; a capitalized next word means title case, where an article is capitalized too.
  if (COMPARATIVE_PRECEDERS.has(normalizeApostrophe(previousWord))) return !isUpper(nextWord.slice(0, 1));
  return false;
}

function isQuoted(text: string, start: number, end: number): boolean {
  const before = start > 0 ? text[start - 1] : '';
  const after = end < text.length ? text[end] : '';
  return before !== '' && after !== '' && OPENING_QUOTES.includes(before) && CLOSING_QUOTES.includes(after);
}
