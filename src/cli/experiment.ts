import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { compareResponse, runRowsResponse, runStatusResponse, runSummaryResponse } from '../modules/experiments/schemas.ts';

/**
 * `spyglass experiment run|check`: a client of a Spyglass server's API (docs/experiments.md:
 * "From the command line"), for CI. It opens no database and reads no server configuration:
 * the server from --server (or SPYGLASS_URL), the key from SPYGLASS_API_KEY.
 */

export const EXIT = {
  ok: 0,
  /** a --fail-under or --no-regression-vs gate failed */
  gate: 1,
  usage: 2,
  /** the run ended stopped or failed (and --allow-incomplete was not given) */
  runDidNotComplete: 3,
  /** the server could not be reached, or refused a request (no key, unknown experiment, ...) */
  api: 4,
  /** the run did not end within --timeout: nothing was gated */
  timedOut: 5,
} as const;

/** How long the CLI waits for a run to end: under the hour after which CI services commonly kill a job, so the CLI says why first. */
const DEFAULT_TIMEOUT_S = 1800;

type Summary = z.output<typeof runSummaryResponse>;
type Comparison = z.output<typeof compareResponse>;
type Status = z.output<typeof runStatusResponse>;
type RowsPage = z.output<typeof runRowsResponse>;

export const EXPERIMENT_OPTIONS = `options:
  --server URL               the Spyglass server (default: SPYGLASS_URL, else http://127.0.0.1:5560)
  --junit FILE               write JUnit XML: a suite of the gates (one testcase each: they decide
                             the build) and a suite of the rows (a testcase per row and evaluator,
                             never a failure unless --junit-row-failures)
  --junit-row-failures       write failed and erroring rows as <failure> and <error> too
  --fail-under GATE          fail (exit 1) when a pass rate or mean score is below a bound; repeatable:
                               pass_rate=0.9              every evaluator's results together
                               pass_rate:<evaluator>=0.9  one evaluator
                               score:<evaluator>=0.7      one evaluator's mean score
                             (bounds are 0..1, or a percentage such as 90%)
  --no-regression-vs RUN     fail (exit 1) when any evaluator is "worse" than RUN (a run id, or
                             \`baseline\`: the experiment's marked baseline run)
  --lower-is-better EVALS    comma-separated evaluators whose lower scores are better
  --require-trusted JUDGE=CONFIG
                             fail (exit 1) unless the judge (an evaluator id, custom/<slug>@<version>
                             for one version) is trusted against the human score config CONFIG
                             by the project's rule (docs/judge-alignment.md); repeatable
  --allow-inconclusive       let --no-regression-vs hold when an evaluator has "not enough data"
                             (too few shared rows, or no spread); without it such a gate fails
  --allow-incomplete         gate a run that ended stopped or failed on the rows it stored
                             (without it, such a run fails: exit 3)
  --timeout SECONDS          how long to wait for the run to end before gating (default ${DEFAULT_TIMEOUT_S})
  --interval MS              how often to poll the run's status (default 1000)

Both commands wait for the run to end: gates never judge a run still running.
The API key comes from SPYGLASS_API_KEY.
Exit codes: 0 all gates held, 1 a gate failed, 2 wrong call, 3 the run ended stopped or failed,
4 the server could not be reached or refused a request, 5 the run did not end within --timeout.`;

export const EXPERIMENT_USAGE = `usage: spyglass experiment run <experiment-slug> [options]
       spyglass experiment check <experiment-slug> --run <run-id> [options]

  run     start a platform run of the experiment, follow it to its end, print its summary
  check   wait for a run that exists (one logged by an SDK, say) to end; the same report and gates

${EXPERIMENT_OPTIONS}`;

export class ApiError extends Error {}

interface Gate {
  kind: 'pass_rate' | 'score';
  evaluator: string | null;
  bound: number;
  text: string;
}

