import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MODULES as REGISTERED } from '../../src/app.ts';

/**
 * The shape of the house (docs/architecture.md), checked rather than remembered:
 * - no import cycle between files under src/ (type-only imports count: a cycle of types is
 *   still two files that cannot be read, moved or tested one without the other);
 * - every module folder under src/modules has its one entry, `module.ts`, whose
 *   `<name>Module` (the lint checks its shape, `SpyglassModule`) app.ts registers, once;
 * - only a module's store files (store.ts, *-store.ts, store/) import db/schema or write SQL: the
 *   lint's rule (eslint.config.js), whose only exceptions are those store files; checked here
 *   too, so that a new exception in the config is caught. test/foundation/table-owners.test.ts
 *   maps each table to its owner.
 *
 * NOT YET lists what breaks a rule today in code that is being moved to the shape right now. An
 * entry leaves its list when its code moves (the test below says when one is stale); the lists
 * only shrink, and nothing new goes in (the lint's own list is done: it has no exceptions left).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const MODULES = path.join(SRC, 'modules');

/** Import cycles not yet broken, each as the files it joins (relative to src/). */
const CYCLES_NOT_YET: { files: string[]; why: string }[] = [];

/** The files the lint's store-only rule leaves out (eslint.config.js: the `ignores` of its block). */
function lintStoreExceptions(): string[] {
  const config = fs.readFileSync(path.join(ROOT, 'eslint.config.js'), 'utf8');
  const rule = config.indexOf("files: ['src/modules/**/*.ts'],");
  const start = config.indexOf('ignores: [', rule);
  const block = config.slice(start, config.indexOf(']', start));
  return [...block.matchAll(/^\s*'([^']+)',/gm)].map((m) => m[1]);
}

/** The store files the rule is about: store.ts, *-store.ts, and the files of a store/ folder. */
const STORE_FILES = ['src/modules/**/store.ts', 'src/modules/**/*-store.ts', 'src/modules/**/store/**'];
const isStoreFile = (file: string) => /(^|\/)(store|[^/]+-store)\.ts$/.test(file) || /(^|\/)store\//.test(file);

/** Whether a file does what the store-only lint refuses: imports db/schema's values or sql, or writes SQL. */
function writesSql(source: string): boolean {
  return (
    /^import \{[^}]*\bsql\b[^}]*\} from 'drizzle-orm'/m.test(source) ||
    /^import (?!type )[^;]*from '[./]*db\/schema/m.test(source) ||
    /['"`]\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\()/.test(source)
  );
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each file under src/ -> the files under src/ it imports (static, type-only, re-exports and import()). */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const resolve = (from: string, specifier: string): string | null => {
    if (!specifier.startsWith('.')) return null;
    const base = path.resolve(path.dirname(from), specifier);
    const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
    return candidates.find((c) => known.has(c)) ?? null;
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set(importedFiles.map((i) => resolve(file, i.fileName)).filter((t): t is string => t !== null));
    graph.set(rel(file), [...targets].map(rel).sort());
  }
  return graph;
}

/** The graph's strongly connected components of more than one file (and files importing themselves). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** One cycle through a component, as a path: a.ts -> b.ts -> a.ts (the shortest back to its first file). */
function cyclePath(graph: Map<string, string[]>, component: string[]): string {
  const inside = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const steps = [v];
        while (steps[0] !== start) steps.unshift(previous.get(steps[0])!);
        return [...steps, start].join(' -> ');
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(' -> ');
}

const sameFiles = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((f, i) => f === [...b].sort()[i]);

describe('the house keeps its shape', () => {
  const graph = importGraph();
  const found = cycles(graph);

  it('no file under src/ imports, through others, a file that imports it', () => {
    const offenders = found
      .filter((component) => !CYCLES_NOT_YET.some((listed) => sameFiles(listed.files, component)))
      .map((component) => `import cycle: ${cyclePath(graph, component)}`);
    expect(offenders).toEqual([]);
  });

  it('every module under src/modules has its one entry, module.ts, and app.ts registers each once', () => {
    const modules = fs.readdirSync(MODULES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const missing = modules
      .filter((name) => !fs.existsSync(path.join(MODULES, name, 'module.ts')))
      .map((name) => `src/modules/${name} has no module.ts (its register(host, ports) entry)`);
    expect(missing).toEqual([]);
    expect([...REGISTERED.map((m) => m.name)].sort()).toEqual([...modules].sort());
  });

  it('only store files write SQL or import db/schema, and the lint leaves out nothing but them', () => {
    expect(lintStoreExceptions()).toEqual(STORE_FILES);
    const offenders = sourceFiles(MODULES)
      .map(rel)
      .filter((file) => !isStoreFile(file) && writesSql(fs.readFileSync(path.join(SRC, file), 'utf8')))
      .map((file) => `src/${file} writes SQL or imports db/schema outside a store file`);
    expect(offenders).toEqual([]);
  });

  it('the "not yet" lists only hold what still breaks the rule (an entry whose code moved leaves)', () => {
    const stale = [
      ...CYCLES_NOT_YET.filter((listed) => !found.some((component) => sameFiles(listed.files, component))).map((listed) => `cycle no longer as listed: ${listed.files.join(', ')}`),
    ];
    expect(stale).toEqual([]);
  });

  it('tells SQL in a file from prose (the check can fail)', () => {
    expect(writesSql("import { sql } from 'drizzle-orm';")).toBe(true);
    expect(writesSql("import { traces } from '../../db/schema/index.ts';")).toBe(true);
    expect(writesSql("const q = 'SELECT 1';")).toBe(true);
    expect(writesSql("import type { SQL } from 'drizzle-orm';\nconst label = 'Select a model';")).toBe(false);
    expect(isStoreFile('modules/traces/aggregates-store.ts')).toBe(true);
    expect(isStoreFile('modules/traces/search.ts')).toBe(false);
  });

  it('finds a cycle and names its path (the check can fail)', () => {
    const made = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    const components = cycles(made);
    expect(components).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(cyclePath(made, components[0])).toBe('a.ts -> b.ts -> c.ts -> a.ts');
  });
});
