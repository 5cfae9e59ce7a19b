#!/usr/bin/env node
/**
 * Builds the web app into dist/ui (run by `prepare`, so `npm install` and `npm ci` leave a
 * served app behind), then writes gzip and brotli twins of the text assets: the server
 * sends them as they are (no compression work per request).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
let vite;
try {
  vite = await import('vite');
} catch {
  // `npm ci --omit=dev` has no build tools: the server then says the app is not built.
  console.warn('build-ui: vite is not installed (dev dependencies omitted?); the web app is not built');
  process.exit(0);
}
await vite.build({ configFile: path.join(repo, 'src/ui/vite.config.ts'), logLevel: process.env.CI ? 'warn' : 'info' });

const out = path.join(repo, 'dist/ui');
let files = 0;
for (const entry of fs.readdirSync(out, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|css|html|svg|json|txt)$/.test(entry.name)) continue;
  const file = path.join(entry.parentPath ?? entry.path, entry.name);
  const data = fs.readFileSync(file);
  if (data.length < 1024) continue;
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
  fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
  files++;
}
console.log(`build-ui: dist/ui built, ${files} assets precompressed`);