/** `pass_rate=0.9`, `pass_rate:<evaluator>=0.9`, `score:<evaluator>=0.7`; a bound may be a percentage. */
export function parseGate(text: string): Gate | null {
  const m = /^(pass_rate|score)(?::(.+))?=([0-9.]+)(%?)$/.exec(text.trim());
  if (!m) return null;
  const bound = Number(m[3]) / (m[4] ? 100 : 1);
  if (!Number.isFinite(bound) || bound < 0 || bound > 1) return null;
  const kind = m[1] as Gate['kind'];
  if (kind === 'score' && !m[2]) return null;
  return { kind, evaluator: m[2] ?? null, bound, text: text.trim() };
}

export function client(server: string, key: string) {
  const base = server.replace(/\/$/, '');
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'x-auth-token': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(`cannot reach ${base}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
        message = typeof parsed.error === 'object' ? (parsed.error.message ?? text) : (parsed.error ?? parsed.message ?? text);
      } catch {
        /* not JSON */
      }
      throw new ApiError(`${method} ${path}: ${res.status} ${message}`);
    }
    return JSON.parse(text) as T;
  };
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null | undefined, digits = 3) => (x === null || x === undefined ? '-' : x.toFixed(digits));

/** The summary as a plain table: one line per evaluator. */
export function summaryTable(s: Summary): string {
  const head = ['evaluator', 'pass rate [95% CI]', 'mean score [95% CI]', 'passed', 'failed', 'p50 ms', 'cost'];
  const lines = s.overall.evaluators.map((e) => [
    e.evaluator,
    e.passRate ? `${pct(e.passRate.value)} [${pct(e.passRate.low)}, ${pct(e.passRate.high)}]` : '-',
    e.score ? `${num(e.score.value)} [${num(e.score.low)}, ${num(e.score.high)}]` : '-',
    String(e.passed),
    String(e.failed),
    num(e.latency.p50?.value, 0),
    e.cost ? `$${num(e.cost.value, 4)}` : '-',
  ]);
  const o = s.overall;
  const rowsLine = `rows ${o.rows}, errors ${o.errors}, latency p50 ${num(o.latency.p50?.value, 0)} ms / p95 ${num(o.latency.p95?.value, 0)} ms, cost ${o.cost ? `$${num(o.cost.value, 4)}` : '-'}`;
  const all = [head, ...lines];
  const widths = head.map((_, i) => Math.max(...all.map((l) => l[i].length)));
  const fmt = (l: string[]) => l.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [rowsLine, '', fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

/** XML 1.0 forbids most control characters even escaped: they are dropped. */
const xmlInvalid = (c: number) => (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffe || c === 0xffff;
export const xml = (s: string) =>
  [...s]
    .filter((ch) => !xmlInvalid(ch.codePointAt(0)!))
    .join('').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/**
 * A run as every message and report names it: by its readable name once the server has told
 * it (the first status read), with the id beside it when they differ, since ids are what the
 * flags take.
 */
export interface RunRef {
  slug: string;
  runId: string;
  name?: string;
}
export const runLabel = (r: RunRef) => (r.name && r.name !== r.runId ? `run "${r.name}" (${r.runId}) of ${r.slug}` : `run ${r.runId} of ${r.slug}`);

/** One gate's outcome: a testcase of the JUnit gates suite, a `FAILED` line when it failed. */
export interface GateResult {
  name: string;
  /** why it failed; null: it held */
  failure: string | null;
  /** not checked (the run did not end): why */
  skipped?: string;
}

type Row = RowsPage['rows'][number];

/**
 * A row's testcase body. Rows are a report, not the verdict: unless `rowFailures`, a failed or
 * erroring result is told in <system-out> (JUnit readers count only <failure> and <error>
 * against the build); skipped results are <skipped> either way.
 */
function rowCase(r: Row, evaluator: string, rowFailures: boolean): { inner: string; failed: boolean; errored: boolean; skipped: boolean } {
  const e = r.evaluations[evaluator] as Row['evaluations'][string] | undefined;
  const note = (what: string) => `<system-out>${xml(what)}</system-out>`;
  if (!e && !r.error) return { inner: '<skipped message="no result"/>', failed: false, errored: false, skipped: true };
  if (e?.status === 'skipped') return { inner: `<skipped message="${xml(e.details ?? 'skipped')}"/>`, failed: false, errored: false, skipped: true };
  if (!e || e.status === 'error') {
    const message = e ? (e.details ?? 'evaluator error') : r.error!;
    return { inner: rowFailures ? `<error message="${xml(message)}"/>` : note(`error: ${message}`), failed: false, errored: rowFailures, skipped: false };
  }
  if (e.passed === false) {
    const message = `score ${e.score ?? '-'}${e.label ? `, label ${e.label}` : ''}`;
    return {
      inner: rowFailures ? `<failure message="${xml(message)}">${xml(e.details ?? '')}</failure>` : note(`failed: ${message}${e.details ? `\n${e.details}` : ''}`),
      failed: rowFailures,
      errored: false,
      skipped: false,
    };
  }
  return { inner: '', failed: false, errored: false, skipped: false };
}

/**
 * JUnit XML: a suite of the gates (a testcase per gate; theirs are the only failures, so the
 * file fails a build exactly when the exit code does) and, when the run ended, a suite of the
 * rows (a testcase per row, target and evaluator) that fails nothing unless `rowFailures`.
 */
export function junitXml(run: RunRef, gates: GateResult[], rows: { rows: Row[]; evaluators: string[] } | null, rowFailures = false): string {
  const gateFailures = gates.filter((g) => g.failure !== null).length;
  const gateSkipped = gates.filter((g) => g.skipped !== undefined).length;
  const gateCases = gates.map((g) => {
    const inner = g.failure !== null ? `<failure message="${xml(g.failure)}"/>` : g.skipped !== undefined ? `<skipped message="${xml(g.skipped)}"/>` : '';
    return `    <testcase classname="${xml(`${run.slug}.gates`)}" name="${xml(g.name)}" time="0">${inner}</testcase>`;
  });
  const suites = [
    `  <testsuite name="${xml(`${runLabel(run)}: gates`)}" tests="${gates.length}" failures="${gateFailures}" errors="0" skipped="${gateSkipped}">`,
    ...gateCases,
    '  </testsuite>',
  ];
  let failures = gateFailures;
  let errors = 0;
  let tests = gates.length;
  if (rows) {
    let rowFailed = 0;
    let rowErrors = 0;
    let rowSkipped = 0;
    const cases = rows.evaluators.flatMap((evaluator) =>
      rows.rows.map((r) => {
        const c = rowCase(r, evaluator, rowFailures);
        if (c.failed) rowFailed++;
        if (c.errored) rowErrors++;
        if (c.skipped) rowSkipped++;
        const time = (((r.evaluations[evaluator] as Row['evaluations'][string] | undefined)?.duration ?? r.duration ?? 0) / 1000).toFixed(3);
        return `    <testcase classname="${xml(`${run.slug}.${evaluator}`)}" name="${xml(`row ${r.index}${r.targetId ? ` (${r.targetId})` : ''}`)}" time="${time}">${c.inner}</testcase>`;
      }),
    );
    suites.push(
      `  <testsuite name="${xml(`${runLabel(run)}: rows`)}" tests="${cases.length}" failures="${rowFailed}" errors="${rowErrors}" skipped="${rowSkipped}">`,
      ...cases,
      '  </testsuite>',
    );
    failures += rowFailed;
    errors += rowErrors;
    tests += cases.length;
  }
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xml(run.slug)}" tests="${tests}" failures="${failures}" errors="${errors}">`, ...suites, '</testsuites>', ''].join('\n');
}

