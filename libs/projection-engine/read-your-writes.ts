import { Position, positionFromString } from '../eventstore/event-store.port';
import { POSITION_PREFIX, positionKey } from './projection-runner';
import { ProjectionSet } from './projection-set';

export const REMOTE_POLL_MS = 10;

interface Waiter {
  target: bigint;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * The waiters on the same projections (a DDNS update waits on `domains`, most writes on a
 * few): their lowest position is worked out once per group, and a group whose projections
 * have not reached its lowest target is passed over without looking at its waiters.
 */
interface WaiterGroup {
  /** Its key in `groups`. */
  key: string;
  /** The projections waited on; null: all. */
  only: string[] | null;
  waiters: Set<Waiter>;
  /** At most the lowest target of `waiters` (exact after each settle). */
  minTarget: bigint;
}

/**
 * Read-your-writes: waits until projections have applied a position, on the local runner
 * where this process runs one (woken by its progress), else on the position the runner's
 * process publishes to coordination (polled while anyone waits on one).
 */
export class ReadYourWrites {
  /** Positions published by the processes that run the projections this one does not. */
  private readonly remotePositions = new Map<string, bigint>();
  /** By `only` joined into one string ('*' for all). */
  private readonly groups = new Map<string, WaiterGroup>();
  private remotePoll: NodeJS.Timeout | null = null;

  constructor(private readonly set: ProjectionSet) {
    // A runner's progress can only release the groups that wait on it.
    set.progress.on('progress', (name?: string) => this.settleWaiters(name));
  }

  /**
   * Resolves once every projection named (all when omitted) has processed `position`
   * (read-your-writes for the client that made the change): on the local runner where
   * this process runs it, else on the position its runner's process publishes. Gives up
   * quietly after `timeoutMs`.
   */
  // Not async: the promise below is handed out as it is (an async function returning it would add a promise
  // and two microtask turns to every write's answer; decision 0126).
  waitFor(position: Position | null, timeoutMs = 5000, only?: string[]): Promise<boolean> {
    if (!position) return Promise.resolve(true);
    const target = position.commit;
    if (this.lowestPosition(only ?? null) >= target) return Promise.resolve(true);
    const key = only ? only.join(' ') : '*';
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { key, only: only ?? null, waiters: new Set(), minTarget: target }));
    if (target < group.minTarget) group.minTarget = target;
    const waiters = group.waiters;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        target,
        resolve,
        timer: setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      waiters.add(waiter);
      if (this.waitsOnRemote(only ?? null)) this.pollRemote();
    });
  }

  private waitsOnRemote(only: string[] | null): boolean {
    // A loop, not `some` with a closure: asked at every wait.
    for (const name of only ?? this.set.names()) if (!this.set.runners.has(name)) return true;
    return false;
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
        if ([...this.groups.values()].some((g) => g.waiters.size > 0 && this.waitsOnRemote(g.only))) this.pollRemote();
      })();
    }, REMOTE_POLL_MS);
  }

  /**
   * On progress of a runner (`name`; every group when absent): resolves the waiters whose
   * projections have all passed their position. Per group of waiters on the same projections,
   * the lowest position is worked out once, and compared first with the group's lowest target.
   */
  private settleWaiters(name?: string): void {
    // Runs on every runner's progress (each applied event): groups by value, not [key, group] arrays by entry.
    for (const group of this.groups.values()) {
      const key = group.key;
      if (group.waiters.size === 0) {
        this.groups.delete(key);
        continue;
      }
      if (name !== undefined && group.only && !group.only.includes(name)) continue;
      const reached = this.lowestPosition(group.only);
      if (reached < group.minTarget) continue;
      let min: bigint | null = null;
      for (const w of group.waiters) {
        if (reached < w.target) {
          if (min === null || w.target < min) min = w.target;
          continue;
        }
        clearTimeout(w.timer);
        group.waiters.delete(w);
        w.resolve(true);
      }
      if (min === null) this.groups.delete(key);
      else group.minTarget = min;
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
