import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { useRamTmpdir } from './test/support/test-tmpdir.ts';

// Before the workers start, so that they and what they spawn inherit it; global-setup.ts removes it.
const ramTmpdir = useRamTmpdir();
if (ramTmpdir) process.env.SPYGLASS_TEST_RAM_TMPDIR = ramTmpdir;

/** Test workers (see poolOptions.forks); at most six, for memory. */
const FORKS = Math.min(os.availableParallelism() + 1, 6);

/** The files that drive Chromium through the web app. */
const BROWSER_TESTS = ['test/e2e/**/*.test.ts'];
/**
 * Files that need a fresh module graph: the client SDKs register OpenTelemetry's global
 * providers once per process, and the PII laziness test checks what a first import loads.
 */
const ISOLATED_TESTS = ['test/clients/**/*.test.ts', 'test/evaluators/pii-lazy.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // `npm run bench:suite` records each file's CPU seconds (bench/suite.ts); a plain run loads nothing.
    setupFiles: process.env.SPYGLASS_FILE_CPU_LOG ? ['test/support/file-cpu.ts'] : [],
    pool: 'forks',
    poolOptions: {
      forks: {
        // One worker more than the cores: a file spends about a third of its time waiting (for
        // servers it spawned, Chromium, timers), which the extra worker fills. On this project's
        // 2-core machines `npm test` took 489 s with two workers and 359-386 s with three (CPU 652
        // against 543-593 s; docs/performance.md). Each worker holds up to about 2 GB.
        maxForks: FORKS,
        // As many from the start: with fewer, tinypool stops a worker it counts as idle while a
        // file still runs in it ("Terminating worker thread"), which ended runs with three.
        minForks: FORKS,
        // A worker runs file after file in one process: the modules are loaded once (about 8 s
        // per file otherwise) and startApp's shared app serves every file, each in an
        // organization of its own (test/support/harness.ts). No test mocks modules or changes
        // the environment, so nothing carries from one file to the next, except in
        // ISOLATED_TESTS. (Vitest 3 reads `isolate` here, not from a project.)
        isolate: false,
      },
      threads: { maxThreads: 2, minThreads: 1, isolate: true },
    },
    // Generous: password hashing (scrypt, 128 MiB) and Chromium slow down tenfold when the
    // two cores are shared; a hang still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // `npx vitest run --project server --project isolated` leaves out the browser tests (and Chromium).
    projects: [
      { extends: true, test: { name: 'server', include: ['test/**/*.test.ts'], exclude: [...BROWSER_TESTS, ...ISOLATED_TESTS] } },
      // Worker threads, each file in a fresh one: the forks above keep their modules.
      // @langwatch/scenario's build imports @elevenlabs/elevenlabs-js paths without extensions: it loads only when vitest transforms both.
      { extends: true, test: { name: 'isolated', include: ISOLATED_TESTS, pool: 'threads', server: { deps: { inline: ['@langwatch/scenario', '@elevenlabs/elevenlabs-js'] } } } },
      // A page drawing under load takes more than expect.poll's default second to show what it
      // will show: a poll fails only after 15 s (a wrong value still fails, later).
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS, expect: { poll: { timeout: 15_000 } } } },
    ],
  },
});
