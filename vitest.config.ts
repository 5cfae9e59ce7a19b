import { defineConfig } from 'vitest/config';

/** The files that drive Chromium through the web app. */
const BROWSER_TESTS = ['test/e2e/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    poolOptions: {
      forks: {
        // Two cores: more workers only add PGlite instances competing for them.
        maxForks: 2,
        minForks: 1,
        // A worker runs file after file in one process: the modules are loaded once (about 8 s
        // per file otherwise) and startApp's shared app serves every file, each in an
        // organization of its own (test/support/harness.ts). No test mocks modules or changes
        // the environment, so nothing carries from one file to the next.
        isolate: false,
      },
    },
    // Generous: password hashing (scrypt, 128 MiB) and Chromium slow down tenfold when the
    // two cores are shared; a hang still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // `npx vitest run --project server` leaves out the browser tests (and Chromium).
    projects: [
      { extends: true, test: { name: 'server', include: ['test/**/*.test.ts'], exclude: BROWSER_TESTS } },
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS } },
    ],
  },
});
