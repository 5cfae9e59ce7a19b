import fs from 'node:fs';
import path from 'node:path';
import { EXPERIMENT_OPTIONS, experimentCommand } from './cli/experiment.ts';
import { SIMULATION_USAGE, simulationCommand } from './cli/simulation.ts';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import type { Deps } from './app.ts';
import { systemClock } from './platform/clock.ts';
import { createLogger } from './platform/logging.ts';
import { TokenHasher } from './platform/tokens.ts';
import { KeyMismatchError, keyStatus, resolveKeys, verifyKeysAtStart } from './ops/key-check.ts';
import {
  checkReplacement,
  planReplacement,
  planRotation,
  prepareReplacement,
  prepareRotation,
  replace,
  replacementKey,
  rotate,
  rotationTarget,
} from './ops/key-changes.ts';
import { exportLine, keySettings } from './ops/keys.ts';
import { moveToPostgres } from './ops/move-to-postgres.ts';
import { BACKUP_COMMAND, backupHandler, backupTo, restoreFrom } from './ops/backup.ts';
import { OpsError } from './ops/errors.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';

/**
 * Every command: `spyglass help` lists them, `spyglass <command> --help` (or -h) prints one's
 * entry on stdout, and a wrong call of one prints it on stderr (exit 2). Nothing of it opens
 * the database.
 */
const COMMANDS: { name: string; args?: string; summary: string; details?: string }[] = [
  { name: 'serve', summary: 'start the server (default): migrate, first-start set-up, listen' },
  { name: 'migrate', summary: 'apply pending database migrations and exit' },
  { name: 'init', summary: 'migrate and create the first organization, project and keys, then exit' },
  { name: 'keys revoke', args: '<id>', summary: 'revoke an API key by id' },
  { name: 'keys create-admin', summary: 'mint a new organization admin key (recovery) for the first ADMIN user' },
  { name: 'keys status', summary: "the configured keys' fingerprints and ids beside what the database records" },
  { name: 'keys rotate-encryption', args: '[--dry-run]', summary: 're-encrypt every encrypted value under the first encryption key, so older keys can go' },
  {
    name: 'keys replace-token-hash',
    args: '[--dry-run]',
    summary: 'record a new token-hash key: revokes every API key, ends sessions, mints one new admin key',
  },
  { name: 'users reset-password', args: '<email>', summary: 'print a one-time link (1 hour) to set a new password for that user' },
  { name: 'backup', args: '<file>', summary: 'write a backup of the PGlite installation (database and key files), also while it serves', details: 'e.g. spyglass backup spyglass-$(date +%F).tar.gz' },
  { name: 'restore', args: '<file>', summary: 'restore a backup into an empty data directory', details: 'the data directory is SPYGLASS_DATA_DIR; it must be empty' },
  {
    name: 'move-to-postgres',
    args: '<DATABASE_URL>',
    summary: 'copy the PGlite data directory into an empty PostgreSQL database (server stopped)',
    details: 'DATABASE_URL: postgres://user:pass@host:5432/db, an empty database',
  },
  {
    name: 'mcp',
    args: '<--server=URL> [--project=ID]',
    summary: 'an MCP server on stdin/stdout for coding agents, relaying to a running Spyglass',
    details: 'the API key comes from SPYGLASS_API_KEY; --project (or SPYGLASS_PROJECT_ID) names the project for organization keys',
  },
  {
    name: 'experiment run',
    args: '<experiment-slug> [options]',
    summary: 'start a platform run of an experiment on a server, follow it, print its summary; gates for CI',
    details: EXPERIMENT_OPTIONS,
  },
  {
    name: 'experiment check',
    args: '<experiment-slug> --run <run-id> [options]',
    summary: "wait for a run that exists (one logged by an SDK) to end, then its summary and the same gates",
    details: EXPERIMENT_OPTIONS,
  },
  {
    name: 'simulation run',
    args: '--set <name> [options]',
    summary: "run a scenario set on a server as a batch, wait for the verdicts, a line per run; exit code and JUnit for CI",
    details: SIMULATION_USAGE.slice(SIMULATION_USAGE.indexOf('options:')),
  },
  { name: 'help', args: '[command]', summary: 'print this list, or how to call one command' },
];

