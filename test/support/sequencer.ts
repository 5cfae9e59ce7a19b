import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Where the figures are kept, from the project's root: how long each test file held its worker in a whole run (seconds, loading the file included):
 * written by `SPYGLASS_WRITE_FILE_SECONDS=1 npm run bench:suite` (bench/suite.ts).
 */
export const FILE_SECONDS = 'test/support/file-seconds.json';

/**
 * The longest files first. A worker takes the next file in this order when it is free, so the
 * run ends on short files in both workers instead of one worker finishing a long one alone while
 * the other waits. Vitest's own order needs the durations of an earlier run on this checkout (a
 * fresh clone, as in CI, has none, and runs the biggest files first); this order comes from
 * the committed figures. A file missing from them (a new one) goes first, as vitest runs
 * unknown files first; ties keep vitest's order.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const file = path.join(root, FILE_SECONDS);
    const seconds: Record<string, number> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
    const weight = (spec: TestSpecification) => seconds[path.relative(root, spec.moduleId)] ?? Infinity;
    return sorted
      .map((spec, i) => ({ spec, i, w: weight(spec) }))
      .sort((a, b) => (a.w === b.w ? a.i - b.i : b.w - a.w))
      .map(({ spec }) => spec);
  }
}
