import { PATTERN, STRUCTURED, type RawResult, type Recognizer } from './recognizer.ts';

/**
 * Street addresses as LOCATION, by the way addresses are written in the major languages:
 * a house number and a street type ("1737 Cheriton Dr", "26 rue des Lilas"), a street type
 * and a number ("Via Roma 131", "ul. Miła 53", "Rua do Arenque 1634"), a street name with
 * its type joined on ("Hammarvägen 15", "Pohlstrasse 9", "Koskikatu 25"), post boxes and
 * US military addresses ("PSC 6293, Box 8158 / APO AP 04336"), "the corner of X and Y", and
 * a number, name and number after words that introduce an address ("lives on", "address
 * is"). The lines that follow a street (apartment, town, region, post code, country) join
 * the finding, so one address is one finding.
 *
 * Street types: the US Postal Service's street suffixes (Publication 28, appendix C1) and
 * the usual words of the other languages, in both places they go.
 */

const AMBIGUOUS_ABBREVIATIONS = new Set(['is', 'iss', 'un', 'uns', 'ky', 'kys', 'vis', 'vl', 'via', 'lf', 'cp', 'dl', 'dm', 'dv', 'wl', 'pr', 'sta', 'est', 'ests', 'cor', 'cors', 'ml', 'msn', 'frk', 'ext']);

// USPS Publication 28, C1 (common suffixes and their standard abbreviations), and UK usage.
const SUFFIX_TYPES = (
  'alley aly annex anx arcade arc avenue ave av bayou byu beach bch bend bnd bluff blf bluffs blfs bottom btm boulevard blvd ' +
  'branch br bridge brg brook brk brooks burg burgs bypass byp camp cp canyon cyn cape cpe causeway cswy center ctr centre ' +
  'circle cir circles cirs cliff clf cliffs clfs club clb common cmn commons corner cor corners cors course crse court ct ' +
  'courts cts cove cv coves creek crk crescent cres crest crst crossing xing crossroad xrd curve curv dale dl dam dm divide ' +
  'dv drive dr drives drs estate est estates ests expressway expy extension ext extensions exts fall falls fls ferry fry ' +
  'field fld fields flds flat flt flats flts ford frd fords forest frst forge frg forges frgs fork frk forks frks fort ft ' +
  'freeway fwy garden gdn gardens gdns gateway gtwy glen gln glens green grn greens grns grove grv groves harbor hbr ' +
  'harbors hbrs haven hvn heights hts highway hwy hill hl hills hls hollow holw inlet inlt island is islands iss isle ' +
  'junction jct junctions jcts key ky keys kys knoll knl knolls knls lake lk lakes lks landing lndg lane ln light lgt ' +
  'lights lgts loaf lf lock lck locks lcks lodge ldg loop mall manor mnr manors mnrs meadow mdw meadows mdws mews mill ml ' +
  'mills mls mission msn motorway mtwy mount mt mountain mtn mountains mtns neck nck orchard orch oval overpass opas park ' +
  'parks parkway pkwy parkways pass passage psge path pike pine pne pines pnes place pl plain pln plains plns plaza plz ' +
  'point pt points pts port prt ports prts prairie pr radial radl ramp ranch rnch rapid rpd rapids rpds rest rst ridge ' +
  'rdg ridges rdgs river riv road rd roads rds route rte row rue run shoal shl shoals shls shore shr shores shrs skyway ' +
  'skwy spring spg springs spgs spur spurs square sq squares sqs station sta stravenue stra stream strm street st streets ' +
  'sts summit smt terrace ter throughway trwy trace trce track trak trafficway trfy trail trl trailer trlr tunnel tunl ' +
  'turnpike tpke underpass upas union un unions uns valley vly valleys vlys viaduct via view vw views vws village vlg ' +
  'villages vlgs ville vl vista vis walk walks wall way ways well wl wells wls close wynd'
)
  .split(' ')
  // Abbreviations that are also everyday words ("is", "un") would turn "12 is" into a street.
  .filter((t) => !AMBIGUOUS_ABBREVIATIONS.has(t));

