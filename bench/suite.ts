/**
 * `npm run bench:suite [-- <vitest arguments>]`: runs the test suite (the whole of it, or the
 * files and projects given, e.g. `-- --project browser` or `-- test/e2e/privacy.test.ts`) and
 * records where its time goes: per file, the wall time and the CPU seconds its worker spent on
 * it (the test process and the processes it started: Chromium, servers, CLIs), with the tests
 * passed and failed; for the run, its wall time and the CPU of the processes it waited for. Writes
 * bench/results/suite-<date>.json (vitest's JSON report beside it) and prints the slowest files.
 * TEST_DATABASE_URL, CI and the rest of the environment pass through, as `npx vitest run` takes them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface FileCpu {
  file: string;
  pid: number;
  wallS: number;
  userS: number;
  systemS: number;
  childrenS: number;
}

interface JsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; status: string; startTime: number; endTime: number; assertionResults: { status: string }[] }[];
}

/** CPU of this process's children that have ended (and that they waited for), in seconds: /proc/self/stat's cutime + cstime. */
function childrenCpuSeconds(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = path.resolve('bench/results');
fs.mkdirSync(dir, { recursive: true });
const reportFile = path.join(dir, `suite-${stamp}.vitest.json`);
const cpuLog = path.join(os.tmpdir(), `spyglass-suite-cpu-${process.pid}.jsonl`);
fs.rmSync(cpuLog, { force: true });

const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...process.argv.slice(2)];
const loadBefore = os.loadavg();
const cpuBefore = childrenCpuSeconds();
const started = performance.now();
const code = await new Promise<number>((resolve) => {
  const child = spawn('npx', args, { stdio: 'inherit', env: { ...process.env, SPYGLASS_FILE_CPU_LOG: cpuLog } });
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
const wallS = (performance.now() - started) / 1000;
const cpuAfter = childrenCpuSeconds();
const loadAfter = os.loadavg();

const report: JsonReport | null = fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : null;
const cpuByFile = new Map<string, FileCpu>();
if (fs.existsSync(cpuLog)) {
  for (const line of fs.readFileSync(cpuLog, 'utf8').split('\n').filter(Boolean)) {
    const entry = JSON.parse(line) as FileCpu;
    cpuByFile.set(entry.file, entry);
  }
  fs.rmSync(cpuLog, { force: true });
}

const round = (n: number) => Math.round(n * 10) / 10;
const files = (report?.testResults ?? []).map((r) => {
  const file = path.relative(process.cwd(), r.name);
  const cpu = cpuByFile.get(file);
  return {
    file,
    status: r.status,
    tests: r.assertionResults.length,
    failed: r.assertionResults.filter((a) => a.status === 'failed').length,
    // Vitest's own figure for the file (its tests and hooks).
    durationS: round((r.endTime - r.startTime) / 1000),
    workerWallS: cpu ? round(cpu.wallS) : null,
    cpuS: cpu ? round(cpu.userS + cpu.systemS + cpu.childrenS) : null,
    workerCpuS: cpu ? round(cpu.userS + cpu.systemS) : null,
    childrenCpuS: cpu ? round(cpu.childrenS) : null,
  };
});
files.sort((a, b) => (b.cpuS ?? b.durationS) - (a.cpuS ?? a.durationS));

const result = {
  date: new Date().toISOString(),
  command: `npx ${args.join(' ')}`,
  testDatabase: process.env.TEST_DATABASE_URL ? 'pglite,postgres' : 'pglite',
  exitCode: code,
  wallS: round(wallS),
  // Every process of the run that was waited for: vitest, its workers, the servers and CLIs the
  // tests started. A worker's shared Chromium, ended with the worker, may be left out.
  cpuS: cpuBefore !== null && cpuAfter !== null ? round(cpuAfter - cpuBefore) : null,
  // The files' own figures summed (each file's worker and child processes, Chromium included);
  // vitest's main process, the global setup and the workers' start are not in it.
  filesCpuS: round(files.reduce((sum, f) => sum + (f.cpuS ?? 0), 0)),
  loadAverage: { before: loadBefore.map(round), after: loadAfter.map(round) },
  cpus: os.cpus().length,
  tests: report ? { total: report.numTotalTests, passed: report.numPassedTests, failed: report.numFailedTests } : null,
  files,
};
const out = path.join(dir, `suite-${stamp}.json`);
fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

console.log(`\n${files.length} files, ${result.tests?.passed ?? '?'} of ${result.tests?.total ?? '?'} tests passed; wall ${result.wallS} s, CPU ${result.cpuS ?? '?'} s (the processes waited for), ${result.filesCpuS} s summed over the files; load average ${loadBefore.map(round).join(' ')} before, ${loadAfter.map(round).join(' ')} after`);
console.log("The files by CPU (s): CPU = worker + children, loading the file included; duration is vitest's figure for the file's tests and hooks");
console.table(files.slice(0, Number(process.env.BENCH_SUITE_TOP ?? '25')).map((f) => ({ file: f.file, tests: f.tests, failed: f.failed, duration: f.durationS, cpu: f.cpuS, worker: f.workerCpuS, children: f.childrenCpuS })));
console.log(`Written: ${path.relative(process.cwd(), out)} (vitest's report: ${path.relative(process.cwd(), reportFile)})`);
process.exit(code);
