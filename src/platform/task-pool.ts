/**
 * Runs `tasks` with at most `limit` in flight, starting them in their order; the answers come
 * back in the tasks' order. Judge calls (judge alignment), the benches' clients and the tests'
 * seeding use it.
 */
export async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]();
      }
    }),
  );
  return out;
}
