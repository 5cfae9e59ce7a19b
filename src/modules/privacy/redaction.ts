import { createHmac, hash as digest } from 'node:crypto';
import { anonymize, type EntityType } from '../evaluators/index.ts';
import { compilePatterns, patternFindings, type CompiledPattern, type Detector, type Finding } from './detect.ts';
import type { DetectionPool } from './detection-pool.ts';
import type { PrivacyMode, PrivacyPattern } from './schemas.ts';

/** What a value becomes when detection failed or ran past its budget: never the value itself. */
export const REDACTION_FAILED = '[redaction failed]';

/** Shorter strings hold no entity the engine knows (the shortest, an IP like 1.1.1.1, has 7). */
const MIN_TEXT_LENGTH = 6;
/** Hex characters of the keyed hash in a hash-mode token: 48 bits, collisions within a project are not a concern. */
const HASH_CHARS = 12;
/** Tokens a request remembers at most (see Redactor.hash). */
const HASHES_PER_REQUEST = 4096;

/** A project's settings as redaction applies them. */
export interface PrivacyPolicy {
  mode: PrivacyMode;
  entities: readonly EntityType[];
  untouchedKeys: readonly string[];
  patterns: readonly PrivacyPattern[];
}

/** A policy with what every request would otherwise redo made once: the key set, the compiled patterns, the findings of texts seen. */
export interface CompiledPolicy extends PrivacyPolicy {
  untouched: ReadonlySet<string>;
  compiled: readonly CompiledPattern[];
  seen: FindingsCache;
  /** The key detection workers remember this policy's entity types and patterns by (one per compiled policy in the process). */
  detectionKey: number;
}

let detectionKeys = 0;

export function compilePolicy(policy: PrivacyPolicy): CompiledPolicy {
  return {
    ...policy,
    untouched: new Set(policy.untouchedKeys),
    compiled: compilePatterns(policy.patterns),
    seen: new FindingsCache(FINDINGS_CACHED),
    detectionKey: ++detectionKeys,
  };
}

/** Texts whose findings a project's policy remembers (each a few hundred bytes, without the text). */
const FINDINGS_CACHED = 2048;
type Findings = Finding[];

/**
 * What detection found in texts seen lately, by a hash of the text (the text itself is not
 * kept). Applications send the same texts again and again: the system prompt of every call,
 * each earlier message of a conversation in every later call, a parent span's input in its
 * child. Detection is deterministic for one policy, so a text seen before is not searched
 * again. Least recently used texts go first.
 */
export class FindingsCache {
  private readonly entries = new Map<string, Findings>();

  constructor(private readonly capacity: number) {}