/** Each --fail-under gate on a run's summary: held, or why not. */
export function checkGates(s: Summary, gates: Gate[]): GateResult[] {
  return gates.map((g) => {
    let value: number | null;
    if (g.evaluator === null) {
      let k = 0;
      let n = 0;
      for (const e of s.overall.evaluators) {
        if (e.passRate) {
          k += e.passRate.value * e.passRate.n;
          n += e.passRate.n;
        }
      }
      value = n ? k / n : null;
    } else {
      const e = s.overall.evaluators.find((x) => x.evaluator === g.evaluator);
      value = (g.kind === 'pass_rate' ? e?.passRate?.value : e?.score?.value) ?? null;
    }
    const shown = (x: number) => (g.kind === 'score' ? num(x) : pct(x));
    if (value === null) return { name: g.text, failure: `${g.text}: no ${g.kind === 'score' ? 'score' : 'pass/fail result'}${g.evaluator ? ` of ${g.evaluator}` : ''} in this run` };
    if (value < g.bound) return { name: g.text, failure: `${g.text}: ${shown(value)} is below ${shown(g.bound)}` };
    return { name: g.text, failure: null };
  });
}

/** The gate every check has: the run completed (or, with --allow-incomplete, merely ended). */
function completionGate(run: RunRef, status: Status, allowIncomplete: boolean): GateResult {
  if (allowIncomplete) return { name: 'run ended (--allow-incomplete)', failure: null };
  if (status.status === 'completed') return { name: 'run completed', failure: null };
  return { name: 'run completed', failure: `${runLabel(run)} ended ${status.status}${status.error ? ` (${status.error})` : ''}, not completed: its rows may not all be there (--allow-incomplete gates them anyway)` };
}

