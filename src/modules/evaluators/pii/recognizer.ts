import type { EntityType } from './entities.ts';
import type { CountryCode } from 'libphonenumber-js/max';
import type { NlpEntity } from './nlp-entity.ts';
import { digitAnchor, LONGEST_WORD_INDEXED, minDigitRun, minWordRun, wholeWord, type TextRuns } from './text-runs.ts';

/** A candidate before context, overlap resolution and threshold. Offsets are UTF-16 units. */
export interface RawResult {
  entity: EntityType;
  start: number;
  end: number;
  score: number;
  /** Context words of the recognizer that produced it (Presidio keeps them per recognizer). */
  context: readonly string[];
  /**
   * The score the written form alone earns when the engine enhances scores, as a context
   * word would (a phone number with its country code). `score` stays the recognizer's own
   * (Presidio's) score.
   */
  evidence?: number;
  /**
   * How specific the explanation is when findings of different types overlap; the higher
   * one wins (see `resolveTypeConflicts`). PATTERN, the default, for a pattern or a guess.
   */
  specificity?: number;
}

// The rungs of `specificity`. Each is evidence the rung below does not have, so the order
// does not depend on which recognizers happen to be enabled.
/** The shape alone, a guess, or a check that most values of the shape pass. */
export const PATTERN = 0;
/**
 * A rule that rejects most values of the shape confirmed this one: a check digit (1 in 10
 * or 11 random values pass), a day that exists in its month.
 */
export const VALIDATED = 1;
/**
 * The whole value matched a published structure on top of its check: a card number in an
 * issuer's range and length with Luhn, an IBAN in its country's length and format with
 * mod 97, a street address.
 */
export const STRUCTURED = 2;

export interface AnalyzeOptions {
  /** libphonenumber-js leniency; Presidio's default (1) is VALID. */
  phoneLeniency: 'POSSIBLE' | 'VALID';
  /**
   * Whether searches may be left out, shortened or split where that provably finds the same
   * (true unless the caller turns pruning off, which is how tests check that it does).
   */
  pruning: boolean;
  /** Named entities of the text, computed on first use and shared by every NLP recognizer. */
  nlpEntities(): readonly NlpEntity[];
  /** Countries the text names ("Cyprus", "Deutschland"), computed on first use. */
  regionsInText(): readonly CountryCode[];
  /**
   * What `compute` gives for this text, computed by the first recognizer that asks and
   * shared with the others (the phone recognizers' candidate windows); `key` names it.
   */
  perText<T>(key: object, compute: () => T): T;
  /**
   * Whether a result the recognizer scores `score` can still pass the caller's threshold
   * once context words are counted (engine.ts). A pattern whose results cannot is not run:
   * a result below the threshold changes nothing that is returned (duplicates are dropped
   * only by a result scoring at least as much, type conflicts are settled after the
   * threshold), so the findings stay the same and the text is searched once less.
   */
  canPass(score: number): boolean;
  /**
   * Whether a result scoring `score`, raised by nothing (no context word, no evidence of its
   * own), passes the caller's threshold; always true when pruning is off.
   */
  passesAlone(score: number): boolean;
  /**
   * Whether one of `words` could raise a result starting anywhere in [start, end) as a
   * context word (false when context words are off): false rules it out, true may not.
   */
  contextMayCount(start: number, end: number, words: readonly string[]): boolean;
  /**
   * Whether one of `words` could raise any result of the text as a context word (false when
   * context words are off): false rules out every result's raise, true may not.
   */
  contextInText(words: readonly string[]): boolean;
  /**
   * Whether the text may hold `digits` ASCII digits in a row (it does when pruning is off):
   * a pattern every match of which holds such a run (text-runs.ts) is not run when it cannot.
   */
  mayHoldDigitRun(digits: number): boolean;
  /**
   * Whether the text may hold `chars` word characters in a row (ASCII letters, digits, "_":
   * text-runs.ts; it does when pruning is off): a pattern every match of which holds such a
   * run is not run when it cannot.
   */
  mayHoldWordRun(chars: number): boolean;
  /**
   * The text's runs of digits (text-runs.ts), read once and shared by every recognizer;
   * asked only when pruning is on.
   */
  digitRuns(): TextRuns;
}

