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
  /** the run failed, was stopped, or did not end within --timeout */
  runDidNotComplete: 3,
  /** the server could not be reached, or refused a request (no key, unknown experiment, ...) */
  api: 4,
} as const;

type Summary = z.output<typeof runSummaryResponse>;
type Comparison = z.output<typeof compareResponse>;
type Status = z.output<typeof runStatusResponse>;
type RowsPage = z.output<typeof runRowsResponse>;

export const EXPERIMENT_OPTIONS = `options:
  --server URL               the Spyglass server (default: SPYGLASS_URL, else http://127.0.0.1:5560)
  --junit FILE               write JUnit XML: one testcase per row and evaluator
  --fail-under GATE          fail (exit 1) when a pass rate or mean score is below a bound; repeatable:
                               pass_rate=0.9              every evaluator's results together
                               pass_rate:<evaluator>=0.9  one evaluator
                               score:<evaluator>=0.7      one evaluator's mean score
                             (bounds are 0..1, or a percentage such as 90%)
  --no-regression-vs RUN     fail (exit 1) when any evaluator is "worse" than RUN (a run id, or
                             \`baseline\`: the experiment's marked baseline run)
  --lower-is-better EVALS    comma-separated evaluators whose lower scores are better
  --timeout SECONDS          give up waiting for the run (default 3600)
  --interval MS              how often to poll the run's status (default 1000)

The API key comes from SPYGLASS_API_KEY.
Exit codes: 0 all gates held, 1 a gate failed, 2 wrong call, 3 the run failed, was stopped or
timed out, 4 the server could not be reached or refused a request.`;

export const EXPERIMENT_USAGE = `usage: spyglass experiment run <experiment-slug> [options]
       spyglass experiment check <experiment-slug> --run <run-id> [options]

  run     start a platform run of the experiment, follow it to its end, print its summary
  check   the same report and gates for a run that exists (one logged by an SDK, say)

${EXPERIMENT_OPTIONS}`;

class ApiError extends Error {}

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

