import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';
import { afterAll } from 'vitest';

export { freePort };

/** Spyglass as a user runs it: `bin/spyglass.mjs` in its own process. */
export const BIN = path.resolve('bin/spyglass.mjs');

export interface Running {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Servers a test left running (it failed or timed out) are killed after the file's tests. */
const running = new Set<ChildProcess>();
afterAll(() => running.forEach((child) => signalTree(child.pid!, 'SIGKILL')));

/**
 * Signals a process and everything it started, children first. A wrapper (strace, script)
 * does not pass a SIGTERM on to the server it runs, so the server is signalled itself.
 */
export function signalTree(pid: number, signal: NodeJS.Signals): void {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=']).toString().trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const visit = (p: number) => {
    for (const [child, parent] of table) if (parent === p) visit(child);
    try {
      process.kill(p, signal);
    } catch {
      /* gone already */
    }
  };
  visit(pid);
}

/**
 * Test apps and servers hash passwords at the cheapest cost the configuration takes: at the
 * default (2^17, ~0.5 s of a core each) the suite's hundreds of first starts and sign-ins cost minutes.
 */
export const CHEAP_PASSWORD_HASH_COST = '10';

/**
 * Node's flags for the servers and CLIs the tests spawn. `--liftoff-only`: PGlite's WebAssembly
 * runs on V8's baseline compiler alone, without TurboFan recompiling the functions a start makes
 * hot (initdb, the template's restore): about 2 s less CPU per start (7.4 -> 5.3 s), where the
 * faster code would pay back only in a long-lived process. It changes how fast the database's code
 * runs, not what it does. The test workers themselves keep V8's default: there the gain was not
 * clear (docs/performance.md).
 */
export const NODE_FLAGS = ['--liftoff-only'];

export async function startServer(env: Record<string, string>, wrapper: string[] = []): Promise<Running> {
  // A port free when asked can be taken by another file's listener before the server binds it
  // (files run side by side): the server then exits with EADDRINUSE, and it starts again on another.
  for (let attempt = 1; ; attempt++) {
    const started = await startServerOn(await freePort(), env, wrapper);
    if ('child' in started) return started;
    if (!started.portTaken || attempt === 5) throw new Error(`server exited: ${started.output}`);
  }
}

async function startServerOn(port: number, env: Record<string, string>, wrapper: string[]): Promise<Running | { portTaken: boolean; output: string }> {
  // A wrapper (strace, a shell setting the umask) runs the server as its last arguments.
  const [command, ...args] = [...wrapper, process.execPath, ...NODE_FLAGS, BIN, 'serve'];
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), SPYGLASS_OTLP_GRPC_PORT: 'off', LOG_LEVEL: 'info', SPYGLASS_PASSWORD_HASH_COST: CHEAP_PASSWORD_HASH_COST, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  // A first start on PGlite took over 60 s on the shared 2-core machine at load 20+ (several helpers testing at once).
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return { portTaken: /EADDRINUSE/.test(out), output: out };
    try {
      // Spyglass's own answer, from the child still running: not another listener that took the port.
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok && ((await res.json()) as { status?: string }).status === 'ok' && child.exitCode === null) return { child, baseUrl, output: () => out, exited };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

/** Runs the CLI to its end; with `timeoutMs`, a call still running then is killed (code null). */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  /** onStderr: the stderr so far, each time more comes (a test acts while the command waits). */
  options: { timeoutMs?: number; onStderr?: (text: string) => void } = {},
): Promise<{ code: number | null; out: string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { env: { PATH: process.env.PATH ?? '', SPYGLASS_PASSWORD_HASH_COST: CHEAP_PASSWORD_HASH_COST, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
  child.on('exit', () => timer && clearTimeout(timer));
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => ((out += d), (stdout += d)));
  child.stderr.on('data', (d: Buffer) => {
    const text = d.toString();
    out += text;
    stderr += text;
    options.onStderr?.(stderr);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out, stdout, stderr };
}


/** The CLI calls run in this process, one after another (they share its stdout, stderr and exit code). */
let cliInProcess: Promise<unknown> = Promise.resolve();

/**
 * The CLI's `main` (what bin/spyglass.mjs runs) in this process, with `env` as its whole
 * environment, its stdout and stderr captured: for tests of what a command says and answers,
 * where the process around it is not the subject (a spawned CLI costs about 2 s of CPU to load).
 * Calls wait for each other. With `timeoutMs`, a call still running then answers code null.
 */
export function runCliInProcess(
  args: string[],
  env: Record<string, string>,
  options: { timeoutMs?: number; onStderr?: (text: string) => void } = {},
): Promise<{ code: number | null; out: string; stdout: string; stderr: string }> {
  const call = cliInProcess.then(async () => {
    const { main } = await import('../../src/main.ts');
    let out = '';
    let stdout = '';
    let stderr = '';
    const realOut = process.stdout.write.bind(process.stdout);
    const realErr = process.stderr.write.bind(process.stderr);
    const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
    const restore = () => {
      process.stdout.write = realOut;
      process.stderr.write = realErr;
    };
    const toStdout = (chunk: unknown) => ((stdout += text(chunk)), (out += text(chunk)), true);
    const toStderr = (chunk: unknown) => {
      stderr += text(chunk);
      out += text(chunk);
      options.onStderr?.(stderr);
      return true;
    };
    process.stdout.write = toStdout;
    process.stderr.write = toStderr;
    let timer: NodeJS.Timeout | undefined;
    try {
      const code = await Promise.race([
        main(args, { PATH: process.env.PATH ?? '', SPYGLASS_PASSWORD_HASH_COST: CHEAP_PASSWORD_HASH_COST, ...env }),
        new Promise<null>((resolve) => options.timeoutMs && (timer = setTimeout(() => resolve(null), options.timeoutMs))),
      ]);
      return { code, out, stdout, stderr };
    } catch (err) {
      // What bin/spyglass.mjs does with a throw: the stack on stderr, exit 1.
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      return { code: 1, out: out + message, stdout, stderr: stderr + message };
    } finally {
      clearTimeout(timer);
      restore();
    }
  });
  cliInProcess = call.catch(() => undefined);
  return call;
}

/** A temporary directory removed after the file's tests. */
export function useTmpDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-srv-'));
    dirs.push(d);
    return d;
  };
}
