import { createRequire } from 'node:module';
import path from 'node:path';
import type { CountryCode, NumberFound, PhoneNumber } from 'libphonenumber-js/max';
import type { EntityType } from './entities.ts';
import { removeDuplicates, VALIDATED, type AnalyzeOptions, type RawResult, type Recognizer } from './recognizer.ts';

/**
 * Presidio's PhoneRecognizer: libphonenumber's matcher run once per region, every match
 * scored 0.4 (context words raise it). Presidio's default regions are US, UK, DE, FR, IL,
 * IN, CA, BR; libphonenumber calls the UK "GB", and JP and CN are added as in the project's
 * copy of Presidio's vectors.
 */
export const DEFAULT_PHONE_REGIONS: readonly CountryCode[] = ['US', 'GB', 'DE', 'FR', 'IL', 'IN', 'CA', 'BR', 'JP', 'CN'];
const PHONE_SCORE = 0.4;
// Presidio's words, and others that introduce a phone number in English and its neighbours.
const PHONE_CONTEXT = [
  'phone', 'number', 'telephone', 'cell', 'cellphone', 'mobile', 'call', 'fax', 'contact', 'reach', 'dial', 'sms',
  'whatsapp', 'landline', 'telefon', 'téléphone', 'telefono', 'teléfono',
];

// A run that could hold a phone number: digits with the separators people write.
const CANDIDATE = /[+＋(（]?[0-9０-９][0-9０-９\s.\-‐-―−－()（）/]*[0-9０-９](?:\s?(?:x|ext\.?)\s?[0-9]{1,6})?/gi;
const DOTTED_QUAD = /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/;
// E.164 numbers have at most 15 digits, national numbers of the default regions at most
// 13 with their trunk prefix, and "00"/"011" adds up to 3. A longer run is a card,
// account or order number.
const MAX_INTERNATIONAL_DIGITS = 15;
const MAX_NATIONAL_DIGITS = 13;
const MAX_IDD_DIGITS = 18;
const MIN_DIGITS = 6;
// libphonenumber looks at the characters next to a match (a letter glued to the number
// rejects it), so each window keeps a few characters of its surroundings.
const WINDOW_PAD = 4;

interface Window {
  start: number;
  end: number;
  /** Holds a "+": a number with its country code, whatever the default region. */
  international: boolean;
  /** The window's digits in order, full-width ones as ASCII. */
  digits: string;
  /** Where in `digits` each run of digits written together ends (the next character is no digit). */
  runEnds: number[];
  /**
   * Holds a "+" anywhere (next to the run, too) or digits of other scripts libphonenumber
   * reads (Arabic-Indic): the pre-check below does not rule on it.
   */
  unchecked: boolean;
  /**
   * Holds a mark that may start an extension ("x", "#", "~", "int", a comma...): its digits,
   * at most 6 to 20, may end inside a run, and the matcher's next candidate start there.
   */
  extensionMark: boolean;
}

// Every extension libphonenumber's matcher reads begins with one of these (its labels "ext",
// "anexo", "ｅｘｔ" hold an "x"; ";ext=" a ";"; "12#" a "#"), compared without case.
const EXTENSION_MARK = /[xｘ#＃~～,;]|int|ｉｎｔ|доб/i;

/**
 * libphonenumber scans the whole text once per region, which costs milliseconds per
 * kilobyte. Scanning only the digit runs that could be phone numbers (6 to 13 digits, 15
 * after "+", not a dotted quad) costs a fraction of that; runs outside those bounds are
 * not looked at, where Presidio would let libphonenumber try a part of them.
 */
function candidateWindows(text: string): Window[] {
  const windows: Window[] = [];
  CANDIDATE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CANDIDATE.exec(text)) !== null) {
    const digits = digitCount(m[0].replace(EXTENSION, ''));
    const international = m[0][0] === '+' || m[0][0] === '＋';
    const max = international ? MAX_INTERNATIONAL_DIGITS : /^\(?0(0|11)/.test(m[0]) ? MAX_IDD_DIGITS : MAX_NATIONAL_DIGITS;
    if (digits < MIN_DIGITS || digits > max || DOTTED_QUAD.test(m[0])) continue;
    let start = Math.max(0, m.index - WINDOW_PAD);
    let end = Math.min(text.length, m.index + m[0].length + WINDOW_PAD);
    if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
    const last = windows[windows.length - 1];
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.international ||= international;
    } else {
      windows.push({ start, end, international, digits: '', runEnds: [], unchecked: false, extensionMark: false });
    }
  }
  for (const w of windows) {
    let digits = '';
    let run = 0;
    for (let k = w.start; k < w.end; k++) {
      const c = text.charCodeAt(k);
      const digit = c >= 48 && c <= 57 ? c : c >= 0xff10 && c <= 0xff19 ? c - 0xff10 + 48 : 0;
      if (digit) {
        digits += String.fromCharCode(digit);
        run++;
        continue;
      }
      if (run > 0) w.runEnds.push(digits.length);
      // libphonenumber reads a run of at most 20 digits as one block.
      if (run > 20 || c === 43 || c === 0xff0b || (c >= 0x660 && c <= 0x669) || (c >= 0x6f0 && c <= 0x6f9)) w.unchecked = true;
      run = 0;
    }
    if (run > 0) w.runEnds.push(digits.length);
    if (run > 20) w.unchecked = true;
    w.digits = digits;
    w.extensionMark = EXTENSION_MARK.test(text.slice(w.start, w.end));
  }
  return windows;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// The parts of libphonenumber-js's metadata classes used below (its typings omit them).
interface NumberFormat {
  pattern(): string;
  leadingDigitsPatterns(): string[];
  usesNationalPrefix(): boolean;
  nationalPrefixIsOptionalWhenFormattingInNationalFormat(): boolean;
}
interface NumberType {
  pattern(): string;
  possibleLengths(): number[] | undefined;
}
interface NumberingPlan {
  possibleLengths(): number[] | undefined;
  formats(): NumberFormat[];
  nationalPrefix(): string | undefined;
  callingCode(): string;
  nationalNumberPattern(): string;
  IDDPrefix(): string | undefined;
  nationalPrefixTransformRule(): string | undefined;
  nationalPrefixForParsing(): string | undefined;
  leadingDigits(): string | undefined;
  hasTypes(): boolean;
  type(name: string): NumberType | undefined;
}
interface MetadataAccess {
  selectNumberingPlan(country: CountryCode): void;
  getCountryCodesForCallingCode(callingCode: string): CountryCode[] | undefined;
  hasCallingCode(callingCode: string): boolean;
  numberingPlan?: NumberingPlan;
  metadata: { country_calling_codes: Record<string, CountryCode[]> };
}
/**
 * libphonenumber-js with its full metadata (~20 MB, 0.2 s) is loaded by the first phone
 * check, not at start (docs/performance.md: Overload, memory and start); the recognizers are synchronous, so it is required.
 */
type Libphonenumber = typeof import('libphonenumber-js/max');
let loaded: { lib: Libphonenumber; metadata: MetadataAccess } | null = null;
function phoneLib() {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const lib = require('libphonenumber-js/max') as Libphonenumber;
    // The CommonJS build of /max exports no Metadata class: core's, given the max metadata.
    const core = require('libphonenumber-js/core') as typeof import('libphonenumber-js/core');
    const metadataJson = require('libphonenumber-js/metadata.max.json') as ConstructorParameters<typeof core.Metadata>[0];
    const metadata = new core.Metadata(metadataJson) as unknown as MetadataAccess;
    compilePatternsOnce(require);
    loaded = { lib, metadata };
  }
  return loaded;
}

