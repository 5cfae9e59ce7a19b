// Recognizers for Australia, India, Singapore, Korea, Thailand, Canada, Turkey, Nigeria,
// the Philippines and South Africa; patterns, scores and context words as Presidio's
// (microsoft/presidio, MIT).
import { digitsOf, isValidDate, luhnValid, stripChars, verhoeffValid } from '../checksums.ts';
import { PATTERN, patternRecognizer, type Recognizer } from '../recognizer.ts';

function weightedSum(digits: readonly number[], weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += digits[i] * weights[i];
  return sum;
}

export const auAbn = patternRecognizer({
  name: 'AuAbnRecognizer',
  entity: 'AU_ABN',
  patterns: [
    { name: 'ABN (Medium)', regex: /\b\d{2}\s\d{3}\s\d{3}\s\d{3}\b/, score: 0.1 },
    { name: 'ABN (Low)', regex: /\b\d{11}\b/, score: 0.01 },
  ],
  context: ['australian business number', 'abn'],
  // Modulus 89 after subtracting 1 from the first digit.
  validate(m) {
    const d = digitsOf(m);
    // An ABN's check digits are 10-99, so it never starts with 0 (Presidio's vectors).
    if (d[0] === 0) return false;
    d[0] -= 1;
    return weightedSum(d, [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]) % 89 === 0;
  },
});

export const auAcn = patternRecognizer({
  name: 'AuAcnRecognizer',
  entity: 'AU_ACN',
  patterns: [
    { name: 'ACN (Medium)', regex: /\b\d{3}\s\d{3}\s\d{3}\b/, score: 0.1 },
    { name: 'ACN (Low)', regex: /\b\d{9}\b/, score: 0.01 },
  ],
  context: ['australian company number', 'acn'],
  validate(m) {
    const d = digitsOf(m);
    return (10 - (weightedSum(d, [8, 7, 6, 5, 4, 3, 2, 1]) % 10)) % 10 === d[8];
  },
});

export const auTfn = patternRecognizer({
  name: 'AuTfnRecognizer',
  entity: 'AU_TFN',
  patterns: [
    { name: 'TFN (Medium)', regex: /\b\d{3}\s\d{3}\s\d{3}\b/, score: 0.1 },
    { name: 'TFN (Low)', regex: /\b\d{9}\b/, score: 0.01 },
  ],
  context: ['tax file number', 'tfn'],
  validate: (m) => weightedSum(digitsOf(m), [1, 4, 3, 7, 5, 8, 6, 9, 10]) % 11 === 0,
});

export const auMedicare = patternRecognizer({
  name: 'AuMedicareRecognizer',
  entity: 'AU_MEDICARE',
  patterns: [
    { name: 'Australian Medicare Number (Medium)', regex: /\b[2-6]\d{3}\s\d{5}\s\d\b/, score: 0.1 },
    { name: 'Australian Medicare Number (Low)', regex: /\b[2-6]\d{9}\b/, score: 0.01 },
  ],
  context: ['medicare'],
  validate(m) {
    const d = digitsOf(m);
    return weightedSum(d, [1, 3, 7, 9, 1, 3, 7, 9]) % 10 === d[8];
  },
});

