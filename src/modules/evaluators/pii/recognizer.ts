import type { EntityType } from './entities.ts';
import type { CountryCode } from 'libphonenumber-js/max';
import type { NlpEntity } from './nlp.ts';

/** A candidate before context, overlap resolution and threshold. Offsets are UTF-16 units. */
export interface RawResult {
  entity: EntityType;
  start: number;
  end: number;
  score: number;
  /** Context words of the recognizer that produced it (Presidio keeps them per recognizer). */
  context: readonly string[];
  /**
   * The score the written form alone earns when the engine enhances scores, as a context
   * word would (a phone number with its country code). `score` stays the recognizer's own
   * (Presidio's) score.
   */
  evidence?: number;
  /**
   * How specific the explanation is when findings of different types overlap; the higher
   * one wins (see `resolveTypeConflicts`). 0, the default, for a pattern or a guess.
   */
  specificity?: number;
}

/** `specificity` of a value a checksum or registry rule confirmed. */
export const VALIDATED = 1;

export interface AnalyzeOptions {
  /** libphonenumber-js leniency; Presidio's default (1) is VALID. */
  phoneLeniency: 'POSSIBLE' | 'VALID';
  /** Named entities of the text, computed on first use and shared by every NLP recognizer. */
  nlpEntities(): readonly NlpEntity[];
  /** Countries the text names ("Cyprus", "Deutschland"), computed on first use. */
  regionsInText(): readonly CountryCode[];
}

export interface Recognizer {
  readonly name: string;
  readonly entities: readonly EntityType[];
  analyze(text: string, options: AnalyzeOptions): RawResult[];
}

/** Presidio: a validated match gets the maximum score, a refuted one is dropped. */
export const MAX_SCORE = 1;

export interface PatternDef {
  name: string;
  /** Written as in Presidio; compiled with the recognizer's flags plus `g`. */
  regex: RegExp;
  score: number;
}

export interface PatternRecognizerSpec {
  name: string;
  entity: EntityType;
  patterns: readonly PatternDef[];
  context: readonly string[];
  /**
   * Presidio's `validate_result`: true raises the score to 1, false drops the match,
   * null keeps the pattern's score.
   */
  validate?: (match: string) => boolean | null;
  /** Presidio's `invalidate_result`: true drops the match. */
  invalidate?: (match: string) => boolean;
  /**
   * Presidio compiles pattern recognizers with IGNORECASE unless the recognizer says
   * otherwise (IBAN, Spanish passport).
   */
  caseSensitive?: boolean;
  /** A cheap test the text must pass before any pattern runs (most IDs need a digit). */
  requires?: RegExp | null;
  /** `specificity` of a validated match; VALIDATED unless the check is stronger than a check digit. */
  validatedSpecificity?: number;
}

const HAS_DIGIT = /[0-9]/;

export function patternRecognizer(spec: PatternRecognizerSpec): Recognizer {
  const flags = `g${spec.caseSensitive ? '' : 'i'}sm`;
  const compiled = spec.patterns.map((p) => ({
    ...p,
    regex: new RegExp(p.regex.source, flags + (p.regex.unicode ? 'u' : '')),
  }));
  const requires = spec.requires === undefined ? HAS_DIGIT : spec.requires;
  const context = spec.context.map((w) => w.toLowerCase());
  return {
    name: spec.name,
    entities: [spec.entity],
    analyze(text) {
      if (requires && !requires.test(text)) return [];
      const results: RawResult[] = [];
      for (const pattern of compiled) {
        const re = pattern.regex;
        re.lastIndex = 0;
        let m: RegExpExecArray | null;
        while ((m = re.exec(text)) !== null) {
          if (m[0].length === 0) {
            re.lastIndex++;
            continue;
          }
          let score = pattern.score;
          const validation = spec.validate ? spec.validate(m[0]) : null;
          if (validation === true) score = MAX_SCORE;
          else if (validation === false) score = 0;
          if (score > 0 && spec.invalidate && spec.invalidate(m[0])) score = 0;
          if (score > 0) {
            const specificity = validation === true ? (spec.validatedSpecificity ?? VALIDATED) : 0;
            results.push({ entity: spec.entity, start: m.index, end: m.index + m[0].length, score, context, specificity });
          }
        }
      }
      return removeDuplicates(results);
    },
  };
}

/**
 * Presidio's `EntityRecognizer.remove_duplicates`: highest score first; a result is
 * dropped when another of the same type with at least its score covers it.
 */
export function removeDuplicates(results: RawResult[]): RawResult[] {
  if (results.length < 2) return results;
  // Only results that overlap can contain one another: split each entity's results into
  // overlapping clusters so that thousands of separate matches stay linear.
  const byStart = [...results].sort((a, b) => (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0) || a.start - b.start);
  const kept: RawResult[] = [];
  let cluster: RawResult[] = [];
  let clusterEnd = -1;
  for (const r of byStart) {
    if (cluster.length > 0 && (r.entity !== cluster[0].entity || r.start >= clusterEnd)) {
      kept.push(...dedupeCluster(cluster));
      cluster = [];
    }
    if (cluster.length === 0) clusterEnd = r.end;
    cluster.push(r);
    clusterEnd = Math.max(clusterEnd, r.end);
  }
  kept.push(...dedupeCluster(cluster));
  return kept;
}

function dedupeCluster(cluster: RawResult[]): RawResult[] {
  if (cluster.length < 2) return cluster;
  const sorted = cluster.sort((a, b) => b.score - a.score || a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: RawResult[] = [];
  for (const r of sorted) {
    if (!kept.some((k) => r.start >= k.start && r.end <= k.end)) kept.push(r);
  }
  return kept;
}

/**
 * When findings of different types overlap, the most specific explanation wins: a phone
 * number written with its country code is not a VAT code that happens to pass a check
 * digit, a card number of a real issuer range is not a bank account pattern. Findings of
 * equal specificity (two guesses, two checksums) are both kept, as Presidio keeps them.
 */
export function resolveTypeConflicts(results: RawResult[]): RawResult[] {
  if (results.length < 2) return results;
  const byStart = [...results].sort((a, b) => a.start - b.start);
  const dropped = new Set<RawResult>();
  for (let i = 0; i < byStart.length; i++) {
    const a = byStart[i];
    for (let j = i + 1; j < byStart.length && byStart[j].start < a.end; j++) {
      const b = byStart[j];
      if (a.entity === b.entity) continue;
      const sa = a.specificity ?? 0;
      const sb = b.specificity ?? 0;
      if (sa > sb) dropped.add(b);
      else if (sb > sa) dropped.add(a);
    }
  }
  return dropped.size === 0 ? results : results.filter((r) => !dropped.has(r));
}
