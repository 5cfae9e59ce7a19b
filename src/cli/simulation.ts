import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { runSetResponse, simulationBatchRunsResponse } from '../modules/simulations/schemas.ts';
import { ApiError, client, xml } from './experiment.ts';

/**
 * `spyglass simulation run --set NAME`: runs a scenario set on a Spyglass server as a batch, waits
 * for every run to end, prints a line per run, and exits with the verdicts (docs/simulations.md:
 * "From the command line"). A client of the API, as `spyglass experiment` is: the server from
 * --server (or SPYGLASS_URL), the key from SPYGLASS_API_KEY.
 */

export const SIMULATION_EXIT = {
  ok: 0,
  /** some run's verdict is a failure */
  failed: 1,
  usage: 2,
  /** some run ended as an error (the agent timed out or answered garbage, a model failed) or was cancelled */
  errored: 3,
  /** the server could not be reached, or refused a request (no key, unknown set, ...) */
  api: 4,
  /** the batch did not end within --timeout */
  timedOut: 5,
} as const;

const DEFAULT_TIMEOUT_S = 1800;

export const SIMULATION_USAGE = `usage: spyglass simulation run --set <name> [options]

  run     run every scenario of the set on the server as one batch, wait for the verdicts,
          print a line per run

options:
  --set NAME            the scenario set (required)
  --server URL          the Spyglass server (default: SPYGLASS_URL, else http://127.0.0.1:5560)
  --repeat N            runs of each scenario (1..20, default 1): a scenario run several times gives a rate
  --label TEXT          the agent version under test (shown with the batch, used when comparing batches)
  --user-model M        provider/model playing the user (default openai/gpt-4o-mini)
  --judge-model M       provider/model judging the criteria (default openai/gpt-4o-mini)
  --junit FILE          write JUnit XML: one testcase per run (failure: a failed verdict; error: an error)
  --timeout SECONDS     how long to wait for the batch to end (default ${DEFAULT_TIMEOUT_S})
  --interval MS         how often to poll the batch (default 1000)

The API key comes from SPYGLASS_API_KEY.
Exit codes: 0 every run passed, 1 some run failed its criteria, 2 wrong call, 3 some run ended as
an error (and none is left running), 4 the server could not be reached or refused a request,
5 the batch did not end within --timeout.`;

type Started = z.output<typeof runSetResponse>;
type Run = z.output<typeof simulationBatchRunsResponse>['runs'][number];

const seconds = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

function outcome(r: Run): 'passed' | 'failed' | 'error' | 'running' {
  if (r.finishedAt === null) return 'running';
  if (r.status === 'ERROR' || r.status === 'CANCELLED' || r.results?.error) return 'error';
  return r.results?.verdict === 'success' ? 'passed' : 'failed';
}

/** One line per run: outcome, name, duration, and why it did not pass. */
export function runLine(r: Run): string {
  const o = outcome(r);
  const why = o === 'error' ? ` - ${r.results?.error ?? r.status}` : o === 'failed' ? ` - unmet: ${(r.results?.unmetCriteria ?? []).join('; ') || r.results?.verdict}` : '';
  return `${o.toUpperCase().padEnd(7)} ${r.name ?? r.scenarioId} (${seconds(r.durationMs)}, ${r.messageCount} messages)${why}`;
}