/** The progress line: a bar on a terminal, plain lines otherwise. */
function progressWriter(out: NodeJS.WriteStream) {
  let last = '';
  return {
    update(done: number, total: number) {
      if (out.isTTY) {
        const width = 30;
        const filled = total ? Math.round((width * Math.min(done, total)) / total) : 0;
        out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} cells`);
        return;
      }
      const line = `progress ${done}/${total}`;
      if (line !== last) out.write(`${line}\n`);
      last = line;
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
  };
}

const e = encodeURIComponent;

/**
 * Polls the run's status until it ends (completed, stopped or failed), showing progress on
 * stderr while it runs; null when `timeoutS` passed first.
 */
async function awaitEnd(api: ReturnType<typeof client>, run: RunRef, timeoutS: number, intervalMs: number): Promise<Status | null> {
  const deadline = Date.now() + timeoutS * 1000;
  const progress = progressWriter(process.stderr);
  let waited = false;
  for (;;) {
    const status = await api<Status>('GET', `/api/experiments/runs/${e(run.runId)}?experimentSlug=${e(run.slug)}`);
    run.name ??= status.name;
    const running = status.status === 'running' || status.status === 'pending';
    if (running && !waited) process.stderr.write(`waiting for ${runLabel(run)} to end (up to ${timeoutS} s)\n`);
    if (running || waited) progress.update(status.progress, status.total);
    if (!running) {
      if (waited) progress.end();
      return status;
    }
    waited = true;
    if (Date.now() > deadline) {
      progress.end();
      return null;
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(10, deadline - Date.now() + 1))));
  }
}

export async function experimentCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const usage = (message?: string) => {
    if (message) process.stderr.write(`spyglass experiment: ${message}\n`);
    process.stderr.write(EXPERIMENT_USAGE + '\n');
    return EXIT.usage;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        server: { type: 'string' },
        run: { type: 'string' },
        junit: { type: 'string' },
        'junit-row-failures': { type: 'boolean' },
        'fail-under': { type: 'string', multiple: true },
        'no-regression-vs': { type: 'string' },
        'lower-is-better': { type: 'string' },
        'allow-incomplete': { type: 'boolean' },
        'allow-inconclusive': { type: 'boolean' },
        'require-trusted': { type: 'string', multiple: true },
        timeout: { type: 'string' },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(EXPERIMENT_USAGE + '\n');
    return EXIT.ok;
  }
  const [sub, slug, ...extra] = positionals;
  if ((sub !== 'run' && sub !== 'check') || !slug || extra.length) return usage();
  if (sub === 'check' && !values.run) return usage('check needs --run <run-id>');
  if (sub === 'run' && values.run) return usage('--run is for check; run starts a new run');
  if (values['junit-row-failures'] && !values.junit) return usage('--junit-row-failures goes with --junit FILE');
  const gates: Gate[] = [];
  for (const text of values['fail-under'] ?? []) {
    const gate = parseGate(text);
    if (!gate) return usage(`--fail-under ${text}: expected pass_rate=0.9, pass_rate:<evaluator>=0.9 or score:<evaluator>=0.7 (bounds 0..1 or 0%..100%)`);
    gates.push(gate);
  }
  const trustGates: { text: string; evaluator: string; version: string | null; scoreConfig: string }[] = [];
  for (const text of values['require-trusted'] ?? []) {
    const m = /^([^=@]+)(?:@(\d+))?=(.+)$/.exec(text);
    if (!m) return usage(`--require-trusted ${text}: expected <evaluator>=<score-config-id> or custom/<slug>@<version>=<score-config-id>`);
    trustGates.push({ text, evaluator: m[1], version: m[2] ?? null, scoreConfig: m[3] });
  }
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  const intervalMs = values.interval === undefined ? 1000 : Number(values.interval);
  if (!(timeoutS > 0) || !(intervalMs >= 10)) return usage('--timeout takes seconds (> 0), --interval milliseconds (>= 10)');
  const key = env.SPYGLASS_API_KEY;
  if (!key) {
    process.stderr.write('spyglass experiment: set SPYGLASS_API_KEY to a project API key\n');
    return EXIT.usage;
  }
  const server = values.server ?? env.SPYGLASS_URL ?? 'http://127.0.0.1:5560';
  const api = client(server, key);
  const against = values['no-regression-vs'];
  const regressionGate = against === undefined ? null : `no regression vs ${against}`;
  const writeJunit = (run: RunRef, results: GateResult[], rows: Parameters<typeof junitXml>[2]) => {
    if (!values.junit) return;
    fs.writeFileSync(values.junit, junitXml(run, results, rows, values['junit-row-failures']));
    process.stdout.write(`JUnit XML: ${values.junit}\n`);
  };
  try {
    let run: RunRef;
    let runUrl: string | null = null;
    if (sub === 'run') {
      const started = await api<{ runId: string; total: number; runUrl: string }>('POST', `/api/experiments/${e(slug)}/run`, {});
      run = { slug, runId: started.runId };
      runUrl = started.runUrl;
      process.stderr.write(`started ${runLabel(run)} (${started.total} cells)\n`);
    } else {
      run = { slug, runId: values.run! };
    }

    const status = await awaitEnd(api, run, timeoutS, intervalMs);
    if (status === null) {
      const why = `${runLabel(run)} did not end within ${timeoutS} s: nothing was gated`;
      const notChecked = 'not checked: the run did not end';
      writeJunit(
        run,
        [
          { name: 'run completed', failure: why },
          ...gates.map((g) => ({ name: g.text, failure: null, skipped: notChecked })),
          ...(regressionGate ? [{ name: regressionGate, failure: null, skipped: notChecked }] : []),
        ],
        null,
      );
      process.stderr.write(`${why}\n`);
      if (runUrl) process.stdout.write(`${runUrl}\n`);
      return EXIT.timedOut;
    }
    runUrl = status.summary?.runUrl ?? runUrl;
    const completion = completionGate(run, status, values['allow-incomplete'] ?? false);
    if (status.status !== 'completed' && completion.failure === null) process.stderr.write(`${runLabel(run)} ended ${status.status}: gating the rows it stored (--allow-incomplete)\n`);

    const summary = await api<Summary>('GET', `/api/experiments/${e(slug)}/runs/${e(run.runId)}/summary`);
    process.stdout.write(`${runLabel(run)}: ${status.status}\n${summaryTable(summary)}\n`);

    const results = [completion, ...checkGates(summary, gates)];
    if (against !== undefined) {
      const query = against === 'baseline' ? `runs=${e(run.runId)}` : `runs=${e(run.runId)}&baseline=${e(against)}`;
      const lower = values['lower-is-better'] ? `&lowerIsBetter=${e(values['lower-is-better'])}` : '';
      if (against === 'baseline') {
        const { baselineRunId } = await api<{ baselineRunId: string | null }>('GET', `/api/experiments/${e(slug)}/baseline`);
        if (baselineRunId === null) throw new ApiError(`--no-regression-vs baseline: experiment ${slug} has no baseline run; mark one with PUT /api/experiments/${slug}/baseline`);
      }
      const comparison = await api<Comparison>('GET', `/api/experiments/${e(slug)}/compare?${query}${lower}`);
      const c = comparison.comparisons.find((x) => x.runId === run.runId);
      const worse: string[] = [];
      const thin: string[] = [];
      let baseline = '';
      if (!c) process.stdout.write(`\n${runLabel(run)} is the baseline: nothing to compare\n`);
      else {
        baseline = runLabel({ slug, runId: comparison.baselineRunId });
        const holm = c.correction.compared > 1 ? `; verdicts corrected for ${c.correction.compared} evaluators compared (Holm)` : '';
        process.stdout.write(`\nagainst ${baseline} (${c.sharedRows} shared rows${holm}):\n`);
        for (const ev of c.evaluators) {
          const d = ev.decidedBy === 'passRate' ? ev.passRate : ev.decidedBy === 'score' ? ev.score : null;
          const shown = d ? ` ${ev.decidedBy === 'passRate' ? 'pass rate' : 'score'} ${d.difference >= 0 ? '+' : ''}${num(d.difference)} [${num(d.low)}, ${num(d.high)}]` : '';
          const why = d?.notEnoughData ? ` (${d.notEnoughData === 'too few rows' ? `${d.n} shared rows, ${d.rowsNeeded ?? c.minimumRows} needed` : 'every row differs by the same amount'})` : '';
          // no difference found: the smallest one these rows could have found, so a team reads how little "no change" rests on
          const mde = ev.verdict === 'no detectable difference' && d?.minimumDetectableEffect != null ? `; could have detected ${num(d.minimumDetectableEffect)} or more` : '';
          process.stdout.write(`  ${ev.evaluator}: ${ev.verdict}${why}${shown}${mde}; ${ev.regressions} regressed, ${ev.improvements} improved\n`);
          // repeated rows: the spread within rows (the noise) apart from the spread between rows
          if (ev.repetitions) process.stdout.write(`    repetitions: ${ev.repetitions.summary}\n`);
          if (ev.verdict === 'worse') worse.push(ev.evaluator);
          if (ev.verdict === 'not enough data') thin.push(ev.evaluator);
        }
      }
      const inconclusive = thin.length && !values['allow-inconclusive'] ? `--no-regression-vs ${against}: not enough data for ${thin.join(', ')} against ${baseline} (--allow-inconclusive lets it hold)` : null;
      if (thin.length && values['allow-inconclusive']) process.stderr.write(`not enough data for ${thin.join(', ')}: held anyway (--allow-inconclusive)\n`);
      results.push({
        name: regressionGate!,
        failure: worse.length ? `--no-regression-vs ${against}: ${worse.join(', ')} ${worse.length === 1 ? 'is' : 'are'} worse than ${baseline}` : inconclusive,
      });
    }

    for (const g of trustGates) {
      const version = g.version === null ? '' : `&version=${e(g.version)}`;
      const a = await api<{ trust: { state: string; reason: string } }>('GET', `/api/judge-alignment?evaluator=${e(g.evaluator)}&scoreConfig=${e(g.scoreConfig)}${version}`);
      process.stdout.write(`judge ${g.evaluator}${g.version ? ` v${g.version}` : ''}: ${a.trust.state} (${a.trust.reason})\n`);
      results.push({ name: `require trusted ${g.text}`, failure: a.trust.state === 'trusted' ? null : `--require-trusted ${g.text}: the judge is ${a.trust.state}: ${a.trust.reason}` });
    }

    if (values.junit) {
      const rows: Row[] = [];
      let evaluators: string[] = [];
      for (let page = 1; ; page++) {
        const p = await api<RowsPage>('GET', `/api/experiments/${e(slug)}/runs/${e(run.runId)}/rows?page=${page}&pageSize=200`);
        rows.push(...p.rows);
        evaluators = p.evaluators.map((x) => x.evaluator);
        if (!p.pagination.hasMore) break;
      }
      writeJunit(run, results, { rows, evaluators });
    }

    if (runUrl) process.stdout.write(`\n${runUrl}\n`);
    const failed = results.filter((r) => r.failure !== null);
    if (failed.length) process.stderr.write(failed.map((f) => `FAILED ${f.failure}`).join('\n') + '\n');
    if (completion.failure !== null) return EXIT.runDidNotComplete;
    return failed.length ? EXIT.gate : EXIT.ok;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    process.stderr.write(`spyglass experiment: ${err.message}\n`);
    return EXIT.api;
  }
}
