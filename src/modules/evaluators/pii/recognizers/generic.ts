// Pattern recognizers for entities that are not tied to one country. Patterns, base
// scores and context words follow Presidio's predefined recognizers (microsoft/presidio,
// MIT); validation is reimplemented here.
import {
  base58CheckValid,
  bech32Valid,
  digitsOf,
  ethereumChecksum,
  ibanChecksumValid,
  isValidDate,
  stripChars,
} from '../checksums.ts';
import { creditCard } from '../cards.ts';
import { isValidIp } from '../ip.ts';
import { MAX_SCORE, PATTERN, patternRecognizer, removeDuplicates, STRUCTURED, type RawResult, type Recognizer } from '../recognizer.ts';
import { TOP_LEVEL_DOMAINS } from '../tlds.ts';

export const crypto = patternRecognizer({
  name: 'CryptoRecognizer',
  entity: 'CRYPTO',
  patterns: [
    { name: 'Crypto Bitcoin (Medium)', regex: /(bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}/, score: 0.5 },
    { name: 'Crypto Ethereum EOA (Medium)', regex: /0x[a-fA-F0-9]{40}/, score: 0.5 },
  ],
  context: ['wallet', 'btc', 'bitcoin', 'crypto', 'eth', 'ethereum'],
  validate(m) {
    if (m.startsWith('1') || m.startsWith('3')) return base58CheckValid(m);
    if (m.toLowerCase().startsWith('bc1')) return bech32Valid(m);
    if (m.toLowerCase().startsWith('0x')) return ethereumChecksum(m);
    return false;
  },
});

