/**
 * Runs tasks with the same key one after another (in arrival order) inside this process.
 * Concurrent updates of one host would otherwise all read the same stream revision and
 * fight over the append: with 40 clients the bounded conflict retry could run out and
 * answer `dnserr`. Across processes the expected-revision append still decides.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const tails = this.tails;
    const previous = tails.get(key);
    let result: Promise<T>;
    if (previous) result = previous.then(task, task);
    else {
      // Nothing holds the key (every DDNS update of a host not already being updated): the task
      // starts now, without a microtask turn and the promises of a chain (decision 0126).
      try {
        result = task();
      } catch (e) {
        result = Promise.reject(e);
      }
    }
    // Settles once the task has, never rejecting; the key is forgotten then unless another task queued behind.
    const tail: Promise<unknown> = result.then(forget, forget);
    function forget(): void {
      if (tails.get(key) === tail) tails.delete(key);
    }
    tails.set(key, tail);
    return result;
  }
}
