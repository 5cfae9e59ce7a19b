// European recognizers (Spain, Italy, Poland, Finland, Sweden, Germany); patterns,
// scores and context words as Presidio's (microsoft/presidio, MIT).
import { digitsOf, icaoCheckDigit, isValidDate, iso7064Mod11_10, luhnValid, stripChars } from '../checksums.ts';
import { patternRecognizer, type Recognizer } from '../recognizer.ts';

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

export const esNif = patternRecognizer({
  name: 'EsNifRecognizer',
  entity: 'ES_NIF',
  patterns: [{ name: 'NIF', regex: /\b[0-9]?[0-9]{7}[-]?[A-Z]\b/, score: 0.5 }],
  context: ['documento nacional de identidad', 'DNI', 'NIF', 'identificación'],
  validate(m) {
    const s = stripChars(m, '- ');
    return s.slice(-1).toUpperCase() === DNI_LETTERS[Number(s.replace(/[^0-9]/g, '')) % 23];
  },
});

export const esNie = patternRecognizer({
  name: 'EsNieRecognizer',
  entity: 'ES_NIE',
  patterns: [{ name: 'NIE', regex: /\b[X-Z]?[0-9]?[0-9]{7}[-]?[A-Z]\b/, score: 0.5 }],
  context: ['número de identificación de extranjero', 'NIE'],
  validate(m) {
    const s = stripChars(m, '- ').toUpperCase();
    if (!'XYZ'.includes(s[0]) || s.length < 8 || s.length > 9) return false;
    const body = String('XYZ'.indexOf(s[0])) + s.slice(1, -1);
    if (!/^[0-9]+$/.test(body)) return false;
    return s.slice(-1) === DNI_LETTERS[Number(body) % 23];
  },
});

export const esPassport = patternRecognizer({
  name: 'EsPassportRecognizer',
  entity: 'ES_PASSPORT',
  // Score and case handling as in Presidio's test vectors (0.05, any case).
  patterns: [{ name: 'ES_PASSPORT', regex: /\b[A-Z]{3}[0-9]{6}\b/, score: 0.05 }],
  context: ['pasaporte', 'passport', 'número de pasaporte', 'passport number'],
});

const FISCAL_ODD: Record<string, number> = {
  0: 1, 1: 0, 2: 5, 3: 7, 4: 9, 5: 13, 6: 15, 7: 17, 8: 19, 9: 21, A: 1, B: 0, C: 5, D: 7, E: 9, F: 13, G: 15,
  H: 17, I: 19, J: 21, K: 2, L: 4, M: 18, N: 20, O: 11, P: 3, Q: 6, R: 8, S: 12, T: 14, U: 16, V: 10, W: 22,
  X: 25, Y: 24, Z: 23,
};

export const itFiscalCode = patternRecognizer({
  name: 'ItFiscalCodeRecognizer',
  entity: 'IT_FISCAL_CODE',
  patterns: [
    {
      name: 'Fiscal Code',
      regex:
        /((?:[A-Z][AEIOU][AEIOUX]|[AEIOU]X{2}|[B-DF-HJ-NP-TV-Z]{2}[A-Z]){2}(?:[\dLMNP-V]{2}(?:[A-EHLMPR-T](?:[04LQ][1-9MNP-V]|[15MR][\dLMNP-V]|[26NS][0-8LMNP-U])|[DHPS][37PT][0L]|[ACELMRT][37PT][01LM]|[AC-EHLMPR-T][26NS][9V])|(?:[02468LNQSU][048LQU]|[13579MPRTV][26NS])B[26NS][9V])(?:[A-MZ][1-9MNP-V][\dLMNP-V]{2}|[A-M][0L](?:[1-9MNP-V][\dLMNP-V]|[0L][1-9MNP-V]))[A-Z])/,
      score: 0.3,
    },
  ],
  context: ['codice fiscale', 'cf'],
  // A matching check letter confirms; a wrong one leaves the pattern score (Presidio).
  validate(m) {
    const s = m.toUpperCase();
    let sum = 0;
    for (let i = 0; i < 15; i++) {
      const ch = s[i];
      if (i % 2 === 0) sum += FISCAL_ODD[ch];
      else sum += ch >= '0' && ch <= '9' ? Number(ch) : ch.charCodeAt(0) - 65;
    }
    return String.fromCharCode(65 + (sum % 26)) === s[15] ? true : null;
  },
});

