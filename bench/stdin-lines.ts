/**
 * The line protocol of the bench's client processes: the parent writes the job as one JSON
 * line, the child answers "ready" when set up, and starts on the line "go" — so process
 * start-up stays out of the measurement.
 */
const lines: string[] = [];
let waiting: ((line: string) => void) | null = null;
let buffered = '';
process.stdin.on('data', (d) => {
  buffered += d.toString();
  let i;
  while ((i = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, i);
    buffered = buffered.slice(i + 1);
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(line);
    } else lines.push(line);
  }
});

/** The next line from the parent. */
export const nextLine = () => new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : (waiting = resolve)));

/** Reads the job, runs `prepare`, says "ready", and returns once "go" arrives. */
export async function awaitJob<T, P>(prepare: (job: T) => P): Promise<{ job: T; prepared: P }> {
  const job = JSON.parse(await nextLine()) as T;
  const prepared = prepare(job);
  process.stdout.write('ready\n');
  await nextLine();
  process.stdin.pause();
  return { job, prepared };
}
