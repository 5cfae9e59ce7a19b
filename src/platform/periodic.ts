import type { FastifyInstance } from 'fastify';

/**
 * Runs `task` every `intervalMs` off the request path (never overlapping itself), and
 * stops when the app closes. Failures are logged, not thrown: the next round retries.
 */
export function runPeriodically(app: FastifyInstance, name: string, intervalMs: number, task: () => Promise<unknown>): void {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const tick = () => {
    running = task()
      .catch((err) => app.log.error({ err, task: name }, 'background task failed'))
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  app.addHook('onReady', async () => {
    timer = setTimeout(tick, intervalMs).unref();
  });
  app.addHook('onClose', async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}
