/**
 * The PII evaluator before and after issue 14, measured the same way:
 * - issue 14's table on presidio-research's synthetic corpus (bench/pii-corpus.ts), for the
 *   whole corpus and, for this version, the tuning and held-out parts;
 * - Presidio's recognizer vectors passed (bench/pii-vectors.ts);
 * - the seeded IBANs and dates with every entity enabled, by type (bench/pii-typed-set.ts);
 * - evaluations per second on 2 KB of text (the defaults, and the corpus's five entities);
 * - the RSS the evaluator adds to a process once everything it loads lazily is loaded.
 *
 * "Before" is the evaluator at BENCH_PII_BEFORE (default: the commit issue 14 started from),
 * taken out of git into bench/.before/ and imported beside this version; without git it
 * is skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EvaluatorDefinition } from '../src/modules/evaluators/types.ts';
import { measure, text2kb } from './evaluators.ts';
import { median } from './lib.ts';
import { CORPUS_TARGETS, CORPUS_TYPES, corpusSettings, isHeldOut, loadCorpus, scoreCorpus, type CorpusType, type Span, type TypeScore } from './pii-corpus.ts';
import { checkVector, loadVectors, type Detect } from './pii-vectors.ts';
import { generateTypedSet, scoreTypedSet, TYPED_SET_TYPES, TYPED_TARGETS, type TypedFinding, type TypedGoldType, type TypedScore } from './pii-typed-set.ts';

/** The evaluator before the PII rework: the "before" of docs/api.md's PII table. */
export const PII_BASELINE = process.env.BENCH_PII_BEFORE ?? '57d6c4c43174e509d4ddc2889ec18d41ca6bf5b9';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const PII_MODULE = 'src/modules/evaluators/pii/index.ts';

interface PiiModule {
  piiDetection: EvaluatorDefinition;
  detectPii: Detect;
  ENTITY_TYPES: readonly string[];
}

/** The evaluator's files at `ref`, written under bench/.before/<ref>; null without git or that commit. */
function checkout(ref: string): string | null {
  const dir = path.join(here, '.before', ref.slice(0, 12));
  if (fs.existsSync(path.join(dir, PII_MODULE))) return dir;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', ref, 'src/modules/evaluators/pii', 'src/modules/evaluators/types.ts'], { cwd: root, maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    return dir;
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

async function load(dir: string): Promise<PiiModule> {
  return (await import(pathToFileURL(path.join(dir, PII_MODULE)).href)) as PiiModule;
}

export interface VersionResult {
  label: string;
  corpus: { all: Record<CorpusType, TypeScore>; dev: Record<CorpusType, TypeScore>; heldOut: Record<CorpusType, TypeScore> };
  vectors: { passed: number; total: number };
  /** The seeded IBANs and dates with every entity enabled: is each named as what it is? */
  typed: Record<TypedGoldType, TypedScore>;
  speed: { defaults: number; fiveEntities: number };
  memory: { importRssMiB: number; rssMiB: number; heapMiB: number } | null;
}

async function measureVersion(label: string, dir: string): Promise<VersionResult> {
  const mod = await load(dir);
  const ctx = { env: {}, fetch, now: () => new Date() };
  const settings = mod.piiDetection.settings.parse(corpusSettings(mod.ENTITY_TYPES.map((t) => t.toLowerCase())));
  const rows = loadCorpus();
  const found = new Map<number, Span[]>();
  for (const row of rows) {
    const r = await mod.piiDetection.evaluate({ data: mod.piiDetection.data.parse({ input: row.text }), settings, ctx });
    found.set(row.id, (r.raw_response?.findings ?? []) as Span[]);
  }
  const score = (part: typeof rows) => scoreCorpus(part, (row) => found.get(row.id) ?? []);

  const all = mod.piiDetection.settings.parse({ entities: Object.fromEntries(mod.ENTITY_TYPES.map((t) => [t.toLowerCase(), true])) });
  const typedRows = generateTypedSet();
  const typedFound: TypedFinding[][] = [];
  for (const row of typedRows) {
    const r = await mod.piiDetection.evaluate({ data: mod.piiDetection.data.parse({ input: row.text }), settings: all, ctx });
    typedFound.push((r.raw_response?.findings ?? []) as TypedFinding[]);
  }

  const vectors = loadVectors();
  const passed = vectors.filter((v) => checkVector(v, mod.detectPii) === null).length;

  return {
    label,
    corpus: { all: score(rows), dev: score(rows.filter((r) => !isHeldOut(r))), heldOut: score(rows.filter(isHeldOut)) },
    vectors: { passed, total: vectors.length },
    typed: scoreTypedSet(typedRows, (_row, i) => typedFound[i]),
    speed: { defaults: 0, fiveEntities: 0 },
    memory: memoryOf(dir),
  };
}

/**
 * Evaluations per second of each version, in alternating rounds (the machine is shared, so
 * its load drifts), the median round of each counting.
 */
async function measureSpeeds(versions: Array<{ result: VersionResult; mod: PiiModule }>): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? '5');
  const rounds = 3;
  const texts = (s: unknown) => Array.from({ length: 7 }, (_, i) => ({ data: { input: text2kb(i) }, settings: s }));
  const samples = versions.map(() => ({ defaults: [] as number[], five: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    for (const [k, { mod }] of versions.entries()) {
      const five = corpusSettings(mod.ENTITY_TYPES.map((t) => t.toLowerCase()));
      samples[k].defaults.push((await measure(mod.piiDetection, texts({}), seconds / rounds)).perSecond);
      samples[k].five.push((await measure(mod.piiDetection, texts(five), seconds / rounds)).perSecond);
    }
  }
  versions.forEach(({ result }, k) => {
    result.speed = { defaults: median(samples[k].defaults), fiveEntities: median(samples[k].five) };
  });
}

/** RSS and heap the evaluator adds to a fresh process: imported, then one evaluation with every entity on. */
function memoryOf(dir: string): VersionResult['memory'] {
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(here, 'pii-memory.ts'), path.join(dir, PII_MODULE)], {
    cwd: root,
    encoding: 'utf8',
  });
  if (run.status !== 0) return null;
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as NonNullable<VersionResult['memory']>;
}

