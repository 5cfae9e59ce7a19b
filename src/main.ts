import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import type { Deps } from './app.ts';
import { systemClock } from './platform/clock.ts';
import { createLogger } from './platform/logging.ts';
import { loadTokenHashKey, TokenHasher } from './platform/tokens.ts';

const USAGE = `usage: spyglass <command>

  serve                 start the server (default): migrate, first-start set-up, listen
  migrate               apply pending database migrations and exit
  init                  migrate and create the first organization, project and keys, then exit
  keys revoke <id>      revoke an API key by id
  keys create-admin     mint a new organization admin key (recovery) for the first ADMIN user
  users reset-password <email>
                        print a one-time link (1 hour) to set a new password for that user

Configuration comes from the environment; see README.md.`;

/**
 * The application's modules, loaded once. Imported, not required statically, so that the
 * database opens (PGlite: initdb or recovery in its worker thread) while they load.
 */
let appModules: Promise<[typeof import('./app.ts'), typeof import('./first-start.ts')]> | null = null;
const loadApp = () => (appModules ??= Promise.all([import('./app.ts'), import('./first-start.ts')]));

async function openDeps(config: Config, logger: Logger): Promise<Deps> {
  void loadApp().catch(() => {});
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  return { config, db, logger, clock: systemClock, tokenHasher: new TokenHasher(loadTokenHashKey(config.tokenHashKey, config.dataDir)) };
}

async function setUp(deps: Deps, baseUrl: string): Promise<void> {
  const [{ buildServices }, { credentialsBox, firstStart, writeCredentialsFile }] = await loadApp();
  const creds = await firstStart(deps.config, buildServices(deps), deps.clock.now());
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

async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const deps = await openDeps(config, logger);
  const [{ buildApp }] = await loadApp();
  const app = await buildApp(deps);
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  await setUp(deps, baseUrl);
  await app.http.listen({ port: config.port, host: config.host });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('grace period over; closing anyway');
      void deps.db.close().finally(() => process.exit(1));
    }, config.shutdownGraceMs);
    force.unref();
    try {
      await app.http.close();
      await deps.db.close();
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

export async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command = 'serve', sub, arg] = positionals;
  let config: Config;
  try {
    config = loadConfig();
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
    case 'migrate':
      await withDeps(config, async () => {});
      process.stdout.write('migrations are up to date\n');
      return 0;
    case 'init':
      await withDeps(config, (deps) => setUp(deps, `http://${config.host}:${config.port}`));
      return 0;
    case 'keys': {
      if (sub === 'revoke' && arg) {
        const ok = await withDeps(config, (deps, { buildServices }) => buildServices(deps).apiKeys.revokeAsOperator(arg));
        process.stdout.write(ok ? `revoked ${arg}\n` : `no key ${arg}\n`);
        return ok ? 0 : 1;
      }
      if (sub === 'create-admin') {
        const token = await withDeps(config, (deps, { buildServices }) => buildServices(deps).apiKeys.mintRecoveryAdminKey());
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
        const link = await withDeps(config, (deps, { buildServices }) => buildServices(deps).accounts.issueOperatorReset(arg, base)).catch((err: Error) => err);
        if (link instanceof Error) {
          process.stderr.write(`spyglass: ${link.message}\n`);
          return 1;
        }
        process.stdout.write(`Open this link to set a new password for ${arg} (it works once, until ${link.expiresAt}):\n${link.url}\n`);
        return 0;
      }
      break;
    }
    case 'help':
    case '--help':
      process.stdout.write(USAGE + '\n');
      return 0;
  }
  process.stderr.write(USAGE + '\n');
  return 2;
}
