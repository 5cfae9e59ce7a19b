import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: more workers only add PGlite instances competing for them.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Generous: password hashing (scrypt, 128 MiB) and Chromium slow down tenfold when the
    // two cores are shared; a hang still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