  get(key: string): Findings | undefined {
    const found = this.entries.get(key);
    if (found) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(key: string, findings: Findings): void {
    this.entries.set(key, findings);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  static key(text: string): string {
    // One call, no Hash object: the same digest, a third of the cost for short texts.
    return digest('sha256', text, 'base64');
  }
}

/** Values removed, per field and entity type: the record kept without the values. */
export type RedactionCounts = Record<string, Record<string, number>>;

/** What every redaction reports to /metrics. */
export interface RedactionMeter {
  redacted(entityType: string, path: string, n: number): void;
  failed(path: string, n: number): void;
}

/**
 * Redaction of one project's incoming data, used by every ingest path before anything is
 * written: strings are searched by the PII engine and the project's own patterns (RE2, linear
 * time) and each finding becomes `<TYPE>` (mask), `<TYPE:hash>` (hash) or stays (flag). A
 * string whose detection throws or takes longer than the budget becomes `[redaction failed]`.
 *
 * Where detection runs: a caller that knows all it will redact first runs `prepare` with the
 * same calls, and the texts not remembered are searched on the detection pool's worker
 * threads, in parallel, each within the budget (a worker past it is terminated, see
 * DetectionPool); the calls that follow find every text's findings ready. A text not prepared
 * so (or every text, without a pool: a test's injected detector) is searched on the calling
 * thread, where the budget is checked after detection (it is synchronous), so a slow value is
 * never stored raw, and the linear-time patterns bound how long that can be.
 *
 * One instance per request: it counts what it removed, per field, until `take()`.
 */
export class Redactor {
  private counts: RedactionCounts = {};
  /** Taken but not yet counted in /metrics, per entity type (see take()). */
  private readonly unmetered = new Map<string, number>();
  private meterQueued = false;
  private readonly untouched: ReadonlySet<string>;
  private readonly compiled: readonly CompiledPattern[];
  /** Findings of the texts `prepare` saw (null: detection failed), by the text itself: this request's, not remembered past it. */
  private readonly prepared = new Map<string, Findings | null>();
  /** While `prepare` runs its pass: the texts to search, with their key in the policy's cache. */
  private wanted: Map<string, string> | null = null;
  /** Hash mode: the tokens of values hashed in this request, by what is hashed (see hash()). */
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly policy: CompiledPolicy,
    /** The project's key of keyed hashes (hash mode). */
    private readonly hashKey: Buffer,
    private readonly options: { detector: Detector; budgetMs: number; meter: RedactionMeter; path: string; now?: () => number; pool?: DetectionPool | null },
  ) {
    this.untouched = policy.untouched;
    this.compiled = policy.compiled;
  }

  get mode(): PrivacyMode {
    return this.policy.mode;
  }

  /** Whether anything is looked for: with the mode off, values pass untouched and uncounted. */
  get active(): boolean {
    return this.policy.mode !== 'off';
  }

  /** A field or attribute key the project keeps as sent (ids, model names). */
  keeps(key: string): boolean {
    return this.untouched.has(key);
  }

  /**
   * Runs `pass`, which makes the calls (text, value, take) that will redact the data, to learn
   * which texts they search; then searches those not remembered on the detection pool, all at
   * once, and keeps their findings for the calls that follow. Nothing `pass` gets back is
   * redacted, and nothing is counted. Without a pool (or with privacy off), nothing is done:
   * the calls search as they go.
   */
  async prepare(pass: () => void): Promise<void> {
    const pool = this.options.pool;
    if (!pool || !this.active) return;
    const wanted = new Map<string, string>();
    const counts = this.counts;
    this.wanted = wanted;
    try {
      pass();
    } finally {
      this.wanted = null;
      this.counts = counts;
    }
    if (wanted.size === 0) return;
    const texts = [...wanted.keys()];
    const found = await pool.detectAll(texts, this.policy);
    for (let i = 0; i < texts.length; i++) {
      const findings = found[i];
      this.prepared.set(texts[i], findings);
      // Failures are not remembered: the same text sent again is searched again.
      if (findings) this.policy.seen.set(wanted.get(texts[i])!, findings);
    }
  }

  /** A text with what it holds of personal data replaced, counted under `field`. */
  text(text: string, field: string): string {
    if (!this.active || text.length < MIN_TEXT_LENGTH || this.untouched.has(field)) return text;
    if (this.wanted) {
      this.want(text);
      return text;
    }
    const findings = this.findings(text);
    if (findings === null) {
      this.options.meter.failed(this.options.path, 1);
      return REDACTION_FAILED;
    }
    if (findings.length === 0) return text;
    const mode = this.policy.mode;
    const chosen = ASTRAL.test(text) ? null : apart(findings);
    if (!chosen) {
      // Findings that overlap (or texts whose code points are not their UTF-16 units): the PII engine's anonymizer settles them.
      const redacted = anonymize(text, findings, (type, found) => this.token(field, type, found, mode));
      return mode === 'flag' ? text : redacted;
    }
    // The usual case: findings in order, apart from one another, so each one is replaced as it is.
    let out = '';
    let cursor = 0;
    for (const f of chosen) {
      out += text.slice(cursor, f.start) + this.token(field, f.entity_type, text.slice(f.start, f.end), mode);
      cursor = f.end;
    }
    return mode === 'flag' ? text : out + text.slice(cursor);
  }

  /** What a finding becomes (counted under `field`). */
  private token(field: string, type: string, found: string, mode: PrivacyMode): string {
    this.count(field, type);
    return mode === 'hash' ? `<${type}:${this.hash(type, found)}>` : mode === 'mask' ? `<${type}>` : '';
  }

  /**
   * A JSON value with every string in it redacted (keys stay, and so do the values of
   * untouched keys, at any depth). Counted under `field`. What holds nothing to redact is
   * returned as it came (the same object), so a caller can tell that nothing changed.
   */
  value<T>(value: T, field: string): T {
    if (!this.active || this.untouched.has(field)) return value;
    return this.walk(value, field) as T;
  }

  private walk(value: unknown, field: string): unknown {
    if (typeof value === 'string') return value.length < MIN_TEXT_LENGTH ? value : this.text(value, field);
    if (value === null || typeof value !== 'object') return value;
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null && !Array.isArray(value)) {
      // Not plain data (a Date, a class's instance): its own fields, as a plain object.
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.untouched.has(k) ? v : this.walk(v, field);
      return out;
    }
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const v = value[i] as unknown;
        const w = this.walk(v, field);
        if (w !== v) (out ??= value.slice())[i] = w;
      }
      return out ?? value;
    }
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      if (!Object.hasOwn(value, k) || this.untouched.has(k)) continue;
      const v = (value as Record<string, unknown>)[k];
      const w = this.walk(v, field);
      if (w !== v) (out ??= { ...value })[k] = w;
    }
    return out ?? value;
  }

  /** During prepare's pass: the text is to be searched, unless its findings are known. */
  private want(text: string): void {
    const wanted = this.wanted!;
    if (this.prepared.has(text) || wanted.has(text)) return;
    const key = FindingsCache.key(text);
    const seen = this.policy.seen.get(key);
    if (seen) this.prepared.set(text, seen);
    else wanted.set(text, key);
  }

  /** What was found since the last call (per field and type), and counted in /metrics. */
  take(): RedactionCounts {
    if (this.wanted) return {};
    const taken = this.counts;
    this.counts = {};
    for (const field in taken) {
      const byType = taken[field];
      for (const type in byType) this.unmetered.set(type, (this.unmetered.get(type) ?? 0) + byType[type]);
    }
    // Counted in /metrics once per run of synchronous work (a request's spans are taken one
    // by one, a few per turn of the event loop), not once per span and type.
    if (this.unmetered.size > 0 && !this.meterQueued) {
      this.meterQueued = true;
      queueMicrotask(() => this.meterNow());
    }
    return taken;
  }

  private meterNow(): void {
    this.meterQueued = false;
    for (const [type, n] of this.unmetered) this.options.meter.redacted(type, this.options.path, n);
    this.unmetered.clear();
  }

  /** Forgets what was found since the last take(), uncounted (a search's text is not ingest). */
  discard(): void {
    this.counts = {};
  }

  /** The token hash mode gives a value of a type: the same value, the same token, within a project. */
  hash(entityType: string, value: string): string {
    const input = `${entityType}\u0000${normalize(entityType, value)}`;
    // A request's spans repeat values (a customer's name, the company's IBAN, a city): each
    // keyed hash (a few µs) is made once per request, and forgotten with the request.
    let token = this.hashes.get(input);
    if (token === undefined) {
      token = createHmac('sha256', this.hashKey).update(input).digest('hex').slice(0, HASH_CHARS);
      if (this.hashes.size < HASHES_PER_REQUEST) this.hashes.set(input, token);
    }
    return token;
  }

  private count(field: string, type: string) {
    const byType = (this.counts[field] ??= {});
    byType[type] = (byType[type] ?? 0) + 1;
  }

  /** What the text holds, remembered per policy; null when detection failed or ran past its budget (never remembered). */
  private findings(text: string): Findings | null {
    const prepared = this.prepared.get(text);
    if (prepared !== undefined) return prepared;
    const key = FindingsCache.key(text);
    const seen = this.policy.seen.get(key);
    if (seen) return seen;
    const now = this.options.now ?? performance.now.bind(performance);
    const started = now();
    let findings: Findings;
    try {
      findings = [...this.options.detector(text, this.policy.entities), ...patternFindings(text, this.compiled)];
    } catch {
      return null;
    }
    if (now() - started > this.options.budgetMs) return null;
    this.policy.seen.set(key, findings);
    return findings;
  }
}