export const itDriverLicense = patternRecognizer({
  name: 'ItDriverLicenseRecognizer',
  entity: 'IT_DRIVER_LICENSE',
  patterns: [{ name: 'Driver License', regex: /\b(([A-Z]{2}\d{7}[A-Z])|(U1[BCDEFGHLJKMNPRSTUWYXZ0-9]{7}[A-Z]))\b/, score: 0.2 }],
  context: ['patente', 'patente di guida', 'licenza', 'licenza di guida'],
});

export const itVatCode = patternRecognizer({
  name: 'ItVatCodeRecognizer',
  entity: 'IT_VAT_CODE',
  patterns: [{ name: 'IT Vat code (piva)', regex: /\b([0-9][ _]?){11}\b/, score: 0.1 }],
  context: ['piva', 'partita iva', 'pi'],
  validate(m) {
    const s = stripChars(m, '-_ ');
    if (s === '00000000000' || s.length !== 11) return false;
    let x = 0;
    let y = 0;
    for (let i = 0; i < 5; i++) {
      x += Number(s[2 * i]);
      let t = Number(s[2 * i + 1]) * 2;
      if (t > 9) t -= 9;
      y += t;
    }
    return (10 - ((x + y) % 10)) % 10 === Number(s[10]);
  },
});

export const itPassport = patternRecognizer({
  name: 'ItPassportRecognizer',
  entity: 'IT_PASSPORT',
  patterns: [{ name: 'Passport (very weak)', regex: /\b[A-Z]{2}\d{7}\b/, score: 0.01 }],
  context: ['passaporto', 'elettronico', 'italiano', 'viaggio', 'viaggiare', 'estero', 'documento', 'dogana'],
});

export const itIdentityCard = patternRecognizer({
  name: 'ItIdentityCardRecognizer',
  entity: 'IT_IDENTITY_CARD',
  patterns: [
    { name: 'Paper-based Identity Card (very weak)', regex: /\b[A-Z]{2}\s?\d{7}\b/, score: 0.01 },
    { name: 'Electronic Identity Card (CIE) 2.0 (very weak)', regex: /\b\d{7}[A-Z]{2}\b/, score: 0.01 },
    { name: 'Electronic Identity Card (CIE) 3.0 (very weak)', regex: /\b[A-Z]{2}\d{5}[A-Z]{2}\b/, score: 0.01 },
  ],
  context: ['carta', 'identità', 'elettronica', 'cie', 'documento', 'riconoscimento', 'espatrio'],
});

export const plPesel = patternRecognizer({
  name: 'PlPeselRecognizer',
  entity: 'PL_PESEL',
  patterns: [
    { name: 'PESEL', regex: /[0-9]{2}([02468][1-9]|[13579][012])(0[1-9]|1[0-9]|2[0-9]|3[01])[0-9]{5}/, score: 0.4 },
  ],
  context: ['PESEL'],
  validate(m) {
    if (!/^[0-9]{11}$/.test(m)) return false;
    const d = digitsOf(m);
    const w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
    const sum = w.reduce((acc, wi, i) => acc + wi * d[i], 0);
    return (10 - (sum % 10)) % 10 === d[10];
  },
});

const FI_CENTURY: Record<string, number> = {
  '+': 1800, '-': 1900, Y: 1900, X: 1900, W: 1900, V: 1900, U: 1900,
  A: 2000, B: 2000, C: 2000, D: 2000, E: 2000, F: 2000,
};
const FI_CONTROL = '0123456789ABCDEFHJKLMNPRSTUVWXY';

