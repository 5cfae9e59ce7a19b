// United States and United Kingdom recognizers; patterns, scores and context words as
// Presidio's (microsoft/presidio, MIT).
import { digitsOf, luhnValid, stripChars } from '../checksums.ts';
import { patternRecognizer, type Recognizer } from '../recognizer.ts';

export const usSsn = patternRecognizer({
  name: 'UsSsnRecognizer',
  entity: 'US_SSN',
  patterns: [
    { name: 'SSN1 (very weak)', regex: /\b([0-9]{5})-([0-9]{4})\b/, score: 0.05 },
    { name: 'SSN2 (very weak)', regex: /\b([0-9]{3})-([0-9]{6})\b/, score: 0.05 },
    { name: 'SSN3 (very weak)', regex: /\b(([0-9]{3})-([0-9]{2})-([0-9]{4}))\b/, score: 0.05 },
    { name: 'SSN4 (very weak)', regex: /\b[0-9]{9}\b/, score: 0.05 },
    { name: 'SSN5 (medium)', regex: /\b([0-9]{3})[- .]([0-9]{2})[- .]([0-9]{4})\b/, score: 0.5 },
  ],
  context: ['social', 'security', 'ssn', 'ssns', 'ssid'],
  // Numbers the SSA never issues (area 000, 666 and 900-999, group 00, serial 0000; Presidio
  // misses the 900s) and well-known samples.
  invalidate(m) {
    const delimiters = new Set(m.replace(/[^.\- ]/g, ''));
    if (delimiters.size > 1) return true;
    const d = m.replace(/[^0-9]/g, '');
    if ([...d].every((ch) => ch === d[0])) return true;
    if (d[0] === '9' || d.slice(3, 5) === '00' || d.slice(5) === '0000') return true;
    return ['000', '666', '123456789', '98765432', '078051120'].some((sample) => d.startsWith(sample));
  },
});

const ITIN_GROUP = '(5\\d|6[0-5]|7\\d|8[0-8]|9([0-2]|[4-9]))';
export const usItin = patternRecognizer({
  name: 'UsItinRecognizer',
  entity: 'US_ITIN',
  patterns: [
    {
      name: 'Itin (very weak)',
      regex: new RegExp(`\\b9\\d{2}[- ]${ITIN_GROUP}\\d{4}\\b|\\b9\\d{2}${ITIN_GROUP}[- ]\\d{4}\\b`),
      score: 0.05,
    },
    { name: 'Itin (weak)', regex: new RegExp(`\\b9\\d{2}${ITIN_GROUP}\\d{4}\\b`), score: 0.3 },
    { name: 'Itin (medium)', regex: new RegExp(`\\b9\\d{2}[- ]${ITIN_GROUP}[- ]\\d{4}\\b`), score: 0.5 },
  ],
  context: ['individual', 'taxpayer', 'itin', 'tax', 'payer', 'taxid', 'tin'],
});

export const usDriverLicense = patternRecognizer({
  name: 'UsLicenseRecognizer',
  entity: 'US_DRIVER_LICENSE',
  patterns: [
    {
      name: 'Driver License - Alphanumeric (weak)',
      // Presidio's alternation, including its literal "A-Z]{2}..." branch.
      regex:
        /\b([A-Z][0-9]{3,6}|[A-Z][0-9]{5,9}|[A-Z][0-9]{6,8}|[A-Z][0-9]{4,8}|[A-Z][0-9]{9,11}|[A-Z]{1,2}[0-9]{5,6}|H[0-9]{8}|V[0-9]{6}|X[0-9]{8}|A-Z]{2}[0-9]{2,5}|[A-Z]{2}[0-9]{3,7}|[0-9]{2}[A-Z]{3}[0-9]{5,6}|[A-Z][0-9]{13,14}|[A-Z][0-9]{18}|[A-Z][0-9]{6}R|[A-Z][0-9]{9}|[A-Z][0-9]{1,12}|[0-9]{9}[A-Z]|[A-Z]{2}[0-9]{6}[A-Z]|[0-9]{8}[A-Z]{2}|[0-9]{3}[A-Z]{2}[0-9]{4}|[A-Z][0-9][A-Z][0-9][A-Z]|[0-9]{7,8}[A-Z])\b/,
      score: 0.3,
    },
    { name: 'Driver License - Digits (very weak)', regex: /\b([0-9]{6,14}|[0-9]{16})\b/, score: 0.01 },
  ],
  context: ['driver', 'license', 'permit', 'lic', 'identification', 'dls', 'cdls', 'lic#', 'driving'],
});

