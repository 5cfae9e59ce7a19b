import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { rows, type Database } from '../db/index.ts';
import type { Metrics } from './metrics.ts';

export interface PeriodicTask {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  /**
   * once: one run per period across every process on the database (sweeps: a second run
   * would only repeat the work). Otherwise each process runs it (polling its own share of
   * a queue that is claimed row by row).
   */
  once: boolean;
}

/**
 * Runs tasks every period off the request path (a task never overlaps itself), and stops
 * them when the app closes. Failures are logged, not thrown: the next round retries.
 */
export class Scheduler {
  constructor(
    private readonly app: FastifyInstance,
    private readonly db: Database,
    private readonly metrics: Metrics,
  ) {}

  every(task: PeriodicTask): void {
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<unknown> | null = null;
    let stopped = false;
    const tick = () => {
      running = (async () => {
        if (task.once && !(await this.claimPeriod(task))) return;
        this.metrics.periodicRun(task.name);
        await task.run();
      })()
        .catch((err) => this.app.log.error({ err, task: task.name }, 'background task failed'))
        .finally(() => {
          running = null;
          if (!stopped) timer = setTimeout(tick, task.intervalMs).unref();
        });
    };
    this.app.addHook('onReady', (done) => {
      timer = setTimeout(tick, task.intervalMs).unref();
      done();
    });
    this.app.addHook('onClose', async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    });
  }

  /**
   * Whether this process runs this period's round: it moves the task's last start to now
   * only when the last start is a period ago (timers fire a little late, never early, so a
   * small tolerance keeps one process's steady rhythm from skipping every other period).
   */
  private async claimPeriod(task: PeriodicTask): Promise<boolean> {
    const spacing = task.intervalMs - Math.min(task.intervalMs * 0.05, 1000);
    const claimed = await rows(
      this.db.orm,
      sql`INSERT INTO periodic_tasks AS p (name, last_started_at)
          VALUES (${task.name}, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
          ON CONFLICT (name) DO UPDATE SET last_started_at = EXCLUDED.last_started_at, runs = p.runs + 1
            WHERE p.last_started_at <= EXCLUDED.last_started_at - ${Math.round(spacing)}::bigint
          RETURNING name`,
    );
    return claimed.length > 0;
  }
}
