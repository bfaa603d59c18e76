/**
 * What the processes sharing one deployment tell each other about their consumers:
 * who holds which lease, how far each consumer has got, which generation of each read
 * model is current, and which process-manager timers are pending — and small shared
 * records that must change atomically for all of them (login lockout counters). It lives
 * where every process on the same DATA_DIR (or the same MongoDB) sees it — never in
 * process memory.
 */
export interface Coordination {
  readonly kind: 'sqlite' | 'readstore';
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs`. False while another
   * holder's lease is unexpired; an expired lease is taken over, and so is one held by
   * `replacing` (a holder known to be dead: see holder-liveness.ts) before it expires.
   */
  tryLease(name: string, holder: string, ttlMs: number, now: number, replacing?: string): Promise<boolean>;
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

  /**
   * Changes the shared record `key` atomically for every process: `change` gets the value
   * stored (null when there is none or it expired at `now`) and says what to store (null:
   * nothing) and until when it matters. `change` must be pure: it may run more than once
   * (a concurrent writer won). Resolves to the `result` of the run that was stored.
   */
  updateRecord<T, R>(key: string, now: number, change: (current: T | null) => RecordChange<T, R>): Promise<R>;

  close(): Promise<void>;
}

export interface RecordChange<T, R> {
  next: T | null;
  /** Time (ms) after which the record may be deleted. */
  expiresAt: number;
  result: R;
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