export const inPan = patternRecognizer({
  name: 'InPanRecognizer',
  entity: 'IN_PAN',
  patterns: [
    { name: 'PAN (High)', regex: /\b([A-Za-z]{3}[AaBbCcFfGgHhJjLlPpTt]{1}[A-Za-z]{1}[0-9]{4}[A-Za-z]{1})\b/, score: 0.5 },
    { name: 'PAN (Medium)', regex: /\b([A-Za-z]{5}[0-9]{4}[A-Za-z]{1})\b/, score: 0.1 },
    // Presidio's lookaheads (?=.*?[a-zA-Z])(?=.*?[0-9]{4}) scan to the end of the text from
    // every position: quadratic, and satisfied by a letter anywhere later. Here they look
    // inside the 10 characters matched.
    { name: 'PAN (Low)', regex: /\b((?=[\w@#$%^?~-]{0,9}[a-zA-Z])(?=[\w@#$%^?~-]{0,6}[0-9]{4})[\w@#$%^?~-]{10})\b/, score: 0.01 },
  ],
  context: ['permanent account number', 'pan'],
});

export const inAadhaar = patternRecognizer({
  name: 'InAadhaarRecognizer',
  entity: 'IN_AADHAAR',
  patterns: [
    { name: 'AADHAAR (Very Weak)', regex: /\b[0-9]{12}\b/, score: 0.01 },
    { name: 'AADHAR (Very Weak)', regex: /\b[0-9]{4}[- :][0-9]{4}[- :][0-9]{4}\b/, score: 0.01 },
  ],
  context: ['aadhaar', 'uidai'],
  validate(m) {
    const s = stripChars(m, '- :');
    if (!/^[0-9]{12}$/.test(s) || Number(s[0]) < 2) return false;
    return verhoeffValid(digitsOf(s)) && s !== [...s].reverse().join('');
  },
});

export const inPassport = patternRecognizer({
  name: 'InPassportRecognizer',
  entity: 'IN_PASSPORT',
  patterns: [{ name: 'PASSPORT', regex: /\b[A-Z][1-9]\d\s?\d{4}[1-9]\b/, score: 0.1 }],
  context: ['passport', 'indian passport', 'passport number'],
});

export const inVoter = patternRecognizer({
  name: 'InVoterRecognizer',
  entity: 'IN_VOTER',
  patterns: [
    { name: 'VOTER', regex: /\b([A-Za-z]{1}[ABCDGHJKMNPRSYabcdghjkmnprsy]{1}[A-Za-z]{1}([0-9]){7})\b/, score: 0.4 },
    { name: 'VOTER', regex: /\b([A-Za-z]){3}([0-9]){7}\b/, score: 0.3 },
  ],
  context: ['voter', 'epic', 'elector photo identity card'],
});

export const inGstin = patternRecognizer({
  name: 'InGstinRecognizer',
  entity: 'IN_GSTIN',
  patterns: [
    { name: 'GSTIN (High)', regex: /\b((?:0[1-9]|[1-3][0-7])[A-Za-z0-9]{10}[A-Za-z0-9]{1}Z[A-Za-z0-9]{1})\b/, score: 0.8 },
    { name: 'GSTIN (Medium)', regex: /\b((?:0[1-9]|[1-3][0-7])[A-Za-z0-9]{11}Z[A-Za-z0-9]{1})\b/, score: 0.4 },
    { name: 'GSTIN (Low)', regex: /\b([0-9]{2}[A-Za-z0-9]{11}Z[A-Za-z0-9]{1})\b/, score: 0.1 },
  ],
  context: ['gstin', 'gst', 'goods and services tax', 'tax identification', 'gst number', 'gst registration'],
  // State code 01-37, a PAN-shaped middle (3+ letters, 4 digits, a letter), then "Z".
  validate(m) {
    const s = m.toUpperCase();
    if (s.length !== 15) return false;
    const state = Number(s.slice(0, 2));
    if (!/^[0-9]{2}$/.test(s.slice(0, 2)) || state < 1 || state > 37) return false;
    const pan = s.slice(2, 12);
    if ((pan.slice(0, 5).match(/[A-Z]/g) ?? []).length < 3) return false;
    if (!/^[0-9]{4}[A-Z]$/.test(pan.slice(5))) return false;
    return /^[A-Z0-9]Z[A-Z0-9]$/.test(s.slice(12));
  },
});

// Regional Transport Office codes per state (Presidio's in_vehicle_registration tables).
const range = (from: number, to: number, skip: readonly number[] = [21], pad = 2) => {
  const out: string[] = [];
  for (let i = from; i <= to; i++) if (!skip.includes(i)) out.push(String(i).padStart(pad, '0'));
  return out;
};
const RTO_DISTRICTS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    AN: ['01'], AP: ['39', '40'], AR: range(1, 22, [18, 21]), AS: range(1, 34), CH: range(1, 4), DD: range(1, 3),
    DN: ['09'], DL: [...range(1, 13, [], 1), ...range(1, 13, [])], GA: range(1, 12), GJ: [...range(1, 39, [], 1), ...range(1, 39, [])], HP: range(1, 99), HR: range(1, 99),
    BR: ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '19', '21', '22', '24', '25', '26', '27', '28', '29', '30', '31', '32', '33', '34', '37', '38', '39', '43', '44', '45', '46', '50', '51', '52', '53', '55', '56'],
    CG: range(1, 30, []), JH: range(1, 24), JK: range(1, 22), KA: range(1, 71), KL: range(1, 99), LA: range(1, 2),
    LD: range(1, 9), MH: range(1, 51), ML: range(1, 10), MN: range(1, 7), MP: range(1, 71), MZ: range(1, 8),
    NL: range(1, 10), OD: range(1, 35), OR: range(1, 31), PB: range(1, 99), PY: range(1, 5), RJ: range(1, 58),
    SK: range(1, 8), TN: range(1, 99), TR: range(1, 8), TS: range(1, 38), UK: range(1, 20), UP: range(11, 96),
    WB: range(1, 98),
  }).map(([state, codes]) => [state, new Set(codes)]),
);
const RTO_PREFIXES = new Set([
  'AN', 'CH', 'DH', 'DL', 'JK', 'LA', 'LD', 'PY', 'CT', 'DN', 'AP', 'AR', 'AS', 'BR', 'CG', 'GA', 'GJ', 'HR', 'HP',
  'JH', 'KA', 'KL', 'MP', 'MH', 'MN', 'ML', 'MZ', 'NL', 'OD', 'PB', 'RJ', 'SK', 'TN', 'TS', 'TR', 'UP', 'UK', 'WB',
  'UT', 'UL', 'OR', 'UA', 'DD',
]);
const FOREIGN_MISSION_CODES = new Set([
  84, 85, 89, 93, 94, 95, 97, 98, 99, 102, 104, 105, 106, 109, 111, 112, 113, 117, 119, 120, 121, 122, 123, 125, 126,
  128, 133, 134, 135, 137, 141, 145, 147, 149, 152, 153, 155, 156, 157, 159, 160,
]);

