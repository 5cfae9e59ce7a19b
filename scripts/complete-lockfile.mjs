#!/usr/bin/env node
/**
 * The npm registry reachable here does not serve rollup's native packages for other
 * platforms (404), so `npm install` leaves them out of package-lock.json and `npm ci`
 * then refuses the lock file. This adds the missing optional entries with their os/cpu/libc,
 * which `npm ci` checks and skips on every other platform without downloading anything.
 * Run after `npm install` changes the lock file: node scripts/complete-lockfile.mjs
 */
import fs from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
const CPU = { 'arm-eabi': 'arm', arm: 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const m = /^@rollup\/rollup-(android|darwin|freebsd|linux|openbsd|openharmony|win32)-([a-z0-9]+(?:-eabi)?)(?:-(gnu|musl|gnueabihf|musleabihf|msvc))?$/.exec(name);
    if (!m) continue;
    const key = `${path ? path + '/' : ''}node_modules/${name}`.replace(/^node_modules\/rollup\/node_modules\//, 'node_modules/');
    const flatKey = `node_modules/${name}`;
    if (packages[flatKey] || packages[key]) continue;
    const [, os, arch, abi] = m;
    const cpu = CPU[arch] ?? arch;
    const libc = abi?.startsWith('musl') ? ['musl'] : abi?.startsWith('gnu') ? ['glibc'] : undefined;
    packages[flatKey] = { version, cpu: [cpu], license: 'MIT', optional: true, os: [os], ...(libc ? { libc } : {}) };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries`);