export const usPassport = patternRecognizer({
  name: 'UsPassportRecognizer',
  entity: 'US_PASSPORT',
  patterns: [
    { name: 'Passport (very weak)', regex: /(\b[0-9]{9}\b)/, score: 0.05 },
    { name: 'Passport Next Generation (very weak)', regex: /(\b[A-Z][0-9]{8}\b)/, score: 0.1 },
  ],
  context: ['us', 'united', 'states', 'passport', 'passport#', 'travel', 'document'],
});

export const usBankNumber = patternRecognizer({
  name: 'UsBankRecognizer',
  entity: 'US_BANK_NUMBER',
  patterns: [{ name: 'Bank Account (weak)', regex: /\b[0-9]{8,17}\b/, score: 0.05 }],
  context: ['check', 'account', 'account#', 'acct', 'bank', 'save', 'debit'],
});

export const abaRouting = patternRecognizer({
  name: 'AbaRoutingRecognizer',
  entity: 'ABA_ROUTING_NUMBER',
  patterns: [
    { name: 'ABA routing number (weak)', regex: /\b[0123678]\d{8}\b/, score: 0.05 },
    { name: 'ABA routing number', regex: /\b[0123678]\d{3}-\d{4}-\d\b/, score: 0.3 },
  ],
  context: ['aba', 'routing', 'abarouting', 'association', 'bankrouting'],
  validate(m) {
    const d = digitsOf(m);
    const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
    return weights.reduce((sum, w, i) => sum + w * d[i], 0) % 10 === 0;
  },
});

const MBI_ALPHA = '[ACDEFGHJKMNPQRTUVWXY]';
const MBI_ALNUM = '[0-9ACDEFGHJKMNPQRTUVWXY]';
export const usMbi = patternRecognizer({
  name: 'UsMbiRecognizer',
  entity: 'US_MBI',
  patterns: [
    {
      name: 'MBI (weak)',
      regex: new RegExp(`\\b[0-9]${MBI_ALPHA}${MBI_ALNUM}[0-9]${MBI_ALPHA}${MBI_ALNUM}[0-9]${MBI_ALPHA}${MBI_ALPHA}[0-9][0-9]\\b`),
      score: 0.3,
    },
    {
      name: 'MBI (medium)',
      regex: new RegExp(`\\b[0-9]${MBI_ALPHA}${MBI_ALNUM}[0-9]-${MBI_ALPHA}${MBI_ALNUM}[0-9]-${MBI_ALPHA}${MBI_ALPHA}[0-9][0-9]\\b`),
      score: 0.5,
    },
  ],
  context: ['medicare', 'mbi', 'beneficiary', 'cms', 'medicaid', 'hic', 'hicn'],
});

export const usNpi = patternRecognizer({
  name: 'UsNpiRecognizer',
  entity: 'US_NPI',
  patterns: [
    { name: 'NPI (weak)', regex: /\b[12]\d{9}\b/, score: 0.1 },
    { name: 'NPI (medium)', regex: /\b[12]\d{3}[ -]\d{3}[ -]\d{3}\b/, score: 0.4 },
  ],
  context: ['npi', 'national provider', 'provider', 'npi number', 'provider id', 'provider identifier', 'taxonomy'],
  // Luhn over the number prefixed with 80840, per CMS.
  validate: (m) => luhnValid('80840' + m),
  invalidate(m) {
    const body = digitsOf(m).slice(0, -1);
    return body.every((d) => d === body[0]);
  },
});

export const ukNhs = patternRecognizer({
  name: 'NhsRecognizer',
  entity: 'UK_NHS',
  patterns: [{ name: 'NHS (medium)', regex: /\b([0-9]{3})[- ]?([0-9]{3})[- ]?([0-9]{4})\b/, score: 0.5 }],
  context: ['national health service', 'nhs', 'health services authority', 'health authority'],
  // Mod 11: weights 10..1 over all ten digits sum to a multiple of 11.
  validate(m) {
    const d = digitsOf(m);
    return d.reduce((sum, digit, i) => sum + digit * (10 - i), 0) % 11 === 0;
  },
});

export const ukNino = patternRecognizer({
  name: 'UkNinoRecognizer',
  entity: 'UK_NINO',
  patterns: [
    {
      name: 'NINO (medium)',
      regex:
        /\b(?!bg|gb|nk|kn|nt|tn|zz|BG|GB|NK|KN|NT|TN|ZZ) ?([a-ceghj-pr-tw-zA-CEGHJ-PR-TW-Z]{1}[a-ceghj-npr-tw-zA-CEGHJ-NPR-TW-Z]{1}) ?([0-9]{2}) ?([0-9]{2}) ?([0-9]{2}) ?([a-dA-D]{1})\b/,
      score: 0.5,
    },
  ],
  context: ['national insurance', 'ni number', 'nino'],
});