export interface Recognizer {
  readonly name: string;
  readonly entities: readonly EntityType[];
  analyze(text: string, options: AnalyzeOptions): RawResult[];
}

/** Presidio: a validated match gets the maximum score, a refuted one is dropped. */
export const MAX_SCORE = 1;

export interface PatternDef {
  name: string;
  /** Written as in Presidio; compiled with the recognizer's flags plus `g`. */
  regex: RegExp;
  score: number;
  /**
   * Characters every match of the pattern contains ("::" in an IPv6 address, "/" in a date
   * written with slashes): a text without them is not searched with it. Must hold for every
   * match, or findings are lost.
   */
  contains?: readonly string[];
  /**
   * Something every match holds within `within` UTF-16 units of its start, at or after it:
   * a string ("@" at most 64 code points into an e-mail address), or an expression (a dot
   * and two letters at most 260 units into a web address). The search for the next match
   * starts `within` units before the next occurrence of it, and stops when there is none.
   * No match can start earlier (its own occurrence would come before the next one), so the
   * matches are the same, and the text between occurrences is not searched. With `between`,
   * the characters every match holds from its start up to the occurrence (an e-mail
   * address's local part, one code point tested at a time), the search starts where the run
   * of them before the occurrence does, when that is later. Both are compiled with the
   * pattern's flags; a string is compared as written (no letters in a case-insensitive
   * pattern). A window of at most STICKY_WINDOW units (the "-" four digits into an ISO date)
   * is not searched but tried position by position, so that a text where no match is near
   * an occurrence is not searched to its end. That pays where the marker is rarer than the
   * pattern's first characters are cheap to skip: a "." (every sentence has one) before a
   * pattern starting with a digit costs more tries than the search. Must hold for every match.
   * A pattern without one whose every match holds a block of digits gets one read from its
   * source (digitAnchor: "\b[A-Z]{2}\d{7}\b", seven digits at most two units in), whose
   * occurrences are the places such a block begins in the text's runs of digits, tried one by
   * one when they are few (TRY_COST).
   */
  anchor?: { marker: string | RegExp; within: number; between?: RegExp };
}

export interface PatternRecognizerSpec {
  name: string;
  entity: EntityType;
  patterns: readonly PatternDef[];
  context: readonly string[];
  /**
   * Presidio's `validate_result`: true raises the score to 1, false drops the match,
   * null keeps the pattern's score.
   */
  validate?: (match: string) => boolean | null;
  /** Presidio's `invalidate_result`: true drops the match. */
  invalidate?: (match: string) => boolean;
  /**
   * Presidio compiles pattern recognizers with IGNORECASE unless the recognizer says
   * otherwise (IBAN, Spanish passport).
   */
  caseSensitive?: boolean;
  /** A cheap test the text must pass before any pattern runs (most IDs need a digit). */
  requires?: RegExp | null;
  /**
   * `specificity` of a validated match: VALIDATED, STRUCTURED when the check is stronger
   * than a check digit, PATTERN when most values of the shape pass it.
   */
  validatedSpecificity?: number;
  /**
   * A structure check that makes a match VALIDATED in overlaps without touching its score,
   * for recognizers Presidio gives no validation (a date that exists stays at Presidio's
   * 0.6 but is no longer a bare pattern next to a licence plate).
   */
  confirm?: (match: string) => boolean;
}

/** What an anchor's marker is: a string, an expression, or (digitAnchor) a block of `digits` ASCII digits. */
type Marker = string | RegExp | { digits: number };
type Anchor = { marker: Marker; within: number };

