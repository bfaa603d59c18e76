/**
 * Keeps one kind of work (zone transfers) to a share of a thread's time, so the queries the
 * same thread answers always get the rest: a budget that refills at `share` ms per ms of
 * wall time up to `burstMs`; work spends it as measured, and once it is spent the next piece
 * waits (a timer, so queries are read meanwhile) until the budget is positive again.
 * A lone transfer of a 100,000-record zone needs less than the burst, so it is not slowed.
 */
export interface TimeShareOptions {
  /** Fraction of wall time the work may take, 0–1. */
  share: number;
  /** Budget saved up while idle, in ms: what a short piece of work may take at once. */
  burstMs: number;
  now?: () => number;
}

export class TimeShare {
  private budget: number;
  private at: number;
  private readonly now: () => number;
  /** Times work waited for budget (benchmarks, metrics). */
  waits = 0;

  constructor(private readonly options: TimeShareOptions) {
    this.now = options.now ?? (() => performance.now());
    this.budget = options.burstMs;
    this.at = this.now();
  }

  /** Resolves at once while there is budget, else when it has refilled. */
  async turn(): Promise<void> {
    for (;;) {
      this.refill();
      if (this.budget > 0) return;
      this.waits++;
      const ms = Math.ceil(-this.budget / this.options.share) || 1;
      await new Promise<void>((resolve) => setTimeout(resolve, ms));
    }
  }

  /** Work of `ms` was done. */
  spent(ms: number): void {
    this.refill();
    this.budget -= ms;
  }

  private refill(): void {
    const now = this.now();
    this.budget = Math.min(this.options.burstMs, this.budget + (now - this.at) * this.options.share);
    this.at = now;
  }
}
