/**
 * Where the server's bundle is (dist/server, written by scripts/build-server.mjs) and whether
 * it may be run instead of the TypeScript sources. Read by bin/spyglass.mjs at every start,
 * so it does no more than read one small file and stat the sources the bundle was built from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const BUNDLE_DIR = path.join(PACKAGE_DIR, 'dist', 'server');
/** The bundle's entry (src/main.ts) and its manifest: when it was built and from which files. */
export const BUNDLE_ENTRY = path.join(BUNDLE_DIR, 'main.mjs');
export const BUNDLE_MANIFEST = path.join(BUNDLE_DIR, 'manifest.json');

/**
 * 'fresh': the bundle exists and no file it was built from changed (or went away) since the
 * build started; 'stale': one did; 'missing': no complete build. A file added to src/ counts
 * only once something imports it, and that import is itself a change to a listed file.
 */
export function bundleState() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(BUNDLE_MANIFEST, 'utf8'));
  } catch {
    return 'missing';
  }
  for (const file of manifest.inputs) {
    let mtimeMs;
    try {
      mtimeMs = fs.statSync(path.join(PACKAGE_DIR, file)).mtimeMs;
    } catch {
      return 'stale';
    }
    if (mtimeMs >= manifest.builtFrom) return 'stale';
  }
  return 'fresh';
}