export const email = patternRecognizer({
  name: 'EmailRecognizer',
  entity: 'EMAIL_ADDRESS',
  patterns: [
    {
      name: 'Email (Medium)',
      // Python's \w is Unicode-aware; [\p{L}\p{N}_] is its JavaScript spelling. The local part
      // is capped at RFC 5321's 64 characters, which keeps a long run without a domain linear.
      regex:
        /(?<![\p{L}\p{N}_])((([!#$%&'*+\-/=?^_`{|}~\p{L}\p{N}_])|([!#$%&'*+\-/=?^_`{|}~\p{L}\p{N}_][!#$%&'*+\-/=?^_`{|}~.\p{L}\p{N}_]{0,62}[!#$%&'*+\-/=?^_`{|}~\p{L}\p{N}_]))@[\p{L}\p{N}_]+(?:-+[\p{L}\p{N}_]+)*(?:\.[\p{L}\p{N}_]+(?:-+[\p{L}\p{N}_]+)*)+)(?![\p{L}\p{N}_])/u,
      score: 0.5,
      // The local part (no "@" in it) is one to 64 code points, two UTF-16 units at most each, then the "@".
      anchor: { marker: '@', within: 128, between: /^[!#$%&'*+\-/=?^_`{|}~.\p{L}\p{N}_]$/u },
    },
  ],
  context: ['email'],
  requires: /@/,
  // Presidio asks tldextract for a registrable domain: the last label must be a public suffix.
  validate: (m) => TOP_LEVEL_DOMAINS.has(m.slice(m.lastIndexOf('.') + 1).toLowerCase()),
});

const TLD_ALTERNATION =
  'com|edu|gov|int|mil|net|onl|org|pro|red|tel|uno|xxx|academy|accountant|accountants|actor|adult|africa|agency|' +
  'airforce|apartments|app|archi|army|art|asia|associates|attorney|auction|audio|auto|autos|baby|band|bar|bargains|' +
  'beer|berlin|best|bet|bid|bike|bio|black|blackfriday|blog|blue|boats|bond|boo|boston|bot|boutique|build|builders|' +
  'business|buzz|cab|cafe|cam|camera|camp|capital|car|cards|care|careers|cars|casa|cash|casino|catering|center|ceo|' +
  'cfd|charity|chat|cheap|christmas|church|city|claims|cleaning|click|clinic|clothing|cloud|club|codes|coffee|' +
  'college|community|company|computer|condos|construction|consulting|contact|contractors|cooking|cool|coupons|' +
  'courses|credit|creditcard|cricket|cruises|cyou|dad|dance|date|dating|day|degree|delivery|democrat|dental|dentist|' +
  'desi|design|dev|diamonds|diet|digital|direct|directory|discount|doctor|dog|domains|download|earth|eco|education|' +
  'email|energy|engineer|engineering|enterprises|equipment|esq|estate|events|exchange|expert|exposed|express|fail|' +
  'faith|family|fans|farm|fashion|feedback|film|finance|financial|fish|fishing|fit|fitness|flights|florist|flowers|' +
  'football|forsale|foundation|fun|fund|furniture|futbol|fyi|gallery|game|games|garden|gay|gdn|gifts|gives|giving|' +
  'glass|global|gmbh|gold|golf|graphics|gratis|green|gripe|group|guide|guitars|guru|hair|hamburg|haus|health|' +
  'healthcare|help|hiphop|hockey|holdings|holiday|homes|horse|hospital|host|hosting|house|how|icu|info|ink|institute|' +
  'insure|international|investments|irish|jewelry|jetzt|juegos|kaufen|kids|kitchen|kiwi|krd|kyoto|land|lat|law|' +
  'lawyer|lease|legal|lgbt|life|lighting|limited|limo|link|live|loan|loans|lol|london|love|ltd|ltda|luxury|maison|' +
  'management|market|marketing|markets|mba|media|melbourne|meme|memorial|men|miami|mobi|moda|moe|mom|money|monster|' +
  'mortgage|motorcycles|mov|movie|nagoya|name|navy|network|new|news|ngo|ninja|now|nyc|observer|okinawa|one|ong|' +
  'online|organic|osaka|page|paris|partners|parts|party|pet|phd|photo|photography|photos|pics|pictures|pink|pizza|' +
  'place|plumbing|plus|poker|porn|press|productions|prof|promo|properties|property|protection|pub|quest|racing|' +
  'recipes|rehab|reise|reisen|rent|rentals|repair|report|republican|rest|restaurant|review|reviews|rip|rocks|rodeo|' +
  'rsvp|run|saarland|sale|salon|sarl|sbs|school|schule|science|services|sex|sexy|sh|shoes|shop|shopping|show|' +
  'singles|site|skin|soccer|social|software|solar|solutions|soy|space|spiegel|study|style|sucks|supply|support|' +
  'surf|surgery|systems|tax|taxi|team|tech|technology|theater|tips|tires|today|tools|top|tours|town|toys|trade|' +
  'training|tube|uk|university|vacations|ventures|vet|video|villas|vin|vip|vision|vlaanderen|vodka|vote|voting|' +
  'voyage|wales|wang|watch|webcam|website|wedding|wiki|wine|work|works|world|wtf|xyz|yoga|yokohama|you|zone|' +
  'ac|ad|ae|af|ag|ai|al|am|an|ao|aq|ar|as|at|au|aw|ax|az|ba|bb|bd|be|bf|bg|bh|bi|bj|bm|bn|bo|br|bs|bt|bv|bw|by|bz|' +
  'ca|cc|cd|cf|cg|ch|ci|ck|cl|cm|cn|co|cr|cu|cv|cw|cx|cy|cz|de|dj|dk|dm|do|dz|ec|ee|eg|er|es|et|eu|fi|fj|fk|fm|fo|fr|' +
  'ga|gb|gd|ge|gf|gg|gh|gi|gl|gm|gn|gp|gq|gr|gs|gt|gu|gw|gy|hk|hm|hn|hr|ht|hu|id|ie|il|im|in|io|iq|ir|is|it|je|jm|jo|' +
  'jp|ke|kg|kh|ki|km|kn|kp|kr|kw|ky|kz|la|lb|lc|li|lk|lr|ls|lt|lu|lv|ly|ma|mc|md|me|mg|mh|mk|ml|mm|mn|mo|mp|mq|mr|ms|' +
  'mt|mu|mv|mw|mx|my|mz|na|nc|ne|nf|ng|ni|nl|no|np|nr|nu|nz|om|pa|pe|pf|pg|ph|pk|pl|pm|pn|pr|ps|pt|pw|py|qa|re|ro|rs|' +
  'ru|rw|sa|sb|sc|sd|se|sg|si|sj|sk|sl|sm|sn|so|sr|st|su|sv|sx|sy|sz|tc|td|tf|tg|th|tj|tk|tl|tm|tn|to|tp|tr|tt|tv|' +
  'tw|tz|ua|ug|us|uy|uz|va|vc|ve|vg|vi|vn|vu|wf|ws|ye|yt|za|zm|zw';
// From Presidio, which took it from CommonRegex (Madison May, MIT).
const BASE_URL = `((www\\d{0,3}[.])?[a-z0-9.\\-]{1,253}[.](?:${TLD_ALTERNATION})(?![a-z0-9-])(?:/[^\\s()<>"']*)?)`;

// The dot before a top-level domain (two letters at least) comes at most 260 units into a
// match ("www", three digits, a dot and 253 characters of host before it); a text without
// one, prose whose dots end sentences, is not searched. Everything before that dot is host
// (letters, digits, ".", "-"; "www" and its digits are too): the search starts where the
// host before the dot does, not 260 units earlier.
const TOP_LEVEL_DOMAIN_DOT = { marker: /\.[a-z]{2}/, within: 260, between: /[a-z0-9.-]/ };

export const url = patternRecognizer({
  name: 'UrlRecognizer',
  entity: 'URL',
  patterns: [
    { name: 'Standard Url', regex: new RegExp(`(?:https?://)${BASE_URL}`), score: 0.6, contains: ['://'] },
    // Starting only where a host name can start keeps a long dotted run linear (Presidio
    // retries from every character).
    { name: 'Non schema URL', regex: new RegExp(`(?<![a-z0-9.\\-])${BASE_URL}`), score: 0.5, anchor: TOP_LEVEL_DOMAIN_DOT },
    { name: 'Quoted URL', regex: new RegExp(`["'](https?://${BASE_URL})["']`), score: 0.6, contains: ['://'] },
    { name: 'Quoted Non-schema URL', regex: new RegExp(`["'](${BASE_URL})["']`), score: 0.5, anchor: { ...TOP_LEVEL_DOMAIN_DOT, within: 261, between: /["'a-z0-9.-]/ } },
  ],
  context: ['url', 'website', 'link'],
  requires: /\./,
});

const MONTHS = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
// A month written out or abbreviated ("March", "Mar.", "Sept"), for the forms Presidio leaves to spaCy.
const MONTH_WORD = `(?:${MONTH_NAMES.join('|')}|${MONTHS}|SEPT)\\.?`;
const DAY = '(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?';

/** The month a word names (1-12), or 0. */
function monthNamed(word: string): number {
  const w = word.toLowerCase();
  if (w.length < 3) return 0;
  return MONTH_NAMES.findIndex((name) => name.startsWith(w) && (w.length === 3 || w === 'sept' || w === name)) + 1;
}

/**
 * True when the date a match writes exists: its day is in its month (either reading of
 * "05/03/2024" will do). Year first is ISO order; a named month fixes the month, a number
 * before it is the day and after it the year (or the day, when a four-digit year follows).
 */
function dateExists(match: string): boolean {
  const parts = match.split(/T[0-9]/)[0].split(/[^A-Za-z0-9]+/).filter((p) => p !== '' && !/^(?:st|nd|rd|th|of)$/i.test(p));
  const numbers = (ps: string[]) => ps.map((p) => Number(p.replace(/\D/g, '')));
  const monthAt = parts.findIndex((p) => /^[A-Za-z]+$/.test(p) && monthNamed(p) > 0);
  if (monthAt >= 0) {
    const month = monthNamed(parts[monthAt]);
    const before = numbers(parts.slice(0, monthAt));
    const after = parts.slice(monthAt + 1);
    const fourDigitYear = after.find((p) => /^[0-9]{4}$/.test(p));
    const day = before[0] ?? (fourDigitYear && after.length > 1 ? Number(after[0].replace(/\D/g, '')) : undefined);
    return day === undefined || isValidDate(fourDigitYear ? Number(fourDigitYear) : 2000, month, day);
  }
  const [a, b, c] = numbers(parts);
  if (/^[0-9]{4}$/.test(parts[0])) return b !== undefined && (c === undefined ? b >= 1 && b <= 12 : isValidDate(a, b, c));
  if (c === undefined) return a >= 1 && a <= 12;
  const year = c < 100 ? 2000 + c : c;
  return isValidDate(year, a, b) || isValidDate(year, b, a);
}

export const dateTime = patternRecognizer({
  name: 'DateRecognizer',
  entity: 'DATE_TIME',
  patterns: [
    {
      name: 'ISO 8601 datetime',
      regex:
        /\b(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T[0-2]\d:[0-5]\d:[0-5]\d\.\d+([+-][0-2]\d:[0-5]\d|Z))|(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T[0-2]\d:[0-5]\d:[0-5]\d([+-][0-2]\d:[0-5]\d|Z))|(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T[0-2]\d:[0-5]\d([+-][0-2]\d:[0-5]\d|Z))\b/,
      score: 0.8,
      anchor: { marker: '-', within: 4 },
      contains: ['-', ':'],
    },
    { name: 'mm/dd/yyyy or mm/dd/yy', regex: /\b(([1-9]|0[1-9]|1[0-2])\/([1-9]|0[1-9]|[1-2][0-9]|3[0-1])\/(\d{4}|\d{2}))\b/, score: 0.6, anchor: { marker: '/', within: 2 }, contains: ['/'] },
    { name: 'dd/mm/yyyy or dd/mm/yy', regex: /\b(([1-9]|0[1-9]|[1-2][0-9]|3[0-1])\/([1-9]|0[1-9]|1[0-2])\/(\d{4}|\d{2}))\b/, score: 0.6, anchor: { marker: '/', within: 2 }, contains: ['/'] },
    { name: 'yyyy/mm/dd', regex: /\b(\d{4}\/([1-9]|0[1-9]|1[0-2])\/([1-9]|0[1-9]|[1-2][0-9]|3[0-1]))\b/, score: 0.6, anchor: { marker: '/', within: 4 }, contains: ['/'] },
    { name: 'mm-dd-yyyy', regex: /\b(([1-9]|0[1-9]|1[0-2])-([1-9]|0[1-9]|[1-2][0-9]|3[0-1])-\d{4})\b/, score: 0.6, anchor: { marker: '-', within: 2 }, contains: ['-'] },
    { name: 'dd-mm-yyyy', regex: /\b(([1-9]|0[1-9]|[1-2][0-9]|3[0-1])-([1-9]|0[1-9]|1[0-2])-\d{4})\b/, score: 0.6, anchor: { marker: '-', within: 2 }, contains: ['-'] },
    { name: 'yyyy-mm-dd', regex: /\b(\d{4}-([1-9]|0[1-9]|1[0-2])-([1-9]|0[1-9]|[1-2][0-9]|3[0-1]))\b/, score: 0.6, anchor: { marker: '-', within: 4 }, contains: ['-'] },
    { name: 'dd.mm.yyyy or dd.mm.yy', regex: /\b(([1-9]|0[1-9]|[1-2][0-9]|3[0-1])\.([1-9]|0[1-9]|1[0-2])\.(\d{4}|\d{2}))\b/, score: 0.6 },
    { name: 'dd-MMM-yyyy or dd-MMM-yy', regex: new RegExp(`\\b(([1-9]|0[1-9]|[1-2][0-9]|3[0-1])-(${MONTHS})-(\\d{4}|\\d{2}))\\b`), score: 0.6, anchor: { marker: '-', within: 2 }, contains: ['-'] },
    { name: 'MMM-yyyy or MMM-yy', regex: new RegExp(`\\b((${MONTHS})-(\\d{4}|\\d{2}))\\b`), score: 0.6, anchor: { marker: '-', within: 3 }, contains: ['-'] },
    { name: 'dd-MMM or dd-MMM', regex: new RegExp(`\\b(([1-9]|0[1-9]|[1-2][0-9]|3[0-1])-(${MONTHS}))\\b`), score: 0.6, anchor: { marker: '-', within: 2 }, contains: ['-'] },
    { name: 'mm/yyyy or m/yyyy', regex: /\b(([1-9]|0[1-9]|1[0-2])\/\d{4})\b/, score: 0.2, anchor: { marker: '/', within: 2 }, contains: ['/'] },
    { name: 'mm/yy or m/yy', regex: /\b(([1-9]|0[1-9]|1[0-2])\/\d{2})\b/, score: 0.1, anchor: { marker: '/', within: 2 }, contains: ['/'] },
    // Written-out months, which Presidio finds with spaCy's DATE (its NER score, 0.85, would
    // outrank the numeric forms; these stay at their level).
    { name: 'Month d, yyyy', regex: new RegExp(`\\b${MONTH_WORD}\\s+${DAY},?\\s+\\d{4}\\b`), score: 0.6 },
    { name: 'd Month yyyy', regex: new RegExp(`\\b${DAY}(?:\\s+of)?\\s+${MONTH_WORD},?\\s+\\d{4}\\b`), score: 0.6 },
    { name: 'Month yyyy', regex: new RegExp(`\\b(?:${MONTH_NAMES.join('|')})\\s+\\d{4}\\b`), score: 0.6 },
  ],
  context: ['date', 'birthday'],
  confirm: dateExists,
});

export const macAddress = patternRecognizer({
  name: 'MacAddressRecognizer',
  entity: 'MAC_ADDRESS',
  patterns: [
    // Two hex digits into a match, a separator, two more and a separator again; four into a
    // Cisco one, a dot, four more and a dot: rarer than every "-" or sentence's ".".
    { name: 'MAC_ADDRESS', regex: /\b([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b/, score: 0.6, anchor: { marker: /[:-][0-9A-Fa-f]{2}[:-]/, within: 2 } },
    { name: 'MAC_CISCO', regex: /\b[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b/, score: 0.6, anchor: { marker: /\.[0-9A-Fa-f]{4}\./, within: 4 } },
  ],
  context: ['mac', 'mac address', 'hardware address', 'physical address', 'ethernet'],
  requires: null,
  invalidate(m) {
    const separators = new Set(m.replace(/[0-9A-Fa-f]/g, ''));
    if (separators.size > 1) return true;
    const hex = m.replace(/[:.-]/g, '').toUpperCase();
    // Broadcast and the all-zero placeholder identify no device.
    return hex.length !== 12 || hex === 'FFFFFFFFFFFF' || hex === '000000000000';
  },
});

export const medicalLicense = patternRecognizer({
  name: 'MedicalLicenseRecognizer',
  entity: 'MEDICAL_LICENSE',
  patterns: [
    {
      name: 'USA DEA Certificate Number (weak)',
      regex: /[abcdefghjklmprstuxABCDEFGHJKLMPRSTUX]{1}[a-zA-Z]{1}\d{7}|[abcdefghjklmprstuxABCDEFGHJKLMPRSTUX]{1}9\d{7}/,
      score: 0.4,
    },
  ],
  context: ['medical', 'certificate', 'DEA'],
  // DEA check digit: (d1 + d3 + d5) + 2 * (d2 + d4 + d6), last digit equals d7.
  validate(m) {
    const d = digitsOf(stripChars(m, '- ').slice(2));
    if (d.length !== 7) return false;
    const sum = d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5]);
    return sum % 10 === d[6];
  },
});

export const ip = patternRecognizer({
  name: 'IpRecognizer',
  entity: 'IP_ADDRESS',
  patterns: [
    {
      name: 'IPv4_mapped',
      regex:
        /(?<![0-9A-Za-z_:])::(?:ffff(?::0{1,4})?:)?(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(?:\/\d{1,3}(?!\d|\.\d))?(?![\w]|\.\d)/,
      score: 0.6,
      anchor: { marker: '::', within: 0 },
      contains: ['::', '.'],
    },
    {
      name: 'IPv4_embedded',
      regex:
        /(?<![0-9A-Za-z:])(?:[0-9A-Fa-f]{1,4}:){1,6}:?(?:[0-9A-Fa-f]{1,4}:){0,4}(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(?:\/\d{1,3}(?!\d|\.\d))?(?![\w]|\.\d)/,
      score: 0.6,
      anchor: { marker: ':', within: 4 },
      contains: [':', '.'],
    },
    {
      name: 'IPv4',
      regex:
        /\b(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(?:\/(?:3[0-2]|[12]?[0-9])(?!\d|\.\d))?\b/,
      score: 0.6,
      // The first dot comes one to three digits in, with a digit before and after it.
      anchor: { marker: /[0-9]\.[0-9]/, within: 2 },
      contains: ['.'],
    },
    {
      name: 'IPv6',
      regex:
        /(?<![\w:])(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|:(?::[0-9A-Fa-f]{1,4}){1,7}|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,5}(?::[0-9A-Fa-f]{1,4}){1,2}|(?:[0-9A-Fa-f]{1,4}:){1,4}(?::[0-9A-Fa-f]{1,4}){1,3}|(?:[0-9A-Fa-f]{1,4}:){1,3}(?::[0-9A-Fa-f]{1,4}){1,4}|(?:[0-9A-Fa-f]{1,4}:){1,2}(?::[0-9A-Fa-f]{1,4}){1,5}|[0-9A-Fa-f]{1,4}:(?::[0-9A-Fa-f]{1,4}){1,6}|:(?::[0-9A-Fa-f]{1,4}){1,6})(?:%[0-9A-Za-z]+|\/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9])(?!\d|\.\d))?(?![0-9A-Za-z:]|\.\d)/,
      score: 0.6,
      anchor: { marker: ':', within: 4 },
      contains: [':'],
    },
    { name: 'IPv6_unspecified', regex: /(?<![\w:])::(?:\/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?(?![\w:])/, score: 0.1, anchor: { marker: '::', within: 0 }, contains: ['::'] },
  ],
  context: ['ip', 'ipv4', 'ipv6'],
  requires: /[0-9:]/,
  invalidate: (m) => !isValidIp(m),
});

// --- IBAN --------------------------------------------------------------------

const n = (k: number) => `[0-9]{${k}}`;
const a = (k: number) => `[A-Z]{${k}}`;
const c = (k: number) => `[a-zA-Z0-9]{${k}}`;

/**
 * Bank account part after country code and check digits, per country: Presidio's
 * iban_patterns, but Azerbaijan, Jordan, Pakistan and Palestine as the SWIFT IBAN registry
 * has them (Presidio allows only digits where the registry allows letters too).
 */
const IBAN_FORMATS: Record<string, string> = {
  AL: n(8) + c(16), AD: n(8) + c(12), AT: n(16), AZ: a(4) + c(20), BH: a(4) + c(14), BY: c(4) + n(4) + c(16),
  BE: n(12), BA: n(16), BR: n(23) + a(1) + c(1), BG: a(4) + n(6) + c(8), CR: '0' + n(17), HR: n(17),
  CY: n(8) + c(16), CZ: n(20), DK: n(14), DO: a(4) + n(20), TL: n(19), EE: n(16), FO: n(14), FI: n(14),
  FR: n(10) + c(11) + n(2), GE: c(2) + n(16), DE: n(18), GI: a(4) + c(15), GR: n(7) + c(16), GL: n(14),
  GT: c(24), HU: n(24), IS: n(22), IE: c(4) + n(14), IL: n(19), IT: a(1) + n(10) + c(12), JO: a(4) + n(4) + c(18),
  KZ: n(3) + c(13), XK: n(16), KW: a(4) + c(22), LV: a(4) + c(13), LB: n(4) + c(20), LI: n(5) + c(12),
  LT: n(16), LU: n(3) + c(13), MT: a(4) + n(5) + c(18), MR: n(23), MU: a(4) + n(19) + a(1), MD: c(20),
  MC: n(10) + c(11) + n(2), ME: n(18), NL: a(4) + n(10), MK: n(3) + c(10) + n(2), NO: n(11), PK: a(4) + c(16),
  PS: a(4) + c(21), PL: n(24), PT: n(21), QA: a(4) + c(21), RO: a(4) + c(16), SM: a(1) + n(10) + c(12),
  SA: n(2) + c(18), RS: n(18), SK: n(20), SI: n(15), ES: n(20), SE: n(20), CH: n(5) + c(12), TN: n(20),
  TR: n(5) + c(17), AE: n(19), GB: a(4) + n(14), VA: n(18), VG: c(4) + n(16),
  // In Presidio's test vectors (registry formats): Egypt, Iraq, Libya, Saint Lucia, Seychelles, Ukraine.
  EG: n(25), IQ: a(4) + n(15), LY: n(21), LC: a(4) + c(24), SC: a(4) + n(20) + a(3), UA: n(6) + c(19),
};
// Presidio matches the format from the start only (re.match without end anchor).
const IBAN_FORMAT_RE = new Map(
  Object.entries(IBAN_FORMATS).map(([cc, body]) => [cc, new RegExp(`^${cc}[0-9]{2}${body}`)]),
);

function validateIban(candidate: string): boolean | null {
  const compact = stripChars(candidate, '- ');
  if (compact.length < 5 || !ibanChecksumValid(compact.toUpperCase())) return false;
  const format = IBAN_FORMAT_RE.get(compact.slice(0, 2));
  if (format?.test(compact)) return true;
  const upperFormat = IBAN_FORMAT_RE.get(compact.slice(0, 2).toUpperCase());
  return upperFormat?.test(compact.toUpperCase()) ? null : false;
}

const IBAN_RE =
  /(?<![A-Z0-9])([A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]{4}){2,6})((?:[ -]?[A-Z0-9]{4})?)((?:[ -]?[A-Z0-9]{1,3})?)(?![A-Z0-9])/dgs;
const IBAN_CONTEXT = ['iban', 'bank', 'transaction'];

/**
 * Presidio's IbanRecognizer: case-sensitive, and when the full match fails validation it
 * retries without the trailing groups, so "DE89... 2 days" still yields the IBAN.
 */
export const iban: Recognizer = {
  name: 'IbanRecognizer',
  entities: ['IBAN_CODE'],
  analyze(text) {
    if (!/[0-9]/.test(text)) return [];
    const results: RawResult[] = [];
    IBAN_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = IBAN_RE.exec(text)) !== null) {
      const indices = m.indices!;
      for (const group of [3, 2, 1]) {
        const groupEnd = indices[group]?.[1] ?? 0;
        const end = groupEnd > 0 ? groupEnd : indices[0][1];
        if (end <= m.index) continue;
        const validation = validateIban(text.slice(m.index, end));
        const score = validation === true ? MAX_SCORE : validation === false ? 0 : 0.5;
        if (score > 0) {
          // Mod 97 on its country's length and format: a national id or card number some of
          // its digits spell is not what the text holds.
          const specificity = validation === true ? STRUCTURED : PATTERN;
          results.push({ entity: 'IBAN_CODE', start: m.index, end, score, context: IBAN_CONTEXT, specificity });
          break;
        }
      }
    }
    return removeDuplicates(results);
  },
};

export const GENERIC_RECOGNIZERS: Recognizer[] = [creditCard, crypto, email, url, dateTime, macAddress, medicalLicense, ip, iban];
