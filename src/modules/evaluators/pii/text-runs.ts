// The runs a pattern needs and a text has, so that a pattern is not run where it cannot match,
// or is tried only where it can: runs of digits and of word characters read from a pattern's
// source (minDigitRun, minWordRun, digitAnchor, wholeWord), and a text's runs read in one pass
// (TextRuns). Used by the pattern recognizers (recognizer.ts) when detection prunes.

/**
 * How many ASCII digits in a row every match of a regular expression holds ("\b\d{9}\b": 9,
 * "\d{3}[\s.-]?\d{4}": 4), read from its source, and the longest such run a text has: a
 * pattern needing a longer run than the text's cannot match there, so it is not run.
 *
 * The reading is a lower bound and errs low: `\d`, a class of digits only and a digit written
 * out count; assertions (`\b`, `^`, lookarounds) consume nothing, so digits on either side of
 * them stay next to each other; anything else that may consume a character ends the run; a
 * group counts what each of its alternatives is sure to hold (the least of them) when it
 * must occur at least once; an alternation counts its least alternative. JavaScript's `\d`
 * is [0-9] whatever the flags, and a class of digits has no other case.
 */
export function minDigitRun(source: string): number {
  const p = new Parser(source, false);
  const run = p.alternation();
  // Something not understood (an unbalanced parenthesis): claim nothing.
  return p.i === source.length ? run : 0;
}

/**
 * The same for word characters (ASCII letters, digits, "_"): how many in a row every match
 * holds ("\b[A-Z9]{5}[0-9]{6}\b": 11), read the same way, with a letter, "\w" and a class of
 * ASCII letters, digits and "_" counting too; and the longest such run a text has. With the
 * `i` and `u` flags a letter also matches "ſ" (U+017F) and the Kelvin sign (U+212A), so the
 * text's runs count those as well.
 */
export function minWordRun(source: string): number {
  const p = new Parser(source, true);
  const run = p.alternation();
  return p.i === source.length ? run : 0;
}

/**
 * Where every match of a pattern (written without the `u` flag) holds its run of digits: a
 * block of `digits` ASCII digits in a row (minDigitRun) that begins at most `within` UTF-16
 * units after the match's start, read from its source as minDigitRun reads it, with the most
 * units each part consumes ("\b[A-Z]{2}\d{7}\b": 7 digits within 2). So no match starts more
 * than `within` units before such a block of the text, nor after the last place one begins:
 * the pattern need only be tried near the text's runs of digits (recognizer.ts). Null when
 * the pattern needs no digit or the place is not bounded (a "+" or "*" before the digits).
 * With `u` a character may take two units, which the widths here do not count.
 */
export function digitAnchor(source: string): { digits: number; within: number } | null {
  const digits = minDigitRun(source);
  if (digits === 0) return null;
  const p = new Parser(source, false, digits);
  const runs = p.alternatives();
  return p.i === source.length && Number.isFinite(runs.at) ? { digits, within: runs.at } : null;
}

/** Whole-word patterns longer than this are searched as written (TextRuns indexes shorter words). */
export const LONGEST_WORD_INDEXED = 64;

/**
 * Whether every match of a pattern (written without the `u` flag) is one whole word of the text,
 * and of how many characters: each of its alternatives is `\b`, then nothing but word
 * characters (ASCII letters, digits, "_", as minWordRun reads them) and assertions, then `\b`
 * ("\b[A-Z]{2}\d{4}\b": 6 to 6; "\b\d{8}[A-Z]\b|\b\d{9}[A-Z]\b": 9 to 10). Without `u`, `\b`
 * divides [A-Za-z0-9_] from everything else, so such a match starts where a run of those begins
 * and ends where it ends: the pattern need only be tried at the text's words of that length
 * (recognizer.ts). Null for any other pattern, or one not understood.
 */
export function wholeWord(source: string): { min: number; max: number } | null {
  let min = Infinity;
  let max = 0;
  for (const alternative of topLevelAlternatives(source)) {
    if (!alternative.startsWith('\\b') || !alternative.endsWith('\\b') || alternative.endsWith('\\\\b')) return null;
    const p = new Parser(alternative, true);
    const runs = p.alternatives();
    if (p.i !== alternative.length || !runs.whole || !Number.isFinite(runs.width) || runs.head < 1) return null;
    min = Math.min(min, runs.head);
    max = Math.max(max, runs.width);
  }
  return Number.isFinite(min) ? { min, max } : null;
}