export const fiPersonalIdentityCode = patternRecognizer({
  name: 'FiPersonalIdentityCodeRecognizer',
  entity: 'FI_PERSONAL_IDENTITY_CODE',
  patterns: [
    { name: 'Finnish Personal Identity Code (Medium)', regex: /\b(\d{6})([-+ABCDEFYXWVU])(\d{3})([0123456789ABCDEFHJKLMNPRSTUVWXY])\b/, score: 0.5 },
    { name: 'Finnish Personal Identity Code (Very Weak)', regex: /(\d{6})([-+ABCDEFYXWVU])(\d{3})([0123456789ABCDEFHJKLMNPRSTUVWXY])/, score: 0.1 },
  ],
  context: ['hetu', 'henkilötunnus', 'personbeteckningen', 'personal identity code'],
  validate(m) {
    if (m.length !== 11) return false;
    const century = FI_CENTURY[m[6]] ?? 2000;
    if (!isValidDate(century + Number(m.slice(4, 6)), Number(m.slice(2, 4)), Number(m.slice(0, 2)))) return false;
    return FI_CONTROL[Number(m.slice(0, 6) + m.slice(7, 10)) % 31] === m[10];
  },
});

/** Luhn over 10 digits, as both Swedish numbers use it. */
function swedishLuhn(ten: string): boolean {
  return luhnValid(ten);
}

export const sePersonnummer = patternRecognizer({
  name: 'SePersonnummerRecognizer',
  entity: 'SE_PERSONNUMMER',
  patterns: [
    { name: 'Swedish Personnummer (Medium)', regex: /\b(\d{6,8})([-+]?)\d{4}\b/, score: 0.5 },
    { name: 'Swedish Personnummer (Very Weak)', regex: /(\d{6,8})([-+]?)\d{4}/, score: 0.1 },
  ],
  context: ['personnummer', 'svenskt personnummer', 'svensk id', 'ssn', 'personal identity number', 'samordningsnummer'],
  validate(m) {
    const num = m.replace(/[^0-9]/g, '').slice(-10);
    if (num.length !== 10) return false;
    const month = Number(num.slice(2, 4));
    let day = Number(num.slice(4, 6));
    if (day >= 61) day -= 60; // samordningsnummer
    if (month < 1 || month > 12 || day < 1 || day > 31) return false;
    return swedishLuhn(num);
  },
});

export const seOrganisationsnummer = patternRecognizer({
  name: 'SeOrganisationsnummerRecognizer',
  entity: 'SE_ORGANISATIONSNUMMER',
  patterns: [
    { name: 'Swedish Organisationsnummer (Medium)', regex: /\b\d{6}[-]?\d{4}\b/, score: 0.6 },
    { name: 'Swedish Organisationsnummer (Weak)', regex: /\d{6}[-]?\d{4}/, score: 0.2 },
  ],
  context: ['organisationsnummer', 'orgnr', 'org nr', 'företagsnummer'],
  validate(m) {
    const num = m.replace(/[^0-9]/g, '');
    if (num.length !== 10 || Number(num[2]) < 2) return false;
    return swedishLuhn(num);
  },
});

// --- Germany -------------------------------------------------------------------

export const deTaxId = patternRecognizer({
  name: 'DeTaxIdRecognizer',
  entity: 'DE_TAX_ID',
  patterns: [
    { name: 'Tax ID (Medium)', regex: /\b\d{2}\s\d{3}\s\d{3}\s\d{3}\b/, score: 0.3 },
    { name: 'Tax ID (Low)', regex: /\b\d{11}\b/, score: 0.01 },
  ],
  context: ['steuer-id', 'steueridentifikationsnummer', 'steuerliche identifikationsnummer', 'steuer-idnr', 'steuerid', 'idnr', 'tax id', 'tin', 'finanzamt', 'identifikationsnummer'],
  // No leading zero, no digit more than three times in the first ten, ISO 7064 MOD 11,10.
  validate(m) {
    const d = digitsOf(m);
    if (d.length !== 11 || d[0] === 0) return false;
    const counts = new Array<number>(10).fill(0);
    for (const x of d.slice(0, 10)) counts[x]++;
    if (counts.some((c) => c > 3)) return false;
    return iso7064Mod11_10(d.slice(0, 10)) === d[10];
  },
});