export const ukPassport = patternRecognizer({
  name: 'UkPassportRecognizer',
  entity: 'UK_PASSPORT',
  patterns: [{ name: 'UK Passport (weak)', regex: /\b[A-Z]{2}\d{7}\b/, score: 0.1 }],
  context: ['passport', 'passport number', 'travel document', 'uk passport', 'british passport', 'her majesty', 'his majesty', 'hm passport', 'hmpo'],
});

export const ukDrivingLicence = patternRecognizer({
  name: 'UkDrivingLicenceRecognizer',
  entity: 'UK_DRIVING_LICENCE',
  patterns: [
    {
      name: 'UK Driving Licence',
      regex: /\b[A-Z9]{5}[0-9](?:0[1-9]|1[0-2]|5[1-9]|6[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9][A-Z9]{2}[A-Z0-9][A-Z]{2}\b/,
      score: 0.5,
    },
  ],
  context: ['driving licence', 'driving license', "driver's licence", "driver's license", 'dvla', 'dl number', 'licence number', 'license number'],
  // The DVLA check characters are not public; only the surname field can be refuted.
  validate(m) {
    const surname = m.slice(0, 5).toUpperCase();
    if (surname === '99999' || !/^[A-Z]+9*$/.test(surname)) return false;
    return null;
  },
});

export const ukPostcode = patternRecognizer({
  name: 'UkPostcodeRecognizer',
  entity: 'UK_POSTCODE',
  patterns: [
    {
      name: 'UK Postcode',
      regex:
        /\b(GIR\s?0AA|[A-PR-UWYZ][0-9][ABCDEFGHJKPSTUW]?\s?[0-9][ABD-HJLNP-UW-Z]{2}|[A-PR-UWYZ][0-9]{2}\s?[0-9][ABD-HJLNP-UW-Z]{2}|[A-PR-UWYZ][A-HK-Y][0-9][ABEHMNPRVWXY]?\s?[0-9][ABD-HJLNP-UW-Z]{2}|[A-PR-UWYZ][A-HK-Y][0-9]{2}\s?[0-9][ABD-HJLNP-UW-Z]{2})\b/,
      score: 0.1,
    },
  ],
  context: ['postcode', 'post code', 'postal code', 'zip', 'address', 'delivery', 'mailing', 'shipping', 'correspondence'],
});

export const ukVehicleRegistration = patternRecognizer({
  name: 'UkVehicleRegistrationRecognizer',
  entity: 'UK_VEHICLE_REGISTRATION',
  patterns: [
    { name: 'UK Vehicle Registration (current)', regex: /\b[A-HJ-PR-Y][A-HJ-PR-Y](?:0[1-9]|[1-7][0-9])[- ]?[A-HJ-PR-Z]{3}\b/, score: 0.3 },
    { name: 'UK Vehicle Registration (prefix)', regex: /\b[A-HJ-NPR-TV-Y]\d{1,3}[- ]?[A-HJ-PR-Y][A-HJ-PR-Z]{2}\b/, score: 0.2 },
    { name: 'UK Vehicle Registration (suffix)', regex: /\b[A-HJ-PR-Z]{3}[- ]?\d{1,3}[- ]?[A-HJ-NPR-TV-Y]\b/, score: 0.15 },
  ],
  context: ['vehicle', 'registration', 'number plate', 'licence plate', 'license plate', 'reg', 'vrn', 'dvla', 'v5c', 'logbook', 'mot', 'car', 'insured vehicle'],
  // The current format's age identifier is 02-29 (March) or 51-79 (September).
  validate(m) {
    const s = stripChars(m, '- ');
    if (s.length === 7 && /^[A-Za-z]{2}[0-9]{2}/.test(s)) {
      const age = Number(s.slice(2, 4));
      return (age >= 2 && age <= 29) || (age >= 51 && age <= 79);
    }
    return null;
  },
});

export const US_UK_RECOGNIZERS: Recognizer[] = [
  usSsn, usItin, usDriverLicense, usPassport, usBankNumber, abaRouting, usMbi, usNpi,
  ukNhs, ukNino, ukPassport, ukDrivingLicence, ukPostcode, ukVehicleRegistration,
];