// Street types written before the name.
const PREFIX_TYPES = [
  // Romance languages
  'via', 'viale', 'vicolo', 'piazza', 'piazzale', 'corso', 'largo', 'strada', 'contrada', 'borgo', 'rua', 'avenida', 'av', 'avda',
  'calle', 'c', 'carrer', 'rúa', 'paseo', 'passeig', 'camino', 'plaza', 'praça', 'praca', 'travessa', 'tv', 'alameda', 'estrada',
  'rodovia', 'ronda', 'glorieta', 'rue', 'avenue', 'boulevard', 'bd', 'bvd', 'chemin', 'allée', 'allee', 'impasse', 'quai',
  'route', 'place', 'cours', 'square', 'strada', 'bulevardul', 'calea', 'str', 'strada', 'aleea', 'piata',
  // Slavic, Baltic, Hungarian, Greek
  'ul', 'ulica', 'al', 'aleja', 'pl', 'plac', 'os', 'osiedle', 'ulitsa', 'prospekt', 'pr', 'nám', 'náměstí', 'třída', 'trg',
  'odos', 'οδός', 'λεωφόρος',
  // English words that also lead
  'calle', 'rue',
];

// Street types joined onto the name ("Hammarvägen") or following it as a word ("Villacher Strasse").
const JOINED_TYPES = [
  // German, Dutch
  'straße', 'strasse', 'gasse', 'weg', 'allee', 'platz', 'damm', 'ufer', 'steig', 'pfad', 'chaussee', 'brücke',
  'graben', 'straat', 'laan', 'plein', 'gracht', 'kade', 'singel', 'dijk', 'dreef', 'steeg',
  // Nordic
  'gatan', 'gata', 'vägen', 'väg', 'gränd', 'torget', 'stig', 'gade', 'vej', 'vænget', 'stræde', 'allé', 'torv', 'gate',
  'veien', 'vegen', 'stræti', 'straeti', 'braut', 'vegur', 'stígur',
  // Finnish, Estonian, Latvian, Lithuanian
  'katu', 'tie', 'kuja', 'polku', 'väylä', 'raitti', 'kaari', 'tänav', 'maantee', 'iela', 'gatvė', 'prospektas',
  // Hungarian, Czech, Slovak, Slovene, Croatian
  'utca', 'körút', 'ulice', 'cesta', 'ulica', 'nábřeží',
];
// Short street types that stand as a word of their own after the name ("Kálmán Imre u. 12.").
const STANDALONE_TYPES = ['str', 'u', 'út', 'útja', 'tér', 'köz', 'rkp', 'st', 'rd', 'ave', 'ul'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternation = (list: readonly string[]) => [...new Set(list)].sort((a, b) => b.length - a.length).map(escape).join('|');
/** Street types match as written, capitalised or in capitals; the names around them stay case-sensitive. */
const anyCase = (list: readonly string[]) =>
  alternation(list.flatMap((t) => [t, t[0].toUpperCase() + t.slice(1), t.toUpperCase()]));

const NUM = String.raw`(?<![\p{L}\p{N}_.,\-/])\d{1,5}[A-Za-z]?`;
// A word of a street or place name: capitalised, or a lower-case particle ("do", "des", "van").
const CAP = String.raw`\p{Lu}[\p{L}'’\-]*\.?`;
const PARTICLES = ['de', 'do', 'da', 'dos', 'das', 'del', 'della', 'dei', 'degli', 'di', 'du', 'des', 'la', 'le', 'les', 'van', 'von', 'der', 'den', 'ten', 'ter', 'z', 'na', 'nad', 'pod', 'am', 'an', 'im', 'e', 'y', 'of', 'the'];
const PARTICLE = `(?:${PARTICLES.join('|')})(?![\\p{L}'’])`;
const NAME_WORD = `(?:${CAP}|${PARTICLE})`;
const LOWER_WORD = String.raw`\p{Ll}[\p{L}'’\-]*\.?`;

interface Compiled {
  /** The street expression's alternatives as one alternation, as they were searched for before (only with pruning off). */
  street: () => RegExp;
  bare: RegExp;
  cue: RegExp;
  /** The first five street alternatives and `bare`, sticky: tried only where a match can start (see `Numbers`). */
  sticky: { streets: RegExp[]; bare: RegExp };
  /**
   * The fifth alternative without its optional house number, and the three after it, as one
   * alternation: at a position at most one of them matches (they start with different words:
   * "P.O. Box", "Postfach", "PSC"; "Apartado", "APO"; "Caixa", "CMR"; "Unit", "USS"...).
   */
  boxes: RegExp;
  /**
   * At a number a match of the third (fourth) street alternative ends with: whether what
   * the alternative holds before its final number is there, written as a lookbehind. A
   * necessary condition, tested once per number, so that most numbers (after "order", "at",
   * "(303)") are never tried from the positions before them.
   */
  endsPrefixed: RegExp;
  endsJoined: RegExp;
  /** The ASCII letters a word after a house number may start with (null: any; see `startsAddress`). */
  firstLetters: ReadonlySet<number> | null;
  /** Whether the word right before a number (start, end) may end what the third (fourth) street alternative holds before it. */
  lastWordPrefixed: LastWord;
  lastWordJoined: LastWord;
}

const PARTICLE_SET = new Set(PARTICLES);
const STANDALONE_SET = new Set(STANDALONE_TYPES);
const anyWord = () => true;

function compile(wordsCapitalised: boolean): Compiled {
  const word = wordsCapitalised ? NAME_WORD : `(?:${NAME_WORD}|${LOWER_WORD})`;
  const suffixType = `(?:${anyCase(SUFFIX_TYPES)})\\.?`;
  const prefixType = `(?:${anyCase(PREFIX_TYPES)})\\.?`;
  const joined = `(?:\\p{Lu}[\\p{L}'’\\-]*(?:${alternation(JOINED_TYPES)})|${CAP}[ \\t]+(?:${anyCase(STANDALONE_TYPES)}))\\.?`;
  const postBox = String.raw`(?:P\.?[ \t]?O\.?[ \t]?Box|Postfach|Apartado|Caixa Postal)[ \t]+\d{1,6}`;
  const street = [
    // 1737 Cheriton Dr, 3369 24 Clarke Avenue, 26 rue des lieutemants Thomazo
    `${NUM}(?:[ \\t]+${NUM})?[ \\t]+(?:${word}[ \\t]+){1,4}?${suffixType}(?![\\p{L}\\d])`,
    `${NUM}(?:[ \\t]+${NUM})?[ \\t]+${prefixType}[ \\t]+(?:${word}|${LOWER_WORD})(?:[ \\t]+(?:${word}|${LOWER_WORD})){0,4}`,
    // Via Roma 131, ul. Miła 53, Rua Cidade de Maracajá 468
    `(?:${NUM}[ \\t]+)?${prefixType}[ \\t]+${word}(?:[ \\t]+${word}){0,4}[ \\t]+${NUM}(?![\\p{L}\\d])`,
    // Hammarvägen 15, Villacher Strasse 89, Kálmán Imre u. 12.
    `(?:${NUM}[ \\t]+)?(?:${word}[ \\t]+){0,3}${joined}[ \\t]+${NUM}\\.?(?![\\p{L}\\d])`,
    // Post boxes and US military addresses
    `(?:${NUM}[ \\t]+)?${postBox}`,
    String.raw`(?:PSC|CMR|Unit)[ \t]+\d{1,5},?[ \t]+Box[ \t]+\d{1,5}`,
    `(?:USNS|USNV|USS|USCGC)[ \\t]+${CAP}(?:[ \\t]+${CAP})?`,
    String.raw`(?:APO|FPO|DPO)[ \t]+(?:AA|AE|AP)[ \t]+\d{5}`,
  ];
  // 20789 Allika 46, 5850 Jana Nerudy 894: a house number, a name, a street number. No
  // street type confirms it, so it is a pattern ("23 April 1970" has the same shape).
  const bare = `${NUM}[ \\t]+${CAP}(?:[ \\t]+${word}){0,3}[ \\t]+${NUM}\\.?(?![\\p{L}\\d.,]\\d)`;
  // After words that introduce an address, a name and a number is one ("lives on Pod Floriánem 1677").
  // The cue words in lower case or capitalised; the name after them keeps its capitals.
  const cue =
    String.raw`(?:[Aa]ddress(?:es)?(?:[ \t]+is)?[ \t:]*|[Ll]ives?[ \t]+(?:on|at|in)|[Ll]ocated[ \t]+(?:at|on)|(?:station|office)[ \t]+is[ \t]+(?:on|at)|[Ee]nter[ \t]+on|drops?[ \t]+you[ \t]+off[ \t]+at|[Ss]top[ \t]+at|[Mm]eet[ \t]+me[ \t]+at|[Ss]ent[ \t]+to)[ \t]+` +
    `((?:${NUM}[ \\t]+)?${CAP}(?:[ \\t]+${word}){0,4}[ \\t]+${NUM})(?![\\p{L}\\d])`;
  const flags = wordsCapitalised ? 'gu' : 'giu';
  // What a name or street type after a house number may start with: a capital, a particle's or
  // a street type's first letter as written (case-insensitive: any letter).
  const firstLetters = wordsCapitalised
    ? new Set([...'ABCDEFGHIJKLMNOPQRSTUVWXYZ', ...PARTICLES, ...PREFIX_TYPES.flatMap((t) => [t, t.toUpperCase()])].map((w) => w.charCodeAt(0)))
    : null;
  let whole: RegExp | null = null;
  const sticky = flags.replace('g', 'y');
  return {
    street: () => (whole ??= new RegExp(street.join('|'), flags)),
    bare: new RegExp(bare, flags),
    cue: new RegExp(cue, flags),
    sticky: { streets: street.slice(0, 5).map((alternative) => new RegExp(alternative, sticky)), bare: new RegExp(bare, sticky) },
    boxes: new RegExp([postBox, ...street.slice(5)].join('|'), flags),
    // The third and fourth alternatives up to their final number, which starts right after.
    endsPrefixed: new RegExp(`(?<=${prefixType}[ \\t]+${word}(?:[ \\t]+${word}){0,4}[ \\t]+)\\d`, sticky),
    endsJoined: new RegExp(`(?<=${joined}[ \\t]+)\\d`, sticky),
    firstLetters,
    // With names capitalised, the word before the final number is a name or a particle (third
    // alternative), and the street type, or a name joined to one, holds a capital (fourth),
    // unless it is a short type written in lower case ("u", "st"). Letters that are not ASCII
    // may be capitals. Case-insensitive: any word.
    lastWordPrefixed: wordsCapitalised
      ? (text: string, start: number, end: number) => {
          const c = text.charCodeAt(start);
          return (c >= 65 && c <= 90) || c >= 128 || (end - start <= 5 && PARTICLE_SET.has(text.slice(start, end)));
        }
      : anyWord,
    lastWordJoined: wordsCapitalised
      ? (text: string, start: number, end: number) => {
          for (let k = start; k < end; k++) {
            const c = text.charCodeAt(k);
            if ((c >= 65 && c <= 90) || c >= 128) return true;
          }
          if (text.charCodeAt(end - 1) === 46) end--;
          return end - start <= 4 && STANDALONE_SET.has(text.slice(start, end));
        }
      : anyWord,
  };
}

/** The next match of an expression at or after `from`, as its global search from there finds it. */
type Search = (from: number) => RegExpExecArray | null;

const searchOf =
  (text: string, re: RegExp): Search =>
  (from) => {
    re.lastIndex = from;
    return re.exec(text);
  };

/**
 * Whether a text may hold a match of the last four street alternatives: each holds "Box"
 * ("P.O. Box", "PSC 6293, Box 8158"), "Postfach", "Apartado", "Caixa Postal", "US" ("USS") or
 * "PO" ("APO") as written, unless the expressions ignore case.
 */
const mayHoldBox = (text: string, flags: string) =>
  flags.includes('i') ||
  text.includes('Box') ||
  text.includes('US') ||
  text.includes('PO') ||
  text.includes('Postfach') ||
  text.includes('Apartado') ||
  text.includes('Caixa Postal');

/**
 * The next match of an expression that matches at each position as `a` or `b` does there, and
 * never as both (one starts with a digit, the other with a letter): the earlier of theirs.
 */
const leftmost =
  (a: Search, b: Search): Search =>
  (from) => {
    const x = a(from);
    const y = b(from);
    return x === null || (y !== null && y.index < x.index) ? y : x;
  };

/**
 * The matches of the alternation of the expressions `alternatives` searches for (global
 * expressions, no back-references between them), as `text.matchAll` finds them, from one
 * search per alternative. Where the alternation's search resumes (at the end of its last
 * match), it matches at the first position where one of the alternatives does, with the
 * first alternative that matches there, as that alternative alone matches there: which is
 * each alternative's own next match from that point, the leftmost of them (the earlier
 * alternative on a tie). An alternative's next match is searched for again only once the
 * search has passed its start. The alternation tries every alternative at every position;
 * one of them alone is cheaper to search for (a literal or a digit to start from).
 */
function* alternationMatches(text: string, alternatives: readonly Search[]): Generator<RegExpExecArray> {
  const next: Array<RegExpExecArray | null | undefined> = alternatives.map(() => undefined);
  let from = 0;
  while (from <= text.length) {
    let best: RegExpExecArray | null = null;
    for (let i = 0; i < alternatives.length; i++) {
      let m = next[i];
      if (m === undefined || (m !== null && m.index < from)) next[i] = m = alternatives[i](from);
      if (m && (best === null || m.index < best.index)) best = m;
    }
    if (best === null) return;
    yield best;
    // An empty match moves on by one code point, as matchAll does with the "u" flag.
    from = best.index + (best[0].length > 0 ? best[0].length : (text.codePointAt(best.index) ?? 0) > 0xffff ? 2 : 1);
  }
}

/** How many words (runs of characters other than spaces and tabs) the third and fourth street alternatives hold before their final number, at most: a type and five names; three names and a type of two words. */
const WORDS_BEFORE_NUMBER = 6;

/** NUM's digits: a whole run of one to five ASCII digits, after none of the characters NUM's lookbehind rules out. */
const NUMBER_RUN = /(?<![\p{L}\p{N}_.,\-/])\d{1,5}(?!\d)/gu;

/**
 * Where the house and street numbers (NUM) of a text may be, found in one search, and
 * searches for the expressions that start or end with one, which try them only there
 * (sticky) instead of at every position of the text.
 *
 * NUM is a whole run of one to five ASCII digits (`NUMBER_RUN`): whatever follows it in every
 * expression here excludes a digit (an optional letter, then a space, a tab or a lookahead
 * without digits), so a run of six or more is never one.
 *
 * The first two street alternatives and `bare` start with a NUM, an optional letter, spaces
 * or tabs, maybe a second NUM and more of them, then a word, a street type or a name, whose
 * first character `firstLetters` holds (or is not ASCII): tried at each such number.
 *
 * The third and fourth end with a space or tab and a NUM not followed by a letter or digit
 * (a letter and "." may come between). Before it they hold, from their start, no digit but
 * an optional leading NUM, nothing but letters, "'", "’", "-", ".", spaces and tabs, and at
 * most WORDS_BEFORE_NUMBER words, the first of which may start inside a word of the text
 * ("c" of "Mac" is a street type), and at least one word right before the number. So their
 * start is at most that many words before the number, after the last character that cannot
 * be in a match, or at the start of the nearest digit run (the leading NUM, the only digits
 * one may hold). They are tried at each letter and digit of that window, for a number that
 * passes the lookbehind of what they hold before it (`endsPrefixed`, `endsJoined`). A window
 * ends at its number and starts no earlier than the number before it (at its digits), so
 * windows come in the order of their numbers and do not overlap.
 */
class Numbers {
  /** Numbers a match of the first two street alternatives or `bare` may start at, in text order. */
  private readonly starts: number[] = [];
  /**
   * Numbers a match of the third or fourth street alternative may end with, each followed by
   * the start and end of the word right before it (after the last character in no match), in
   * text order.
   */
  private readonly ends: number[] = [];
  /** Per number of `ends`, the start of its window, once computed (else -1). */
  private readonly windows: number[] = [];

  constructor(
    private readonly text: string,
    firstLetters: ReadonlySet<number> | null,
  ) {
    NUMBER_RUN.lastIndex = 0;
    // `test`, not `exec`: no match object to make for each number.
    while (NUMBER_RUN.test(text)) {
      const end = NUMBER_RUN.lastIndex;
      const start = digitRunStart(text, end - 1);
      if (startsAddress(text, end, firstLetters)) this.starts.push(start);
      if (start > 0 && isBlank(text.charCodeAt(start - 1)) && !(isAsciiLetter(text.charCodeAt(end)) && isAsciiLetterOrDigit(text.charCodeAt(end + 1)))) {
        let wordEnd = start - 1;
        while (wordEnd > 0 && isBlank(text.charCodeAt(wordEnd - 1))) wordEnd--;
        let wordStart = wordEnd;
        while (wordStart > 0 && mayBeInWord(text.charCodeAt(wordStart - 1))) wordStart--;
        if (wordStart < wordEnd) {
          this.ends.push(start, wordStart, wordEnd);
          this.windows.push(-1);
        }
      }
    }
  }

  /** The matches of a sticky expression that starts with a NUM, as its global search from `from` finds them. */
  startingAt(re: RegExp): Search {
    return (from) => {
      const { starts, text } = this;
      for (const s of starts) {
        if (s < from) continue;
        re.lastIndex = s;
        const m = re.exec(text);
        if (m) return m;
      }
      return null;
    };
  }

  /**
   * The matches of a sticky expression that ends with a NUM, as its global search from `from`
   * finds them: tried before numbers whose word right before them (start, end) `lastWord`
   * accepts, and where `ends` (sticky, at the number) finds what the expression holds before it.
   */
  endingAt(re: RegExp, lastWord: LastWord, ends: RegExp): Search {
    return (from) => {
      const text = this.text;
      for (let r = 0; r < this.ends.length; r += 3) {
        const q = this.ends[r];
        if (q <= from || !lastWord(text, this.ends[r + 1], this.ends[r + 2])) continue;
        ends.lastIndex = q;
        if (!ends.test(text)) continue;
        for (let s = Math.max(this.window(r), from); s < q; s++) {
          const c = text.charCodeAt(s);
          // A match starts with a digit or a letter: not with a space, a tab, "'", "-", "." or "’".
          if (c === 32 || c === 9 || c === 39 || c === 45 || c === 46 || c === 0x2019) continue;
          re.lastIndex = s;
          const m = re.exec(text);
          if (m) return m;
        }
      }
      return null;
    };
  }

  /** Whether `lastWord` accepts the word right before some number that may end an expression. */
  anyEnd(lastWord: LastWord): boolean {
    for (let r = 0; r < this.ends.length; r += 3) if (lastWord(this.text, this.ends[r + 1], this.ends[r + 2])) return true;
    return false;
  }

  /** The first position a match ending with the number `ends[r]` may start at (see the class). */
  private window(r: number): number {
    const cached = this.windows[r / 3];
    if (cached >= 0) return cached;
    const text = this.text;
    let wordStart = this.ends[r + 1];
    let k = wordStart - 1;
    // The word right before the number ends at a character in no match (or a digit, which
    // only a leading NUM may hold, and that is a word of its own): so does the window.
    if (k >= 0 && !isBlank(text.charCodeAt(k))) return (this.windows[r / 3] = wordStart);
    for (let words = 1; words < WORDS_BEFORE_NUMBER; words++) {
      while (k >= 0 && isBlank(text.charCodeAt(k))) k--;
      if (k < 0) return (this.windows[r / 3] = wordStart);
      for (let c; k >= 0 && !isBlank((c = text.charCodeAt(k))); k--) {
        // Digits may be the leading NUM.
        if (isDigit(c)) return (this.windows[r / 3] = digitRunStart(text, k));
        if (!mayBeInWord(c)) return (this.windows[r / 3] = k + 1);
      }
      wordStart = k + 1;
    }
    // Only a leading NUM (digits and maybe one letter) may come before so many words.
    while (k >= 0 && isBlank(text.charCodeAt(k))) k--;
    if (k >= 0 && isAsciiLetter(text.charCodeAt(k))) k--;
    return (this.windows[r / 3] = k >= 0 && isDigit(text.charCodeAt(k)) ? digitRunStart(text, k) : wordStart);
  }
}

type LastWord = (text: string, start: number, end: number) => boolean;

/** ASCII letters, "'", "-" and "."; anything not ASCII may be a letter or "’". Other ASCII (digits too) is in no name or street type. */
const mayBeInWord = (c: number) => c >= 128 || isAsciiLetter(c) || c === 39 || c === 45 || c === 46;

/**
 * Whether what follows the digits of a NUM ending at `end` may continue a match of the first
 * two street alternatives or `bare`: an optional letter, spaces or tabs, maybe another NUM
 * and more of them, then a letter `firstLetters` holds, or one that is not ASCII (which may be
 * a letter, or match [A-Za-z] case-insensitively: "ſ", the Kelvin sign). Null: any letter.
 */
function startsAddress(text: string, end: number, firstLetters: ReadonlySet<number> | null): boolean {
  let k = end;
  for (let numbers = 0; ; numbers++) {
    const c = text.charCodeAt(k);
    if (isAsciiLetter(c) || c >= 128) k++;
    if (!isBlank(text.charCodeAt(k))) return false;
    while (isBlank(text.charCodeAt(k))) k++;
    const first = text.charCodeAt(k);
    if (!isDigit(first) || numbers === 1) return first >= 128 || (firstLetters === null ? isAsciiLetter(first) : firstLetters.has(first));
    while (isDigit(text.charCodeAt(k))) k++;
  }
}

const isBlank = (c: number) => c === 32 || c === 9;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiLetterOrDigit = (c: number) => isAsciiLetter(c) || isDigit(c);

function digitRunStart(text: string, k: number): number {
  while (k > 0 && isDigit(text.charCodeAt(k - 1))) k--;
  return k;
}

// Whatever may follow a street on its line or the next lines: apartment, town, region,
// post code, country. A line of up to five words without sentence punctuation.
const UNIT = String.raw`(?:[Aa](?:pt|PT)\.?|[Aa]partment|[Ss]uite|SUITE|[Ss]te\.?|[Uu]nit|UNIT|[Ff]lat|[Ff]loor|[Ff]l\.?|#|[Nn]o\.?|[Bb]ox|BOX)[ \t]*\d{1,6}[A-Za-z]?`;
const CONTINUATION = new RegExp(
  String.raw`^(?:[ \t]*,?[ \t]*${UNIT})*` +
    String.raw`(?:(?:[ \t]*,[ \t]*|[ \t]*\n[ \t>?]*\n?[ \t>?]*|[ \t]+)(?:${UNIT}|[\p{Lu}\d][\p{L}\d'’().\-]*(?:[ \t]+[\p{L}\d(][\p{L}\d'’().\-]*){0,4}))*`,
  'u',
);
const SENTENCE_WORDS = new Set(['i', 'it', 'is', 'was', 'the', 'a', 'and', 'for', 'please', 'after', 'last', 'this', 'that', 'we', 'you', 'my', 'serves', 'now']);

const SCORE = 0.85;

/** Extends a street over the lines that continue the address; stops at the first line that reads as a sentence. */
function extend(text: string, end: number): number {
  const tail = text.slice(end, end + 200);
  const m = CONTINUATION.exec(tail);
  if (!m || m[0].length === 0) return end;
  // Cut at the first part that starts a sentence or carries a label ("Mobile:").
  let best = end;
  const parts = m[0].split(/(?=[,\n])/);
  let offset = end;
  for (const part of parts) {
    const words = part.replace(/^[\s,>?]+/, '').split(/\s+/).filter(Boolean);
    const lower = words.map((w) => w.toLowerCase().replace(/[.,]$/, ''));
    if (lower.some((w) => SENTENCE_WORDS.has(w)) || /:/.test(part)) break;
    offset += part.length;
    best = offset;
  }
  // Never end on a separator, or on the full stop of a sentence.
  while (best > end && /[\s,>?]/.test(text[best - 1])) best--;
  if (text[best - 1] === '.' && /\d/.test(text[best - 2] ?? '') && CAPITAL_OR_END.test(text.slice(best, best + 3))) best--;
  return best;
}

// At module level, as every \p{…} expression here: esbuild (tsx) writes one inside a function as
// new RegExp(…), built again at every call.
const CAPITAL_OR_END = /^(?:\s+\p{Lu}|\s*$)/u;
const ANY_CAPITAL = /\p{Lu}/u;

// To the end of the clause: a question mark, a line end, or a full stop before a capital or the end ("St. and" goes on).
const CORNER = /(?:the[ \t]+)?corner[ \t]+of[ \t]+([^\n?!]{3,120}?)(?=[?!\n]|\.(?=\s+\p{Lu}|\s*$)|$)/giu;
// The same from "corner" on. A match of CORNER starts at a "corner" that matches this, or at a
// "the" and the spaces or tabs right before it (no letter but "t", "h" and "e" of either case
// matches them case-insensitively), so it is found from the "corner", cheaper to search for.
const CORNER_WORD = /corner[ \t]+of[ \t]+([^\n?!]{3,120}?)(?=[?!\n]|\.(?=\s+\p{Lu}|\s*$)|$)/giu;

/** The matches of CORNER (start, end, and the place after "of"), as `text.matchAll(CORNER)` finds them. */
function* cornerMatches(text: string): Generator<{ start: number; end: number; place: string }> {
  CORNER_WORD.lastIndex = 0;
  let from = 0;
  for (let m; (m = CORNER_WORD.exec(text)); from = CORNER_WORD.lastIndex) {
    let start = m.index;
    let k = start;
    while (k > from && isBlank(text.charCodeAt(k - 1))) k--;
    if (k < start && k - 3 >= from && /^the$/i.test(text.slice(k - 3, k))) start = k - 3;
    yield { start, end: m.index + m[0].length, place: m[1] };
  }
}

// "Katrina and Rúa do Paseo 46": a crossing street written before a street with its number.
const CROSSING = /(?:\p{Lu}[\p{L}'’-]*[ \t]+){0,2}\p{Lu}[\p{L}'’-]*[ \t]+and[ \t]+$/u;

let compiled: { capitalised: ReturnType<typeof compile>; lower: ReturnType<typeof compile> } | null = null;

export const addressRecognizer: Recognizer = {
  name: 'StreetAddressRecognizer',
  entities: ['LOCATION'],
  analyze(text, options) {
    if (!/\d/.test(text)) return [];
    compiled ??= { capitalised: compile(true), lower: compile(false) };
    // A text without capitals (chat written in lower case) gets lower-case names too.
    const { street, bare, cue, sticky, boxes, endsPrefixed, endsJoined, firstLetters, lastWordPrefixed, lastWordJoined } = ANY_CAPITAL.test(text) ? compiled.capitalised : compiled.lower;
    const results: RawResult[] = [];
    const push = (start: number, end: number, specificity = STRUCTURED) =>
      results.push({ entity: 'LOCATION', start, end: extend(text, end), score: SCORE, context: [], specificity });
    const numbers = options.pruning ? new Numbers(text, firstLetters) : null;
    const streetMatches = numbers
      ? alternationMatches(text, [
          numbers.startingAt(sticky.streets[0]),
          numbers.startingAt(sticky.streets[1]),
          numbers.endingAt(sticky.streets[2], lastWordPrefixed, endsPrefixed),
          numbers.endingAt(sticky.streets[3], lastWordJoined, endsJoined),
          // A post box after a house number starts at the number, else at the box. The last four
          // alternatives, of which one at most matches at a position, searched for at once, in a
          // text that holds a word every match of one of them holds.
          mayHoldBox(text, boxes.flags) ? leftmost(numbers.startingAt(sticky.streets[4]), searchOf(text, boxes)) : () => null,
        ])
      : text.matchAll(street());
    for (const m of streetMatches) {
      const crossing = /^\D/.test(m[0]) ? CROSSING.exec(text.slice(Math.max(0, m.index - 60), m.index)) : null;
      push(crossing ? m.index - crossing[0].length : m.index, m.index + m[0].length);
    }
    for (const m of numbers ? alternationMatches(text, [numbers.startingAt(sticky.bare)]) : text.matchAll(bare)) push(m.index, m.index + m[0].length, PATTERN);
    // A name and a number after a cue end as the third street alternative does (a name or a
    // particle, then a number): without such a number in the text, there is none to search for.
    for (const m of numbers === null || numbers.anyEnd(lastWordPrefixed) ? text.matchAll(cue) : []) {
      const start = m.index + m[0].length - m[1].length;
      push(start, start + m[1].length);
    }
    if (numbers) {
      for (const m of cornerMatches(text)) if (/\d/.test(m.place) || ANY_CAPITAL.test(m.place)) push(m.start, m.end);
    } else {
      for (const m of text.matchAll(CORNER)) {
        if (/\d/.test(m[1]) || ANY_CAPITAL.test(m[1])) push(m.index, m.index + m[0].length);
      }
    }
    return mergeOverlapping(results);
  },
};

/** One finding per address: overlapping and touching matches merge. */
function mergeOverlapping(results: RawResult[]): RawResult[] {
  if (results.length < 2) return results;
  results.sort((a, b) => a.start - b.start);
  const out: RawResult[] = [results[0]];
  for (const r of results.slice(1)) {
    const last = out[out.length - 1];
    if (r.start <= last.end) {
      last.end = Math.max(last.end, r.end);
      last.specificity = Math.max(last.specificity ?? PATTERN, r.specificity ?? PATTERN);
    }
    else out.push(r);
  }
  return out;
}
