/**
 * Runs tasks with the same key one after another (in arrival order) inside this process.
 * Concurrent updates of one host would otherwise all read the same stream revision and
 * fight over the append: with 40 clients the bounded conflict retry could run out and
 * answer `dnserr`. Across processes the expected-revision append still decides.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    // Forget the key once nothing waits behind this task, so the map stays small.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