export const inVehicleRegistration = patternRecognizer({
  name: 'InVehicleRegistrationRecognizer',
  entity: 'IN_VEHICLE_REGISTRATION',
  patterns: [
    { name: 'India Vehicle Registration (Very Weak)', regex: /\b[A-Z]{1}(?!0000)[0-9]{4}\b/, score: 0.01 },
    { name: 'India Vehicle Registration (Very Weak)', regex: /\b[A-Z]{2}(?!0000)\d{4}\b/, score: 0.01 },
    { name: 'India Vehicle Registration (Very Weak)', regex: /\b(I)(?!00000)\d{5}\b/, score: 0.01 },
    { name: 'India Vehicle Registration (Weak)', regex: /\b[A-Z]{3}(?!0000)\d{4}\b/, score: 0.2 },
    { name: 'India Vehicle Registration (Medium)', regex: /\b\d{1,3}(CD|CC|UN)[1-9]{1}[0-9]{1,3}\b/, score: 0.4 },
    { name: 'India Vehicle Registration', regex: /\b[A-Z]{2}\d{1}[A-Z]{1,3}(?!0000)\d{4}\b/, score: 0.5 },
    { name: 'India Vehicle Registration', regex: /\b[A-Z]{2}\d{2}[A-Z]{1,2}(?!0000)\d{4}\b/, score: 0.5 },
    { name: 'India Vehicle Registration', regex: /\b[2-9]{1}[1-9]{1}(BH)(?!0000)\d{4}[A-HJ-NP-Z]{2}\b/, score: 0.85 },
    { name: 'India Vehicle Registration', regex: /\b(?!00)\d{2}(A|B|C|D|E|F|H|K|P|R|X)\d{6}[A-Z]{1}\b/, score: 0.85 },
  ],
  context: ['RTO', 'vehicle', 'plate', 'registration'],
  validate(m) {
    const s = stripChars(m, '- :');
    if (s.length < 8) return null;
    let valid: boolean | null = null;
    const state = s.slice(0, 2).toUpperCase();
    if (RTO_PREFIXES.has(state) && /[0-9]/.test(s[2])) {
      const district = /[0-9]/.test(s[3]) ? s.slice(2, 4) : s.slice(2, 3);
      const tail = s.slice(-4);
      if (/^[0-9]{4}$/.test(tail) && Number(tail) > 0 && RTO_DISTRICTS[state]?.has(district)) valid = true;
    }
    for (const code of ['CC', 'CD', 'UN']) {
      const at = s.indexOf(code);
      if (at < 0) continue;
      const prefix = s.slice(0, at);
      if (/^[0-9]+$/.test(prefix) && ((Number(prefix) >= 1 && Number(prefix) <= 80) || FOREIGN_MISSION_CODES.has(Number(prefix)))) {
        valid = true;
      }
    }
    return valid;
  },
});