export function simulationJunit(set: string, batchRunId: string, runs: Run[], timedOut: boolean): string {
  const cases = runs.map((r) => {
    const o = outcome(r);
    const inner =
      o === 'error'
        ? `<error message="${xml(r.results?.error ?? r.status)}"/>`
        : o === 'failed'
          ? `<failure message="${xml(`unmet: ${(r.results?.unmetCriteria ?? []).join('; ')}`)}">${xml(r.results?.reasoning ?? '')}</failure>`
          : o === 'running'
            ? `<error message="${xml(timedOut ? 'the run did not end within --timeout' : 'still running')}"/>`
            : '';
    return `    <testcase classname="${xml(`simulations.${set}`)}" name="${xml(r.name ?? r.scenarioId)}" time="${((r.durationMs ?? 0) / 1000).toFixed(3)}">${inner}</testcase>`;
  });
  const failures = runs.filter((r) => outcome(r) === 'failed').length;
  const errors = runs.filter((r) => ['error', 'running'].includes(outcome(r))).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(set)}" tests="${runs.length}" failures="${failures}" errors="${errors}">`,
    `  <testsuite name="${xml(`${set}: batch ${batchRunId}`)}" tests="${runs.length}" failures="${failures}" errors="${errors}" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export async function simulationCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const usage = (message?: string) => {
    if (message) process.stderr.write(`spyglass simulation: ${message}\n`);
    process.stderr.write(SIMULATION_USAGE + '\n');
    return SIMULATION_EXIT.usage;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        set: { type: 'string' },
        server: { type: 'string' },
        repeat: { type: 'string' },
        label: { type: 'string' },
        'user-model': { type: 'string' },
        'judge-model': { type: 'string' },
        junit: { type: 'string' },
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
    process.stdout.write(SIMULATION_USAGE + '\n');
    return SIMULATION_EXIT.ok;
  }
  if (positionals.length !== 1 || positionals[0] !== 'run') return usage();
  if (!values.set) return usage('--set NAME is required');
  const repeat = values.repeat === undefined ? undefined : Number(values.repeat);
  if (repeat !== undefined && !(Number.isInteger(repeat) && repeat >= 1 && repeat <= 20)) return usage('--repeat takes 1..20');
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  const intervalMs = values.interval === undefined ? 1000 : Number(values.interval);
  if (!(timeoutS > 0) || !(intervalMs >= 10)) return usage('--timeout takes seconds (> 0), --interval milliseconds (>= 10)');
  const key = env.SPYGLASS_API_KEY;
  if (!key) {
    process.stderr.write('spyglass simulation: set SPYGLASS_API_KEY to a project API key\n');
    return SIMULATION_EXIT.usage;
  }
  const api = client(values.server ?? env.SPYGLASS_URL ?? 'http://127.0.0.1:5560', key);
  const set = values.set;
  try {
    const started = await api<Started>('POST', `/api/simulations/sets/${encodeURIComponent(set)}/run`, {
      ...(repeat !== undefined ? { repeat } : {}),
      ...(values.label ? { label: values.label } : {}),
      ...(values['user-model'] ? { userModel: values['user-model'] } : {}),
      ...(values['judge-model'] ? { judgeModel: values['judge-model'] } : {}),
    });
    process.stderr.write(`started batch ${started.batchRunId} of ${set}: ${started.runs.length} runs\n${started.batchUrl}\n`);
    const deadline = Date.now() + timeoutS * 1000;
    let runs: Run[];
    const printed = new Set<string>();
    for (;;) {
      runs = (await api<{ runs: Run[] }>('GET', `/api/simulations/batches/${encodeURIComponent(started.batchRunId)}/runs`)).runs;
      for (const r of runs) {
        if (r.finishedAt === null || printed.has(r.scenarioRunId)) continue;
        printed.add(r.scenarioRunId);
        process.stdout.write(runLine(r) + '\n');
      }
      if (runs.every((r) => r.finishedAt !== null) || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(10, deadline - Date.now()))));
    }
    const timedOut = runs.some((r) => r.finishedAt === null);
    for (const r of runs) if (r.finishedAt === null) process.stdout.write(runLine(r) + '\n');
    const count = (o: ReturnType<typeof outcome>) => runs.filter((r) => outcome(r) === o).length;
    process.stdout.write(`${set}: ${count('passed')} passed, ${count('failed')} failed, ${count('error')} errors${timedOut ? `, ${count('running')} still running` : ''} of ${runs.length}\n`);
    if (values.junit) {
      fs.writeFileSync(values.junit, simulationJunit(set, started.batchRunId, runs, timedOut));
      process.stdout.write(`JUnit XML: ${values.junit}\n`);
    }
    if (timedOut) {
      process.stderr.write(`batch ${started.batchRunId} did not end within ${timeoutS} s\n`);
      return SIMULATION_EXIT.timedOut;
    }
    if (count('error')) return SIMULATION_EXIT.errored;
    return count('failed') ? SIMULATION_EXIT.failed : SIMULATION_EXIT.ok;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    process.stderr.write(`spyglass simulation: ${err.message}\n`);
    return SIMULATION_EXIT.api;
  }
}
