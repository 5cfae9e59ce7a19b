#!/usr/bin/env node
// Runs the server's bundle (dist/server, built by `prepare`) while it is as new as the
// sources, and the TypeScript sources through tsx otherwise: a developer's edit to src/ is
// what runs, without a build step. SPYGLASS_RUN_FROM=source|bundle chooses (README "Development").
import { pathToFileURL } from 'node:url';
import { BUNDLE_ENTRY, bundleState } from '../scripts/server-bundle.mjs';

const runFrom = process.env.SPYGLASS_RUN_FROM || 'auto';
if (!['auto', 'source', 'bundle'].includes(runFrom)) {
  console.error(`spyglass: SPYGLASS_RUN_FROM must be auto, source or bundle, not ${JSON.stringify(runFrom)}`);
  process.exit(2);
}
const state = runFrom === 'source' ? null : bundleState();
let main;
if (runFrom === 'bundle' && state !== 'fresh') {
  console.error(`spyglass: SPYGLASS_RUN_FROM=bundle, but the bundle is ${state}: run \`npm run build:server\``);
  process.exit(2);
} else if (state === 'fresh') {
  ({ main } = await import(pathToFileURL(BUNDLE_ENTRY).href));
} else {
  if (state === 'stale' && process.stderr.isTTY) {
    console.error('spyglass: src/ changed since the bundle was built: running the sources through tsx (slower start); `npm run build:server` rebuilds it');
  }
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
}
