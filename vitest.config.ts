import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.ts';

/**
 * Files that need a fresh module graph: the client SDKs register OpenTelemetry's global
 * providers once per process, and the PII laziness test checks what a first import loads.
 */
const ISOLATED_TESTS = ['test/clients/**/*.test.ts', 'test/evaluators/pii-lazy.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // The longest files first, by the committed figures of a whole run (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // `npm run bench:suite` records each file's CPU seconds (bench/suite.ts); a plain run loads nothing.
    setupFiles: process.env.SPYGLASS_FILE_CPU_LOG ? ['test/support/file-cpu.ts'] : [],
    pool: 'forks',
    poolOptions: {
      forks: {
        // Two cores: more workers only add PGlite instances competing for them.
        maxForks: 2,
        minForks: 1,
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
    // Without Chromium (`CHROMIUM_PATH=/nonexistent npx vitest run`) the browser tests are skipped,
    // except in CI, which then refuses to run (test/support/global-setup.ts).
    projects: [
      // The server's files and the browser files in one project, sharing each worker's modules,
      // app and Chromium: vitest runs a project's files to the last before it starts the next
      // project's in new workers, so with two projects one worker waited for the other's last
      // file, and both then loaded their modules and started their app again. A page drawing under load takes more than expect.poll's default
      // second to show what it will show: a poll fails only after 15 s (a wrong value still
      // fails, later).
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED_TESTS, expect: { poll: { timeout: 15_000 } } } },
      // Worker threads, each file in a fresh one: the forks above keep their modules.
      // @langwatch/scenario's build imports @elevenlabs/elevenlabs-js paths without extensions: it loads only when vitest transforms both.
      { extends: true, test: { name: 'isolated', include: ISOLATED_TESTS, pool: 'threads', server: { deps: { inline: ['@langwatch/scenario', '@elevenlabs/elevenlabs-js'] } } } },
    ],
  },
});
