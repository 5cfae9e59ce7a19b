/**
 * Readiness without waiting in the database's queue. The probe query runs at most one at a
 * time. While the last answer is younger than `freshMs` it is given at once, and a new probe
 * starts in the background once it is older than `refreshMs`: under saturation a probe
 * query waits behind ingest on the shared CPU and connections (p99 140-260 ms measured when
 * /readyz waited up to its budget for each one), while /readyz must answer as fast as
 * /healthz. Without a fresh answer (the first call, or a database that has stopped
 * answering for `freshMs`), the call waits for the probe up to `budgetMs`.
 */
export class DatabaseProbe {
  private last: { at: number; ok: boolean; detail: string } | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    /** Resolves to null when all is well, or a reason when not. */
    private readonly check: () => Promise<string | null>,
    private readonly options: { budgetMs: number; refreshMs: number; freshMs: number },
    private readonly now: () => number = () => performance.now(),
  ) {}

  async status(): Promise<{ ok: boolean; detail: string }> {
    const age = this.last ? this.now() - this.last.at : Infinity;
    if (age >= this.options.refreshMs) {
      this.inFlight ??= this.check()
        .then(
          (reason) => void (this.last = { at: this.now(), ok: reason === null, detail: reason ?? 'ok' }),
          (err: Error) => void (this.last = { at: this.now(), ok: false, detail: `the database does not answer: ${err.message}` }),
        )
        .finally(() => (this.inFlight = null));
    }
    if (this.last && age < this.options.freshMs) return this.last;
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      (this.inFlight ?? Promise.resolve()).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.options.budgetMs))),
    ]);
    clearTimeout(timer);
    if (answered && this.last) return this.last;
    return { ok: false, detail: `the database has not answered for ${Math.round(Math.min(age, this.options.freshMs))} ms` };
  }
}
