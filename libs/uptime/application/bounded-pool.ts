/**
 * Runs at most `limit` tasks at once and queues the rest (first in, first out), so a
 * slot full of unreachable hosts (each waiting for its timeout) cannot open thousands of
 * sockets at once. `idle()` resolves once nothing is queued or running.
 */
export class BoundedPool {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('pool limit must be a positive integer');
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            const next = this.queue.shift();
            if (next) next();
            else if (this.running === 0) this.idleWaiters.splice(0).forEach((w) => w());
          });
      };
      if (this.running < this.limit) start();
      else this.queue.push(start);
    });
  }

  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
