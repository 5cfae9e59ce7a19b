import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDatabaseKinds } from '../support/harness.ts';
import { runCli, runCliInProcess, useTmpDirs } from '../support/server-process.ts';

const tmpDir = useTmpDirs();
/**
 * Help that ran the command instead (`serve` listens for ever) is stopped waiting for, and fails.
 * The CLI's main in this process; `spyglass help` also as its own process (bin/spyglass.mjs).
 */
const cli = (args: string[], env: Record<string, string>) => runCliInProcess(args, env, { timeoutMs: 120_000 });

/** The commands operators are told about; `spyglass help` must list each (and may list more). */
const DOCUMENTED = ['serve', 'migrate', 'init', 'keys revoke', 'keys create-admin', 'users reset-password', 'backup', 'restore', 'move-to-postgres'];

/** Runs `jobs` two at a time: each is a whole Node process on a two-core machine. */
async function inPairs<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

describe.each(appDatabaseKinds)('spyglass --help and wrong calls (%s)', (kind) => {
  // A database the CLI cannot open: a data directory that does not exist (and must not be
  // made), or a PostgreSQL server nobody listens for. Help that opened it would fail or leave traces.
  const setUp = () => {
    const dataDir = path.join(tmpDir(), 'never-created');
    const env: Record<string, string> = { LOG_LEVEL: 'warn', SPYGLASS_DATA_DIR: dataDir, HOME: path.dirname(dataDir) };
    if (kind === 'postgres') env.DATABASE_URL = 'postgres://spyglass@127.0.0.1:1/nowhere';
    return { env, dataDir };
  };

  it('help lists every command; each command and group prints its usage for --help and -h on stdout, exit 0, without opening the database', async () => {
    const { env, dataDir } = setUp();
    const [help, dashHelp, h] = await inPairs([() => runCli(['help'], env, { timeoutMs: 120_000 }), () => cli(['--help'], env), () => cli(['-h'], env)]);
    for (const res of [help, dashHelp, h]) {
      expect(res.code, res.out).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout).toBe(help.stdout);
    }
    // The listed commands: each line's call up to its first argument (`keys revoke <id>` -> `keys revoke`).
    const listed = help.stdout
      .split('\n')
      .filter((line) => /^ {2}[a-z]/.test(line))
      .map((line) => line.trim().split(/\s{2,}/)[0].split(' ').filter((w) => !/^[<[]/.test(w)).join(' '));
    expect(listed).toEqual(expect.arrayContaining(DOCUMENTED));

    const calls = [...listed, 'keys', 'users'].flatMap((name) => [
      [...name.split(' '), '--help'],
      [...name.split(' '), '-h'],
    ]);
    calls.push(['help', 'backup'], ['keys', 'revoke', 'key_123', '--help'], ['backup', 'out.tar.gz', '-h']);
    const results = await inPairs(calls.map((args) => () => cli(args, env)));
    calls.forEach((args, i) => {
      const res = results[i];
      const call = `spyglass ${args.join(' ')}`;
      expect(res.code, `${call}: ${res.out}`).toBe(0);
      expect(res.stderr, call).toBe('');
      const named = args.filter((a) => !a.startsWith('-') && a !== 'help' && !/[_.]/.test(a)).join(' ');
      expect(res.stdout, call).toMatch(new RegExp(`^usage: spyglass ${named}`));
    });
    expect(fs.existsSync(dataDir), 'help opened the data directory').toBe(false);
  }, 600_000);

  it('a wrong call prints the usage of what it named on stderr and exits 2, without opening the database', async () => {
    const { env, dataDir } = setUp();
    const wrong: [string[], string][] = [
      [['backup'], 'usage: spyglass backup <file>'],
      [['restore'], 'usage: spyglass restore <file>'],
      [['move-to-postgres'], 'usage: spyglass move-to-postgres <DATABASE_URL>'],
      [['move-to-postgres', 'mysql://x'], 'usage: spyglass move-to-postgres <DATABASE_URL>'],
      [['keys', 'revoke'], 'usage: spyglass keys revoke <id>'],
      [['keys'], 'usage: spyglass keys <command>'],
      [['users', 'reset-password'], 'usage: spyglass users reset-password <email>'],
      [['nonsense'], 'usage: spyglass <command>'],
      [['help', 'nonsense'], 'usage: spyglass <command>'],
      [['nonsense', '--help'], 'usage: spyglass <command>'],
    ];
    const results = await inPairs(wrong.map(([args]) => () => cli(args, env)));
    wrong.forEach(([args, usage], i) => {
      const res = results[i];
      const call = `spyglass ${args.join(' ')}`;
      expect(res.code, `${call}: ${res.out}`).toBe(2);
      expect(res.stdout, call).toBe('');
      expect(res.stderr, call).toContain(usage);
    });
    expect(fs.existsSync(dataDir), 'a wrong call opened the data directory').toBe(false);
  }, 600_000);
});