export const deTaxNumber = patternRecognizer({
  name: 'DeTaxNumberRecognizer',
  entity: 'DE_TAX_NUMBER',
  patterns: [
    { name: 'Steuernummer ELSTER (bundeseinheitlich, 13-stellig)', regex: /\b(0[1-9]|1[0-6])\d{11}\b/, score: 0.5 },
    { name: 'Steuernummer mit Schrägstrich (Bayern/BW: 3/3/5)', regex: /(?<!\w)\d{3}\/\d{3}\/\d{5}(?!\w)/, score: 0.4 },
    { name: 'Steuernummer mit Schrägstrich (NW: 3/4/4 oder allgemein 2-3/3-4/4-5)', regex: /(?<!\w)\d{2,3}\/\d{3,4}\/\d{4,5}(?!\w)/, score: 0.2 },
  ],
  context: ['steuernummer', 'steuer-nr', 'steuer nr', 'st.-nr', 'st-nr', 'finanzamt', 'umsatzsteuer', 'einkommensteuer', 'körperschaftsteuer', 'gewerbesteuer', 'steuerveranlagung', 'steuerbescheid'],
});

export const deVatId = patternRecognizer({
  name: 'DeVatIdRecognizer',
  entity: 'DE_VAT_ID',
  // Presidio's default mode: separators as printed on invoices are allowed, and a failed
  // check digit keeps the pattern score rather than dropping the match (recall first).
  patterns: [{ name: 'USt-IdNr. (DE + 9 digits)', regex: /\bDE[ .-]?\d{3}[ .-]?\d{3}[ .-]?\d{3}\b/, score: 0.5 }],
  context: ['umsatzsteuer-identifikationsnummer', 'umsatzsteueridentifikationsnummer', 'ust-idnr', 'ust-id', 'ustidnr', 'umsatzsteuer-id', 'mehrwertsteuer', 'vat', 'vat-id', 'vat id', 'steueridentifikation', 'bzst', 'bundeszentralamt für steuern', 'finanzamt', 'invoice', 'rechnung'],
  validate(m) {
    const d = digitsOf(m);
    if (d.length !== 9) return false;
    return iso7064Mod11_10(d.slice(0, 8)) === d[8] ? true : null;
  },
});

/** ICAO 9303 check digit over the first 8 characters, letters from the German document set. */
function germanDocumentCheck(m: string): boolean {
  const s = m.toUpperCase();
  if (s.length !== 9 || /[ABDEIOQSU]/.test(s.slice(0, 8))) return false;
  return icaoCheckDigit(s.slice(0, 8)) === Number(s[8]);
}