export async function benchPii(): Promise<{ before: VersionResult | null; after: VersionResult }> {
  const beforeDir = checkout(PII_BASELINE);
  const before = beforeDir ? await measureVersion(`before (${PII_BASELINE.slice(0, 7)})`, beforeDir) : null;
  const after = await measureVersion('after', root);
  await measureSpeeds([
    ...(before && beforeDir ? [{ result: before, mod: await load(beforeDir) }] : []),
    { result: after, mod: await load(root) },
  ]);
  return { before, after };
}

const f2 = (n: number) => n.toFixed(2);

/** Issue 14's table: precision, recall and F1 per type, before and after, and the target. */
export function corpusTable(before: VersionResult | null, after: VersionResult): string {
  const head = ['type', ...(before ? ['before P', 'before R', 'before F1'] : []), 'P', 'R', 'F1', 'held-out P', 'held-out R', 'held-out F1', 'target'];
  const lines = CORPUS_TYPES.map((type) => {
    const a = after.corpus.all[type];
    const h = after.corpus.heldOut[type];
    const b = before?.corpus.all[type];
    const t = CORPUS_TARGETS[type];
    const target = t ? `${t.metric === 'f1' ? 'F1' : 'R'} >= ${t.min}, P >= ${t.precision}` : '';
    return [type, ...(b ? [f2(b.precision), f2(b.recall), f2(b.f1)] : []), f2(a.precision), f2(a.recall), f2(a.f1), f2(h.precision), f2(h.recall), f2(h.f1), target];
  });
  return [head, head.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The seeded IBANs and dates, every entity enabled: named as their own type, as another, or not found. */
export function typedTable(before: VersionResult | null, after: VersionResult): string {
  const head = ['type', 'gold', ...(before ? ['before recall', 'before named otherwise', 'before missed'] : []), 'recall', 'named otherwise', 'missed', 'target'];
  const lines = TYPED_SET_TYPES.map((type) => {
    const a = after.typed[type];
    const b = before?.typed[type];
    return [type, a.gold, ...(b ? [f2(b.recall), b.namedWrong, b.missed] : []), f2(a.recall), a.namedWrong, a.missed, `R >= ${TYPED_TARGETS[type]}`];
  });
  return [head, head.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
