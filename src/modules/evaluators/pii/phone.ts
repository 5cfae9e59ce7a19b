import { findPhoneNumbersInText, Metadata, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';
import type { EntityType } from './entities.ts';
import { removeDuplicates, type RawResult, type Recognizer } from './recognizer.ts';

/**
 * Presidio's PhoneRecognizer: libphonenumber's matcher run once per region, every match
 * scored 0.4 (context words raise it). Presidio's default regions are US, UK, DE, FR, IL,
 * IN, CA, BR; libphonenumber calls the UK "GB", and JP and CN are added as in the project's
 * copy of Presidio's vectors.
 */
export const DEFAULT_PHONE_REGIONS: readonly CountryCode[] = ['US', 'GB', 'DE', 'FR', 'IL', 'IN', 'CA', 'BR', 'JP', 'CN'];
const PHONE_SCORE = 0.4;
const PHONE_CONTEXT = ['phone', 'number', 'telephone', 'cell', 'cellphone', 'mobile', 'call'];

// A run that could hold a phone number: digits with the separators people write.
const CANDIDATE = /[+＋(（]?[0-9０-９][0-9０-９\s.\-‐-―−－()（）/]*[0-9０-９]/g;
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
  /** Starts with "+": the country code is written, so the default region does not matter. */
  international: boolean;
}

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
    let digits = 0;
    for (let k = 0; k < m[0].length; k++) {
      const c = m[0].charCodeAt(k);
      if ((c >= 48 && c <= 57) || (c >= 0xff10 && c <= 0xff19)) digits++;
    }
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
      last.international &&= international;
    } else {
      windows.push({ start, end, international });
    }
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
interface NumberingPlan {
  formats(): NumberFormat[];
  nationalPrefix(): string | undefined;
}
interface MetadataAccess {
  selectNumberingPlan(country: CountryCode): void;
  numberingPlan?: NumberingPlan;
}
const metadata = new Metadata() as unknown as MetadataAccess;

const regexCache = new Map<string, RegExp>();
function cached(source: string): RegExp {
  let re = regexCache.get(source);
  if (!re) regexCache.set(source, (re = new RegExp(source)));
  return re;
}

/** libphonenumber's chooseFormatForNumber (not exported). */
function chooseFormat(formats: readonly NumberFormat[], national: string): NumberFormat | undefined {
  return formats.find((f) => {
    const leading = f.leadingDigitsPatterns();
    if (leading.length > 0 && national.search(cached(leading[leading.length - 1])) !== 0) return false;
    return cached(`^(?:${f.pattern()})$`).test(national);
  });
}

/**
 * python-phonenumbers' VALID leniency also demands the national prefix where the country
 * writes one ("0917 123 4567" in the Philippines, not "917 123 4567"); libphonenumber-js
 * skips that check ("for simplicity"), so it is redone here as Python does it.
 */
function nationalPrefixPresentIfRequired(number: PhoneNumber, raw: string): boolean {
  const trimmed = raw.trimStart();
  if (trimmed.startsWith('+') || trimmed.startsWith('＋') || !number.country) return true;
  const national = number.nationalNumber;
  const rawDigits = raw.replace(/[^0-9]/g, '');
  // Written with an international call prefix and country code ("00 44 ...").
  if (rawDigits.length > national.length && rawDigits.endsWith(number.countryCallingCode + national)) return true;
  metadata.selectNumberingPlan(number.country);
  const plan = metadata.numberingPlan;
  if (!plan) return true;
  const format = chooseFormat(plan.formats(), national);
  if (!format || !format.usesNationalPrefix() || format.nationalPrefixIsOptionalWhenFormattingInNationalFormat()) return true;
  const prefix = plan.nationalPrefix();
  return !prefix || rawDigits.startsWith(prefix);
}

export function phoneRecognizer(options: {
  name: string;
  entity: EntityType;
  regions: readonly CountryCode[];
  context: readonly string[];
}): Recognizer {
  return {
    name: options.name,
    entities: [options.entity],
    analyze(text, analyzeOptions) {
      const windows = candidateWindows(text);
      if (windows.length === 0) return [];
      const results: RawResult[] = [];
      const seen = new Set<string>();
      for (const w of windows) {
        const slice = text.slice(w.start, w.end);
        for (const region of w.international ? options.regions.slice(0, 1) : options.regions) {
          const found = findPhoneNumbersInText(slice, {
            defaultCountry: region,
            extended: analyzeOptions.phoneLeniency === 'POSSIBLE',
          });
          for (const f of found) {
            const start = w.start + f.startsAt;
            const end = w.start + f.endsAt;
            const key = `${start}:${end}`;
            if (seen.has(key)) continue;
            if (analyzeOptions.phoneLeniency === 'VALID' && !nationalPrefixPresentIfRequired(f.number, text.slice(start, end))) {
              continue;
            }
            seen.add(key);
            results.push({ entity: options.entity, start, end, score: PHONE_SCORE, context: options.context });
          }
        }
      }
      return removeDuplicates(results);
    },
  };
}

export const phoneNumber = phoneRecognizer({
  name: 'PhoneRecognizer',
  entity: 'PHONE_NUMBER',
  regions: DEFAULT_PHONE_REGIONS,
  context: PHONE_CONTEXT,
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
