import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';

/**
 * A streaming replica of the test PostgreSQL (TEST_DATABASE_URL), made with pg_basebackup
 * into a temporary directory and started on a port of its own: the read-replica tests read
 * from it. The server must take replication connections from 127.0.0.1 (.ci/run allows them).
 * Anything that goes wrong throws: a test that asked for a replica fails without one.
 */
export interface Replica {
  port: number;
  /** The same database as `primaryUrl`, on the replica. */
  urlFor(primaryUrl: string): string;
  /** Stops the replica (fast shutdown); `start` brings it back on the same port. */
  stop(): void;
  start(): void;
  /** Stops it and removes its directory. */
  remove(): void;
}

/** Settings a hot standby must hold at least at the primary's values, or it refuses to start. */
const MATCHED_SETTINGS = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

export async function makeReplica(primaryUrl: string): Promise<Replica> {
  const primary = new URL(primaryUrl);
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  let settings: { name: string; setting: string }[];
  let major: number;
  try {
    major = Math.floor(Number((await client.query<{ server_version_num: string }>('SHOW server_version_num')).rows[0].server_version_num) / 10_000);
    settings = (await client.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [MATCHED_SETTINGS])).rows;
  } finally {
    await client.end();
  }
  const bin = `/usr/lib/postgresql/${major}/bin`;
  if (!fs.existsSync(path.join(bin, 'pg_ctl'))) throw new Error(`no PostgreSQL ${major} binaries in ${bin}`);
  // PostgreSQL will not run as root: the replica's files and processes are the postgres user's then.
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : null;
  const run = (command: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
    return result.stdout;
  };

  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-replica-'));
  const dir = path.join(parent, 'data');
  if (owner !== null) fs.chownSync(parent, owner, owner);
  const port = await freePort();
  const remove = () => fs.rmSync(parent, { recursive: true, force: true });
  try {
    run(path.join(bin, 'pg_basebackup'), ['-h', primary.hostname, '-p', primary.port || '5432', '-U', decodeURIComponent(primary.username || 'postgres'), '-D', dir, '-R', '-X', 'stream', '-c', 'fast']);
    // Debian keeps the configuration outside the data directory: the replica gets files of its own.
    fs.writeFileSync(
      path.join(dir, 'postgresql.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${parent}'`,
        'hot_standby = on',
        `hba_file = '${path.join(dir, 'pg_hba.conf')}'`,
        `ident_file = '${path.join(dir, 'pg_ident.conf')}'`,
        'shared_buffers = 16MB',
        ...settings.map((s) => `${s.name} = ${s.setting}`),
      ].join('\n') + '\n',
    );
    fs.writeFileSync(path.join(dir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    fs.writeFileSync(path.join(dir, 'pg_ident.conf'), '');
    if (owner !== null) for (const f of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) fs.chownSync(path.join(dir, f), owner, owner);
  } catch (err) {
    remove();
    throw err;
  }
  const log = path.join(parent, 'replica.log');
  const start = () => {
    try {
      run(path.join(bin, 'pg_ctl'), ['-D', dir, '-l', log, '-w', '-t', '60', 'start']);
    } catch (err) {
      const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`${(err as Error).message}\n${tail}`, { cause: err });
    }
  };
  const stop = () => void run(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'fast', '-w', 'stop']);
  try {
    start();
  } catch (err) {
    remove();
    throw err;
  }
  let removed = false;
  return {
    port,
    urlFor: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    stop,
    start,
    remove: () => {
      if (removed) return;
      removed = true;
      try {
        stop();
      } catch {
        /* already stopped */
      }
      remove();
    },
  };
}