const CONFIGURATION_NOTE = 'Configuration comes from the environment; see docs/configuration.md.';
const callOf = (c: (typeof COMMANDS)[number]) => (c.args ? `${c.name} ${c.args}` : c.name);

/** The usage of `commands`: a list, or one command's entry. */
function usageOf(commands: typeof COMMANDS): string {
  if (commands.length === 1) {
    const [c] = commands;
    return [`usage: spyglass ${callOf(c)}`, '', `  ${c.summary}`, ...(c.details ? [`  ${c.details}`] : []), '', CONFIGURATION_NOTE].join('\n');
  }
  const lines = commands.map((c) => (callOf(c).length < 22 ? `  ${callOf(c).padEnd(22)}${c.summary}` : `  ${callOf(c)}\n${' '.repeat(24)}${c.summary}`));
  const group = commands[0].name.split(' ')[0];
  const ofGroup = commands.length < COMMANDS.length && commands.every((c) => c.name.startsWith(`${group} `));
  return [`usage: spyglass ${ofGroup ? `${group} ` : ''}<command>`, '', ...lines, '', CONFIGURATION_NOTE].join('\n');
}

/** The commands `words` name: the one whose name they start with, else those of a group (`keys`); none when they name nothing. */
function commandsNamed(words: string[]): typeof COMMANDS {
  const exact = COMMANDS.filter((c) => c.name.split(' ').every((w, i) => words[i] === w)).sort((a, b) => b.name.length - a.name.length);
  if (exact.length) return exact.slice(0, 1);
  return words.length ? COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `)) : [];
}

/** A wrong call: the usage of what it named (every command when it named none) on stderr, exit 2. */
function wrongCall(words: string[]): number {
  const named = commandsNamed(words);
  process.stderr.write(usageOf(named.length ? named : COMMANDS) + '\n');
  return 2;
}

/** `spyglass help [command]` and `<command> --help`: the usage on stdout, exit 0; a command that does not exist is a wrong call. */
function help(words: string[]): number {
  if (words.length === 0) {
    process.stdout.write(usageOf(COMMANDS) + '\n');
    return 0;
  }
  const named = commandsNamed(words);
  if (!named.length) {
    process.stderr.write(`spyglass: no command ${words.join(' ')}\n`);
    return wrongCall([]);
  }
  process.stdout.write(usageOf(named) + '\n');
  return 0;
}

/**
 * The application's modules, loaded once. Imported, not required statically, so that the
 * database opens (PGlite: initdb or recovery in its worker thread) while they load.
 */
let appModules: Promise<[typeof import('./app.ts'), typeof import('./first-start.ts')]> | null = null;
const loadApp = () => (appModules ??= Promise.all([import('./app.ts'), import('./first-start.ts')]));

async function openDeps(config: Config, logger: Logger): Promise<Deps> {
  void loadApp().catch(() => {});
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, replicas: config.readReplicas });
  try {
    // `spyglass backup` asks whichever process holds the data directory, over its lock socket (ops/backup.ts).
    db.dataDirLock?.handle(BACKUP_COMMAND, backupHandler(db, config));
    // The keys are compared with what the data records before anything is written (ops/key-check.ts).
    const keys = await verifyKeysAtStart(db, config, logger, async () => {
      const applied = await migrate(db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    });
    return { config, db, logger, clock: systemClock, tokenHasher: new TokenHasher(Buffer.from(keys.tokenHash.text, 'utf8')) };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** `spyglass migrate`: the schema only; no key is read or recorded (a database may be migrated before it is moved into). */
async function migrateOnly(config: Config): Promise<string[]> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await migrate(db);
  } finally {
    await db.close();
  }
}

async function setUp(deps: Deps, baseUrl: string): Promise<void> {
  const [{ buildPorts }, { credentialsBox, firstStart, writeCredentialsFile }] = await loadApp();
  const creds = await firstStart(deps.config, buildPorts(deps), deps.clock.now());
  if (!creds) return;
  const file = writeCredentialsFile(deps.config.dataDir, creds);
  // Secrets never enter log lines: the box goes to a terminal only. When stdout is not a
  // terminal (a log collector, a file, a pipe), the 0600 file alone holds them.
  if (process.stdout.isTTY) process.stdout.write('\n' + credentialsBox(creds, baseUrl, file) + '\n\n');
  deps.logger.info(
    { file, organizationId: creds.organization.id, projectId: creds.project.id },
    `first start: organization, project, admin user and keys created; the credentials are in ${file} (mode 0600)`,
  );
}

/**
 * V8 lets a heap grow to up to 4x what was live after its last full collection before the
 * next one. Under ingest overload that was ~250 MiB of main-thread heap for ~60 MiB live, most
 * of it decoded spans already committed; 1.5x keeps the peak ~150 MiB lower at about the
 * same collection time (docs/performance.md: Overload, memory and start). Process-wide: the PGlite worker
 * thread's heap follows it too.
 */
const HEAP_GROWING_PERCENT = 50;

/** A server as `serve` starts one: its app, listening, and how to stop it (what a SIGTERM does, without exiting). */
export interface Serving {
  app: Awaited<ReturnType<typeof import('./app.ts')['buildApp']>>;
  deps: Deps;
  /** Stops listening, then closes the database. */
  close(): Promise<void>;
}

/**
 * What `spyglass serve` does before it waits for a signal: open the database (the keys
 * checked against it, the migrations applied), build the app, the first start's set-up, listen
 * (HTTP, and OTLP over gRPC unless off). Exported for tests of what a start accepts, which run it
 * in their own process; `serve` adds the process's part (heap growth, signals, exit code).
 */
export async function startServing(config: Config, logger: Logger): Promise<Serving> {
  const deps = await openDeps(config, logger);
  try {
    const [{ buildApp }] = await loadApp();
    const app = await buildApp(deps);
    const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    await setUp(deps, baseUrl);
    await app.http.listen({ port: config.port, host: config.host });
    if (config.otlpGrpcPort !== null) {
      const grpcPort = await app.otlpGrpc.listen(config.otlpGrpcPort, config.host);
      logger.info({ port: grpcPort }, 'OTLP over gRPC listening');
    }
    return {
      app,
      deps,
      close: async () => {
        await app.http.close();
        await deps.db.close();
      },
    };
  } catch (err) {
    await deps.db.close();
    throw err;
  }
}

async function serve(config: Config): Promise<void> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const logger = createLogger(config.logLevel);
  const serving = await startServing(config, logger);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('grace period over; closing anyway');
      void serving.deps.db.close().finally(() => process.exit(1));
    }, config.shutdownGraceMs);
    force.unref();
    try {
      await serving.close();
      logger.info('stopped cleanly');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function withDeps<T>(config: Config, fn: (deps: Deps, app: typeof import('./app.ts')) => Promise<T>): Promise<T> {
  const deps = await openDeps(config, createLogger(config.logLevel));
  try {
    return await fn(deps, (await loadApp())[0]);
  } finally {
    await deps.db.close();
  }
}

/** A host people can open: the wildcard addresses a server listens on are not. */
function linkHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Exit 2 with the message when the configured keys do not fit the data (ops/key-check.ts): nothing was written. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await run(argv, env);
  } catch (err) {
    if (!(err instanceof KeyMismatchError)) throw err;
    process.stderr.write(`spyglass: ${err.message}\n`);
    return 2;
  }
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: { help: { type: 'boolean', short: 'h' } } });
  if (positionals[0] === 'help') return help(positionals.slice(1));
  if (values.help) return help(positionals);
  const [command = 'serve', sub, arg] = positionals;
  // Clients of a running server: no configuration, no database.
  if (command === 'mcp') return mcpCommand(argv.slice(1));
  if (command === 'experiment') return experimentCommand(argv.slice(argv.indexOf('experiment') + 1), env);
  if (command === 'simulation') return simulationCommand(argv.slice(argv.indexOf('simulation') + 1), env);
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`spyglass: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'migrate': {
      const applied = await migrateOnly(config);
      process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'migrations are up to date\n');
      return 0;
    }
    case 'init':
      await withDeps(config, (deps) => setUp(deps, `http://${config.host}:${config.port}`));
      return 0;
    case 'keys': {
      if (sub === 'revoke' && arg) {
        const ok = await withDeps(config, (deps, { buildPorts }) => buildPorts(deps).apiKeys.revokeAsOperator(arg));
        process.stdout.write(ok ? `revoked ${arg}\n` : `no key ${arg}\n`);
        return ok ? 0 : 1;
      }
      if (sub === 'status') return keyStatusCommand(config);
      if (sub === 'rotate-encryption') return rotateEncryptionCommand(config, argv.includes('--dry-run'));
      if (sub === 'replace-token-hash') return replaceTokenHashCommand(config, argv.includes('--dry-run'));
      if (sub === 'create-admin') {
        const token = await withDeps(config, (deps, { buildPorts }) => buildPorts(deps).apiKeys.mintRecoveryAdminKey());
        if (!token) {
          process.stderr.write('no organization with an ADMIN member yet; run `spyglass init` first\n');
          return 1;
        }
        process.stdout.write(`${token}\n`);
        return 0;
      }
      break;
    }
    case 'users': {
      if (sub === 'reset-password' && arg) {
        const base = config.publicUrl ?? `http://${linkHost(config.host)}:${config.port}`;
        const link = await withDeps(config, (deps, { buildPorts }) => buildPorts(deps).accounts.issueOperatorReset(arg, base)).catch((err: Error) => err);
        if (link instanceof Error) {
          process.stderr.write(`spyglass: ${link.message}\n`);
          return 1;
        }
        process.stdout.write(`Open this link to set a new password for ${arg} (it works once, until ${link.expiresAt}):\n${link.url}\n`);
        return 0;
      }
      break;
    }
    case 'move-to-postgres':
      return moveCommand(config, sub);
    case 'backup':
      return backupCommand(config, sub);
    case 'restore':
      return restoreCommand(config, sub);
  }
  return wrongCall(positionals);
}

