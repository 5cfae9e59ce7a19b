import { afterAll } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServing, type Serving } from '../../src/main.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { CHEAP_PASSWORD_HASH_COST } from './server-process.ts';

export interface ServingInProcess {
  baseUrl: string;
  /** What SIGTERM does to `spyglass serve`, without the exit: stops listening, closes the database. */
  stop(): Promise<void>;
}

/** Servers a test left running (it failed or timed out) are stopped after the file's tests. */
const serving = new Set<Serving>();
afterAll(() => Promise.all([...serving].map((s) => s.close().catch(() => undefined))));

/**
 * `spyglass serve` with `env` as its whole environment (as startServer gives a process), in this
 * process: the same start (the keys checked against the data, migrations, the first start's
 * set-up, listening on a free port) without loading a process of its own (about 6 s of CPU a
 * start). For tests whose subject is what a start accepts and what the server then answers;
 * a test of the process itself (signals, exit codes, a second process on the data) spawns one.
 */
export async function serveInProcess(env: Record<string, string>): Promise<ServingInProcess> {
  const config = loadConfig({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', SPYGLASS_PASSWORD_HASH_COST: CHEAP_PASSWORD_HASH_COST, ...env, PORT: '0', SPYGLASS_OTLP_GRPC_PORT: 'off' });
  const server = await startServing(config, createLogger(config.logLevel));
  serving.add(server);
  const address = server.app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      serving.delete(server);
      await server.close();
    },
  };
}
