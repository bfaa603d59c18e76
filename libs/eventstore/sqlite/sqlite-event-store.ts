import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { AppendOutcome, AppendRequest, CommitResult, openEventDatabase, WRITTEN_IDS_SEPARATOR } from './append-batch';
import { Commits, createCommits } from './commit-thread';
import { BLOCK_SIZE, BlockCursor, blockStart, CatchUpBlocks } from './catch-up-blocks';
import { RecentEvents } from './recent-events';
import { decodedCopy, NOT_PLAIN } from './decoded-copy';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamMetadata,
  Subscription,
  WrongExpectedVersionError,
} from '../event-store.port';

/**
 * Rows are read in raw (array) mode, which skips building an intermediate object per
 * row; this column list and `EventRow` must stay in the same order.
 */
const COLUMNS = 'position, id, stream_id, revision, type, data, metadata, created';
type EventRow = [
  position: number,
  id: string,
  streamId: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
  created: number,
];
const CREATED = 7;
/** How long after a commit a smaller batch waits for more appends to join it. */
const GROUP_COMMIT_WINDOW_MS = 1;
/** Head pages of `$all` kept for subscribers a few commits apart. */
const SHARED_PAGES = 4;
/**
 * Stored text (data and metadata JSON) of the complete blocks kept for subscriptions
 * catching up (catch-up-blocks.ts): ~10 blocks of the service's usual events, enough for
 * ~21 consumers moving through history at different speeds to share most reads.
 */
const CATCH_UP_CACHE_BYTES = 4 * 2 ** 20;
/** Counted per event besides its JSON text: ids, stream, type, the objects around them. */
const EVENT_OVERHEAD_BYTES = 200;
/**
 * Stored text of the recent events shared between subscriptions at different cursors
 * (recent-events.ts): a few thousand of the usual events, several batches of every consumer.
 */
const RECENT_EVENTS_MIB = 1;
/**
 * An event whose stored text is at most this long is handed to this store's subscriptions
 * decoded (a copy made at append); a longer one (a report's record chunk) is parsed when
 * first read, if ever, so that its decoded form is not held before anyone needs it.
 */
const DECODED_AT_APPEND_CHARS = 4096;

/** A head page of `$all` after a cursor, valid while no commit has happened since it was read. */
interface SharedPage {
  dataVersion: number;
  localCommits: number;
  end: number;
  complete: boolean;
  events: StoredEvent[];
}

/** A read of `$all` for a subscription: the events after its cursor up to `end`. */
interface BlockRead {
  events: StoredEvent[];
  /** Whether the head had passed `end` before the read: nothing more will land up to there. */
  complete: boolean;
  end: number;
  /** SQLite's data_version before the read: a later commit elsewhere changes it. */
  dataVersion: number;
}

/** A subscription at the head, waiting for a commit. */
interface IdleSubscription {
  dataVersion: number;
  wake(): void;
}