/** `spyglass mcp --server URL`: relays an agent's MCP session on stdio to the server's /mcp. */
async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: false, options: { server: { type: 'string' }, project: { type: 'string' } } });
  const server = typeof values.server === 'string' ? values.server : process.env.SPYGLASS_SERVER;
  const apiKey = process.env.SPYGLASS_API_KEY;
  const projectId = typeof values.project === 'string' ? values.project : process.env.SPYGLASS_PROJECT_ID;
  if (positionals.length || !server) return wrongCall(['mcp']);
  if (!/^https?:\/\/[^/]/.test(server)) {
    process.stderr.write(`spyglass mcp: --server must be the server's http(s) address, e.g. http://localhost:3000, not ${JSON.stringify(server)}\n`);
    return 2;
  }
  if (!apiKey) {
    process.stderr.write('spyglass mcp: set SPYGLASS_API_KEY to a project or organization API key\n');
    return 2;
  }
  const { runStdioBridge } = await import('./modules/mcp/index.ts');
  await runStdioBridge({ server, apiKey, projectId });
  return 0;
}

async function keyStatusCommand(config: Config): Promise<number> {
  const status = await reported(async () => {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      return await keyStatus(db, config);
    } finally {
      await db.close();
    }
  });
  if (!status) return 1;
  process.stdout.write(status.lines.join('\n') + '\n');
  return status.ok ? 0 : 2;
}