/** A metadata pattern as libphonenumber's matchesEntirely reads it: the whole text matches it. */
function entirely(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

// The metadata's patterns number a few thousand; a caller passing others does not grow the map past this.
const MAX_COMPILED_PATTERNS = 8192;
/**
 * libphonenumber tests a national number against its metadata's patterns (is it valid, of
 * which type, of which country sharing the calling code) through one helper, which builds
 * a new RegExp from the pattern's text at every test: V8 then hashes the whole pattern, some
 * of them kilobytes long, to find its compiled code. That was about 40 % of a search. The
 * helper is a pure function of the number and the pattern, and an expression without flags
 * keeps no state between tests, so each pattern's expression is built once and kept; the
 * answers are the same. The library's modules call the helper through its module's exports
 * object, so replacing the export there serves them all. If this version of the library
 * keeps no such helper there, nothing is replaced.
 */
function compilePatternsOnce(require: NodeJS.Require): void {
  let helper: { default?: unknown };
  try {
    const build = path.join(path.dirname(require.resolve('libphonenumber-js/core')), '..', 'build');
    helper = require(path.join(build, 'helpers', 'matchesEntirely.js')) as { default?: unknown };
  } catch {
    return;
  }
  if (typeof helper.default !== 'function' || helper.default.length !== 2) return;
  const compiled = new Map<string, RegExp>();
  helper.default = (text: string | undefined, pattern: string): boolean => {
    let expression = compiled.get(pattern);
    if (expression === undefined) {
      expression = entirely(pattern);
      if (compiled.size < MAX_COMPILED_PATTERNS) compiled.set(pattern, expression);
    }
    return expression.test(text || '');
  };
}
/**
 * A fact derived from a region's numbering plan (the metadata given, that plan selected),
 * worked out on the region's first use and kept: the plans do not change while the process runs.
 */
function perRegion<T>(derive: (plan: NumberingPlan | undefined, metadata: MetadataAccess, region: CountryCode) => T): (region: CountryCode) => T {
  const known = new Map<CountryCode, T>();
  return (region) => {
    if (known.has(region)) return known.get(region)!;
    const { metadata } = phoneLib();
    metadata.selectNumberingPlan(region);
    const value = derive(metadata.numberingPlan, metadata, region);
    known.set(region, value);
    return value;
  };
}

/**
 * libphonenumber's findPhoneNumbersInText without its wrapper: the matcher it makes, given the
 * same options, iterated as it iterates it (the wrapper's argument handling and option
 * copying cost about a tenth of a call; the matches are the same).
 *
 * One matcher per region and leniency serves every call: making one compiles its
 * expressions, checks the region and allocates its caches, about a fifth of a call on the
 * bench's texts. Between texts it is put back into the state its constructor leaves it in
 * (its text, the iteration state, the search index, the tries left; its expressions set
 * their own lastIndex before each search, and its cache of expressions is keyed by their
 * source), so the matches are the same as a new matcher's. The fields are libphonenumber's
 * own: if a version lacks one, a new matcher is made for every call instead.
 */
interface ReusableMatcher {
  text: string;
  state: string;
  searchIndex: number;
  maxTries: number;
  lastMatch: unknown;
  options: { maxTries: number };
  hasNext(): boolean;
  next(): NumberFound;
}
const MATCHER_FIELDS = ['text', 'state', 'searchIndex', 'maxTries', 'options'] as const;
const matchers = new Map<string, ReusableMatcher | null>();
function findPhoneNumbersInText(text: string, options: { defaultCountry: CountryCode; extended: boolean }): NumberFound[] {
  const key = options.extended ? `${options.defaultCountry}+` : options.defaultCountry;
  let matcher = matchers.get(key);
  if (matcher === undefined) {
    const made = new (phoneLib().lib.PhoneNumberMatcher)('', { ...options, v2: true }) as unknown as ReusableMatcher;
    matcher = MATCHER_FIELDS.every((f) => f in made) && made.state === 'NOT_READY' && made.searchIndex === 0 ? made : null;
    matchers.set(key, matcher);
  }
  if (matcher === null) matcher = new (phoneLib().lib.PhoneNumberMatcher)(text, { ...options, v2: true }) as unknown as ReusableMatcher;
  else {
    matcher.text = text;
    matcher.state = 'NOT_READY';
    matcher.searchIndex = 0;
    matcher.maxTries = matcher.options.maxTries;
    matcher.lastMatch = null;
  }
  const found: NumberFound[] = [];
  while (matcher.hasNext()) found.push(matcher.next());
  return found;
}

/**
 * What python-phonenumbers' check below needs of a country: its national prefix and its
 * formats in order (the last leading-digits pattern of each, its pattern, whether it demands
 * the prefix). Null when no format demands it or there is no prefix: every number of the
 * country passes, and the check is skipped (the United States' prefix "1" is optional).
 */
interface PrefixRule {
  prefix: string;
  formats: Array<{ leading: RegExp | null; pattern: RegExp; mandatory: boolean }>;
}
const prefixRule = perRegion((plan): PrefixRule | null => {
  const prefix = plan?.nationalPrefix();
  if (!plan || !prefix) return null;
  const formats = plan.formats().map((f) => {
    const leading = f.leadingDigitsPatterns();
    return {
      leading: leading.length > 0 ? new RegExp(leading[leading.length - 1]) : null,
      pattern: entirely(f.pattern()),
      mandatory: f.usesNationalPrefix() && !f.nationalPrefixIsOptionalWhenFormattingInNationalFormat(),
    };
  });
  return formats.some((f) => f.mandatory) ? { prefix, formats } : null;
});

/**
 * python-phonenumbers' VALID leniency also demands the national prefix where the country
 * writes one ("0917 123 4567" in the Philippines, not "917 123 4567"); libphonenumber-js
 * skips that check ("for simplicity"), so it is redone here as Python does it: the format
 * chosen is the first whose last leading-digits pattern matches at the national number's
 * start and whose pattern matches all of it (libphonenumber's chooseFormatForNumber).
 */
function nationalPrefixPresentIfRequired(number: FoundNumber['number'], raw: string): boolean {
  if (!number.country) return true;
  const rule = prefixRule(number.country);
  if (!rule) return true;
  const trimmed = raw.trimStart();
  if (trimmed.startsWith('+') || trimmed.startsWith('＋')) return true;
  const national = number.nationalNumber;
  const rawDigits = raw.replace(/[^0-9]/g, '');
  // Written with an international call prefix and country code ("00 44 ...").
  if (rawDigits.length > national.length && rawDigits.endsWith(number.countryCallingCode + national)) return true;
  const format = rule.formats.find((f) => (!f.leading || national.search(f.leading) === 0) && f.pattern.test(national));
  if (!format || !format.mandatory) return true;
  return rawDigits.startsWith(rule.prefix);
}

/** The fewest digits a national number of the region has (its metadata's possible lengths). */
const shortestNational = perRegion((plan) => {
  const lengths = plan?.possibleLengths();
  return lengths && lengths.length > 0 ? Math.min(...lengths) : 0;
});

/**
 * A number dialled with an international prefix has at least 9 digits ("00" + "683" + 4 for
 * Niue's shortest); a window with fewer digits than that and than the region's shortest
 * national number holds no number libphonenumber would find for that region, so the
 * region's scan, a large part of the cost, is skipped (same findings).
 */
const SHORTEST_INTERNATIONAL = 9;

/**
 * What a national number of a region can be, for the exact pre-check below: the lengths and
 * national number patterns of every country sharing its calling code (libphonenumber picks
 * among them by the digits), and its international call prefix. Null when the region
 * rewrites its national prefix (Argentina's "15" to "9"; Brazil, Japan), where a
 * number's digits are not a run of the written ones.
 */
interface NationalNumbers {
  lengths: number[];
  valid: RegExp;
  idd: RegExp | null;
  /** The same, matching a whole string; null when it looks past what it matches ("$", lookarounds, "\\b"). */
  iddWhole: RegExp | null;
}
const nationalNumbers = perRegion((plan, metadata): NationalNumbers | null => {
  if (!plan || plan.nationalPrefixTransformRule()) return null;
  const idd = plan.IDDPrefix();
  const lengths = new Set<number>();
  const patterns: string[] = [];
  for (const country of metadata.metadata.country_calling_codes[plan.callingCode()] ?? []) {
    metadata.selectNumberingPlan(country);
    const possible = metadata.numberingPlan?.possibleLengths();
    const pattern = metadata.numberingPlan?.nationalNumberPattern();
    if (!possible || !pattern) return null;
    for (const n of possible) lengths.add(n);
    patterns.push(`(?:${pattern})`);
  }
  if (patterns.length === 0) return null;
  return {
    lengths: [...lengths],
    valid: entirely(patterns.join('|')),
    idd: idd ? new RegExp(`(?:${idd})`) : null,
    iddWhole: idd && !/[$^]|\(\?[=!<]|\\[bB]/.test(idd) ? entirely(idd) : null,
  };
});

/**
 * Where the international call prefix begins where a run of the window's digits begins: the
 * places in the window's digits right after it. A candidate of the matcher starts at the
 * start of its match, at a bracket or a run's first digit, or after a separator inside it
 * (its inner matches): its digits start where a run starts, unless the match before ended
 * inside a run, which only an extension can do (its digits are limited; the caller asks only
 * for windows without an extension mark). A prefix matched at the start of a candidate's
 * digits is all of a part of the window's digits starting there (the pattern looks at
 * nothing past what it matches), and each such part is tried. Full-width digits are counted
 * as ASCII ones as the library reads them; other scripts' digits split runs here, which only
 * adds places to try.
 */
function afterIddAtRunStart(idd: RegExp, w: Window): number[] {
  const after: number[] = [];
  const d = w.digits;
  for (let k = -1; k < w.runEnds.length; k++) {
    const start = k < 0 ? 0 : w.runEnds[k];
    if (start >= d.length) break;
    for (let end = start + 1; end <= d.length; end++) if (idd.test(d.slice(start, end))) after.push(end);
  }
  return after;
}

/**
 * Whether a number dialled with the international prefix, its digits following at `at`,
 * could be found: the library strips the prefix (not when a 0 follows), takes the first 1 to
 * 3 digits that are a calling code, and strips a national prefix; what remains must be
 * possible and valid for a country of that calling code, and ends where a run ends (no
 * extension). Where the calling code is not a country's, or its main country (whose plan the
 * national prefix is read with) rewrites its national prefix, so that the number is no run of
 * the written digits, it could.
 */
function internationalMayBeValid(w: Window, at: number): boolean {
  const d = w.digits;
  if (at >= d.length || d[at] === '0') return false;
  for (let k = 1; k <= 3 && at + k <= d.length; k++) {
    const code = d.slice(at, at + k);
    if (!phoneLib().metadata.hasCallingCode(code)) continue;
    const countries = callingCodeNumbers(code);
    if (!countries) return true;
    const from = at + k;
    for (const end of w.runEnds) {
      if (end < from + 2) continue;
      for (const c of countries) {
        for (const n of c.possibleLengths) if (n <= end - from && validFor(c, d.slice(end - n, end))) return true;
      }
    }
    return false;
  }
  return false;
}

/**
 * Whether libphonenumber, scanning the window with this default region at leniency VALID,
 * could find anything: decided from the window's digits, exactly. A number it finds there
 * is written without "+" (else the window is unchecked), so it is national, or dialled with
 * the region's international prefix, or starts with the region's calling code. Its
 * candidate ends at a digit followed by something else (trailing characters and an
 * extension, which starts with a mark such as "x", are cut off), and its national number is
 * what remains of the candidate's digits once a calling code, national prefix or carrier
 * code is taken off the front: a run of the window's digits ending where digits written
 * together end. To be found it must have a possible length and match the national number
 * pattern of a country with the region's calling code, and be possible and valid for its
 * country, one of them: a possible length of that country and, where its plan has types,
 * the pattern and lengths of one (validFor). A window where no such run is, and where no
 * number dialled with the region's international prefix could be found (or, with an
 * extension mark, that holds no such prefix at all), is ruled out without calling the
 * library (same findings; libphonenumber costs 25-45 µs a call, the check about a
 * microsecond). The first test (any country's lengths and patterns at once) rules out most
 * runs; the second, country by country, the rest of those a matcher would search in vain,
 * such as order numbers of six digits.
 */
function mayHoldValidNumber(region: CountryCode, w: Window, pruning: boolean): boolean {
  const plan = w.unchecked ? null : nationalNumbers(region);
  if (!plan) return true;
  const d = w.digits;
  if (plan.idd) {
    // With pruning off, the check as it was before the prefix's place and what follows it were
    // looked at (what the differential tests compare with).
    if (!pruning || w.extensionMark || !plan.iddWhole) {
      if (plan.idd.test(d)) return true;
    } else if (plan.idd.test(d)) {
      for (const at of afterIddAtRunStart(plan.iddWhole, w)) if (internationalMayBeValid(w, at)) return true;
    }
  }
  const countries = pruning ? plainNumbers(region)?.countries : undefined;
  for (const end of w.runEnds) {
    for (const n of plan.lengths) {
      if (n > end) continue;
      const run = d.slice(end - n, end);
      if (!plan.valid.test(run)) continue;
      if (!countries) return true;
      for (const c of countries) if (possibleLength(c.possibleLengths, n) && validFor(c, run)) return true;
    }
  }
  return false;
}

/**
 * What libphonenumber's parse reads from a country's numbering plan to place and validate a
 * national number: the leading digits that tell it apart from the other countries of its
 * calling code, its possible lengths, its national number pattern, and the pattern and
 * lengths of each number type (null when the plan has no types: then a number matching the
 * national pattern is valid).
 */
interface CountryNumbers {
  country: CountryCode;
  leadingDigits: RegExp | null;
  possibleLengths: number[];
  national: RegExp;
  types: Array<{ pattern: RegExp; lengths: number[] | undefined }> | null;
}
/**
 * The same for a default region: its international call prefix, calling code and national
 * prefix as it is parsed, and the countries of its calling code in the metadata's order
 * (`own`: the region's own entry). Null where the plan lacks one of them.
 */
interface PlainNumbers {
  idd: RegExp;
  callingCode: string;
  prefixForParsing: RegExp | null;
  countries: CountryNumbers[];
  own: CountryNumbers;
}
// getNumberType's types, tried in this order (a number of any of them is valid).
const NUMBER_TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];

function countryNumbers(metadata: MetadataAccess, country: CountryCode): CountryNumbers | null {
  metadata.selectNumberingPlan(country);
  const plan = metadata.numberingPlan;
  const possibleLengths = plan?.possibleLengths();
  if (!plan || !possibleLengths || possibleLengths.length === 0) return null;
  const leading = plan.leadingDigits();
  let types: CountryNumbers['types'] = null;
  if (plan.hasTypes()) {
    types = [];
    for (const name of NUMBER_TYPES) {
      const type = plan.type(name);
      const pattern = type?.pattern();
      if (type && pattern) types.push({ pattern: entirely(pattern), lengths: type.possibleLengths() });
    }
  }
  return { country, leadingDigits: leading ? new RegExp(leading) : null, possibleLengths, national: entirely(plan.nationalNumberPattern()), types };
}

const plainNumbers = perRegion((plan, metadata, region): PlainNumbers | null => {
  if (!plan) return null;
  const idd = plan.IDDPrefix();
  const callingCode = plan.callingCode();
  const prefix = plan.nationalPrefixForParsing();
  const codes = metadata.getCountryCodesForCallingCode(callingCode);
  if (!idd || !codes || codes.length === 0) return null;
  const countries: CountryNumbers[] = [];
  for (const code of codes) {
    const numbers = countryNumbers(metadata, code);
    if (!numbers) return null;
    countries.push(numbers);
  }
  const own = countries.find((c) => c.country === region);
  if (!own) return null;
  return { idd: new RegExp(idd), callingCode, prefixForParsing: prefix ? new RegExp(`^(?:${prefix})`) : null, countries, own };
});

/** A number the matcher found, as far as the recognizers read it. */
interface FoundNumber {
  startsAt: number;
  endsAt: number;
  number: Pick<PhoneNumber, 'country' | 'nationalNumber' | 'countryCallingCode'>;
}

/**
 * A window holding one number written nationally and nothing else that libphonenumber reads:
 * words, spaces and punctuation that are neither digits (of any script) nor the "(", "[" or
 * "+" a number may start with, around digits in groups of one separator (space, dot, dash),
 * the first group perhaps in parentheses: " at (303) 555-0147 or ".
 */
const PLAIN_WINDOW = /^([A-Za-z \t\n\r,;:!?'".]*)(\(\d{1,17}\) ?\d{1,17}(?:[ .-]\d{1,17})*|\d{1,17}(?:[ .-]\d{1,17})*)([A-Za-z \t\n\r,;:!?'".]*)$/;
// libphonenumber's time stamps ("2012-01-02 08"), which its matcher skips when a ":" follows.
const TIME_STAMP = /[12]\d{3}[-/]?[01]\d[-/]?[0-3]\d +[0-2]\d$/;

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * The countries of a calling code (CountryNumbers), for a number dialled with it; null when
 * it is no country's (a non-geographic code), a plan lacks what they need, or the code's
 * main country (the first, whose plan parse reads the national prefix with) rewrites its
 * national prefix. At most one entry per calling code.
 */
const byCallingCode = new Map<string, CountryNumbers[] | null>();
function callingCodeNumbers(code: string): CountryNumbers[] | null {
  if (byCallingCode.has(code)) return byCallingCode.get(code)!;
  const { metadata } = phoneLib();
  const codes = metadata.getCountryCodesForCallingCode(code) ?? [];
  let countries: CountryNumbers[] | null = [];
  if (codes.length > 0) metadata.selectNumberingPlan(codes[0]);
  if (codes.length === 0 || metadata.numberingPlan?.nationalPrefixTransformRule()) countries = null;
  for (const country of countries ? codes : []) {
    const numbers = countryNumbers(metadata, country);
    if (!numbers) {
      countries = null;
      break;
    }
    countries!.push(numbers);
  }
  if (countries?.length === 0) countries = null;
  byCallingCode.set(code, countries);
  return countries;
}

/** A number of the country's type (getNumberType finds one). */
function typed(numbers: CountryNumbers, digits: string): boolean {
  if (numbers.types === null || !numbers.national.test(digits)) return false;
  for (const t of numbers.types) if ((!t.lengths || t.lengths.includes(digits.length)) && t.pattern.test(digits)) return true;
  return false;
}

/** isValid for a number of the country: a type of its plan accepts it, or the national pattern where it has none. */
function validFor(numbers: CountryNumbers, digits: string): boolean {
  return numbers.types === null ? numbers.national.test(digits) : typed(numbers, digits);
}

/** checkNumberLength's IS_POSSIBLE, as it is worked out. */
function possibleLength(lengths: readonly number[], n: number): boolean {
  if (lengths[0] === n) return true;
  if (lengths[0] > n || lengths[lengths.length - 1] < n) return false;
  return lengths.indexOf(n, 1) >= 0;
}

/**
 * libphonenumber's matcher at leniency VALID on a plain window (PLAIN_WINDOW), worked out
 * without it where the answer is one number: about half the phone recognizers' cost on
 * texts like the bench's, where most windows hold a number such as "(303) 555-0147" and
 * the matcher spends ~10 µs (more in a full detection, where its code is not kept hot) on
 * what the few pattern tests below decide. Null where it is not that case: the matcher is
 * asked as before.
 *
 * What the matcher does with such a window, step by step (libphonenumber-js 1.x,
 * PhoneNumberMatcher.find, parse, Leniency.VALID):
 * - its candidate pattern starts at a digit or at "(", "[", "+" before one, so at the
 *   number, and takes the number whole: groups joined by up to 4 punctuation marks, and an
 *   extension only with digits after it, which the rest of the window has none of;
 * - the candidate has no slash (no date, no second number), brackets that match and none
 *   after its start (no page range); a time stamp is left to the matcher;
 * - at VALID, a letter right after the candidate, or right before one that starts with a
 *   digit, rejects it: left to the matcher;
 * - parse reads the digits (no "+", no extension, no "tel:" context). Without a "+" it strips
 *   the region's international call prefix or its calling code written in front when they
 *   are there, and the national prefix (or carrier code) when its parsing pattern matches
 *   at the start: any of these is left to the matcher. Otherwise the national number is
 *   the digits, the country is the first of the calling code's countries whose leading
 *   digits start the number or, without leading digits, whose types accept it (the only
 *   one if it is alone), else the region; 2 to 17 digits;
 * - the number must be possible (a possible length of that country) and valid (it matches
 *   the country's national pattern and a type's pattern and lengths, or only the national
 *   pattern in a plan without types), and an "x" it does not have is not looked at. A
 *   number that is not is searched for inside the candidate: left to the matcher.
 * Then it is the only match: after it the window has no digit. The patterns are the
 * metadata's, compiled as libphonenumber's helpers compile them; a differential test
 * compares detection with this and without it (`prune: false`) on seeded windows.
 */
function plainNationalMatch(slice: string, region: CountryCode): FoundNumber[] | null {
  const plain = plainNumbers(region);
  if (!plain) return null;
  const m = PLAIN_WINDOW.exec(slice);
  if (!m) return null;
  const [, before, candidate, after] = m;
  if (after.length > 0 && isAsciiLetter(after.charCodeAt(0))) return null;
  if (candidate[0] !== '(' && before.length > 0 && isAsciiLetter(before.charCodeAt(before.length - 1))) return null;
  if (TIME_STAMP.test(candidate)) return null;
  let digits = '';
  for (let k = 0; k < candidate.length; k++) {
    const c = candidate.charCodeAt(k);
    if (c >= 48 && c <= 57) digits += candidate[k];
  }
  if (digits.length < 2 || digits.length > 17) return null;
  if (digits.search(plain.idd) === 0 || digits.startsWith(plain.callingCode) || plain.prefixForParsing?.test(digits)) return null;
  let country: CountryNumbers | undefined;
  if (plain.countries.length === 1) country = plain.countries[0];
  else {
    for (const c of plain.countries) {
      if (c.leadingDigits ? digits.search(c.leadingDigits) === 0 : typed(c, digits)) {
        country = c;
        break;
      }
    }
  }
  country ??= plain.own;
  if (!possibleLength(country.possibleLengths, digits.length) || !validFor(country, digits)) return null;
  return [
    {
      startsAt: before.length,
      endsAt: before.length + candidate.length,
      number: { country: country.country, nationalNumber: digits, countryCallingCode: plain.callingCode },
    },
  ];
}

/** The written form groups its digits ("(415) 555-0132", "0494 92 82 32"), not a bare run. */
function grouped(raw: string): boolean {
  return /[0-9０-９][\s.\-‐-―−－/()（）]+[0-9０-９]|[(（][0-9０-９]/.test(raw);
}

// Written with its country code: "+" or an international call prefix (00, 011).
const INTERNATIONAL = /^\s*(?:[+＋]|\(?0(?:0|11)[\s.-]?)/;

/** A number with its country code and valid there: as specific as a phone number gets. */
export const PHONE_WITH_COUNTRY_CODE = 3;
/** A number with a country code and a length that country's numbers have. */
const PHONE_POSSIBLE_WITH_COUNTRY_CODE = 2;
/** What the written form alone earns (as much as a context word would give the base score). */
const STRONG_EVIDENCE = 0.75;
/** A phone-shaped run libphonenumber does not place: only a context word lifts it past 0.5. */
const PHONE_SHAPE_SCORE = 0.2;

// Groups of digits as people write phone numbers: an optional area code in parentheses,
// then groups of 2 to 5 digits joined by one space, dot or dash, and an optional extension.
const PHONE_SHAPE =
  /^(?:\(\d{1,5}\)[\s.-]?|\d{1,5}[\s.-])(?:\d{2,7}[\s.-]){0,4}\d{2,7}(?:\s?(?:x|ext\.?)\s?\d{1,6})?$/i;
const EXTENSION = /\s?(?:x|ext\.?)\s?[0-9]{1,6}$/i;
// The US social security number's grouping: an identifier, not a phone number, unless a
// region's numbering plan says otherwise.
const SSN_SHAPE = /^\d{3}-\d{2}-\d{4}$/;
const DATE_LIKE = /^(?:\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|(?:19|20)\d{2}\s?[–-]\s?(?:19|20)\d{2})$/;

function digitCount(s: string): number {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if ((c >= 48 && c <= 57) || (c >= 0xff10 && c <= 0xff19)) n++;
  }
  return n;
}

/**
 * Presidio's PhoneRecognizer (libphonenumber's matcher per region, score 0.4), and beyond
 * it, what the issue of unmistakable numbers asks:
 * - a number written with its country code ("+", "00", "011") is found when it has a
 *   length that country's numbers have, valid or not ("+1-984-182-0190"), and earns 0.75 on
 *   its own;
 * - a national number in grouped form that is valid for a default region or a country the
 *   text names earns 0.75 on its own; a bare digit run stays at 0.4 and needs a context word;
 * - a phone-shaped group of digits no region accepts scores 0.2: a context word ("Phone:",
 *   "call me on") lifts it to 0.55.
 * A recognizer for one country's numbers (PH_MOBILE_NUMBER) takes only numbers of that
 * country: a "+1" number is not Philippine.
 */
export function phoneRecognizer(options: {
  name: string;
  entity: EntityType;
  regions: readonly CountryCode[];
  context: readonly string[];
  /** Any country's numbers (PHONE_NUMBER), not only the regions'. */
  anyCountry?: boolean;
}): Recognizer {
  return {
    name: options.name,
    entities: [options.entity],
    analyze(text, analyzeOptions) {
      // Bound rather than an arrow: no function made and named per text (tsx names every arrow it makes).
      const windows = analyzeOptions.perText(candidateWindows, candidateWindows.bind(null, text));
      if (windows.length === 0) return [];
      const results: RawResult[] = [];
      // What the results of the window at hand take ([start, end) pairs, flat): a window's
      // results lie inside it and windows do not overlap, so only its own results can
      // overlap a match of it.
      const taken: number[] = [];
      let textRegions: readonly CountryCode[] | null = null;
      for (const w of windows) {
        if (taken.length !== 0) taken.length = 0;
        // cannotPass, asked only when the window would cost something: a window it rules out
        // has fewer than 7 digits and no "+", so its only results would come from the regions'
        // matchers (the phone-shaped fallback needs 7 digits); the checks before a matcher
        // call find nothing by themselves.
        let ruledOut: boolean | undefined;
        const slice = text.slice(w.start, w.end);
        if (w.international) {
          for (const f of findPhoneNumbersInText(slice, { defaultCountry: options.regions[0], extended: true })) {
            const start = w.start + f.startsAt;
            const end = w.start + f.endsAt;
            if (overlapsTaken(taken, start, end) || !INTERNATIONAL.test(text.slice(start, end))) continue;
            const country = f.number.country;
            if (!options.anyCountry && !(country && options.regions.includes(country))) continue;
            const valid = f.number.isValid();
            if (!valid && !(options.anyCountry || analyzeOptions.phoneLeniency === 'POSSIBLE')) continue;
            addResult(results, taken, options, start, end, PHONE_SCORE, STRONG_EVIDENCE, valid ? PHONE_WITH_COUNTRY_CODE : PHONE_POSSIBLE_WITH_COUNTRY_CODE);
          }
        }
        const windowDigits = w.digits.length;
        let allTaken = false;
        // The recognizer's regions, then (PHONE_NUMBER) the countries the text names, looked up
        // only when a window gets past the recognizer's own regions.
        for (let r = 0; ; r++) {
          // Every digit of the window already belongs to a number: the other regions can add nothing.
          if (allDigitsTaken(text, w, taken)) {
            allTaken = true;
            break;
          }
          const own = options.regions.length;
          if (r >= own && !options.anyCountry) break;
          if (r >= own && textRegions === null) {
            if ((ruledOut ??= cannotPass(w, options.context, analyzeOptions))) break;
            textRegions = analyzeOptions.regionsInText();
          }
          const region = r < own ? options.regions[r] : textRegions![r - own];
          if (region === undefined) break;
          if (windowDigits < SHORTEST_INTERNATIONAL && windowDigits < shortestNational(region)) continue;
          if (analyzeOptions.phoneLeniency === 'VALID' && !mayHoldValidNumber(region, w, analyzeOptions.pruning)) continue;
          if ((ruledOut ??= cannotPass(w, options.context, analyzeOptions))) break;
          const found: FoundNumber[] =
            (analyzeOptions.phoneLeniency === 'VALID' && analyzeOptions.pruning && plainNationalMatch(slice, region)) ||
            findPhoneNumbersInText(slice, {
              defaultCountry: region,
              extended: analyzeOptions.phoneLeniency === 'POSSIBLE',
            });
          for (const f of found) {
            const start = w.start + f.startsAt;
            const end = w.start + f.endsAt;
            if (overlapsTaken(taken, start, end)) continue;
            const raw = text.slice(start, end);
            if (analyzeOptions.phoneLeniency === 'VALID' && !nationalPrefixPresentIfRequired(f.number, raw)) continue;
            if (!options.anyCountry && !(f.number.country && options.regions.includes(f.number.country))) continue;
            // "00 44 ..." / "011 ...": the country code written after a call prefix.
            const withCountryCode = INTERNATIONAL.test(raw);
            // At leniency VALID the matcher returns only numbers isValid() accepts; at POSSIBLE
            // every number is the matcher's (plainNationalMatch answers only at VALID).
            const valid = analyzeOptions.phoneLeniency === 'VALID' || (f.number as PhoneNumber).isValid();
            // Six digits or fewer are as often a house or order number; digits grouped as a
            // date ("09.12.2024") are grouped like a date, not like a phone number.
            const strong =
              valid && (withCountryCode || (grouped(raw) && !DATE_LIKE.test(raw) && digitCount(raw.replace(EXTENSION, '')) >= STRONG_MIN_DIGITS));
            addResult(results, taken, options, start, end, PHONE_SCORE, strong ? STRONG_EVIDENCE : undefined, !valid ? 0 : withCountryCode ? PHONE_WITH_COUNTRY_CODE : VALIDATED);
          }
        }
        // The phone-shaped fallback: a match holds at least 7 of the window's digits, and one
        // holding a digit a number took overlaps it.
        if (options.anyCountry && !allTaken && windowDigits >= STRONG_MIN_DIGITS) {
          for (const m of slice.matchAll(PHONE_RUN)) {
            const start = w.start + m.index;
            const end = start + m[0].length;
            if (overlapsTaken(taken, start, end) || !PHONE_SHAPE.test(m[0]) || DATE_LIKE.test(m[0]) || SSN_SHAPE.test(m[0])) continue;
            const digits = digitCount(m[0].replace(EXTENSION, ''));
            if (digits < STRONG_MIN_DIGITS || digits > MAX_NATIONAL_DIGITS) continue;
            addResult(results, taken, options, start, end, PHONE_SHAPE_SCORE, undefined, 0);
          }
        }
      }
      return removeDuplicates(results);
    },
  };
}

/**
 * A result of the window at hand, and the span it takes. A module function rather than an
 * arrow made in analyze: tsx names every arrow it makes, a property definition per text.
 */
function addResult(
  results: RawResult[],
  taken: number[],
  recognizer: { entity: EntityType; context: readonly string[] },
  start: number,
  end: number,
  score: number,
  evidence: number | undefined,
  specificity: number,
): void {
  taken.push(start, end);
  results.push({ entity: recognizer.entity, start, end, score, context: recognizer.context, evidence, specificity });
}

/** Fewer digits than this, without a country code, earn no score of their own (`strong` above). */
const STRONG_MIN_DIGITS = 7;
const CALL_PREFIX_DIGITS = /00|011/;

/**
 * Whether nothing the window can give passes the caller's threshold, so it is not scanned
 * (same findings): every result of a window scores PHONE_SCORE or PHONE_SHAPE_SCORE, raised
 * only by a context word or by the written form's own evidence. The evidence needs a country
 * code ("+" makes the window international or unchecked; "00" and "011" are looked for among
 * its digits) or at least 7 digits, and the phone-shaped fallback needs 7 too; so a window of
 * fewer digits with neither, and no context word of the recognizer within reach of any result
 * starting in it, gives only results under a threshold above PHONE_SCORE. Dropping them
 * changes nothing else: a result under the threshold drops only results scoring no more
 * (duplicates), conflicts between types are settled after the threshold, and what a
 * window's results take keeps out only other results of the same window.
 */
function cannotPass(w: Window, context: readonly string[], analyzeOptions: AnalyzeOptions): boolean {
  return (
    !w.international &&
    !w.unchecked &&
    w.digits.length < STRONG_MIN_DIGITS &&
    !CALL_PREFIX_DIGITS.test(w.digits) &&
    !analyzeOptions.passesAlone(PHONE_SCORE) &&
    !analyzeOptions.contextMayCount(w.start, w.end, context)
  );
}

/** Whether [start, end) overlaps a pair of `taken` ([start, end) pairs, flat). */
function overlapsTaken(taken: readonly number[], start: number, end: number): boolean {
  for (let k = 0; k < taken.length; k += 2) if (start < taken[k + 1] && taken[k] < end) return true;
  return false;
}

function allDigitsTaken(text: string, w: Window, taken: readonly number[]): boolean {
  if (taken.length === 0) return false;
  for (let k = w.start; k < w.end; k++) {
    const c = text.charCodeAt(k);
    if (((c >= 48 && c <= 57) || (c >= 0xff10 && c <= 0xff19)) && !overlapsTaken(taken, k, k + 1)) return false;
  }
  return true;
}

// A candidate for the phone-shaped fallback, not glued to letters, digits or other numbers.
const PHONE_RUN = /(?<![\p{L}\p{N}_.,+-])(?:\(\d{1,5}\)[\s.-]?|\d)[\d\s.-]*\d(?:\s?(?:x|ext\.?)\s?\d{1,6})?(?![\p{L}\p{N}_]|[.,-]\d)/giu;

export const phoneNumber = phoneRecognizer({
  name: 'PhoneRecognizer',
  entity: 'PHONE_NUMBER',
  regions: DEFAULT_PHONE_REGIONS,
  context: PHONE_CONTEXT,
  anyCountry: true,
});

/** Presidio's tests configure PhoneRecognizer for the Philippines under this entity name. */
export const phMobileNumber = phoneRecognizer({
  name: 'PhMobileNumberRecognizer',
  entity: 'PH_MOBILE_NUMBER',
  regions: ['PH'],
  context: [
    'mobile', 'phone', 'cell', 'cellphone', 'telepono', 'numero', 'mobile number', 'contact number',
    'numero ng telepono', 'contact', 'number', 'call', 'tawag', 'mensahe', 'sms', 'whatsapp', 'viber', 'telegram',
    'signal', 'celphone', 'phone number', 'mobile no',
  ],
});
