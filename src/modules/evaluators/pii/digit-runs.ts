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

/** The text's longest run of ASCII digits, and of word characters (ASCII letters, digits, "_", "ſ", "K"), in one pass. */
export function longestRuns(text: string): { digits: number; word: number } {
  let digits = 0;
  let word = 0;
  let d = 0;
  let w = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      if (++d > digits) digits = d;
      if (++w > word) word = w;
    } else {
      d = 0;
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 0x17f || c === 0x212a) {
        if (++w > word) word = w;
      } else w = 0;
    }
  }
  return { digits, word };
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
}

class Parser {
  i = 0;
  /** `word`: runs of word characters (minWordRun), else of digits. */
  constructor(
    private readonly s: string,
    private readonly word: boolean,
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
   * characters and assertions (`whole`; then `head` is its least length).
   */
  private alternatives(): Runs {
    let all = this.sequence();
    while (this.s[this.i] === '|') {
      this.i++;
      const next = this.sequence();
      all = { best: Math.min(all.best, next.best), head: Math.min(all.head, next.head), tail: Math.min(all.tail, next.tail), whole: all.whole && next.whole };
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
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      const atom = this.atom();
      const min = this.quantifier();
      if (atom.kind === 'assertion') continue;
      if (atom.kind === 'digit') {
        // An absent digit leaves its neighbours next to each other; present, it is one more.
        run += min;
        best = Math.max(best, run);
        continue;
      }
      if (atom.kind === 'group' && min > 0) {
        const g = atom.runs;
        if (g.whole) {
          // Counted characters only, at least `head` of them each time: the run goes on.
          run += g.head * min;
          best = Math.max(best, run);
          continue;
        }
        // The group's first time starts with its head, its last ends with its tail.
        broken(run + g.head);
        best = Math.max(best, run + g.head, g.best);
        run = g.tail;
        continue;
      }
      broken(run);
      run = 0;
    }
    const whole = head < 0;
    return { best, head: whole ? run : head, tail: run, whole };
  }

  private atom(): { kind: 'digit' | 'assertion' | 'other' } | { kind: 'group'; runs: Runs } {
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
      return assertion ? { kind: 'assertion' } : { kind: 'group', runs };
    }
    if (c === '[') return { kind: this.characterClass() ? 'digit' : 'other' };
    if (c === '\\') {
      const e = s[this.i + 1];
      this.i += 2;
      if (e === 'd' || (this.word && e === 'w')) return { kind: 'digit' };
      if (e >= '0' && e <= '9') {
        // A back-reference or an octal escape (backslash 1, backslash 12): no digits of the text.
        while (this.i < s.length && s[this.i] >= '0' && s[this.i] <= '9') this.i++;
        return { kind: 'other' };
      }
      if (e === 'b' || e === 'B') return { kind: 'assertion' };
      if ((e === 'p' || e === 'P' || e === 'k') && (s[this.i] === '{' || s[this.i] === '<')) {
        const close = s.indexOf(s[this.i] === '{' ? '}' : '>', this.i);
        this.i = close < 0 ? s.length : close + 1;
      } else if (e === 'u' && s[this.i] === '{') {
        const close = s.indexOf('}', this.i);
        this.i = close < 0 ? s.length : close + 1;
      } else if (e === 'u') this.i += 4;
      else if (e === 'x') this.i += 2;
      else if (e === 'c') this.i += 1;
      return { kind: 'other' };
    }
    this.i++;
    if (c === '^' || c === '$') return { kind: 'assertion' };
    return { kind: this.counts(c) ? 'digit' : 'other' };
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

  /** Skips a quantifier; the fewest times it lets its atom occur (1 without one). */
  private quantifier(): number {
    const s = this.s;
    const c = s[this.i];
    let min = 1;
    if (c === '?' || c === '*') {
      min = 0;
      this.i++;
    } else if (c === '+') this.i++;
    else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(s.slice(this.i));
      if (!m) return 1;
      min = Number(m[1]);
      this.i += m[0].length;
    } else return 1;
    if (s[this.i] === '?') this.i++;
    return min;
  }
}