/** A pattern's source cut at each "|" outside groups and classes. */
function topLevelAlternatives(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  out.push(source.slice(start));
  return out;
}

/**
 * A text's runs, read in one pass: its longest run of ASCII digits and of word characters
 * (ASCII letters, digits, "_", and "ſ" and the Kelvin sign, which a case-insensitive Unicode
 * pattern's letters match: minWordRun), and where each run of digits starts and ends, near
 * which patterns whose every match holds a block of digits are tried (digitAnchor, recognizer.ts).
 */
export class TextRuns {
  digits = 0;
  word = 0;
  /** Start and end (exclusive) of each run of ASCII digits, in order, two numbers a run. */
  readonly bounds: number[] = [];
  // By length n, the number of runs at least n digits long and the sum of their lengths (positions).
  private atLeast: { count: number[]; length: number[] } | null = null;
  /**
   * By length n (up to LONGEST_WORD_INDEXED), where the text's words of n characters begin: its
   * maximal runs of ASCII letters, digits and "_", which is what "\b" divides in an expression
   * without the `u` flag (wholeWord, recognizer.ts).
   */
  private readonly wordsByLength: number[][] = [];

  constructor(text: string) {
    // Locals in the loop, not fields: it reads every character of every text.
    const bounds = this.bounds;
    const wordsByLength = this.wordsByLength;
    let digits = 0;
    let word = 0;
    let d = 0;
    let w = 0;
    // The ASCII word the loop is in, so far.
    let a = 0;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      if (c >= 48 && c <= 57) {
        if (d === 0) bounds.push(k);
        d++;
        w++;
        a++;
        continue;
      }
      if (d > 0) {
        bounds.push(k);
        if (d > digits) digits = d;
        d = 0;
      }
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
        w++;
        a++;
        continue;
      }
      if (c === 0x17f || c === 0x212a) w++;
      else {
        if (w > word) word = w;
        w = 0;
      }
      if (a > 0) {
        if (a <= LONGEST_WORD_INDEXED) (wordsByLength[a] ??= []).push(k - a);
        a = 0;
      }
    }
    if (d > 0) {
      bounds.push(text.length);
      if (d > digits) digits = d;
    }
    if (a > 0 && a <= LONGEST_WORD_INDEXED) (wordsByLength[a] ??= []).push(text.length - a);
    this.digits = digits;
    this.word = Math.max(word, w);
  }

  /** Where the words of `min` to `max` characters begin, in order; null when there are more than `most`. */
  wordStarts(min: number, max: number, most: number): readonly number[] | null {
    let count = 0;
    let lists = 0;
    for (let n = min; n <= max; n++) {
      const at = this.wordsByLength[n];
      if (!at) continue;
      count += at.length;
      lists++;
    }
    if (count > most) return null;
    if (lists <= 1) {
      for (let n = min; n <= max; n++) if (this.wordsByLength[n]) return this.wordsByLength[n];
      return [];
    }
    const out: number[] = [];
    for (let n = min; n <= max; n++) if (this.wordsByLength[n]) out.push(...this.wordsByLength[n]);
    return out.sort((x, y) => x - y);
  }

  /** Where the first block of `digits` digits in a row at or after `from` begins, or -1. */
  nextBlock(digits: number, from: number): number {
    const bounds = this.bounds;
    // The first run ending far enough after `from` (ends grow run by run), then the first long enough.
    let lo = 0;
    let hi = bounds.length >> 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bounds[2 * mid + 1] - digits < from) lo = mid + 1;
      else hi = mid;
    }
    for (let r = 2 * lo; r < bounds.length; r += 2) {
      if (bounds[r + 1] - bounds[r] >= digits) return Math.max(from, bounds[r]);
    }
    return -1;
  }

  /**
   * How many start positions trying a pattern near every run of at least `digits` digits
   * comes to, when a match starts at most `within` units before its block: for each such run,
   * `within` before it and every place in it a block begins (overlapping windows counted twice).
   */
  positions(digits: number, within: number): number {
    if (digits > this.digits) return 0;
    if (!this.atLeast) {
      const count = new Array<number>(this.digits + 2).fill(0);
      const length = new Array<number>(this.digits + 2).fill(0);
      for (let r = 0; r < this.bounds.length; r += 2) {
        const n = this.bounds[r + 1] - this.bounds[r];
        count[n]++;
        length[n] += n;
      }
      for (let n = this.digits - 1; n >= 0; n--) {
        count[n] += count[n + 1];
        length[n] += length[n + 1];
      }
      this.atLeast = { count, length };
    }
    return this.atLeast.count[digits] * (within + 1 - digits) + this.atLeast.length[digits];
  }
}