const HAS_DIGIT = /[0-9]/;
/** The widest anchor window tried position by position rather than searched (PatternDef.anchor). */
const STICKY_WINDOW = 8;
/**
 * How many characters of a search of the text one try of a pattern at one position costs, as
 * a bound: a try costs about 20 ns, a search from 0.2 ns a character (a pattern opening with
 * "\b\d", which the search skips to digits) to several (one opening with letters, or with no
 * "\b"). The positions near a text's runs of digits are tried one by one only when there are
 * fewer than its length over this (a Swedish personal number's six digits in a row, rare in
 * prose); else the text is searched as written. Measured on the privacy bench's texts: 16 let a
 * pattern opening with "\b\d" be tried at a hundred places, five times what its search costs,
 * and 64 at twenty (a US social security number's five digits), about what it costs.
 */
const TRY_COST = 128;

export function patternRecognizer(spec: PatternRecognizerSpec): Recognizer {
  const flags = `g${spec.caseSensitive ? '' : 'i'}sm`;
  const compiled = spec.patterns.map((p) => {
    // Without an anchor of its own, a pattern every match of which holds a block of digits
    // (digitAnchor, read from its source) is anchored on that block: its marker is the text's
    // runs of digits, found without a search (TextRuns). Not with "u" (see `sticky`).
    const block = p.anchor || p.regex.unicode ? null : digitAnchor(p.regex.source);
    const digits = block ? { marker: { digits: block.digits }, within: block.within } : null;
    // A pattern whose every match is one whole word (wholeWord, read from its source) may be
    // tried only at the text's words of its lengths. Not with "u", where "\b" reads more letters.
    const word = p.anchor || p.regex.unicode ? null : wholeWord(p.regex.source);
    return {
      ...p,
      word: word && word.max <= LONGEST_WORD_INDEXED ? word : null,
      regex: new RegExp(p.regex.source, flags + (p.regex.unicode ? 'u' : '')),
      digitRun: minDigitRun(p.regex.source),
      wordRun: minWordRun(p.regex.source),
      digits,
      // Compiled as the pattern is, so that their characters match as the pattern's do.
      marker: p.anchor && typeof p.anchor.marker !== 'string' ? new RegExp(p.anchor.marker.source, flags + (p.regex.unicode ? 'u' : '')) : null,
      between: p.anchor?.between ? new RegExp(p.anchor.between.source, flags.replace('g', '') + (p.regex.unicode ? 'u' : '')) : null,
      // Tried at one position at a time; not with "u", where a search skips the middle of a surrogate pair and a try would not.
      sticky: (p.anchor && p.anchor.within <= STICKY_WINDOW && !p.regex.unicode) || digits || word ? new RegExp(p.regex.source, flags + 'y') : null,
    };
  });
  const requires = spec.requires === undefined ? HAS_DIGIT : spec.requires;
  const context = spec.context.map((w) => w.toLowerCase());
  return {
    name: spec.name,
    entities: [spec.entity],
    analyze(text, options) {
      if (requires && !requires.test(text)) return [];
      const results: RawResult[] = [];
      // Whether a context word of the recognizer is anywhere in the text (asked once, when needed).
      let contextInText: boolean | null = null;
      for (const pattern of compiled) {
        // Validation raises a match to MAX_SCORE; without it, the pattern's score is its best,
        // raised only by a context word, which the text may lack altogether.
        if (!spec.validate && !options.canPass(pattern.score)) continue;
        if (!spec.validate && !options.passesAlone(pattern.score) && !(contextInText ??= options.contextInText(context))) continue;
        if (pattern.contains && !pattern.contains.every((c) => text.includes(c))) continue;
        if (pattern.digitRun > 1 && !options.mayHoldDigitRun(pattern.digitRun)) continue;
        if (pattern.wordRun > pattern.digitRun && pattern.wordRun > 1 && !options.mayHoldWordRun(pattern.wordRun)) continue;
        const re = pattern.regex;
        // A block of digits is tried near only when the places are few against the text (see
        // TRY_COST); else the text is searched as written.
        // (A pattern needing a single digit is not: its places are too many in any text with digits,
        // and reading the runs would cost a text that no other recognizer has them read for.)
        const runs = options.pruning && pattern.digits && pattern.digitRun > 1 ? options.digitRuns() : null;
        const anchor: Anchor | undefined = options.pruning
          ? (pattern.anchor ??
            (runs && runs.positions(pattern.digits!.marker.digits, pattern.digits!.within) * TRY_COST <= text.length ? pattern.digits! : undefined))
          : undefined;
        // A whole-word pattern is tried at the words of its lengths, when they are few against the
        // text (TRY_COST): every match starts at one, so the first that matches at or after `from`
        // is the match a search from `from` finds.
        const atWords = options.pruning && pattern.word ? options.digitRuns().wordStarts(pattern.word.min, pattern.word.max, Math.floor(text.length / TRY_COST)) : null;
        let nextWord = 0;
        // Where the next match may start: after the last one (one further after an empty one).
        let from = 0;
        let m: RegExpExecArray | null;
        for (;;) {
          if (atWords) {
            m = null;
            while (nextWord < atWords.length && m === null) {
              const start = atWords[nextWord++];
              if (start < from) continue;
              pattern.sticky!.lastIndex = start;
              m = pattern.sticky!.exec(text);
            }
            if (m === null) break;
          } else if (anchor && pattern.sticky) {
            if ((m = triedNear(text, pattern.sticky, pattern.marker ?? anchor.marker, anchor.within, from, runs)) === null) break;
          } else {
            if (anchor) {
              const at = nextOccurrence(text, pattern.marker ?? anchor.marker, from, runs);
              if (at < 0) break;
              const earliest = Math.max(from, at - anchor.within);
              re.lastIndex = pattern.between ? runStart(text, pattern.between, earliest, at) : earliest;
            } else re.lastIndex = from;
            if ((m = re.exec(text)) === null) break;
          }
          if (m[0].length === 0) {
            from = m.index + 1;
            continue;
          }
          from = m.index + m[0].length;
          let score = pattern.score;
          const validation = spec.validate ? spec.validate(m[0]) : null;
          if (validation === true) score = MAX_SCORE;
          else if (validation === false) score = 0;
          if (score > 0 && spec.invalidate && spec.invalidate(m[0])) score = 0;
          if (score > 0) {
            const specificity =
              validation === true ? (spec.validatedSpecificity ?? VALIDATED) : spec.confirm?.(m[0]) ? VALIDATED : PATTERN;
            results.push({ entity: spec.entity, start: m.index, end: m.index + m[0].length, score, context, specificity });
          }
        }
      }
      return removeDuplicates(results);
    },
  };
}

