/**
 * The event-store port. Its shape follows EventStoreDB's semantics (0-based stream
 * revisions, `NO_STREAM` / `STREAM_EXISTS` / `ANY` expectations, `$all` positions as
 * `{commit, prepare}`) so that command handlers and projections run unchanged on the
 * embedded SQLite adapter and on EventStoreDB.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface EventMetadata {
  correlation_id?: string;
  causation_id?: string;
  /** user id (`user:<id>`), key id (`key:<uuid>`), `ddns:<id>` or `system` */
  actor?: string;
  /** The account that owns the fact; feeds `/account/audit`. */
  account_id?: number;
  /** Source IP of the request that caused it, where there was one. */
  source_ip?: string;
  /** Schema version of `data`; upcasters lift older versions on read. */
  version?: number;
  [key: string]: unknown;
}

export interface NewEvent<T = unknown> {
  /** Deterministic ids make a retried append idempotent on EventStoreDB. */
  id?: string;
  type: string;
  data: T;
  metadata?: EventMetadata;
}

export interface Position {
  commit: bigint;
  prepare: bigint;
}

/**
 * A stored event. Adapters may decode `data`, `metadata`, `position` and `created` on
 * first read (getters), so copy an event by naming its fields, not by spreading it.
 */
export interface RecordedEvent<T = any> {
  id: string;
  streamId: string;
  revision: number;
  type: string;
  data: T;
  metadata: EventMetadata;
  position: Position;
  created: Date;
}

export interface AppendResult {
  /** Revision of the last event written (the next expected revision). */
  nextExpectedRevision: number;
  position: Position;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  maxCount?: number;
  direction?: 'forwards' | 'backwards';
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. */
  after?: Position | null;
  maxCount?: number;
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
  /**
   * The same events, in the same order, in the non-empty batches the adapter has at
   * hand (a page read, what the network has buffered), so a consumer pays the async
   * iteration once per batch rather than once per event. Consume a subscription
   * either through this or as an iterable, not both.
   */
  batches?(): AsyncIterable<RecordedEvent[]>;
}

export interface StreamMetadata {
  maxAgeSeconds?: number;
}

export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb';
  appendToStream(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream; an empty array when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Non-system events of every stream in global order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up subscription to `$all` after `after` (null = from the start), in order, then live. */
  subscribeToAll(after: Position | null): Subscription;
  /** Position of the last event in the store (null when empty). */
  headPosition(): Promise<Position | null>;
  setStreamMetadata(stream: string, metadata: StreamMetadata): Promise<void>;
  /**
   * Retention: removes for good the events older than their stream's `maxAgeSeconds` as
   * of `now` (reads hide them already). The newest event of a stream stays so its
   * revisions carry on. Answers how many were removed, or null where the store reclaims
   * the space itself in the background (EventStoreDB: a scavenge is started).
   */
  pruneExpired(now: Date): Promise<number | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected version on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

export const START: Position | null = null;

export const positionToString = (p: Position | null): string | null =>
  p === null ? null : `${p.commit.toString()}/${p.prepare.toString()}`;

export const positionFromString = (s: string | null | undefined): Position | null => {
  if (!s) return null;
  const [commit, prepare] = s.split('/');
  return { commit: BigInt(commit), prepare: BigInt(prepare ?? commit) };
};

export const comparePositions = (a: Position, b: Position): number =>
  a.commit === b.commit ? Number(a.prepare - b.prepare) : a.commit < b.commit ? -1 : 1;

/** A position as a JS number for read-model guards; commit positions stay below 2^53 in practice. */
export const positionNumber = (p: Position): number => Number(p.commit);
