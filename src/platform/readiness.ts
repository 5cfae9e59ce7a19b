/**
 * Readiness without waiting in the database's queue: the probe query runs at most one at a
 * time, and an answer is given within `budgetMs` whatever the load. When the probe has not
 * answered within the budget (a single-connection database busy with a write), the last
 * answer counts if it is fresher than `freshMs`.
 */
export class DatabaseProbe {
  private last: { at: number; ok: boolean; detail: string } | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    /** Resolves to null when all is well, or a reason when not. */
    private readonly check: () => Promise<string | null>,
    private readonly options: { budgetMs: number; freshMs: number },
    private readonly now: () => number = () => performance.now(),
  ) {}

  async status(): Promise<{ ok: boolean; detail: string }> {
    this.inFlight ??= this.check()
      .then(
        (reason) => void (this.last = { at: this.now(), ok: reason === null, detail: reason ?? 'ok' }),
        (err: Error) => void (this.last = { at: this.now(), ok: false, detail: `the database does not answer: ${err.message}` }),
      )
      .finally(() => (this.inFlight = null));
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      this.inFlight.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.options.budgetMs))),
    ]);
    clearTimeout(timer);
    if (answered && this.last) return this.last;
    if (this.last && this.now() - this.last.at < this.options.freshMs) return this.last;
    return { ok: false, detail: `the database has not answered for ${this.options.budgetMs} ms` };
  }
}
