import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { afterAll, beforeAll } from 'vitest';

/**
 * A setup file, loaded only when SPYGLASS_FILE_CPU_LOG names a file (`npm run bench:suite` sets
 * it): appends one JSON line per test file with the wall time and the CPU seconds its worker spent
 * on it, the worker's own and its child processes' (the Chromium a browser file drives, a server or
 * CLI a file spawns). A worker runs its files one after another, so the differences are the file's.
 * Linux only (/proc); elsewhere the children's CPU is left out.
 *
 * A file in a worker thread (the isolated project) shares its process with vitest itself and the
 * other threads, and that process's children are the fork workers: its figure is its own
 * thread's CPU (/proc/thread-self), with no children, which leaves out its database's (PGlite
 * runs in a thread of its own). Counted by process, such a file got the CPU of every worker that
 * ran beside it.
 */
const log = process.env.SPYGLASS_FILE_CPU_LOG;

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime + cutime + cstime of a process, in ms (0 when it is gone). */
function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** The CPU of the live descendants of this process, and of the children they and it have waited for, in ms. */
function childrenCpuMs(): number {
  let total = 0;
  const own = processCpuMs(process.pid);
  const self = process.cpuUsage();
  // This process's cutime + cstime: what its exited children used.
  total += Math.max(0, own - (self.user + self.system) / 1000);
  const queue = childrenOf(process.pid);
  while (queue.length > 0) {
    const pid = queue.pop()!;
    total += processCpuMs(pid);
    queue.push(...childrenOf(pid));
  }
  return total;
}

/** This thread's user and system CPU (/proc/thread-self), in µs as process.cpuUsage() gives them. */
function threadCpuUsage(): NodeJS.CpuUsage {
  const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * TICK_MS * 1000, system: Number(fields[12]) * TICK_MS * 1000 };
}

/** The CPU to count for this file: the process's and its children's, or in a worker thread the thread's alone. */
function sample(): { cpu: NodeJS.CpuUsage; childrenMs: number } {
  if (isMainThread) return { cpu: process.cpuUsage(), childrenMs: childrenCpuMs() };
  return { cpu: threadCpuUsage(), childrenMs: 0 };
}

if (log) {
  // Vitest runs the setup files again before each test file, ahead of loading it: the figures
  // include loading (collecting) the file, which is most of a short file's cost.
  const start = { wall: performance.now(), ...sample() };
  let file = '';
  beforeAll((suite) => {
    file = 'filepath' in suite && typeof suite.filepath === 'string' ? suite.filepath : suite.name;
  });
  afterAll(() => {
    const end = sample();
    fs.appendFileSync(
      log,
      `${JSON.stringify({
        file: file.startsWith(process.cwd()) ? file.slice(process.cwd().length + 1) : file,
        pid: process.pid,
        wallS: (performance.now() - start.wall) / 1000,
        userS: (end.cpu.user - start.cpu.user) / 1e6,
        systemS: (end.cpu.system - start.cpu.system) / 1e6,
        childrenS: (end.childrenMs - start.childrenMs) / 1000,
      })}\n`,
    );
  });
}