/**
 * The first match at or after `from` of the pattern `sticky` tries at one position, when every
 * match holds `marker` within `within` units of its start: the positions up to `within` units
 * before each occurrence, in order, each tried once. They hold every match's start, so the
 * first that matches is where the pattern's search from `from` would find its first match.
 */
function triedNear(text: string, sticky: RegExp, marker: Marker, within: number, from: number, runs: TextRuns | null): RegExpExecArray | null {
  // The first position not tried yet.
  let next = from;
  for (;;) {
    const at = nextOccurrence(text, marker, next, runs);
    if (at < 0) return null;
    for (let start = Math.max(next, at - within); start <= at; start++) {
      sticky.lastIndex = start;
      const m = sticky.exec(text);
      if (m) return m;
    }
    next = at + 1;
  }
}

/**
 * Where the next occurrence of `marker` (a string, a global expression, or a block of digits,
 * found in the text's `runs`) at or after `from` starts, or -1.
 */
function nextOccurrence(text: string, marker: Marker, from: number, runs: TextRuns | null): number {
  if (typeof marker === 'string') return text.indexOf(marker, from);
  if (marker instanceof RegExp) {
    marker.lastIndex = from;
    return marker.exec(text)?.index ?? -1;
  }
  return runs!.nextBlock(marker.digits, from);
}