/** Digit (0), upper-case (1) or lower-case (2) ASCII letter, "_" (3), or none (-1): a class's range counts only within one kind. */
function wordKind(c: string | undefined): number {
  if (c === undefined) return -1;
  if (c >= '0' && c <= '9') return 0;
  if (c >= 'A' && c <= 'Z') return 1;
  if (c >= 'a' && c <= 'z') return 2;
  return c === '_' ? 3 : -1;
}

interface Runs {
  best: number;
  head: number;
  tail: number;
  whole: boolean;
  /** The most UTF-16 units it consumes (Infinity when unbounded or unknown). */
  width: number;
  /**
   * The furthest from its start that a block of `target` digits in a row is sure to begin
   * (Infinity when that is not proven): digitAnchor.
   */
  at: number;
}

class Parser {
  i = 0;
  /** `word`: runs of word characters (minWordRun), else of digits. */
  constructor(
    private readonly s: string,
    private readonly word: boolean,
    /** The length of the block of digits whose place `Runs.at` bounds (0: not asked). */
    private readonly target = 0,
  ) {}

  private counts(c: string): boolean {
    return this.word ? wordKind(c) >= 0 : c >= '0' && c <= '9';
  }

  /** Alternatives up to a closing parenthesis or the end: the least run any of them holds. */
  alternation(): number {
    return this.alternatives().best;
  }

  /**
   * What every alternative is sure to hold: the longest run inside (`best`), the run it
   * starts with (`head`) and ends with (`tail`), and whether it is nothing but counted
   * characters and assertions (`whole`; then `head` is its least length); the most units any
   * consumes (`width`) and the furthest place a block of `target` digits begins (`at`).
   */
  alternatives(): Runs {
    let all = this.sequence();
    while (this.s[this.i] === '|') {
      this.i++;
      const next = this.sequence();
      all = {
        best: Math.min(all.best, next.best),
        head: Math.min(all.head, next.head),
        tail: Math.min(all.tail, next.tail),
        whole: all.whole && next.whole,
        width: Math.max(all.width, next.width),
        at: Math.max(all.at, next.at),
      };
    }
    return all;
  }