interface PendingAppend {
  request: AppendRequest;
  /** Each event's data and metadata as they decode (decodedCopy), or null: parsed when first read. */
  decoded: ({ data: unknown; metadata: EventMetadata } | null)[] | null;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

export interface SqliteEventStoreOptions {
  /** Path of the database file; `:memory:` for throw-away stores. */
  file: string;
  /** How often a subscription looks for appends made by other processes. */
  pollIntervalMs?: number;
  /** Commit durability: FULL flushes the WAL on every (group) commit. */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * Time of `created` and of `$maxAge` (epoch ms): the app's injected clock, so retention
   * judges events by the same time that made them (tests and accelerated benches move it).
   */
  now?: () => number;
  /**
   * Upper bound of this connection's SQLite page cache (MiB). Unset: SQLite's build
   * default (16 MiB in better-sqlite3). A reader that only follows the tail (a DNS thread)
   * needs little: the OS page cache holds the file anyway.
   */
  pageCacheMiB?: number;
  /**
   * One subscription reads this store (a DNS thread's index feeder): nothing is kept for
   * others to share, neither head pages nor recent events (recent-events.ts), which would only
   * keep read events alive past their use.
   */
  singleSubscription?: boolean;
  /**
   * Where group commits run: `inline` on the event loop (the default), `thread` on the
   * store's commit thread, `auto` the thread when its script is built. On the thread the
   * WAL flush and checkpoints no longer stop the event loop; an append still resolves only
   * once its commit is durable, and others see it only then.
   */
  commits?: 'auto' | 'inline' | 'thread';
}

/** An event id that is already stored in another stream. */
export class IdConflictError extends Error {
  constructor(id: string) {
    super(`event id ${id} already used in another stream`);
  }
}

/** One BigInt serves as both commit and prepare: they are equal here, and BigInts are immutable. */
const toPosition = (n: number): Position => {
  const p = BigInt(n);
  return { commit: p, prepare: p };
};

/**
 * A stored event that decodes its JSON columns, position and timestamp on first read
 * and keeps the result. A projection skips most events of `$all` by type alone, and a
 * handler rarely reads `metadata` or `created`, so most of that work is never done.
 * The decoded fields are getters: `toJSON` keeps serialisation complete, and copies
 * must name the fields (a spread would drop them).
 */
class StoredEvent implements RecordedEvent {
  readonly id: string;
  readonly streamId: string;
  readonly revision: number;
  readonly type: string;
  #row: EventRow;
  #data: unknown;
  #metadata: EventMetadata | undefined;
  #position: Position | undefined;
  #created: Date | undefined;

  /** `decoded`: the data and metadata already decoded (an event this store has just committed). */
  constructor(row: EventRow, decoded?: { data: unknown; metadata: EventMetadata } | null) {
    this.id = row[1];
    this.streamId = row[2];
    this.revision = row[3];
    this.type = row[4];
    this.#row = row;
    if (decoded) {
      this.#data = decoded.data;
      this.#metadata = decoded.metadata;
      row[5] = '';
      row[6] = '';
    }
  }

  get data(): any {
    if (this.#data === undefined) {
      this.#data = JSON.parse(this.#row[5]);
      // Only the decoded form is read again: a page shared at the head of $all would
      // otherwise keep both (a report's record chunk is ~50 KB of text).
      this.#row[5] = '';
    }
    return this.#data;
  }