async function rotateEncryptionCommand(config: Config, dryRun: boolean): Promise<number> {
  const target = rotationTarget(config);
  if (!target) {
    process.stdout.write(`No encryption key yet (SPYGLASS_ENCRYPTION_KEY is unset and there is no ${path.join(config.dataDir, 'encryption.key')}): nothing is encrypted, nothing to rotate.\n`);
    return 0;
  }
  const lines = await reported(async () => {
    if (dryRun) {
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        return await planRotation(db, config, target);
      } finally {
        await db.close();
      }
    }
    prepareRotation(target);
    // The start's own check then runs with the new keyring and records the new key's id.
    return withDeps(config, (deps) => rotate(deps.db, deps.clock, target));
  });
  if (!lines) return 1;
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

async function replaceTokenHashCommand(config: Config, dryRun: boolean): Promise<number> {
  const next = replacementKey(config);
  const lines = await reported(async () => {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      if (dryRun) return await planReplacement(db, config, next);
      await checkReplacement(db, config, next);
      prepareReplacement(next);
      await migrate(db);
      const { buildPorts } = (await loadApp())[0];
      const deps: Deps = { config, db, logger: createLogger(config.logLevel), clock: systemClock, tokenHasher: new TokenHasher(Buffer.from(next.text, 'utf8')) };
      const services = buildPorts(deps);
      const admin = await services.organizations.firstAdmin();
      return await replace(db, next, async (tx) => {
        const keys = await services.apiKeys.reissueAfterHashKeyChange(tx, admin);
        const ended = await services.accounts.endAllAfterHashKeyChange(tx);
        return { revoked: keys.revoked, adminToken: keys.adminToken, sessions: ended.sessions, links: ended.invitations + ended.resets };
      });
    } finally {
      await db.close();
    }
  });
  if (!lines) return 1;
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

