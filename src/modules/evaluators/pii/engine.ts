import type { CountryCode } from 'libphonenumber-js/max';
import { addressRecognizer } from './address.ts';
import { contextMayCount, contextTokens, ContextWordsInText, enhanceUsingContext, joinedTokens, withContext, type Token } from './context.ts';
import { countriesNamedIn } from './gazetteer.ts';
import { TextRuns } from './text-runs.ts';
import type { EntityType } from './entities.ts';
import { extractNlpEntities, NLP_RECOGNIZERS, type NlpEntity } from './nlp.ts';
import { phMobileNumber, phoneNumber } from './phone.ts';
import { removeDuplicates, resolveTypeConflicts, type AnalyzeOptions, type RawResult, type Recognizer } from './recognizer.ts';
import { EUROPE_RECOGNIZERS } from './recognizers/europe.ts';
import { GENERIC_RECOGNIZERS } from './recognizers/generic.ts';
import { US_UK_RECOGNIZERS } from './recognizers/us-uk.ts';
import { WORLD_RECOGNIZERS } from './recognizers/world.ts';

/**
 * One detected entity. `start`/`end` count Unicode code points (end exclusive), as
 * Presidio's Python offsets do, so an emoji before a finding shifts it by one, not two.
 */
export interface Finding {
  entity_type: EntityType;
  start: number;
  end: number;
  score: number;
  text: string;
}

export interface DetectOptions {
  /** Entity types to look for. */
  entities: Iterable<EntityType>;
  /** Findings scoring below this (after context enhancement) are dropped. */
  minThreshold: number;
  /**
   * Score enhancement: what the written form earns by itself (a phone number with its
   * country code) and Presidio's context words. On unless a caller wants the recognizers'
   * own scores, which are Presidio's.
   */
  context?: boolean;
  /** libphonenumber leniency (Presidio's 1 = VALID, 0 = POSSIBLE). */
  phoneLeniency?: 'POSSIBLE' | 'VALID';
  /**
   * Patterns whose matches cannot reach `minThreshold` are not searched for (on unless off):
   * the findings are the same either way, which is what turning it off checks.
   */
  prune?: boolean;
}

export const ALL_RECOGNIZERS: readonly Recognizer[] = [
  ...GENERIC_RECOGNIZERS,
  phoneNumber,
  phMobileNumber,
  ...US_UK_RECOGNIZERS,
  ...EUROPE_RECOGNIZERS,
  ...WORLD_RECOGNIZERS,
  ...NLP_RECOGNIZERS,
  addressRecognizer,
];

const RECOGNIZERS_BY_ENTITY = new Map<EntityType, Recognizer[]>();
for (const r of ALL_RECOGNIZERS) {
  for (const e of r.entities) {
    const list = RECOGNIZERS_BY_ENTITY.get(e) ?? [];
    list.push(r);
    RECOGNIZERS_BY_ENTITY.set(e, list);
  }
}

/** Entity types some recognizer can find. */
export const SUPPORTED_ENTITIES: ReadonlySet<EntityType> = new Set(RECOGNIZERS_BY_ENTITY.keys());

/**
 * Presidio's AnalyzerEngine: every recognizer of a requested entity, score enhancement,
 * duplicates removed (a result inside another of the same type with at least its score
 * goes), then the threshold; beyond Presidio, overlapping findings of different types
 * leave the most specific one.
 */
export function detectPii(text: string, options: DetectOptions): Finding[] {
  if (text.length === 0) return [];
  let nlpCache: NlpEntity[] | null = null;
  let regionsCache: CountryCode[] | null = null;
  let tokensCache: Token[] | null = null;
  const tokens = () => (tokensCache ??= contextTokens(text));
  let joinedCache: string | null = null;
  let wordsInText: ContextWordsInText | null = null;
  let runs: TextRuns | null = null;
  const textRuns = () => (runs ??= new TextRuns(text));
  const shared = new Map<object, unknown>();
  const analyzeOptions: AnalyzeOptions = {
    phoneLeniency: options.phoneLeniency ?? 'VALID',
    pruning: options.prune !== false,
    nlpEntities: () => (nlpCache ??= extractNlpEntities(text)),
    regionsInText: () => (regionsCache ??= countriesNamedIn(text) as CountryCode[]),
    perText<T>(key: object, compute: () => T): T {
      if (!shared.has(key)) shared.set(key, compute());
      return shared.get(key) as T;
    },
    // The most context can make of a score (enhanceUsingContext), against the threshold applied below.
    canPass: (score) => options.prune === false || (options.context === false ? score : withContext(score)) >= options.minThreshold,
    passesAlone: (score) => options.prune === false || score >= options.minThreshold,
    mayHoldDigitRun: (digits) => options.prune === false || digits <= textRuns().digits,
    mayHoldWordRun: (chars) => options.prune === false || chars <= textRuns().word,
    digitRuns: textRuns,
    contextMayCount: (start, end, words) => options.context !== false && contextMayCount(tokens(), start, end, words),
    contextInText: (words) =>
      options.context !== false && (wordsInText ??= new ContextWordsInText(() => (joinedCache ??= joinedTokens(tokens())))).any(words),
  };
  const recognizers = new Set<Recognizer>();
  for (const entity of options.entities) for (const r of RECOGNIZERS_BY_ENTITY.get(entity) ?? []) recognizers.add(r);

  let results: RawResult[] = [];
  for (const r of recognizers) results.push(...r.analyze(text, analyzeOptions));
  if (options.context !== false) results = enhanceUsingContext(text, results.map(withEvidence), results.some((r) => r.context.length > 0) ? tokens() : []);
  results = removeDuplicates(results).filter((r) => r.score > 0 && r.score >= options.minThreshold);
  results = resolveTypeConflicts(results);
  results.sort((a, b) => a.start - b.start || a.end - b.end || (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0));

  const toCodePoint = codePointMapper(text);
  return results.map((r) => ({
    entity_type: r.entity,
    start: toCodePoint(r.start),
    end: toCodePoint(r.end),
    score: Math.round(r.score * 1e6) / 1e6,
    text: text.slice(r.start, r.end),
  }));
}

function withEvidence(r: RawResult): RawResult {
  return r.evidence !== undefined && r.evidence > r.score ? { ...r, score: r.evidence } : r;
}

/** UTF-16 index -> code point index; the identity unless the text has astral characters. */
export function codePointMapper(text: string): (utf16: number) => number {
  if (!/[\uD800-\uDBFF]/.test(text)) return (i) => i;
  const map = new Uint32Array(text.length + 1);
  let cp = 0;
  for (let i = 0; i < text.length; i++) {
    map[i] = cp;
    const c = text.charCodeAt(i);
    // The low half of a pair shares its code point's index with the high half.
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1)))) cp++;
    else map[i] = cp - 1;
  }
  map[text.length] = cp;
  return (i) => map[i];
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