  private sequence(): Runs {
    let best = 0;
    let run = 0;
    // The run from the start, until the first character that may not count.
    let head = -1;
    const broken = (at: number) => {
      if (head < 0) head = at;
    };
    // The most units consumed before the current atom, the furthest the current run begins,
    // and the furthest a block of `target` digits is sure to begin (the least such bound found).
    let width = 0;
    let runAt = 0;
    let at = Infinity;
    const grow = (digits: number) => {
      if (run === 0 && digits > 0) runAt = width;
      run += digits;
      if (this.target > 0 && run >= this.target) at = Math.min(at, runAt);
    };
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      const atom = this.atom();
      const { min, max } = this.quantifier();
      if (atom.kind === 'assertion') continue;
      if (atom.kind === 'digit') {
        // An absent digit leaves its neighbours next to each other; present, it is one more.
        grow(min);
        best = Math.max(best, run);
        width += max;
        continue;
      }
      if (atom.kind === 'group' && min > 0) {
        const g = atom.runs;
        if (g.whole) {
          // Counted characters only, at least `head` of them each time: the run goes on.
          grow(g.head * min);
          best = Math.max(best, run);
          width += g.width * max;
          continue;
        }
        // The group's first time starts with its head, its last ends with its tail.
        broken(run + g.head);
        best = Math.max(best, run + g.head, g.best);
        if (this.target > 0 && g.head > 0 && run + g.head >= this.target) at = Math.min(at, run > 0 ? runAt : width);
        at = Math.min(at, width + g.at);
        width += g.width * max;
        run = g.tail;
        // The last time's tail ends where the group does, at most `width` units in.
        runAt = width - g.tail;
        if (this.target > 0 && run >= this.target) at = Math.min(at, runAt);
        continue;
      }
      broken(run);
      run = 0;
      width += (atom.kind === 'group' ? atom.runs.width : atom.width) * max;
    }
    const whole = head < 0;
    return { best, head: whole ? run : head, tail: run, whole, width, at };
  }

  /** The next atom; `width`, the most units one occurrence consumes (patterns without the `u` flag: one per character). */
  private atom(): { kind: 'digit' | 'assertion' | 'other'; width: number } | { kind: 'group'; runs: Runs } {
    const s = this.s;
    const c = s[this.i];
    if (c === '(') {
      this.i++;
      let assertion = false;
      if (s[this.i] === '?') {
        if (s.startsWith('?:', this.i)) this.i += 2;
        else if (s.startsWith('?=', this.i) || s.startsWith('?!', this.i)) {
          this.i += 2;
          assertion = true;
        } else if (s.startsWith('?<=', this.i) || s.startsWith('?<!', this.i)) {
          this.i += 3;
          assertion = true;
        } else if (s[this.i + 1] === '<') {
          const close = s.indexOf('>', this.i);
          this.i = close < 0 ? s.length : close + 1;
        } else {
          // A form not known here: skip it as something that consumes.
          this.i++;
        }
      }
      const runs = this.alternatives();
      if (s[this.i] === ')') this.i++;
      return assertion ? { kind: 'assertion', width: 0 } : { kind: 'group', runs };
    }
    if (c === '[') return { kind: this.characterClass() ? 'digit' : 'other', width: 1 };
    if (c === '\\') {
      const e = s[this.i + 1];
      this.i += 2;
      if (e === 'd' || (this.word && e === 'w')) return { kind: 'digit', width: 1 };
      if (e >= '0' && e <= '9') {
        // A back-reference or an octal escape (backslash 1, backslash 12): no digits of the text.
        while (this.i < s.length && s[this.i] >= '0' && s[this.i] <= '9') this.i++;
        return { kind: 'other', width: Infinity };
      }
      if (e === 'b' || e === 'B') return { kind: 'assertion', width: 0 };
      if ((e === 'p' || e === 'P' || e === 'k') && (s[this.i] === '{' || s[this.i] === '<')) {
        const close = s.indexOf(s[this.i] === '{' ? '}' : '>', this.i);
        this.i = close < 0 ? s.length : close + 1;
        // A named back-reference repeats a group of any length.
        if (e === 'k') return { kind: 'other', width: Infinity };
      } else if (e === 'u' && s[this.i] === '{') {
        const close = s.indexOf('}', this.i);
        this.i = close < 0 ? s.length : close + 1;
      } else if (e === 'u') this.i += 4;
      else if (e === 'x') this.i += 2;
      else if (e === 'c') this.i += 1;
      return { kind: 'other', width: 1 };
    }
    this.i++;
    if (c === '^' || c === '$') return { kind: 'assertion', width: 0 };
    return { kind: this.counts(c) ? 'digit' : 'other', width: 1 };
  }

  /** Skips a class; true when it holds digits only ([0-9], [2-6], [\d], [0]). */
  private characterClass(): boolean {
    const s = this.s;
    this.i++;
    let digitsOnly = s[this.i] !== '^';
    if (s[this.i] === '^') this.i++;
    // In JavaScript a "]" right after "[" closes the class ("[]" matches nothing).
    while (this.i < s.length && s[this.i] !== ']') {
      const c = s[this.i];
      if (c === '\\') {
        const e = s[this.i + 1];
        if (e !== 'd' && !(this.word && e === 'w')) digitsOnly = false;
        this.i += 2;
        if ((e === 'p' || e === 'P') && s[this.i] === '{') {
          const close = s.indexOf('}', this.i);
          this.i = close < 0 ? s.length : close + 1;
        }
        continue;
      }
      if (c === '[') digitsOnly = false; // v-mode nesting, not used here
      else if (c !== '-' && !this.counts(c)) digitsOnly = false;
      else if (c === '-' && (s[this.i - 1] === '[' || s[this.i + 1] === ']')) digitsOnly = false;
      // A range within one kind ([A-Z], [0-9]); [A-z] holds "[", "^" and others.
      else if (c === '-' && this.word && (s[this.i - 2] === '\\' || wordKind(s[this.i - 1]) < 0 || wordKind(s[this.i - 1]) !== wordKind(s[this.i + 1]))) digitsOnly = false;
      this.i++;
    }
    this.i++;
    return digitsOnly;
  }

  /** Skips a quantifier; the fewest and the most times it lets its atom occur (1 without one). */
  private quantifier(): { min: number; max: number } {
    const s = this.s;
    const c = s[this.i];
    let min = 1;
    let max = 1;
    if (c === '?' || c === '*') {
      min = 0;
      max = c === '?' ? 1 : Infinity;
      this.i++;
    } else if (c === '+') {
      max = Infinity;
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) return { min, max };
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length;
    } else return { min, max };
    if (s[this.i] === '?') this.i++;
    return { min, max };
  }
}
