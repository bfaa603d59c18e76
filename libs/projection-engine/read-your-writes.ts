import { Position, positionFromString } from '../eventstore/event-store.port';
import { POSITION_PREFIX, positionKey } from './projection-runner';
import { ProjectionSet } from './projection-set';

export const REMOTE_POLL_MS = 10;

interface Waiter {
  target: bigint;
  /** The projections waited on; null: all. */
  only: string[] | null;
  /** `only` as one string, so waiters on the same projections share one computation. */
  key: string;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Read-your-writes: waits until projections have applied a position, on the local runner
 * where this process runs one (woken by its progress), else on the position the runner's
 * process publishes to coordination (polled while anyone waits on one).
 */
export class ReadYourWrites {
  /** Positions published by the processes that run the projections this one does not. */
  private readonly remotePositions = new Map<string, bigint>();
  private readonly waiters = new Set<Waiter>();
  private remotePoll: NodeJS.Timeout | null = null;

  constructor(private readonly set: ProjectionSet) {
    set.progress.on('progress', () => this.settleWaiters());
  }

  /**
   * Resolves once every projection named (all when omitted) has processed `position`
   * (read-your-writes for the client that made the change): on the local runner where
   * this process runs it, else on the position its runner's process publishes. Gives up
   * quietly after `timeoutMs`.
   */
  async waitFor(position: Position | null, timeoutMs = 5000, only?: string[]): Promise<boolean> {
    if (!position) return true;
    const target = position.commit;
    if (this.lowestPosition(only ?? null) >= target) return true;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        target,
        only: only ?? null,
        key: only ? only.join(' ') : '*',
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      if (this.waitsOnRemote(waiter.only)) this.pollRemote();
    });
  }

  private waitsOnRemote(only: string[] | null): boolean {
    return (only ?? this.set.names()).some((n) => !this.set.runners.has(n));
  }

  /** One poll of the published positions for all waiters, repeated while any waits on another process. */
  private pollRemote(): void {
    if (this.remotePoll) return;
    this.remotePoll = setTimeout(() => {
      void (async () => {
        try {
          const remote = this.set.names().filter((n) => !this.set.runners.has(n));
          for (const [name, p] of await this.set.coordination.positions(remote.map(positionKey))) {
            const projection = name.slice(POSITION_PREFIX.length);
            const at = positionFromString(p)?.commit ?? -1n;
            // The documents up to a published position are on disk: a waiter it releases must read them.
            if (at !== this.remotePositions.get(projection)) this.set.readStore.lookAgain?.();
            this.remotePositions.set(projection, at);
          }
        } catch (e) {
          this.set.log('published positions unreadable', { error: String(e) });
        }
        this.remotePoll = null;
        this.settleWaiters();
        if ([...this.waiters].some((w) => this.waitsOnRemote(w.only))) this.pollRemote();
      })();
    }, REMOTE_POLL_MS);
  }

  /**
   * On every progress of any runner: resolves the waiters whose projections have all
   * passed their position. The lowest position is worked out once per set of projections
   * waited on, not once per waiter (many requests wait at once under load).
   */
  private settleWaiters(): void {
    if (this.waiters.size === 0) return;
    const lowest = new Map<string, bigint>();
    for (const w of this.waiters) {
      let reached = lowest.get(w.key);
      if (reached === undefined) lowest.set(w.key, (reached = this.lowestPosition(w.only)));
      if (reached < w.target) continue;
      clearTimeout(w.timer);
      this.waiters.delete(w);
      w.resolve(true);
    }
  }

  /** The position every projection named in `only` (all when null) has reached; -1 before any event. */
  private lowestPosition(only: string[] | null): bigint {
    let lowest: bigint | null = null;
    for (const name of only ?? this.set.names()) {
      const r = this.set.runners.get(name);
      const at = r ? (r.position?.commit ?? -1n) : (this.remotePositions.get(name) ?? -1n);
      if (lowest === null || at < lowest) lowest = at;
    }
    return lowest ?? BigInt(Number.MAX_SAFE_INTEGER);
  }

  /** Stops polling published positions (waiters still time out on their own). */
  stop(): void {
    if (this.remotePoll) clearTimeout(this.remotePoll);
    this.remotePoll = null;
  }
}
