import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { RouteAuthEntry } from './auth/index.ts';
import type { Clock } from './clock.ts';
import type { JobQueue } from './jobs/index.ts';
import type { Scheduler } from './periodic.ts';

/**
 * What every module registers into (app.ts makes one): the HTTP app its route groups go in, the
 * scheduler of periodic work, the durable job queue its handlers join, and the installation.
 */
export interface ModuleHost {
  http: FastifyInstance;
  scheduler: Scheduler;
  jobs: JobQueue;
  db: Database;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Every route with the permission it needs (the MCP tools take their route's). */
  routeTable: RouteAuthEntry[];
}

/**
 * A module's one entry (`export const <name>Module` in its module.ts): `register` builds what the
 * module needs of the ports other modules offer and registers its routes, job queues and
 * schedules. `P` is the part of app.ts's ports map it reads: app.ts's list of modules is typed
 * over the whole map, so a module asking for a port the map does not offer fails to compile.
 */
export interface SpyglassModule<P> {
  /** The module's folder under src/modules. */
  readonly name: string;
  readonly register: (host: ModuleHost, ports: P) => void;
}
