/**
 * The long runs of the robustness tests: the same test files `npm test` runs, at their soak
 * sizes (SPYGLASS_SOAK=1, which only this bench sets): the route fuzz with ~20x more random
 * requests, the collector fuzz with ~15x more random values, five kill-and-restart cycles, and
 * two server processes sharing ten times as many traces, a backup of 3,000 traces of 4 KB taken
 * under ingest, a move of 3,000 traces to PostgreSQL, 1,000 alert rules due in one poll. Each
 * file's pass/fail and wall time.
 */
import { spawnSync } from 'node:child_process';

export const SOAK_FILES = [
  'test/foundation/fuzz.test.ts',
  'test/traces/collector-fuzz.test.ts',
  'test/foundation/crash-safety.test.ts',
  'test/ops/several-processes.test.ts',
  'test/ops/backup.test.ts',
  'test/ops/move-to-postgres.test.ts',
  'test/alerts/many-rules.test.ts',
];

export interface SoakResult {
  file: string;
  passed: boolean;
  seconds: number;
}

export function benchSoak(databaseUrl: string | null): SoakResult[] {
  return SOAK_FILES.map((file) => {
    const started = Date.now();
    const run = spawnSync('npx', ['vitest', 'run', file], {
      env: { ...process.env, SPYGLASS_SOAK: '1', ...(databaseUrl ? { TEST_DATABASE_URL: databaseUrl } : {}) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    return { file, passed: run.status === 0, seconds: (Date.now() - started) / 1000 };
  });
}
