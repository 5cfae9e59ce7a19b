import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { runCli, useTmpDirs } from '../support/server-process.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const tmpDir = useTmpDirs();

/**
 * `spyglass experiment check` against a real server, with runs logged through log_results as
 * an SDK logs them: the summary, the JUnit file and every exit code (docs/experiments.md).
 */
describe.each(databaseKinds)('spyglass experiment (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const cli = (args: string[], env: Record<string, string> = { SPYGLASS_API_KEY: p.key }) =>
    runCli(['experiment', ...args, '--server', p.t.baseUrl], { HOME: tmpDir(), ...env }, { timeoutMs: 120_000 });

  async function logRun(runId: string, passes: (i: number) => boolean, createdAt: number) {
    const rows = Array.from({ length: 40 }, (_, i) => i);
    const res = await p.t.request('POST', '/api/evaluations/batch/log_results', {
      authToken: p.key,
      body: {
        experiment_slug: 'cli-exp',
        run_id: runId,
        dataset: rows.map((i) => ({ index: i, entry: { q: `q${i}` }, predicted: { output: `a${i}` }, duration: 100 + i, cost: 0.001, error: i === 39 ? 'timeout' : null })),
        evaluations: rows.flatMap((i) => [
          { evaluator: 'exact', name: 'Exact <match>', index: i, status: 'processed', score: passes(i) ? 1 : 0, passed: passes(i) },
          { evaluator: 'judge', index: i, status: i === 0 ? 'error' : 'processed', score: 0.5, passed: i === 0 ? null : true, details: i === 0 ? 'provider & "quota"' : null },
        ]),
        timestamps: { created_at: createdAt, finished_at: createdAt + 1000 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  it('check: summary, JUnit XML and exit codes for --fail-under and --no-regression-vs', async () => {
    await logRun('good', (i) => i % 10 !== 0, T0); // 90% pass
    await logRun('bad', (i) => i % 10 < 3, T0 + 1000); // 30% pass
    expect((await p.t.request('PUT', '/api/experiments/cli-exp/baseline', { authToken: p.key, body: { runId: 'good' } })).status).toBe(200);
    const junit = path.join(tmpDir(), 'report.xml');

    const ok = await cli(['check', 'cli-exp', '--run', 'good', '--fail-under', 'pass_rate:exact=0.85', '--fail-under', 'score:judge=50%', '--junit', junit]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.stdout).toContain('cli-exp run good: completed');
    expect(ok.stdout).toMatch(/exact\s+90\.0% \[/);
    expect(ok.stdout).toContain(`/p/${p.t.creds.project.id}/experiments/cli-exp?runId=good`);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(80); // 40 rows x 2 evaluators
    expect(xml).toContain('<testsuite name="cli-exp good exact" tests="40" failures="4" errors="0" skipped="0">');
    expect(xml).toContain('<testsuite name="cli-exp good judge" tests="40" failures="0" errors="1" skipped="0">');
    expect(xml).toContain('<error message="provider &amp; &quot;quota&quot;"/>');
    expect(xml).toContain('classname="cli-exp.exact" name="row 0" time="0.100"><failure');

    const under = await cli(['check', 'cli-exp', '--run', 'bad', '--fail-under', 'pass_rate=0.9']);
    expect(under.code, under.out).toBe(1);
    expect(under.stderr).toMatch(/FAILED pass_rate=0\.9: \d+\.\d% is below 90\.0%/);

    const regressed = await cli(['check', 'cli-exp', '--run', 'bad', '--no-regression-vs', 'baseline']);
    expect(regressed.code, regressed.out).toBe(1);
    expect(regressed.stdout).toMatch(/against good \(40 shared rows\):\n {2}exact: worse pass rate -0\.600 \[/);
    expect(regressed.stdout).toContain('judge: no detectable difference');
    expect(regressed.stderr).toContain('FAILED --no-regression-vs baseline: exact is worse than good');

    const better = await cli(['check', 'cli-exp', '--run', 'good', '--no-regression-vs', 'bad']);
    expect(better.code, better.out).toBe(0);
    expect(better.stdout).toContain('exact: better');
  }, 600_000);

  it('wrong calls exit 2, an unknown experiment, a bad key or a run of an SDK-logged experiment exit 4', async () => {
    const gate = await cli(['check', 'cli-exp', '--run', 'good', '--fail-under', 'speed=3']);
    expect(gate.code, gate.out).toBe(2);
    expect(gate.stderr).toContain('--fail-under speed=3');
    const noRun = await cli(['check', 'cli-exp']);
    expect(noRun.code).toBe(2);
    const noKey = await cli(['check', 'cli-exp', '--run', 'good'], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SPYGLASS_API_KEY');
    const unknown = await cli(['check', 'never', '--run', 'good']);
    expect(unknown.code, unknown.out).toBe(4);
    expect(unknown.stderr).toContain('404');
    const badKey = await cli(['check', 'cli-exp', '--run', 'good'], { SPYGLASS_API_KEY: 'sgp-nope' });
    expect(badKey.code).toBe(4);
    expect(badKey.stderr).toContain('401');
    // An experiment logged by an SDK has nothing the platform can run: 404 from the run route.
    const sdkRun = await cli(['run', 'cli-exp']);
    expect(sdkRun.code, sdkRun.out).toBe(4);
    expect(sdkRun.stderr).toContain('POST /api/experiments/cli-exp/run: 404');
  }, 600_000);
});