export const sgNricFin = patternRecognizer({
  name: 'SgFinRecognizer',
  entity: 'SG_NRIC_FIN',
  patterns: [
    { name: 'Nric (weak)', regex: /(\b[A-Z][0-9]{7}[A-Z]\b)/, score: 0.3 },
    { name: 'Nric (medium)', regex: /(\b[STFGM][0-9]{7}[A-Z]\b)/, score: 0.5 },
  ],
  context: ['fin', 'fin#', 'nric', 'nric#'],
});

const UEN_C_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWX0123456789';
const UEN_C_ENTITY_TYPES = new Set(
  'LP LL FC PF RF MQ MM NB CC CS MB FM GS DP CP NR CM CD MD HS VH CH MH CL XL CX HC RP TU TC FB FN PA PB SS MC SM GA GB'.split(' '),
);

export const sgUen = patternRecognizer({
  name: 'SgUenRecognizer',
  entity: 'SG_UEN',
  patterns: [{ name: 'UEN (low)', regex: /\b\d{8}[A-Z]\b|\b\d{9}[A-Z]\b|\b(T|S|R)\d{2}[A-Z]{2}\d{4}[A-Z]\b/, score: 0.3 }],
  context: ['uen', 'unique entity number', 'business registration', 'ACRA'],
  validate(m) {
    const s = m.toUpperCase();
    const check = s[s.length - 1];
    if (s.length === 9) {
      // Format A: businesses registered with ACRA.
      return 'XMKECAWLJDB'[weightedSum(digitsOf(s.slice(0, 8)), [10, 4, 9, 3, 8, 2, 7, 1]) % 11] === check;
    }
    if (s.length === 10 && /[A-Z]/.test(s[0])) {
      // Format C: other entities, prefix T/S/R and an entity-type code.
      if (!'TSR'.includes(s[0]) || !UEN_C_ENTITY_TYPES.has(s.slice(3, 5))) return false;
      const weights = [4, 3, 5, 3, 10, 2, 2, 5, 7];
      let sum = 0;
      for (let i = 0; i < 9; i++) sum += UEN_C_ALPHABET.indexOf(s[i]) * weights[i];
      return UEN_C_ALPHABET[(((sum - 5) % 11) + 11) % 11] === check;
    }
    if (s.length === 10) {
      // Format B: local companies; the first four digits are the year of registration.
      if (Number(s.slice(0, 4)) > new Date().getFullYear()) return false;
      return 'ZKCMDNERGWH'[weightedSum(digitsOf(s.slice(0, 9)), [10, 8, 6, 4, 9, 7, 5, 3, 1]) % 11] === check;
    }
    return false;
  },
});

function krChecksum(d: readonly number[], base: number): boolean {
  const sum = weightedSum(d, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]);
  return (base - (sum % 11)) % 10 === d[12];
}

/** Pre-2020 Korean registration numbers carry a region code and check digit; later ones are random. */
function krRegistrationValidate(base: number) {
  return (m: string): boolean | null => {
    const s = stripChars(m, '-');
    if (!/^[0-9]{13}$/.test(s)) return false;
    const d = digitsOf(s);
    const region = Number(s.slice(7, 9));
    return region <= 95 && krChecksum(d, base) ? true : null;
  };
}

export const krRrn = patternRecognizer({
  name: 'KrRrnRecognizer',
  entity: 'KR_RRN',
  patterns: [{ name: 'RRN (Medium)', regex: /(?<!\d)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(-?)[1-4]\d{6}(?!\d)/, score: 0.5 }],
  context: ['Korean RRN', 'Korean Resident Registration Number', 'Resident Registration Number', 'RRN', 'rrn', 'rrn#'],
  validate: krRegistrationValidate(11),
});