async function moveCommand(config: Config, url: string | undefined): Promise<number> {
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    return wrongCall(['move-to-postgres']);
  }
  if (config.databaseUrl) {
    process.stderr.write('spyglass: DATABASE_URL is set, so this installation already runs on PostgreSQL; move-to-postgres copies a PGlite data directory (SPYGLASS_DATA_DIR)\n');
    return 2;
  }
  // The keys are read first: a key that cannot be printed stops the move before it copies anything.
  const moved = await reported(async () => {
    const keys = keySettings(config);
    const report = await moveToPostgres({
      dataDir: config.dataDir,
      databaseUrl: url,
      keys: resolveKeys(config),
      progress: (line) => process.stdout.write(`${line}\n`),
    });
    return { keys, report };
  });
  if (!moved) return 1;
  const { keys, report } = moved;
  const lines = [
    '',
    `Moved ${report.tables.length} tables, ${report.totalRows} rows; every row count and checksum matches.`,
    `The PGlite data directory ${config.dataDir} was left as it was (remove it once the server runs on PostgreSQL).`,
    '',
    'Start Spyglass with these settings (the keys are secrets: keep them like the database password):',
    `  ${exportLine('DATABASE_URL', url)}`,
    ...keys.map((k) => (k.value === null ? `  # ${k.variable}: ${k.note}` : `  ${exportLine(k.variable, k.value)}   # ${k.note}`)),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

/** A failure the operator can act on: its message, exit 1. Anything else is a bug and throws. */
async function reported<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof OpsError) && !(err instanceof DataDirInUseError)) throw err;
    process.stderr.write(`spyglass: ${err.message}\n`);
    return null;
  }
}

function keyWarnings(keys: { variable: string; file: string; included: boolean }[]): string[] {
  return keys
    .filter((k) => !k.included)
    .map(
      (k) =>
        `WARNING: this backup does NOT hold ${k.variable}: the server reads it from its environment (or has no ${k.file}). ` +
        `Keep that value with the backup: without it the restored installation's ${k.variable === 'SPYGLASS_TOKEN_HASH_KEY' ? 'API keys, share links and sessions' : 'agent-cache values and webhook secrets'} do not work.`,
    );
}

async function backupCommand(config: Config, file: string | undefined): Promise<number> {
  if (!file) {
    return wrongCall(['backup']);
  }
  const done = await reported(() => backupTo(config, path.resolve(file)));
  if (!done) return 1;
  const held = done.manifest.keys.filter((k) => k.included).map((k) => k.file);
  const lines = [
    `Backed up ${config.dataDir} from ${done.via} to ${path.resolve(file)} (${done.bytes} bytes; queries paused ${done.manifest.pausedMs} ms).`,
    ...(held.length ? [`It holds the installation's keys (${held.join(', ')}): keep it as private as the data directory (it is written with mode 0600).`] : []),
    ...keyWarnings(done.manifest.keys),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

async function restoreCommand(config: Config, file: string | undefined): Promise<number> {
  if (!file) {
    return wrongCall(['restore']);
  }
  if (!fs.existsSync(file)) {
    process.stderr.write(`spyglass: no file ${file}\n`);
    return 1;
  }
  const done = await reported(() => restoreFrom(config, file));
  if (!done) return 1;
  const lines = [
    `Restored the backup of ${done.manifest.createdAt} into ${config.dataDir}: ${done.traces} traces` +
      (done.applied.length ? `; applied migrations ${done.applied.join(', ')}` : '') + '. Start the server on this data directory.',
    ...keyWarnings(done.manifest.keys),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
