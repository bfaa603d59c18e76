/**
 * What the processes sharing one deployment tell each other about their consumers:
 * who holds which lease, how far each consumer has got, which generation of each read
 * model is current, and which process-manager timers are pending. It lives where every
 * process on the same DATA_DIR (or the same MongoDB) sees it — never in process memory.
 */
export interface Coordination {
  readonly kind: 'sqlite' | 'readstore';
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs`. False while another
   * holder's lease is unexpired; an expired lease is taken over.
   */
  tryLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  /** Gives the lease up at once (a clean shutdown), so a standby need not wait for expiry. */
  releaseLease(name: string, holder: string): Promise<void>;
  leaseHolder(name: string, now: number): Promise<string | null>;

  /** The position a consumer has applied (`commit/prepare`), for readers in other processes and for resuming. */
  savePosition(consumer: string, position: string | null): Promise<void>;
  /** Several consumers' positions at once (one transaction where the store has them). */
  savePositions(positions: ReadonlyMap<string, string | null>): Promise<void>;
  positions(consumers: readonly string[]): Promise<Map<string, string | null>>;

  setGeneration(projection: string, generation: number): Promise<void>;
  generations(): Promise<Map<string, number>>;

  /** Asks whichever process holds the projection's lease to rebuild it (the asker may run no projections). */
  requestRebuild(projection: string): Promise<void>;
  /** Removes and returns the requests for these projections. */
  takeRebuildRequests(projections: readonly string[]): Promise<string[]>;

  /** A pending timer of a process manager; scheduling one twice (same stream and id) keeps one. */
  scheduleTimer(timer: PendingTimer): Promise<void>;
  cancelTimer(owner: string, stream: string, id: string): Promise<void>;
  /** The owner's timers due at or before `now`, earliest first. */
  dueTimers(owner: string, now: number, limit: number): Promise<PendingTimer[]>;

  close(): Promise<void>;
}

export const COORDINATION = Symbol('COORDINATION');

export interface PendingTimer {
  /** The process manager that owns it. */
  owner: string;
  /** Unique within its stream only. */
  id: string;
  /** The process-manager stream the timer belongs to. */
  stream: string;
  dueAt: number;
}