export const krFrn = patternRecognizer({
  name: 'KrFrnRecognizer',
  entity: 'KR_FRN',
  patterns: [{ name: 'FRN (Medium)', regex: /(?<!\d)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(-?)[5-8]\d{6}(?!\d)/, score: 0.5 }],
  context: ['외국인등록번호', 'Korean FRN', 'FRN', 'Foreigner Registration Number', 'Korean Foreigner Registration Number', '외국인번호'],
  validate: krRegistrationValidate(13),
});

export const krBrn = patternRecognizer({
  name: 'KrBrnRecognizer',
  entity: 'KR_BRN',
  patterns: [
    { name: 'BRN (Weak)', regex: /(?<!\d)\d{3}-\d{2}-\d{5}(?!\d)/, score: 0.1 },
    { name: 'BRN (Very weak)', regex: /(?<!\d)\d{10}(?!\d)/, score: 0.05 },
  ],
  context: ['사업자등록번호', '사업자번호', '사업자', 'BRN', 'Business Registration Number', 'Korean BRN', 'business number', 'tax registration number'],
  validate(m) {
    const d = digitsOf(m);
    if (d.length !== 10) return false;
    let sum = weightedSum(d, [1, 3, 7, 1, 3, 7, 1, 3]);
    const last = d[8] * 5;
    sum += Math.floor(last / 10) + last;
    return (10 - (sum % 10)) % 10 === d[9];
  },
});

