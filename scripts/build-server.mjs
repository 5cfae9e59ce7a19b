#!/usr/bin/env node
/**
 * Bundles the server into dist/server (run by `prepare`; `npm run build:server`): loading the
 * application's ~200 TypeScript modules through tsx's ESM hooks cost 1.2-1.7 s of CPU at every
 * start, on the main thread and again in the PGlite worker. bin/spyglass.mjs runs the bundle
 * while it is fresh (scripts/server-bundle.mjs) and the sources through tsx otherwise.
 *
 * Our code only: packages stay imports of node_modules (`packages: 'external'`), so they
 * resolve, load lazily and find their own files (PGlite's wasm and data) as they do from the
 * sources. Code splitting keeps the dynamic imports dynamic. Four entries: the CLI
 * (src/main.ts -> main.mjs), the PGlite worker thread (src/db/pglite-worker.ts ->
 * pglite-worker.entry.mjs, the name src/db/pglite-client.ts starts from the sources too),
 * the OTLP decode worker thread (src/modules/traces/ingest/otlp-decode-worker.ts ->
 * otlp-decode-worker.entry.mjs, the name ingest/otlp-decode-pool.ts starts) and the privacy
 * detection worker thread (src/modules/privacy/detection-worker.ts ->
 * detection-worker.entry.mjs, the name privacy/detection-pool.ts starts).
 * Every output file sits in dist/server itself: our code that finds files relative to
 * itself goes through src/package-dir.ts, which knows both places.
 *
 * `--if-stale`: build only when the bundle is missing or older than its sources (the test
 * that runs the bundle calls it so).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE_DIR, BUNDLE_MANIFEST, PACKAGE_DIR, bundleState } from './server-bundle.mjs';

if (process.argv.includes('--if-stale') && bundleState() === 'fresh') process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('build-server: esbuild is not installed; bin/spyglass.mjs will run the sources through tsx');
  process.exit(0);
}

const builtFrom = Date.now();
// Built beside dist/server and swapped in whole: a process starting meanwhile finds a whole
// bundle, old or new, or none (and runs the sources), never half of each.
const out = `${BUNDLE_DIR}.tmp-${process.pid}`;
fs.rmSync(out, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: PACKAGE_DIR,
  entryPoints: [
    { in: 'src/main.ts', out: 'main' },
    { in: 'src/db/pglite-worker.ts', out: 'pglite-worker.entry' },
    { in: 'src/modules/traces/ingest/otlp-decode-worker.ts', out: 'otlp-decode-worker.entry' },
    { in: 'src/modules/privacy/detection-worker.ts', out: 'detection-worker.entry' },
  ],
  outdir: out,
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // esbuild's table rewrites /\p{…}/u for node20 as new RegExp("\\p{…}", "u"): an expression
  // built again at every call of the function holding it (~175 ns each, in PII detection's
  // inner loops). Node 20 has them (the rewritten form runs the same expression).
  supported: { 'regexp-unicode-property-escapes': true },
  packages: 'external',
  define: { SPYGLASS_BUNDLE: 'true' },
  // Stack traces point into readable, unminified code; NODE_OPTIONS=--enable-source-maps maps them to src/.
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const inputs = [...Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/')), 'scripts/build-server.mjs'];
// Written last: a build that stopped halfway has no manifest and counts as missing.
fs.writeFileSync(path.join(out, path.basename(BUNDLE_MANIFEST)), JSON.stringify({ builtFrom, inputs }, null, 1) + '\n');
fs.rmSync(BUNDLE_DIR, { recursive: true, force: true });
fs.renameSync(out, BUNDLE_DIR);
const files = fs.readdirSync(BUNDLE_DIR).filter((f) => f.endsWith('.mjs'));
console.log(`build-server: dist/server built from ${inputs.length - 1} source files, ${files.length} modules, in ${Date.now() - builtFrom} ms`);
