import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Defined (true) by scripts/build-server.mjs in the bundle; undeclared when the sources run. */
declare const SPYGLASS_BUNDLE: boolean | undefined;

/**
 * The package's directory (package.json, dist/, src/db/migrations), for code that reads files
 * of its own: this module is src/package-dir.ts when the sources run, and part of a module in
 * dist/server/ when the bundle does, one directory deeper.
 */
export const PACKAGE_DIR = fileURLToPath(new URL(typeof SPYGLASS_BUNDLE !== 'undefined' ? '../..' : '..', import.meta.url));

let version: string | undefined;
/** The package's version (package.json), read once. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