const KR_LICENSE_REGIONS = new Set(['11', '12', '13', '14', '15', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26', '28']);
export const krDriverLicense = patternRecognizer({
  name: 'KrDriverLicenseRecognizer',
  entity: 'KR_DRIVER_LICENSE',
  patterns: [{ name: 'Driver License (very weak)', regex: /(?<!\d)(\d{2})[- ]?(\d{2})[- ]?(\d{6})[- ]?(\d{2})(?!\d)/, score: 0.05 }],
  context: ['운전면허', '운전면허번호', '면허번호', 'Korean driver license', "Korean driver's license"],
  validate(m) {
    const s = stripChars(m, '- ');
    if (!/^[0-9]{12}$/.test(s)) return false;
    return KR_LICENSE_REGIONS.has(s.slice(0, 2));
  },
});

export const krPassport = patternRecognizer({
  name: 'KrPassportRecognizer',
  entity: 'KR_PASSPORT',
  patterns: [
    { name: 'Passport Number (Current)', regex: /(?<![A-Z0-9a-z])[MmSsRrOoDd]\d{3}[A-Za-z]\d{4}(?![0-9])/, score: 0.1 },
    { name: 'Passport Number (Previous)', regex: /(?<![A-Z0-9a-z])[MmSsRrOoDd]\d{8}(?![0-9])/, score: 0.05 },
  ],
  context: ['Korean passport', 'Korean passport number', '대한민국 여권', '여권', 'passport', 'passport number'],
});

export const thTnin = patternRecognizer({
  name: 'ThTninRecognizer',
  entity: 'TH_TNIN',
  patterns: [{ name: 'TNIN (Medium)', regex: /\b[1-9](?!28|29|59|68|69|78|79|87|88|89|97|98|99)[1-9]\d{11}\b/, score: 0.4 }],
  context: ['Thai National ID', 'Thai ID Number', 'TNIN', 'เลขประจำตัวประชาชน', 'เลขบัตรประชาชน', 'รหัสปชช'],
  validate(m) {
    if (!/^[0-9]{13}$/.test(m)) return false;
    const d = digitsOf(m);
    const x = weightedSum(d, [13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11;
    return (x <= 1 ? 1 - x : 11 - x) === d[12];
  },
});

export const caSin = patternRecognizer({
  name: 'CaSinRecognizer',
  entity: 'CA_SIN',
  patterns: [
    { name: 'SIN (weak)', regex: /\b[1-79]\d{8}\b/, score: 0.05 },
    { name: 'SIN (medium)', regex: /\b[1-79]\d{2}([- ])\d{3}\1\d{3}\b/, score: 0.5 },
  ],
  context: ['sin', 'sin number', 'social insurance', 'social insurance number', 'canada', 'nas', 'numéro nas', "numéro d'assurance sociale", 'assurance sociale'],
  invalidate: (m) => !luhnValid(m),
});

export const trNationalId = patternRecognizer({
  name: 'TrNationalIdRecognizer',
  entity: 'TR_NATIONAL_ID',
  patterns: [{ name: 'TR_NATIONAL_ID', regex: /\b[1-9][0-9]{10}\b/, score: 0.3 }],
  context: ['tc kimlik', 'kimlik no', 'kimlik numarası', 'tckn', 'tc no', 'nüfus cüzdanı', 'national id', 'turkish id', 'türk kimlik'],
  validate(m) {
    const d = digitsOf(m);
    if (d.length !== 11 || d[0] === 0) return false;
    const odd = d[0] + d[2] + d[4] + d[6] + d[8];
    const even = d[1] + d[3] + d[5] + d[7];
    if ((((odd * 7 - even) % 10) + 10) % 10 !== d[9]) return false;
    return d.slice(0, 10).reduce((a, b) => a + b, 0) % 10 === d[10];
  },
});

export const trLicensePlate = patternRecognizer({
  name: 'TrLicensePlateRecognizer',
  entity: 'TR_LICENSE_PLATE',
  patterns: [
    { name: 'TR License Plate (space)', regex: /\b(0[1-9]|[1-7][0-9]|8[0-1])\s?[A-PR-VY-Z]{1,3}\s?\d{2,4}\b/, score: 0.3 },
    { name: 'TR License Plate (hyphen)', regex: /\b(0[1-9]|[1-7][0-9]|8[0-1])-[A-PR-VY-Z]{1,3}-\d{2,4}\b/, score: 0.3 },
  ],
  context: ['plaka', 'araç plakası', 'plaka numarası', 'kayıt plakası', 'tr plaka', 'license plate', 'number plate', 'plate', 'taşıt plakası', 'kayıt'],
  // A province code passes 81 of 100 two-digit prefixes: it refutes a plate but does not
  // make "26-Sep-1979" one rather than a date.
  validatedSpecificity: PATTERN,
  validate(m) {
    const s = stripChars(m, '- ');
    if (s.length >= 3 && /^[0-9]{2}/.test(s)) {
      const code = Number(s.slice(0, 2));
      return code >= 1 && code <= 81;
    }
    return null;
  },
});

// A number after "+" and a country code other than 90 is not Turkish ("+1 415 555 2509").
export const trPhoneNumber = patternRecognizer({
  name: 'TrPhoneNumberRecognizer',
  entity: 'TR_PHONE_NUMBER',
  patterns: [
    { name: 'TR Phone Number (international)', regex: /(?<!\w)\+90[\s.-]?\(?5\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.4, contains: ['+90'] },
    { name: 'TR Phone Number (national)', regex: /(?<![+＋][0-9]{0,3}[\s.-]?)(?<!\w)0[\s.-]?\(?5\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.3 },
    { name: 'TR Phone Number (local/mobile)', regex: /(?<![+＋][0-9]{0,3}[\s.-]?)(?<!\w)\(?5\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.15 },
    { name: 'TR Geographic Number (international)', regex: /(?<!\w)\+90[\s.-]?\(?[234]\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.1, contains: ['+90'] },
    { name: 'TR Geographic Number (national)', regex: /(?<![+＋][0-9]{0,3}[\s.-]?)(?<!\w)0[\s.-]?\(?[234]\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.1 },
    { name: 'TR Geographic Number (local)', regex: /(?<![+＋][0-9]{0,3}[\s.-]?)(?<!\w)\(?[234]\d{2}\)?[\s.-]?\d{3}[\s.-]?\d{2}[\s.-]?\d{2}(?!\w)/, score: 0.05 },
  ],
  context: [
    'telefon', 'telefon numarası', 'cep telefonu', 'cep no', 'telefon no', 'numara', 'mobil telefon', 'mobil no',
    'hücresel telefon', 'ara', 'ulaş', 'iletişim', 'bağlantı', 'irtibat', 'numaram', 'telefonum', 'cep telefonum',
    'mobil telefonum', 'cep numarası', 'mobil numarası', 'phone', 'mobile', 'cell', 'cellphone', 'call', 'contact',
    'number', 'phone number', 'sms', 'mesaj', 'whatsapp', 'telegram', 'signal', 'viber',
  ],
  validate(m) {
    const d = m.replace(/[^0-9]/g, '');
    let national: string;
    if (d.startsWith('90') && d.length === 12) national = d.slice(2);
    else if (d.startsWith('0') && d.length === 11) national = d.slice(1);
    else if (d.length === 10) national = d;
    else return false;
    return '2345'.includes(national[0]);
  },
});

export const ngNin = patternRecognizer({
  name: 'NgNinRecognizer',
  entity: 'NG_NIN',
  patterns: [{ name: 'NIN (Very Weak)', regex: /\b\d{11}\b/, score: 0.01 }],
  context: ['nin', 'national identification number', 'national identity number', 'nimc', 'national identity', 'nigeria id', 'nigerian identification'],
  validate: (m) => /^[0-9]{11}$/.test(m) && verhoeffValid(digitsOf(m)),
});

export const ngVehicleRegistration = patternRecognizer({
  name: 'NgVehicleRegistrationRecognizer',
  entity: 'NG_VEHICLE_REGISTRATION',
  patterns: [{ name: 'Nigeria Vehicle Registration', regex: /\b[A-Z]{3}[- ]?\d{3}[A-Z]{2}\b/, score: 0.5 }],
  context: ['plate number', 'vehicle registration', 'license plate', 'number plate', 'plate', 'vehicle', 'registration'],
});

export const phTin = patternRecognizer({
  name: 'PhTinRecognizer',
  entity: 'PH_TIN',
  // Scores and validation as in Presidio's test vectors: a correct check digit keeps the
  // (low) pattern score, a wrong one drops the match.
  patterns: [
    { name: 'TIN (dashed)', regex: /\b(\d{3}-\d{3}-\d{3}(-\d{3})?)\b/, score: 0.05 },
    { name: 'TIN (plain)', regex: /\b(\d{9}|\d{12})\b/, score: 0.01 },
  ],
  context: ['tin', 'taxpayer identification number', 'bir', 'taxpayer id', 'tax id', 'rdo', 'revenue district office'],
  validate(m) {
    const s = stripChars(m, '- ');
    if (!/^[0-9]+$/.test(s) || (s.length !== 9 && s.length !== 12)) return false;
    const d = digitsOf(s);
    return weightedSum(d, [9, 8, 7, 6, 5, 4, 3, 2]) % 11 === d[8] ? null : false;
  },
});

export const zaIdNumber = patternRecognizer({
  name: 'ZaIdNumberRecognizer',
  entity: 'ZA_ID_NUMBER',
  patterns: [{ name: 'South African ID Number', regex: /\b\d{10}[0-2][89]\d\b/, score: 0.2 }],
  context: ['id', 'identity', 'identity number', 'id number', 'south african id', 'rsa id', 'smart id', 'national id'],
  // YYMMDD must be a real date not in the future (YY above this year's means 19YY), then Luhn.
  validate(m) {
    if (!/^[0-9]{13}$/.test(m)) return false;
    const now = new Date();
    const yy = Number(m.slice(0, 2));
    const year = (yy > now.getFullYear() % 100 ? 1900 : 2000) + yy;
    const month = Number(m.slice(2, 4));
    const day = Number(m.slice(4, 6));
    if (!isValidDate(year, month, day)) return false;
    if (new Date(Date.UTC(year, month - 1, day)) > now) return false;
    return luhnValid(m);
  },
});

export const WORLD_RECOGNIZERS: Recognizer[] = [
  auAbn, auAcn, auTfn, auMedicare, inPan, inAadhaar, inPassport, inVoter, inGstin, inVehicleRegistration,
  sgNricFin, sgUen, krRrn, krFrn, krBrn, krDriverLicense, krPassport, thTnin, caSin, trNationalId,
  trLicensePlate, trPhoneNumber, ngNin, ngVehicleRegistration, phTin, zaIdNumber,
];
