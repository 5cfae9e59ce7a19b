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
  const p = new Parser(source);
  const run = p.alternation();
  // Something not understood (an unbalanced parenthesis): claim nothing.
  return p.i === source.length ? run : 0;
}

/** The longest run of ASCII digits in the text. */
export function longestDigitRun(text: string): number {
  let best = 0;
  let run = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      if (++run > best) best = run;
    } else run = 0;
  }
  return best;
}

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  /** Alternatives up to a closing parenthesis or the end: the least run any of them holds. */
  alternation(): number {
    let least = this.sequence();
    while (this.s[this.i] === '|') {
      this.i++;
      least = Math.min(least, this.sequence());
    }
    return least;
  }

  private sequence(): number {
    let best = 0;
    let run = 0;
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
      if (atom.kind === 'group' && min > 0) best = Math.max(best, atom.run);
      run = 0;
    }
    return best;
  }

  private atom(): { kind: 'digit' | 'assertion' | 'other' } | { kind: 'group'; run: number } {
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
      const run = this.alternation();
      if (s[this.i] === ')') this.i++;
      return assertion ? { kind: 'assertion' } : { kind: 'group', run };
    }
    if (c === '[') return { kind: this.characterClass() ? 'digit' : 'other' };
    if (c === '\\') {
      const e = s[this.i + 1];
      this.i += 2;
      if (e === 'd') return { kind: 'digit' };
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
    return { kind: c >= '0' && c <= '9' ? 'digit' : 'other' };
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
        if (e !== 'd') digitsOnly = false;
        this.i += 2;
        if ((e === 'p' || e === 'P') && s[this.i] === '{') {
          const close = s.indexOf('}', this.i);
          this.i = close < 0 ? s.length : close + 1;
        }
        continue;
      }
      if (c === '[') digitsOnly = false; // v-mode nesting, not used here
      else if (c !== '-' && !(c >= '0' && c <= '9')) digitsOnly = false;
      else if (c === '-' && (s[this.i - 1] === '[' || s[this.i + 1] === ']')) digitsOnly = false;
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