export const dePassport = patternRecognizer({
  name: 'DePassportRecognizer',
  entity: 'DE_PASSPORT',
  patterns: [{ name: 'Reisepassnummer (Strict ICAO charset)', regex: /\b[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{7}[0-9]\b/, score: 0.4 }],
  context: ['reisepass', 'pass', 'passnummer', 'reisepassnummer', 'passport', 'passport number', 'pass-nr', 'dokumentennummer', 'bundesrepublik deutschland', 'ausweisdokument', 'mrz'],
  validate: germanDocumentCheck,
});

export const deIdCard = patternRecognizer({
  name: 'DeIdCardRecognizer',
  entity: 'DE_ID_CARD',
  patterns: [{ name: 'ID Card (very weak)', regex: /\b[LMNPRTVWXY][CFGHJKLMNPRTVWXY0-9]{8}\b/, score: 0.01 }],
  context: ['personalausweis', 'personalausweisnummer', 'ausweis', 'ausweisnummer', 'identity card', 'id card', 'ausweisdokument', 'identitatsnachweis'],
  validate: (m) => /[0-9]$/.test(m) && germanDocumentCheck(m),
});

/** Letter as two digits (A=01 ... Z=26), as German insurance numbers encode it. */
function letterDigits(letter: string): string {
  return String(letter.toUpperCase().charCodeAt(0) - 64).padStart(2, '0');
}

function crossSum(n: number): number {
  return Math.floor(n / 10) + (n % 10);
}

export const deHealthInsurance = patternRecognizer({
  name: 'DeHealthInsuranceRecognizer',
  entity: 'DE_HEALTH_INSURANCE',
  patterns: [{ name: 'Krankenversicherungsnummer KVNR (letter + 9 digits)', regex: /\b[A-Z]\d{9}\b/, score: 0.3 }],
  context: ['krankenversicherungsnummer', 'krankenversichertennummer', 'versichertennummer', 'kvnr', 'krankenkasse', 'krankenversicherung', 'gesundheitskarte', 'egk', 'elektronische gesundheitskarte', 'gkv', 'gesetzliche krankenversicherung', 'krankenversicherungsausweis', 'versichertenausweis', 'versichertenkarte', 'aok', 'tkk', 'barmer', 'dak'],
  validate(m) {
    const eff = letterDigits(m[0]) + m.slice(1, 9);
    let total = 0;
    for (let i = 0; i < 10; i++) total += crossSum(Number(eff[i]) * (i % 2 === 0 ? 1 : 2));
    return total % 10 === Number(m[9]);
  },
});

export const deSocialSecurity = patternRecognizer({
  name: 'DeSocialSecurityRecognizer',
  entity: 'DE_SOCIAL_SECURITY',
  patterns: [
    { name: 'Rentenversicherungsnummer (Strict)', regex: /\b\d{2}(0[1-9]|[12]\d|3[01]|5[1-9]|[67]\d|8[01])(0[1-9]|1[0-2])\d{2}[A-Z]\d{2}[0-9]\b/, score: 0.5 },
    { name: 'Rentenversicherungsnummer (Relaxed)', regex: /\b\d{8}[A-Z]\d{3}\b/, score: 0.3 },
  ],
  context: ['rentenversicherungsnummer', 'sozialversicherungsnummer', 'versicherungsnummer', 'rvnr', 'svnr', 'sv-nummer', 'rente', 'rentenversicherung', 'deutsche rentenversicherung', 'drv', 'sozialversicherung', 'sozialversicherungsausweis', 'rentenausweis'],
  validate(m) {
    const s = m.toUpperCase();
    const day = Number(s.slice(2, 4));
    const month = Number(s.slice(4, 6));
    if (!((day >= 1 && day <= 31) || (day >= 51 && day <= 81)) || month < 1 || month > 12) return false;
    const eff = s.slice(0, 8) + letterDigits(s[8]) + s.slice(9, 11);
    const weights = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1];
    let total = 0;
    for (let i = 0; i < 12; i++) total += crossSum(Number(eff[i]) * weights[i]);
    return total % 10 === Number(s[11]);
  },
});

export const deLanr = patternRecognizer({
  name: 'DeLanrRecognizer',
  entity: 'DE_LANR',
  // Presidio also has a "lanr: <digits>" pattern, but its match includes the label and
  // always fails validation; the plain pattern finds the same numbers.
  patterns: [{ name: 'LANR (9 digits)', regex: /\b[0-9]{9}\b/, score: 0.1 }],
  context: ['lanr', 'lebenslange arztnummer', 'arztnummer', 'arzt-nr', 'arzt-nummer', 'physician number', 'doctor number', 'behandelnder arzt', 'verschreibender arzt', 'arzt', 'dr.', 'dr. med.'],
  validate(m) {
    if (m === '000000000') return false;
    const d = digitsOf(m);
    const w = [4, 9, 4, 9, 4, 9];
    const total = w.reduce((acc, wi, i) => acc + wi * d[i], 0);
    return (10 - (total % 10)) % 10 === d[6];
  },
});

const KV_CODES = new Set(['01', '02', '03', '17', '20', '35', '38', '46', '51', '52', '71', '72', '73', '74', '78', '83', '88', '93', '98']);
export const deBsnr = patternRecognizer({
  name: 'DeBsnrRecognizer',
  entity: 'DE_BSNR',
  patterns: [{ name: 'Betriebsstättennummer BSNR (9 digits)', regex: /\b\d{9}\b/, score: 0.2 }],
  context: ['betriebsstättennummer', 'betriebsstätten-nummer', 'bsnr', 'betriebsstätte', 'praxisnummer', 'arztpraxis', 'praxis', 'kassenärztliche vereinigung', 'kv-nummer', 'kv nummer', 'praxisadresse', 'praxisstandort', 'nebenbetriebsstätte', 'hauptbetriebsstätte', 'behandlungsort', 'vertragsarztpraxis'],
  validate(m) {
    if (m === '000000000') return false;
    return KV_CODES.has(m.slice(0, 2)) ? true : null;
  },
});