function client(server: string, key: string) {
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
const xml = (s: string) =>
  [...s]
    .filter((ch) => !xmlInvalid(ch.codePointAt(0)!))
    .join('').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** JUnit XML: a testsuite per evaluator, a testcase per row (and target); failed results fail, errors error, skipped skip. */
export function junitXml(slug: string, runId: string, rows: RowsPage['rows'], evaluators: string[]): string {
  const suites = evaluators.map((evaluator) => {
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    const cases = rows.map((r) => {
      const e = r.evaluations[evaluator] as RowsPage['rows'][number]['evaluations'][string] | undefined;
      const name = `row ${r.index}${r.targetId ? ` (${r.targetId})` : ''}`;
      const time = ((e?.duration ?? r.duration ?? 0) / 1000).toFixed(3);
      let inner = '';
      if (!e) {
        if (r.error) {
          errors++;
          inner = `<error message="${xml(r.error)}"/>`;
        } else {
          skipped++;
          inner = '<skipped message="no result"/>';
        }
      } else if (e.status === 'error') {
        errors++;
        inner = `<error message="${xml(e.details ?? 'evaluator error')}"/>`;
      } else if (e.status === 'skipped') {
        skipped++;
        inner = `<skipped message="${xml(e.details ?? 'skipped')}"/>`;
      } else if (e.passed === false) {
        failures++;
        inner = `<failure message="${xml(`score ${e.score ?? '-'}${e.label ? `, label ${e.label}` : ''}`)}">${xml(e.details ?? '')}</failure>`;
      }
      return `    <testcase classname="${xml(`${slug}.${evaluator}`)}" name="${xml(name)}" time="${time}">${inner}</testcase>`;
    });
    return [
      `  <testsuite name="${xml(`${slug} ${runId} ${evaluator}`)}" tests="${rows.length}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xml(slug)}">`, ...suites, '</testsuites>', ''].join('\n');
}

/** Every gate that failed, in words. */
export function failedGates(s: Summary, gates: Gate[]): string[] {
  const failed: string[] = [];
  for (const g of gates) {
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
    if (value === null) failed.push(`${g.text}: no ${g.kind === 'score' ? 'score' : 'pass/fail result'}${g.evaluator ? ` of ${g.evaluator}` : ''} in this run`);
    else if (value < g.bound) failed.push(`${g.text}: ${g.kind === 'score' ? num(value) : pct(value)} is below ${g.kind === 'score' ? num(g.bound) : pct(g.bound)}`);
  }
  return failed;
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
        'fail-under': { type: 'string', multiple: true },
        'no-regression-vs': { type: 'string' },
        'lower-is-better': { type: 'string' },
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
  const gates: Gate[] = [];
  for (const text of values['fail-under'] ?? []) {
    const gate = parseGate(text);
    if (!gate) return usage(`--fail-under ${text}: expected pass_rate=0.9, pass_rate:<evaluator>=0.9 or score:<evaluator>=0.7 (bounds 0..1 or 0%..100%)`);
    gates.push(gate);
  }
  const timeoutS = values.timeout === undefined ? 3600 : Number(values.timeout);
  const intervalMs = values.interval === undefined ? 1000 : Number(values.interval);
  if (!(timeoutS > 0) || !(intervalMs >= 10)) return usage('--timeout takes seconds (> 0), --interval milliseconds (>= 10)');
  const key = env.SPYGLASS_API_KEY;
  if (!key) {
    process.stderr.write('spyglass experiment: set SPYGLASS_API_KEY to a project API key\n');
    return EXIT.usage;
  }
  const server = values.server ?? env.SPYGLASS_URL ?? 'http://127.0.0.1:5560';
  const api = client(server, key);
  const e = encodeURIComponent;
  try {
    let runId: string;
    let runUrl: string | null = null;
    if (sub === 'run') {
      const started = await api<{ runId: string; total: number; runUrl: string }>('POST', `/api/experiments/${e(slug)}/run`, {});
      runId = started.runId;
      runUrl = started.runUrl;
      process.stderr.write(`started run ${runId} of ${slug} (${started.total} cells)\n`);
      const progress = progressWriter(process.stderr);
      const deadline = Date.now() + timeoutS * 1000;
      let status: Status;
      for (;;) {
        status = await api<Status>('GET', `/api/experiments/runs/${e(runId)}?experimentSlug=${e(slug)}`);
        progress.update(status.progress, status.total);
        if (status.status !== 'running' && status.status !== 'pending') break;
        if (Date.now() > deadline) {
          progress.end();
          process.stderr.write(`run ${runId} did not end within ${timeoutS} s\n`);
          return EXIT.runDidNotComplete;
        }
        await new Promise((r) => setTimeout(r, intervalMs));
      }
      progress.end();
      runUrl = status.summary?.runUrl ?? runUrl;
      if (status.status !== 'completed') {
        process.stderr.write(`run ${runId} ${status.status}${status.error ? `: ${status.error}` : ''}\n`);
        if (runUrl) process.stdout.write(`${runUrl}\n`);
        return EXIT.runDidNotComplete;
      }
    } else {
      runId = values.run!;
      const status = await api<Status>('GET', `/api/experiments/runs/${e(runId)}?experimentSlug=${e(slug)}`);
      runUrl = status.summary?.runUrl ?? null;
    }

    const summary = await api<Summary>('GET', `/api/experiments/${e(slug)}/runs/${e(runId)}/summary`);
    process.stdout.write(`${slug} run ${runId}: ${summary.status}\n${summaryTable(summary)}\n`);

    if (values.junit) {
      const rows: RowsPage['rows'] = [];
      let evaluators: string[] = [];
      for (let page = 1; ; page++) {
        const p = await api<RowsPage>('GET', `/api/experiments/${e(slug)}/runs/${e(runId)}/rows?page=${page}&pageSize=200`);
        rows.push(...p.rows);
        evaluators = p.evaluators.map((x) => x.evaluator);
        if (!p.pagination.hasMore) break;
      }
      fs.writeFileSync(values.junit, junitXml(slug, runId, rows, evaluators));
      process.stdout.write(`JUnit XML: ${values.junit}\n`);
    }

    const failures = failedGates(summary, gates);
    const against = values['no-regression-vs'];
    if (against !== undefined) {
      const query = against === 'baseline' ? `runs=${e(runId)}` : `runs=${e(runId)}&baseline=${e(against)}`;
      const lower = values['lower-is-better'] ? `&lowerIsBetter=${e(values['lower-is-better'])}` : '';
      if (against === 'baseline') {
        const { baselineRunId } = await api<{ baselineRunId: string | null }>('GET', `/api/experiments/${e(slug)}/baseline`);
        if (baselineRunId === null) throw new ApiError(`--no-regression-vs baseline: experiment ${slug} has no baseline run; mark one with PUT /api/experiments/${slug}/baseline`);
      }
      const comparison = await api<Comparison>('GET', `/api/experiments/${e(slug)}/compare?${query}${lower}`);
      const c = comparison.comparisons.find((x) => x.runId === runId);
      if (!c) process.stdout.write(`\nrun ${runId} is the baseline: nothing to compare\n`);
      else {
        process.stdout.write(`\nagainst ${comparison.baselineRunId} (${c.sharedRows} shared rows):\n`);
        for (const ev of c.evaluators) {
          const d = ev.decidedBy === 'passRate' ? ev.passRate : ev.decidedBy === 'score' ? ev.score : null;
          const shown = d ? ` ${ev.decidedBy === 'passRate' ? 'pass rate' : 'score'} ${d.difference >= 0 ? '+' : ''}${num(d.difference)} [${num(d.low)}, ${num(d.high)}]` : '';
          process.stdout.write(`  ${ev.evaluator}: ${ev.verdict}${shown}; ${ev.regressions} regressed, ${ev.improvements} improved\n`);
          if (ev.verdict === 'worse') failures.push(`--no-regression-vs ${against}: ${ev.evaluator} is worse than ${comparison.baselineRunId}`);
        }
      }
    }
    if (runUrl) process.stdout.write(`\n${runUrl}\n`);
    if (failures.length) {
      process.stderr.write(failures.map((f) => `FAILED ${f}`).join('\n') + '\n');
      return EXIT.gate;
    }
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    process.stderr.write(`spyglass experiment: ${err.message}\n`);
    return EXIT.api;
  }
}
