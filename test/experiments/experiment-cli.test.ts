import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { runCliInProcess, useTmpDirs } from '../support/server-process.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const tmpDir = useTmpDirs();

/**
 * `spyglass experiment check` against a real server, with runs logged through log_results as
 * an SDK logs them: the summary, the JUnit file and every exit code (docs/experiments.md).
 */
describe.each(appDatabaseKinds)('spyglass experiment (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const cli = (args: string[], env: Record<string, string> = { SPYGLASS_API_KEY: p.key }, onStderr?: (text: string) => void) =>
    runCliInProcess(['experiment', ...args, '--server', p.t.baseUrl], { HOME: tmpDir(), ...env }, { timeoutMs: 120_000, onStderr });

  /**
   * Logs a run of 40 rows as an SDK does; `rows` picks which (default all), `end` how its
   * timestamps end it (none: the run is still running).
   */
  async function logRun(runId: string, passes: (i: number) => boolean, createdAt: number, options: { rows?: number[]; end?: 'finished' | 'stopped' | null } = {}) {
    const rows = options.rows ?? Array.from({ length: 40 }, (_, i) => i);
    const end = options.end === undefined ? 'finished' : options.end;
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
        timestamps: {
          created_at: createdAt,
          ...(end === 'finished' ? { finished_at: createdAt + 1000 } : {}),
          ...(end === 'stopped' ? { stopped_at: createdAt + 1000 } : {}),
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const junitOf = (file: string) => {
    const xml = fs.readFileSync(file, 'utf8');
    const gates = /<testsuite name="[^"]*: gates"[^>]*>([\s\S]*?)<\/testsuite>/.exec(xml)?.[1] ?? '';
    return { xml, gates, failures: xml.match(/<failure /g)?.length ?? 0, errors: xml.match(/<error /g)?.length ?? 0, gateCases: gates.match(/<testcase /g)?.length ?? 0 };
  };

  it('check: summary, JUnit XML (a case per gate, rows apart) and exit codes for --fail-under and --no-regression-vs', async () => {
    await logRun('good', (i) => i % 10 !== 0, T0); // 90% pass
    await logRun('bad', (i) => i % 10 < 3, T0 + 1000); // 30% pass
    expect((await p.t.request('PUT', '/api/experiments/cli-exp/baseline', { authToken: p.key, body: { runId: 'good' } })).status).toBe(200);
    const junit = path.join(tmpDir(), 'report.xml');

    const ok = await cli(['check', 'cli-exp', '--run', 'good', '--fail-under', 'pass_rate:exact=0.85', '--fail-under', 'score:judge=50%', '--junit', junit]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.stdout).toContain('run good of cli-exp: completed');
    expect(ok.stdout).toMatch(/exact\s+90\.0% \[/);
    expect(ok.stdout).toContain(`/p/${p.t.creds.project.id}/experiments/cli-exp?runId=good`);
    // A gate that holds: its JUnit fails nothing, though 4 rows failed and one erred.
    const passing = junitOf(junit);
    expect(passing.failures).toBe(0);
    expect(passing.errors).toBe(0);
    expect(passing.gateCases).toBe(3); // the run completed, and the two --fail-under gates
    expect(passing.xml).toContain('<testsuite name="run good of cli-exp: gates" tests="3" failures="0" errors="0" skipped="0">');
    expect(passing.xml).toContain('<testcase classname="cli-exp.gates" name="pass_rate:exact=0.85" time="0"></testcase>');
    // The rows: 40 rows x 2 evaluators, in a suite of their own, failed results told, not failed.
    expect(passing.xml).toContain('<testsuite name="run good of cli-exp: rows" tests="80" failures="0" errors="0" skipped="0">');
    expect(passing.xml).toContain('classname="cli-exp.exact" name="row 0" time="0.100"><system-out>failed: score 0</system-out>');
    expect(passing.xml).toContain('<system-out>error: provider &amp; &quot;quota&quot;</system-out>');

    // Asked for, rows fail and err as results did (the build then fails on them).
    const strict = await cli(['check', 'cli-exp', '--run', 'good', '--junit', junit, '--junit-row-failures']);
    expect(strict.code, strict.out).toBe(0);
    expect(junitOf(junit).xml).toContain('<testsuite name="run good of cli-exp: rows" tests="80" failures="4" errors="1" skipped="0">');
    expect(junitOf(junit).xml).toContain('<error message="provider &amp; &quot;quota&quot;"/>');

    // Two of three gates fail: exactly two failures in the JUnit, one per failed gate.
    const twoFail = await cli(['check', 'cli-exp', '--run', 'bad', '--fail-under', 'pass_rate:exact=0.9', '--fail-under', 'score:judge=0.4', '--no-regression-vs', 'good', '--junit', junit]);
    expect(twoFail.code, twoFail.out).toBe(1);
    const failing = junitOf(junit);
    expect(failing.failures).toBe(2);
    expect(failing.errors).toBe(0);
    expect(failing.gates).toMatch(/name="pass_rate:exact=0\.9" time="0"><failure message="pass_rate:exact=0\.9: 30\.0% is below 90\.0%"\/>/);
    expect(failing.gates).toMatch(/name="no regression vs good" time="0"><failure message="--no-regression-vs good: exact is worse than run good of cli-exp"\/>/);
    expect(failing.gates).toContain('name="score:judge=0.4" time="0"></testcase>');

    const under = await cli(['check', 'cli-exp', '--run', 'bad', '--fail-under', 'pass_rate=0.9']);
    expect(under.code, under.out).toBe(1);
    expect(under.stderr).toMatch(/FAILED pass_rate=0\.9: \d+\.\d% is below 90\.0%/);

    const regressed = await cli(['check', 'cli-exp', '--run', 'bad', '--no-regression-vs', 'baseline']);
    expect(regressed.code, regressed.out).toBe(1);
    expect(regressed.stdout).toMatch(/against run good of cli-exp \(40 shared rows; verdicts corrected for 2 evaluators compared \(Holm\)\):\n {2}exact: worse pass rate -0\.600 \[/);
    expect(regressed.stdout).toContain('judge: no detectable difference');
    expect(regressed.stderr).toContain('FAILED --no-regression-vs baseline: exact is worse than run good of cli-exp');

    const better = await cli(['check', 'cli-exp', '--run', 'good', '--no-regression-vs', 'bad']);
    expect(better.code, better.out).toBe(0);
    expect(better.stdout).toContain('exact: better');
  }, 600_000);

  it('--no-regression-vs on thin data fails as "not enough data" with the rows needed, unless --allow-inconclusive; several evaluators are said to be Holm-corrected', async () => {
    await logRun('few-a', () => true, T0, { rows: [0, 1, 2, 3, 4] });
    await logRun('few-b', (i) => i !== 2, T0 + 1000, { rows: [0, 1, 2, 3, 4] });
    const thin = await cli(['check', 'cli-exp', '--run', 'few-b', '--no-regression-vs', 'few-a']);
    expect(thin.code, thin.out).toBe(1);
    expect(thin.stdout).toMatch(/exact: not enough data \(5 shared rows, 20 needed\)/);
    expect(thin.stderr).toContain('FAILED --no-regression-vs few-a: not enough data for exact, judge against run few-a of cli-exp (--allow-inconclusive lets it hold)');

    const allowed = await cli(['check', 'cli-exp', '--run', 'few-b', '--no-regression-vs', 'few-a', '--allow-inconclusive']);
    expect(allowed.code, allowed.out).toBe(0);
    expect(allowed.stderr).toContain('not enough data for exact, judge: held anyway (--allow-inconclusive)');

    // 40 rows: enough; two evaluators with a testable difference, so the verdicts are corrected for two.
    await logRun('full-a', (i) => i % 10 !== 0, T0 + 2000);
    await logRun('full-b', (i) => i % 10 < 3, T0 + 3000);
    const full = await cli(['check', 'cli-exp', '--run', 'full-b', '--no-regression-vs', 'full-a']);
    expect(full.code, full.out).toBe(1);
    expect(full.stdout).toContain("against run full-a of cli-exp (40 shared rows; verdicts corrected for 2 evaluators compared (Holm)):");
    expect(full.stderr).toContain('exact is worse');
  }, 600_000);

  it('--no-regression-vs on repeated rows: the spread within rows apart from the spread between rows, and the smallest difference the rows could have found', async () => {
    // 30 rows tried 3 times in each run; the scores move from try to try, and the two runs do not differ on the whole.
    const noise = (i: number, r: number) => (((i * 7 + r * 13) % 5) - 2) / 20;
    const logTries = async (runId: string, phase: number, createdAt: number) => {
      const tries = Array.from({ length: 30 }, (_, i) => [0, 1, 2].map((r) => ({ index: i, repetition: r, score: 0.5 + ((i % 6) - 2.5) / 10 + noise(i, r + phase) }))).flat();
      const res = await p.t.request('POST', '/api/evaluations/batch/log_results', {
        authToken: p.key,
        body: {
          experiment_slug: 'cli-rep',
          run_id: runId,
          dataset: tries.map((x) => ({ index: x.index, repetition: x.repetition, entry: { q: `q${x.index}` }, predicted: { output: `a${x.index}` } })),
          evaluations: tries.map((x) => ({ evaluator: 'quality', index: x.index, repetition: x.repetition, status: 'processed', score: x.score })),
          timestamps: { created_at: createdAt, finished_at: createdAt + 1000 },
        },
      });
      expect(res.status, res.text).toBe(200);
    };
    await logTries('rep-a', 0, T0);
    await logTries('rep-b', 1, T0 + 1000);
    const api = await p.t.request('GET', '/api/experiments/cli-rep/compare?runs=rep-b&baseline=rep-a', { authToken: p.key });
    expect(api.status, api.text).toBe(200);
    const ev = api.body.comparisons[0].evaluators[0];
    expect(ev).toMatchObject({ evaluator: 'quality', decidedBy: 'score', verdict: 'no detectable difference', repetitions: { baseline: 3, current: 3, rows: 30 } });

    const out = await cli(['check', 'cli-rep', '--run', 'rep-b', '--no-regression-vs', 'rep-a']);
    expect(out.code, out.out).toBe(0);
    // the verdict with the smallest difference 30 rows could have found, then the tries in words, as the comparison page says them
    expect(out.stdout).toContain(`  quality: no detectable difference score ${ev.score.difference >= 0 ? '+' : ''}${ev.score.difference.toFixed(3)} [${ev.score.low.toFixed(3)}, ${ev.score.high.toFixed(3)}]; could have detected ${ev.score.minimumDetectableEffect.toFixed(3)} or more;`);
    expect(out.stdout).toContain(`\n    repetitions: ${ev.repetitions.summary}\n`);
    expect(ev.repetitions.summary).toMatch(/^Rows were tried 3 times on average in the baseline and 3 in this run; each row's tries were averaged before pairing, so the interval rests on 30 rows/);
    // runs without repetitions say nothing of tries
    await logRun('plain-a', (i) => i % 10 !== 0, T0 + 2000);
    await logRun('plain-b', (i) => i % 10 !== 0, T0 + 3000);
    const plain = await cli(['check', 'cli-exp', '--run', 'plain-b', '--no-regression-vs', 'plain-a']);
    expect(plain.stdout).toContain('exact: no detectable difference');
    expect(plain.stdout).not.toContain('repetitions:');
  }, 600_000);

  it('check waits for a running run to end before it gates: never on the rows logged so far', async () => {
    // One row so far, and it passes: judged now, pass_rate=0.9 would hold.
    await logRun('growing', (i) => i % 2 === 0, T0, { rows: [0], end: null });
    const finishing: Promise<void>[] = [];
    const waited = await cli(['check', 'cli-exp', '--run', 'growing', '--fail-under', 'pass_rate:exact=0.9', '--interval', '100'], undefined, (stderr) => {
      // While the CLI waits, the SDK logs the other 39 rows and ends the run.
      if (!finishing.length && stderr.includes('waiting for run growing of cli-exp to end')) finishing.push(logRun('growing', (i) => i % 2 === 0, T0, { rows: Array.from({ length: 39 }, (_, i) => i + 1) }));
    });
    expect(finishing, waited.out).toHaveLength(1);
    await finishing[0];
    expect(waited.code, waited.out).toBe(1);
    expect(waited.stdout).toContain('run growing of cli-exp: completed');
    expect(waited.stdout).toMatch(/^rows 40,/m);
    expect(waited.stderr).toContain('FAILED pass_rate:exact=0.9: 50.0% is below 90.0%');
  }, 600_000);

  it('a run that does not end within --timeout exits 5 and gates nothing; a stopped run fails unless --allow-incomplete', async () => {
    await logRun('stuck', () => true, T0, { rows: [0, 1], end: null });
    const junit = path.join(tmpDir(), 'timeout.xml');
    const late = await cli(['check', 'cli-exp', '--run', 'stuck', '--fail-under', 'pass_rate=0.5', '--timeout', '1', '--interval', '100', '--junit', junit]);
    expect(late.code, late.out).toBe(5);
    expect(late.stderr).toContain('run stuck of cli-exp did not end within 1 s: nothing was gated');
    expect(late.stdout).not.toContain('rows 2');
    const timedOut = junitOf(junit);
    expect(timedOut.failures).toBe(1);
    expect(timedOut.gates).toContain('name="run completed" time="0"><failure message="run stuck of cli-exp did not end within 1 s: nothing was gated"/>');
    expect(timedOut.gates).toContain('name="pass_rate=0.5" time="0"><skipped message="not checked: the run did not end"/>');

    await logRun('halted', () => true, T0, { rows: [0, 1, 2], end: 'stopped' });
    const stopped = await cli(['check', 'cli-exp', '--run', 'halted', '--fail-under', 'pass_rate=0.5', '--junit', junit]);
    expect(stopped.code, stopped.out).toBe(3);
    expect(stopped.stderr).toContain('FAILED run halted of cli-exp ended stopped, not completed');
    expect(junitOf(junit).failures).toBe(1);
    const allowed = await cli(['check', 'cli-exp', '--run', 'halted', '--fail-under', 'pass_rate=0.5', '--allow-incomplete']);
    expect(allowed.code, allowed.out).toBe(0);
    expect(allowed.stderr).toContain('run halted of cli-exp ended stopped: gating the rows it stored (--allow-incomplete)');
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