/** A UTF-16 surrogate: the text has characters past U+FFFF, so code point offsets differ from string indexes. */
const ASTRAL = /[\uD800-\uDFFF]/;

/**
 * The findings `anonymize` would replace, when they are in order and apart from one another
 * except for readings of the very same characters ("(303) 555-0147" as a US and a Turkish
 * phone number): of those, the one with the best score (a type's best, at its first place),
 * the earlier on a tie, as the anonymizer's conflict rules choose. Null for anything else
 * (overlaps, findings out of order, empty ones), which the anonymizer then settles.
 */
function apart(findings: Findings): Findings | null {
  const chosen: Findings = [];
  let end = 0;
  for (let i = 0; i < findings.length; ) {
    const f = findings[i];
    if (f.start < end || f.end <= f.start) return null;
    let j = i + 1;
    while (j < findings.length && findings[j].start === f.start && findings[j].end === f.end) j++;
    let best = f;
    if (j > i + 1) {
      // Readings of one type merge (its best score, at its first place); then the best score wins, the earlier on a tie.
      let bestScore = -Infinity;
      for (let k = i; k < j; k++) {
        const type = findings[k].entity_type;
        let first = i;
        while (findings[first].entity_type !== type) first++;
        if (first !== k) continue;
        let score = -Infinity;
        for (let m = k; m < j; m++) if (findings[m].entity_type === type && findings[m].score > score) score = findings[m].score;
        if (score > bestScore) {
          bestScore = score;
          best = findings[k];
        }
      }
    }
    chosen.push(best);
    end = f.end;
    i = j;
  }
  return chosen;
}

/**
 * The written forms of one value hash alike: case never matters, and spaces, dots and dashes
 * inside numbers (cards, phones, IBANs) do not either.
 */
function normalize(entityType: string, value: string): string {
  const lower = value.trim().toLowerCase();
  return /\d/.test(lower) && entityType !== 'EMAIL_ADDRESS' && entityType !== 'URL' ? lower.replace(/[\s().-]/g, '') : lower;
}

/** Counts of two records added up. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [field, byType] of Object.entries(more)) {
    const target = (into[field] ??= {});
    for (const [type, n] of Object.entries(byType)) target[type] = (target[type] ?? 0) + n;
  }
  return into;
}

/** The record in a sentence: "3 values redacted: 2 EMAIL_ADDRESS in input, 1 PHONE_NUMBER in output". */
export function describeCounts(counts: RedactionCounts): { total: number; summary: string } {
  const parts = Object.entries(counts).flatMap(([field, byType]) => Object.entries(byType).map(([type, n]) => ({ field, type, n })));
  parts.sort((a, b) => b.n - a.n || a.field.localeCompare(b.field) || a.type.localeCompare(b.type));
  const total = parts.reduce((sum, p) => sum + p.n, 0);
  if (total === 0) return { total, summary: 'No values redacted' };
  return { total, summary: `${total} value${total === 1 ? '' : 's'} redacted: ${parts.map((p) => `${p.n} ${p.type} in ${p.field}`).join(', ')}` };
}
