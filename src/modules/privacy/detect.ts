/**
 * What detection finds in one text: the PII engine's findings and the project's own patterns'
 * matches. Used on the detection workers (detection-worker.ts) and, when a test injects a
 * detector or the pool is turned off, on the main thread (redaction.ts).
 */
import { RE2JS } from 're2js';
// The PII engine alone: a detection worker loads this, not the evaluators module around it
// (its catalogue, model clients and stores would cost every worker start and its memory).
// eslint-disable-next-line house/boundaries
import { codePointMapper, detectPii, ENTITY_TYPES, type EntityType } from '../evaluators/pii/index.ts';

/** Findings below this confidence stay (the PII evaluator's default threshold). */
export const MIN_SCORE = 0.5;

export interface Finding {
  entity_type: string;
  start: number;
  end: number;
  score: number;
}

/** What finds entities in a text: the PII engine, or a test's detector made to fail. */
export type Detector = (text: string, entities: readonly EntityType[]) => Finding[];

/** Every entity type the engine knows (a worker's warm-up loads what each needs). */
export const ALL_ENTITIES: readonly EntityType[] = ENTITY_TYPES;

export const piiDetector: Detector = (text, entities) => detectPii(text, { entities, minThreshold: MIN_SCORE });

/** A project's pattern, compiled. */
export interface CompiledPattern {
  name: string;
  re: RE2JS;
}

/** A project's patterns compiled (on the main thread and on each detection worker). */
export function compilePatterns(patterns: readonly { name: string; pattern: string }[]): CompiledPattern[] {
  return patterns.map((p) => ({ name: p.name, re: RE2JS.compile(p.pattern) }));
}

/** The matches of the project's patterns (RE2: linear time), with code point offsets as the engine gives. */
export function patternFindings(text: string, compiled: readonly CompiledPattern[]): Finding[] {
  if (compiled.length === 0) return [];
  const toCodePoint = codePointMapper(text);
  const found: Finding[] = [];
  for (const { name, re } of compiled) {
    const m = re.matcher(text);
    // An empty match would find itself for ever; RE2 moves on past it.
    while (m.find()) if (m.end() > m.start()) found.push({ entity_type: name, start: toCodePoint(m.start()), end: toCodePoint(m.end()), score: 1 });
  }
  return found;
}