  get metadata(): EventMetadata {
    return (this.#metadata ??= JSON.parse(this.#row[6]));
  }

  get position(): Position {
    return (this.#position ??= toPosition(this.#row[0]));
  }

  get created(): Date {
    return (this.#created ??= new Date(this.#row[CREATED]));
  }

  /** Global position as a number, without building the BigInt position. */
  get positionNumber(): number {
    return this.#row[0];
  }

  toJSON(): RecordedEvent {
    const { id, streamId, revision, type, data, metadata, position, created } = this;
    return { id, streamId, revision, type, data, metadata, position, created };
  }
}

/**
 * Embedded event store on SQLite (WAL). The global position is the rowid,
 * `UNIQUE(stream_id, revision)` backs optimistic concurrency, and appends arriving in
 * the same event-loop turn are committed together in one `BEGIN IMMEDIATE`
 * transaction (group commit), each in its own savepoint so one append's conflict does
 * not undo the others.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly stmts: ReturnType<SqliteEventStore['prepare']>;
  private readonly maxAges = new Map<string, number>();
  private readonly now: () => number;
  private readonly commits: Commits;
  /** The commit on the commit thread, if one is in flight (one at a time, in queue order). */
  private inFlight: Promise<void> | null = null;
  private readonly pages = new Map<number, SharedPage>();
  private readonly blocks = new CatchUpBlocks<StoredEvent>(CATCH_UP_CACHE_BYTES);
  private readonly recent: RecentEvents<StoredEvent>;
  private readonly single: boolean;
  /** Subscriptions at the head; one poll of data_version serves them all. */
  private readonly idle = new Set<IdleSubscription>();
  private pollTimer: NodeJS.Timeout | null = null;
  private localCommits = 0;
  private lastCommitAt = -Infinity;
  private lastBatchSize = 0;
  /** data_version as read in this run of the event loop (currentDataVersion). */
  private dataVersionNow: number | null = null;
  /** Subscriptions opened and not closed: the events committed here are handed to them (keepCommitted). */
  private subscriptions = 0;
  /** The head read last, and when (headAt). */
  private headNow: { dataVersion: number; localCommits: number; head: number } | null = null;

  readonly file: string;

  constructor(options: SqliteEventStoreOptions) {
    this.file = options.file;
    const synchronous = options.synchronous ?? 'FULL';
    this.db = openEventDatabase(options.file, synchronous);
    if (options.pageCacheMiB !== undefined) this.db.pragma(`cache_size = ${-Math.round(options.pageCacheMiB * 1024)}`);
    this.now = options.now ?? Date.now;
    this.single = options.singleSubscription ?? false;
    this.recent = new RecentEvents(this.single ? 0 : RECENT_EVENTS_MIB * 2 ** 20);
    this.commits = createCommits(this.db, options.file, synchronous, options.commits ?? 'inline');
    this.appended.setMaxListeners(0);
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.stmts = this.prepare();
    for (const row of this.db.prepare('SELECT stream_id, max_age_seconds FROM stream_metadata').all() as {
      stream_id: string;
      max_age_seconds: number | null;
    }[]) {
      if (row.max_age_seconds) this.maxAges.set(row.stream_id, row.max_age_seconds);
    }
  }

  private prepare() {
    const db = this.db;
    return {
      readForward: db
        .prepare<[string, number, number], EventRow>(
          `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
        )
        .raw(true),
      readBackward: db
        .prepare<[string, number, number], EventRow>(
          `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
        )
        .raw(true),
      readAll: db
        .prepare<[number, number], EventRow>(
          `SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`,
        )
        .raw(true),
      readRange: db
        .prepare<[number, number], EventRow>(
          `SELECT ${COLUMNS} FROM events WHERE position > ? AND position <= ? ORDER BY position ASC`,
        )
        .raw(true),
      nextPosition: db
        .prepare<[number], number>('SELECT position FROM events WHERE position > ? ORDER BY position ASC LIMIT 1')
        .pluck(),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      head: db.prepare<[], { position: number }>('SELECT MAX(position) AS position FROM events'),
      setMeta: db.prepare(
        'INSERT INTO stream_metadata (stream_id, max_age_seconds) VALUES (?, ?) ON CONFLICT (stream_id) DO ' +
          'UPDATE SET max_age_seconds = excluded.max_age_seconds',
      ),
      // The newest event of a stream is kept so its revision numbering carries on.
      scavenge: db.prepare(
        'DELETE FROM events WHERE stream_id = @stream AND created < @cutoff AND revision < (SELECT MAX(revision) ' +
          'FROM events WHERE stream_id = @stream)',
      ),
    };
  }

  /** Called after each commit made through this store (to wake readers in other threads). */
  onAppended(listener: () => void): () => void {
    this.appended.on('append', listener);
    return () => this.appended.off('append', listener);
  }

  /** Another thread or process committed: subscriptions read now instead of at their next poll. */
  notifyAppended(): void {
    this.appended.emit('append');
  }

  appendToStream(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    const request: AppendRequest = {
      stream,
      expected,
      events: events.map((e) => ({
        id: e.id,
        type: e.type,
        data: JSON.stringify(e.data ?? {}),
        metadata: JSON.stringify(e.metadata ?? {}),
      })),
    };
    // Taken now, beside their JSON: the appender may change its objects once this returns.
    // Only for this store's own subscriptions: a process that reads none (an API process) keeps nothing.
    const decoded =
      this.single || this.subscriptions === 0 ? null : request.events.map((e, i) => decodedOf(e, events[i]));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, decoded, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits the appends of one event-loop turn together: at once on the event loop, or on
   * the commit thread unless a commit is in flight there (the appends made meanwhile wait
   * for it and then go together; `flushScheduled` stays set while they wait, so they
   * schedule nothing).
   */
  private flush(): void {
    if (this.inFlight) return;
    // Right after a commit, a batch smaller than the last one waits out a short window for
    // more appends to join: under steady load that halves the WAL flushes (inline, each
    // blocks this thread; on the thread, each wakes every subscription). Writers that are
    // all already waiting (a batch as large as the last) or an idle store never wait.
    const wait = this.lastCommitAt + GROUP_COMMIT_WINDOW_MS - performance.now();
    if (wait > 0 && this.queue.length < this.lastBatchSize && !this.closed) {
      setTimeout(() => this.flush(), wait);
      return;
    }
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const call = { requests: batch.map((p) => p.request), now: this.now() };
    if (this.commits.inline) {
      let result: CommitResult;
      try {
        result = this.commits.commit(call) as CommitResult;
      } catch (error) {
        // The commit itself failed (disk full, I/O error): nothing of the batch is stored.
        for (const p of batch) p.reject(error);
        return;
      }
      this.committed(batch, result);
      return;
    }
    this.inFlight = (this.commits.commit(call) as Promise<CommitResult>).then(
      (result) => {
        this.inFlight = null;
        this.committed(batch, result);
        if (this.queue.length > 0) this.flush();
      },
      (error: unknown) => {
        // The transaction failed (disk full, I/O error) or the thread died: nothing of the batch is stored.
        this.inFlight = null;
        for (const p of batch) p.reject(error);
        if (this.queue.length > 0) this.flush();
      },
    );
  }

  private committed(batch: PendingAppend[], result: CommitResult): void {
    this.lastCommitAt = performance.now();
    this.lastBatchSize = batch.length;
    this.localCommits++;
    if (!this.single && this.subscriptions > 0) this.keepCommitted(batch, result);
    batch.forEach((p, i) => settle(p, result.outcomes[i]));
    this.appended.emit('append');
  }

  /**
   * Hands the events just committed to this store's subscriptions (recent-events.ts), so none
   * reads them back from SQLite. One transaction under the write lock wrote them, each append's
   * events one after another, so when their count spans their positions exactly, those
   * positions hold these events and nothing else; anything odd (an append replayed, a gap) and
   * they are simply read back, as before.
   */
  private keepCommitted(batch: PendingAppend[], { outcomes, written, created }: CommitResult): void {
    let first = Number.MAX_SAFE_INTEGER;
    let last = 0;
    let count = 0;
    const ids = new Array<string[] | null>(batch.length).fill(null);
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i];
      if (!outcome.ok || written[i] === '') continue;
      const n = batch[i].request.events.length;
      // An id holding the separator splits into more: such an append is read back instead.
      if ((ids[i] = written[i].split(WRITTEN_IDS_SEPARATOR)).length !== n) return;
      first = Math.min(first, outcome.position - n + 1);
      last = Math.max(last, outcome.position);
      count += n;
    }
    if (count === 0 || last - first + 1 !== count) return;
    const events = new Array<{ position: number; event: StoredEvent; bytes: number }>(count);
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i];
      const appendIds = ids[i];
      if (!outcome.ok || !appendIds) continue;
      const { stream, events: appended } = batch[i].request;
      const decoded = batch[i].decoded;
      const n = appended.length;
      for (let j = 0; j < n; j++) {
        const e = appended[j];
        const position = outcome.position - n + 1 + j;
        const row: EventRow = [
          position,
          appendIds[j],
          stream,
          outcome.revision - n + 1 + j,
          e.type,
          e.data,
          e.metadata,
          created,
        ];
        events[position - first] = {
          position,
          event: new StoredEvent(row, decoded?.[j]),
          bytes: e.data.length + e.metadata.length + EVENT_OVERHEAD_BYTES,
        };
      }
    }
    this.recent.committed(first - 1, events);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.direction === 'backwards'
        ? this.stmts.readBackward.all(stream, options.fromRevision ?? Number.MAX_SAFE_INTEGER, max)
        : this.stmts.readForward.all(stream, options.fromRevision ?? 0, max);
    const maxAge = this.maxAges.get(stream);
    const cutoff = maxAge ? this.now() - maxAge * 1000 : 0;
    return rows.filter((r) => r[CREATED] >= cutoff).map((r) => new StoredEvent(r));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.stmts.readAll
      .all(options.after ? Number(options.after.commit) : 0, options.maxCount ?? 1000)
      .map((r) => new StoredEvent(r));
  }