/** Where the run of code points `chars` matches that ends at `end` starts, going back no further than `earliest`. */
function runStart(text: string, chars: RegExp, earliest: number, end: number): number {
  let s = end;
  while (s > earliest) {
    const pair = s - 2 >= earliest && (text.charCodeAt(s - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(s - 2) & 0xfc00) === 0xd800;
    const back = pair ? 2 : 1;
    if (!chars.test(text.slice(s - back, s))) break;
    s -= back;
  }
  return s;
}

/**
 * Presidio's `EntityRecognizer.remove_duplicates`: highest score first; a result is
 * dropped when another of the same type with at least its score covers it.
 */
export function removeDuplicates(results: RawResult[]): RawResult[] {
  if (results.length < 2) return results;
  // Only results that overlap can contain one another: split each entity's results into
  // overlapping clusters so that thousands of separate matches stay linear.
  const byStart = [...results].sort((a, b) => (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0) || a.start - b.start);
  const kept: RawResult[] = [];
  let cluster: RawResult[] = [];
  let clusterEnd = -1;
  for (const r of byStart) {
    if (cluster.length > 0 && (r.entity !== cluster[0].entity || r.start >= clusterEnd)) {
      kept.push(...dedupeCluster(cluster));
      cluster = [];
    }
    if (cluster.length === 0) clusterEnd = r.end;
    cluster.push(r);
    clusterEnd = Math.max(clusterEnd, r.end);
  }
  kept.push(...dedupeCluster(cluster));
  return kept;
}

function dedupeCluster(cluster: RawResult[]): RawResult[] {
  if (cluster.length < 2) return cluster;
  const sorted = cluster.sort((a, b) => b.score - a.score || a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: RawResult[] = [];
  for (const r of sorted) {
    if (!kept.some((k) => r.start >= k.start && r.end <= k.end)) kept.push(r);
  }
  return kept;
}

/**
 * When findings of different types overlap, one explanation of the text is kept where one
 * is better, as Presidio's analyzer and anonymizer decide between conflicting results:
 * - the more specific one (a higher `specificity` rung) wins: a phone number written with
 *   its country code is not a VAT code that happens to pass a check digit, an IBAN is not
 *   the national id that some of its digits spell;
 * - on the same rung, a finding covering a shorter one with at least its score wins (the
 *   longer explanation accounts for more of the text: an IBAN over the card number its
 *   digits spell).
 * Findings on the same rung that only partly overlap or share their span are all kept, as
 * Presidio's analyzer keeps them.
 */
export function resolveTypeConflicts(results: RawResult[]): RawResult[] {
  if (results.length < 2) return results;
  const byStart = [...results].sort((a, b) => a.start - b.start);
  const dropped = new Set<RawResult>();
  for (let i = 0; i < byStart.length; i++) {
    const a = byStart[i];
    for (let j = i + 1; j < byStart.length && byStart[j].start < a.end; j++) {
      const b = byStart[j];
      if (a.entity === b.entity) continue;
      const loser = weaker(a, b);
      if (loser) dropped.add(loser);
    }
  }
  return dropped.size === 0 ? results : results.filter((r) => !dropped.has(r));
}

/** Of two overlapping findings of different types, the one that gives way, if either does. */
function weaker(a: RawResult, b: RawResult): RawResult | null {
  const sa = a.specificity ?? PATTERN;
  const sb = b.specificity ?? PATTERN;
  if (sa !== sb) return sa > sb ? b : a;
  const aCoversB = a.start <= b.start && a.end >= b.end;
  const bCoversA = b.start <= a.start && b.end >= a.end;
  // The same span on the same rung is two readings of one value ("541-714-1388" is a valid
  // US number and a valid Turkish mobile): neither explains more of the text.
  if (aCoversB && bCoversA) return null;
  if (aCoversB) return a.score >= b.score ? b : null;
  if (bCoversA) return b.score >= a.score ? a : null;
  return null;
}