export const deFuehrerschein = patternRecognizer({
  name: 'DeFuehrerscheinRecognizer',
  entity: 'DE_FUEHRERSCHEIN',
  patterns: [{ name: 'Führerscheinnummer (Post-2013 EU-Format, 11 Zeichen)', regex: /\b[A-Z]{2}\d{8}[A-Z0-9]\b/, score: 0.35 }],
  context: ['führerscheinnummer', 'führerschein', 'fahrerlaubnis', 'fahrerlaubnisnummer', 'fahrerlaubnisklasse', 'führerscheininhaber', 'fev', 'kba', 'kraftfahrt-bundesamt', 'driving licence', 'driving license', "driver's license", 'licence number', 'license number', 'dokument nr', 'dokument-nr', 'feld 5'],
});

export const deHandelsregister = patternRecognizer({
  name: 'DeHandelsregisterRecognizer',
  entity: 'DE_HANDELSREGISTER',
  patterns: [{ name: 'Handelsregisternummer HRA/HRB', regex: /\bHR[AB]\s*\d{1,6}\b/, score: 0.5 }],
  context: ['handelsregister', 'handelsregisternummer', 'amtsgericht', 'registergericht', 'hra', 'hrb', 'hr-nummer', 'registerauszug', 'handelsregistereintrag', 'firma', 'gesellschaft', 'gmbh', 'ag', 'ug', 'kg', 'ohg', 'einzelkaufmann', 'einzelkauffrau', 'handelsregisterblattnummer'],
});

export const deKfz = patternRecognizer({
  name: 'DeKfzRecognizer',
  entity: 'DE_KFZ',
  patterns: [
    { name: 'KFZ-Kennzeichen (mit Leerzeichen)', regex: /(?<![\p{L}\p{N}_-])[A-ZÄÖÜ]{1,3}\s[A-Z]{1,2}\s\d{1,4}[EH]?(?![\p{L}\p{N}_])/u, score: 0.3 },
    { name: 'KFZ-Kennzeichen (mit Bindestrich)', regex: /(?<![\p{L}\p{N}_-])[A-ZÄÖÜ]{1,3}-[A-Z]{1,2}-\d{1,4}[EH]?(?![\p{L}\p{N}_])/u, score: 0.3 },
    { name: 'KFZ-Kennzeichen (Bindestrich + Leerzeichen)', regex: /(?<![\p{L}\p{N}_-])[A-ZÄÖÜ]{1,3}-[A-Z]{1,2}\s\d{1,4}[EH]?(?![\p{L}\p{N}_])/u, score: 0.3 },
  ],
  context: ['kennzeichen', 'kfz-kennzeichen', 'kraftfahrzeugkennzeichen', 'nummernschild', 'fahrzeugkennzeichen', 'zulassung', 'kfz', 'fahrzeug', 'auto', 'pkw', 'lkw', 'fahrzeugschein', 'fahrzeugbrief', 'zulassungsbescheinigung', 'amtliches kennzeichen'],
});

export const dePlz = patternRecognizer({
  name: 'DePlzRecognizer',
  entity: 'DE_PLZ',
  patterns: [{ name: 'Postleitzahl (5 digits, context required)', regex: /\b(0[1-9]\d{3}|[1-9]\d{4})\b/, score: 0.05 }],
  context: ['plz', 'postleitzahl', 'postanschrift', 'adresse', 'wohnort', 'ort', 'wohnanschrift', 'lieferadresse', 'rechnungsadresse', 'straße', 'strasse', 'hausnummer', 'postfach', 'bundesland', 'gemeinde', 'stadt', 'dorf'],
  // Deutsche Post assigns 01001-99998.
  invalidate: (m) => Number(m) < 1001 || Number(m) > 99998,
});

export const EUROPE_RECOGNIZERS: Recognizer[] = [
  esNif, esNie, esPassport, itFiscalCode, itDriverLicense, itVatCode, itPassport, itIdentityCard, plPesel,
  fiPersonalIdentityCode, sePersonnummer, seOrganisationsnummer, deTaxId, deTaxNumber, deVatId, dePassport,
  deIdCard, deHealthInsurance, deSocialSecurity, deLanr, deBsnr, deFuehrerschein, deHandelsregister, deKfz, dePlz,
];
