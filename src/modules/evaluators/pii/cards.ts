import { luhnValid } from './checksums.ts';
import { MAX_SCORE, STRUCTURED, VALIDATED, type RawResult, type Recognizer } from './recognizer.ts';

/**
 * Payment card numbers by issuer: the issuer identification number ranges and card lengths
 * the schemes publish (as listed in Wikipedia's "Payment card number" table), and Luhn.
 * Presidio's one pattern (13 to 17 digits starting 1, 3, 4, 5 or 6) misses 19-digit Visa,
 * 12-digit Maestro, Mastercard's 2-series and 15-digit JCB, and accepts any Luhn-valid
 * number in between.
 */
interface Issuer {
  name: string;
  /** Inclusive ranges of equal-length prefixes; a single prefix is [p, p]. */
  ranges: ReadonlyArray<readonly [string, string]>;
  lengths: readonly number[];
}

const span = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const prefixes = (...list: string[]) => list.map((p) => [p, p] as const);

const ISSUERS: readonly Issuer[] = [
  { name: 'American Express', ranges: prefixes('34', '37'), lengths: [15] },
  { name: 'Visa', ranges: prefixes('4'), lengths: [13, 16, 19] },
  { name: 'Mastercard', ranges: [['51', '55'], ['2221', '2720']], lengths: [16] },
  { name: 'Maestro', ranges: prefixes('5018', '5020', '5038', '5893', '6304', '6759', '6761', '6762', '6763'), lengths: span(12, 19) },
  { name: 'Dankort', ranges: prefixes('5019'), lengths: [16] },
  { name: 'Discover', ranges: [['6011', '6011'], ['644', '649'], ['65', '65'], ['622126', '622925']], lengths: span(16, 19) },
  { name: 'China UnionPay', ranges: prefixes('62'), lengths: span(16, 19) },
  { name: 'JCB', ranges: [['3528', '3589']], lengths: span(16, 19) },
  { name: 'JCB (15 digits)', ranges: prefixes('1800', '2131'), lengths: [15] },
  { name: 'Diners Club', ranges: [['300', '305'], ['3095', '3095'], ['36', '36'], ['38', '39']], lengths: span(14, 19) },
  { name: 'UATP', ranges: prefixes('1'), lengths: [15] },
  { name: 'Mir', ranges: [['2200', '2204']], lengths: span(16, 19) },
  { name: 'BORICA', ranges: prefixes('2205'), lengths: [16] },
  { name: 'RuPay', ranges: prefixes('60', '81', '82', '508', '353', '356'), lengths: [16] },
  { name: 'InterPayment', ranges: prefixes('636'), lengths: span(16, 19) },
  { name: 'InstaPayment', ranges: [['637', '639']], lengths: [16] },
  { name: 'Troy', ranges: prefixes('9792'), lengths: [16] },
  { name: 'Verve', ranges: [['506099', '506198'], ['650002', '650027'], ['507865', '507964']], lengths: [16, 18, 19] },
  { name: 'UkrCard', ranges: [['60400100', '60420099']], lengths: span(16, 19) },
  { name: 'Uzcard', ranges: prefixes('8600'), lengths: [16] },
  { name: 'Humo', ranges: prefixes('9860'), lengths: [16] },
  { name: 'GPN', ranges: [['1946', '1946'], ['50', '50'], ['56', '56'], ['58', '58'], ['60', '63']], lengths: [16, 18, 19] },
];

const MIN_LENGTH = 12;
const MAX_LENGTH = 19;

/** The issuer whose ranges and lengths admit these digits, or null. */
export function cardIssuer(digits: string): string | null {
  for (const issuer of ISSUERS) {
    if (!issuer.lengths.includes(digits.length)) continue;
    for (const [lo, hi] of issuer.ranges) {
      const prefix = digits.slice(0, lo.length);
      if (prefix >= lo && prefix <= hi) return issuer.name;
    }
  }
  return null;
}

/**
 * Presidio's shape (13 to 19 digits starting 3 to 6) passing Luhn but in no published
 * issuer range: Presidio's weak pattern score, so only a context word ("card") reports it.
 */
const UNKNOWN_ISSUER_SCORE = 0.3;
const UNKNOWN_ISSUER = /^[3-6][0-9]{12,18}$/;

// Digit groups joined by single spaces or dashes, not glued to letters, digits or a "+".
const RUN = /(?<![\p{L}\p{N}_+])[0-9]+(?:[ -][0-9]+)*(?![\p{L}\p{N}_])/gu;
const GROUP = /[0-9]+/g;
const CONTEXT = ['credit', 'card', 'visa', 'mastercard', 'cc ', 'amex', 'discover', 'jcb', 'diners', 'maestro', 'instapayment'];

/**
 * Within each run of digit groups, the longest valid card number starting at each group
 * (so "4012888888881881 4012-8888-8888-1881" gives two cards, and a year before a card
 * does not hide it).
 */
export const creditCard: Recognizer = {
  name: 'CreditCardRecognizer',
  entities: ['CREDIT_CARD'],
  analyze(text) {
    if (!/[0-9]{3}/.test(text)) return [];
    const results: RawResult[] = [];
    RUN.lastIndex = 0;
    let run: RegExpExecArray | null;
    while ((run = RUN.exec(text)) !== null) {
      // A run of fewer digits than the shortest card holds none.
      if (run[0].length < MIN_LENGTH) continue;
      const groups: Array<{ start: number; end: number; digits: string }> = [];
      GROUP.lastIndex = 0;
      let g: RegExpExecArray | null;
      while ((g = GROUP.exec(run[0])) !== null) groups.push({ start: run.index + g.index, end: run.index + g.index + g[0].length, digits: g[0] });
      let i = 0;
      while (i < groups.length) {
        let digits = '';
        let best = -1;
        let weak = -1;
        for (let j = i; j < groups.length && digits.length + groups[j].digits.length <= MAX_LENGTH; j++) {
          digits += groups[j].digits;
          // Both kinds need Luhn, which most digit strings fail: asked first, and once.
          if (digits.length < MIN_LENGTH || !luhnValid(digits)) continue;
          if (cardIssuer(digits) !== null) best = j;
          else if (UNKNOWN_ISSUER.test(digits)) weak = j;
        }
        if (best >= 0) {
          results.push({ entity: 'CREDIT_CARD', start: groups[i].start, end: groups[best].end, score: MAX_SCORE, context: CONTEXT, specificity: STRUCTURED });
          i = best + 1;
        } else if (weak >= 0) {
          results.push({ entity: 'CREDIT_CARD', start: groups[i].start, end: groups[weak].end, score: UNKNOWN_ISSUER_SCORE, context: CONTEXT, specificity: VALIDATED });
          i = weak + 1;
        } else {
          i++;
        }
      }
    }
    return results;
  },
};