  /**
   * The next read of `$all` for a subscription at `cursor`: the rest of the block of
   * BLOCK_SIZE positions holding the next position. A complete block (the head had passed
   * its end) read from its start is read once and kept for the other subscriptions behind
   * it (catch-up-blocks.ts). The rest of a block after a cursor (at the head, or where a
   * consumer resumed from its checkpoint) is shared by the subscriptions at that same
   * cursor until anything is committed: after an append they all ask for the same page.
   * StoredEvent is read-only, so sharing the objects is safe.
   */
  private readBlock(cursor: number): BlockRead {
    const start = blockStart(cursor);
    const end = start + BLOCK_SIZE;
    const cached = this.blocks.after(cursor);
    if (cached) return { events: cached, complete: true, end, dataVersion: 0 };
    // SQLite's data_version moves with commits of other connections (other threads and
    // processes), the local counter with this one's.
    const dataVersion = this.currentDataVersion();
    const hit = this.pages.get(cursor);
    if (hit && hit.dataVersion === dataVersion && hit.localCommits === this.localCommits && hit.end === end)
      return { events: hit.events, complete: hit.complete, end, dataVersion };
    // Read before the block: positions grow in commit order, so every position up to a
    // head seen now is committed and visible to the read that follows.
    const head = this.headAt(dataVersion);
    const complete = head >= end;
    // The events up to the head were committed through this store a moment ago: taken as they
    // were handed over (keepCommitted), not read back. Nothing past the head is read then; a
    // commit after the head was read wakes the subscription as any other does.
    const local = this.recent.range(cursor, Math.min(head, end));
    if (local) return this.shared(cursor, { events: local, complete, end, dataVersion });
    const rows = this.stmts.readRange.all(cursor, end);
    const events = new Array<StoredEvent>(rows.length);
    let bytes = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const size = row[5].length + row[6].length + EVENT_OVERHEAD_BYTES;
      bytes += size;
      // Another subscription read it a moment ago: the same object, decoded at most once.
      let event = this.recent.get(row[0]);
      if (!event) this.recent.keep(row[0], (event = new StoredEvent(row)), size);
      events[i] = event;
    }
    if (complete && cursor === start) {
      this.blocks.keep(start, events, bytes);
      return { events, complete, end, dataVersion };
    }
    return this.shared(cursor, { events, complete, end, dataVersion });
  }

  /**
   * SQLite's data_version, read once for the subscriptions that read in the same run of the
   * event loop (an append wakes ~20 of them together, and each read of it starts a read
   * transaction). Read before their reads, so a commit by another connection after it is
   * still seen as one: at worst a subscription reads once more after the next poll.
   */
  private currentDataVersion(): number {
    if (this.dataVersionNow === null) {
      this.dataVersionNow = this.stmts.dataVersion.get() as number;
      process.nextTick(this.forgetDataVersion);
    }
    return this.dataVersionNow;
  }

  /**
   * The head of `$all` as read at `dataVersion` (currentDataVersion) with no commit of this
   * connection since: while neither has moved, nothing was committed after it was read
   * (by this store or anyone), so the subscriptions woken together read it once.
   */
  private headAt(dataVersion: number): number {
    const known = this.headNow;
    if (known && known.dataVersion === dataVersion && known.localCommits === this.localCommits) return known.head;
    const head = this.stmts.head.get()?.position ?? 0;
    this.headNow = { dataVersion, localCommits: this.localCommits, head };
    return head;
  }

  private readonly forgetDataVersion = () => {
    this.dataVersionNow = null;
  };

  /** A read after `cursor` at the head, kept for the other subscriptions at that cursor until the next commit. */
  private shared(cursor: number, read: BlockRead): BlockRead {
    if (!this.single) {
      if (this.pages.size >= SHARED_PAGES) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(cursor, { ...read, localCommits: this.localCommits });
    }
    return read;
  }

  /** Where a subscription goes after an empty complete block: the block of the next stored position (retention leaves long gaps). */
  private skipGap(end: number): number {
    const next = this.stmts.nextPosition.get(end) as number | undefined;
    return next === undefined ? end : Math.max(end, blockStart(next - 1));
  }

  /** Waits (with the other idle subscriptions) for a commit by another connection after `dataVersion`, or for `wake`. */
  private untilCommitElsewhere(waiter: IdleSubscription): void {
    this.idle.add(waiter);
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setTimeout(() => this.pollCommits(), this.pollIntervalMs);
  }

  /**
   * One `PRAGMA data_version` per poll interval for every idle subscription of this store
   * (each used to read `$all` on its own timer): the ones that read before a commit by
   * another connection are woken to read again. Appends through this store wake them at once.
   */
  private pollCommits(): void {
    this.pollTimer = null;
    if (this.closed || this.idle.size === 0) return;
    const dataVersion = this.stmts.dataVersion.get() as number;
    for (const waiter of [...this.idle]) {
      if (waiter.dataVersion === dataVersion) continue;
      this.idle.delete(waiter);
      waiter.wake();
    }
    if (this.idle.size > 0) this.pollTimer = setTimeout(() => this.pollCommits(), this.pollIntervalMs);
  }

  /**
   * Reads `$all` block by block (readBlock); once a read reaches the head the subscription
   * waits for an append (this process: at once) or another connection's commit (the
   * shared poll, within the poll interval). Pages are handed out whole through `batches()`.
   */
  subscribeToAll(after: Position | null): Subscription {
    let closed = false;
    this.subscriptions++;
    let waiting: IdleSubscription | null = null;
    // Set by an append in this process since the last read: the consumer may take
    // several event-loop turns over a page (a read store doing I/O), and an append
    // then must not wait out the poll interval.
    let appendedSinceRead = false;
    const stopWaiting = () => {
      if (!waiting) return;
      const w = waiting;
      waiting = null;
      this.idle.delete(w);
      w.wake();
    };
    const onAppend = () => {
      appendedSinceRead = true;
      stopWaiting();
    };
    this.appended.on('append', onAppend);
    // The page loop is an async generator, which cannot be an arrow function and bind `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const store = this;
    async function* pages(): AsyncGenerator<RecordedEvent[]> {
      const cursor: BlockCursor = { position: after ? Number(after.commit) : 0 };
      const untrack = store.blocks.track(cursor);
      try {
        while (!closed && !store.closed) {
          appendedSinceRead = false;
          const read = store.readBlock(cursor.position);
          if (read.events.length > 0) {
            cursor.position = read.events[read.events.length - 1].positionNumber;
            yield read.events;
          }
          if (closed) break;
          if (read.complete) {
            // Nothing more will land in this block; an empty one may start a long gap.
            cursor.position = read.events.length > 0 ? read.end : store.skipGap(read.end);
            // Reads are synchronous: without this, catching up over many blocks would run
            // in one macrotask and starve timers and I/O (HTTP, write-behind) until done.
            await new Promise<void>((resolve) => setImmediate(resolve));
            continue;
          }
          // At the head: read again at once only for an append made here meanwhile.
          if (appendedSinceRead) continue;
          await new Promise<void>((resolve) => {
            waiting = { dataVersion: read.dataVersion, wake: resolve };
            store.untilCommitElsewhere(waiting);
          });
          waiting = null;
        }
      } finally {
        untrack();
        store.appended.off('append', onAppend);
      }
    }
    async function* events(): AsyncGenerator<RecordedEvent> {
      for await (const batch of pages()) {
        for (const event of batch) {
          if (closed) return;
          yield event;
        }
      }
    }
    let iterator: AsyncIterator<RecordedEvent> | null = null;
    return {
      [Symbol.asyncIterator]: () => (iterator ??= events()),
      batches: () => ({ [Symbol.asyncIterator]: () => pages() }),
      close: async () => {
        if (!closed) store.subscriptions--;
        closed = true;
        stopWaiting();
        store.appended.off('append', onAppend);
      },
    };
  }

  async headPosition(): Promise<Position | null> {
    const row = this.stmts.head.get();
    return row?.position ? toPosition(row.position) : null;
  }

  async setStreamMetadata(stream: string, metadata: StreamMetadata): Promise<void> {
    this.stmts.setMeta.run(stream, metadata.maxAgeSeconds ?? null);
    if (metadata.maxAgeSeconds) this.maxAges.set(stream, metadata.maxAgeSeconds);
    else this.maxAges.delete(stream);
  }

  async pruneExpired(now: Date): Promise<number> {
    return this.scavenge(now.getTime());
  }

  /** Deletes events past their stream's `$maxAge`, as EventStoreDB's scavenge does. */
  scavenge(now = this.now()): number {
    // One transaction, one WAL flush: a statement each (autocommit) cost a flush per stream
    // with a maxAge (1,000 monitored domains, 1,000 flushes) while the event loop waited.
    // IMMEDIATE: takes the write lock first (waiting out a commit thread's commit) rather
    // than failing to upgrade a read snapshot that commit made stale.
    const removed = this.db
      .transaction(() => {
        let n = 0;
        for (const [stream, maxAge] of this.maxAges)
          n += this.stmts.scavenge.run({ stream, cutoff: now - maxAge * 1000 }).changes;
        return n;
      })
      .immediate();
    this.localCommits++;
    if (removed > 0) {
      this.blocks.clear();
      this.recent.clear();
    }
    return removed;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Commits what is queued now, without the group-commit wait.
    while (this.inFlight || this.queue.length > 0) {
      if (!this.inFlight) this.flush();
      if (this.inFlight) await this.inFlight;
    }
    await this.commits.close();
    this.appended.emit('append');
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    for (const waiter of this.idle) waiter.wake();
    this.idle.clear();
    this.db.close();
  }
}

/** An appended event's data and metadata as they decode from its JSON, when a copy gives exactly that (decoded-copy.ts). */
function decodedOf(
  stored: { data: string; metadata: string },
  event: NewEvent,
): { data: unknown; metadata: EventMetadata } | null {
  if (stored.data.length + stored.metadata.length > DECODED_AT_APPEND_CHARS) return null;
  const data = decodedCopy(event.data ?? {});
  if (data === NOT_PLAIN) return null;
  const metadata = decodedCopy(event.metadata ?? {});
  if (metadata === NOT_PLAIN) return null;
  return { data, metadata: metadata as EventMetadata };
}

function settle(p: PendingAppend, outcome: AppendOutcome): void {
  if (outcome.ok) return p.resolve({ nextExpectedRevision: outcome.revision, position: toPosition(outcome.position) });
  switch (outcome.kind) {
    case 'wrong_expected_version':
      return p.reject(new WrongExpectedVersionError(outcome.stream, outcome.expected, outcome.actual));
    case 'id_conflict':
      return p.reject(new IdConflictError(outcome.id));
    default:
      return p.reject(new Error(outcome.message));
  }
}
