import Database from 'better-sqlite3';
import { uuidv7 } from '../event-id';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
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
type EventRow = [position: number, id: string, streamId: string, revision: number, type: string, data: string, metadata: string, created: number];
const CREATED = 7;

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  expected: ExpectedRevision;
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

  constructor(row: EventRow) {
    this.id = row[1];
    this.streamId = row[2];
    this.revision = row[3];
    this.type = row[4];
    this.#row = row;
  }

  get data(): any {
    return this.#data === undefined ? (this.#data = JSON.parse(this.#row[5])) : this.#data;
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

  constructor(options: SqliteEventStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    // Checkpoint every 32 MiB of WAL instead of 4 MiB: index pages that every batch
    // touches are copied into the database once per checkpoint, not eight times.
    this.db.pragma('wal_autocheckpoint = 8192');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created INTEGER NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS events_id ON events (id);
      CREATE TABLE IF NOT EXISTS stream_metadata (
        stream_id TEXT PRIMARY KEY,
        max_age_seconds INTEGER
      );
    `);
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
      lastRevision: db.prepare<[string], { revision: number }>(
        'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      insert: db.prepare(
        'INSERT INTO events (id, stream_id, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      byId: db.prepare<[string], { stream_id: string; revision: number; position: number }>(
        'SELECT stream_id, revision, position FROM events WHERE id = ?',
      ),
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
        .prepare<[number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`)
        .raw(true),
      head: db.prepare<[], { position: number }>('SELECT MAX(position) AS position FROM events'),
      setMeta: db.prepare(
        'INSERT INTO stream_metadata (stream_id, max_age_seconds) VALUES (?, ?) ON CONFLICT (stream_id) DO UPDATE SET max_age_seconds = excluded.max_age_seconds',
      ),
      // The newest event of a stream is kept so its revision numbering carries on.
      scavenge: db.prepare(
        'DELETE FROM events WHERE stream_id = @stream AND created < @cutoff AND revision < (SELECT MAX(revision) FROM events WHERE stream_id = @stream)',
      ),
    };
  }

  appendToStream(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.queue.push({ stream, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    const appendOne = this.db.transaction((req: PendingAppend) => this.write(req));
    try {
      this.db
        .transaction(() => {
          for (const req of batch) {
            // Store-made ids cannot collide, so such an append fails only on its revision check,
            // before any insert, and needs no savepoint; caller ids might collide mid-append.
            const callerIds = req.events.some((e) => e.id !== undefined);
            try {
              outcomes.push({ ok: true, result: callerIds ? appendOne(req) : this.write(req) });
            } catch (error) {
              // Without a savepoint, only a refusal before any insert may be isolated.
              if (!callerIds && !(error instanceof WrongExpectedVersionError)) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the batch is stored.
      for (const req of batch) req.reject(error);
      return;
    }
    batch.forEach((req, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) req.resolve(outcome.result);
      else req.reject(outcome.error);
    });
    this.appended.emit('append');
  }

  private write(req: PendingAppend): AppendResult {
    const { stream, events, expected } = req;
    const current = this.stmts.lastRevision.get(stream)?.revision ?? -1;
    const replay = this.idempotentReplay(stream, events);
    if (replay) return replay;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === -1) ||
      (expected === 'stream_exists' && current >= 0) ||
      (typeof expected === 'number' && expected === current);
    if (!ok) throw new WrongExpectedVersionError(stream, expected, current === -1 ? 'no_stream' : current);
    const now = Date.now();
    let revision = current;
    let position = 0;
    for (const e of events) {
      revision += 1;
      const info = this.stmts.insert.run(
        e.id ?? uuidv7(now),
        stream,
        revision,
        e.type,
        JSON.stringify(e.data ?? {}),
        JSON.stringify(e.metadata ?? {}),
        now,
      );
      position = Number(info.lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position: toPosition(position) };
  }

  /** Like EventStoreDB, re-sending events whose ids are already stored in this stream succeeds without writing. */
  private idempotentReplay(stream: string, events: NewEvent[]): AppendResult | null {
    const firstId = events[0].id;
    if (!firstId) return null;
    const first = this.stmts.byId.get(firstId);
    if (!first) return null;
    if (first.stream_id !== stream) throw new IdConflictError(firstId);
    const last = events[events.length - 1].id ? this.stmts.byId.get(events[events.length - 1].id!) : undefined;
    if (!last) throw new WrongExpectedVersionError(stream, 'any', first.revision);
    return { nextExpectedRevision: last.revision, position: toPosition(last.position) };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.direction === 'backwards'
        ? this.stmts.readBackward.all(stream, options.fromRevision ?? Number.MAX_SAFE_INTEGER, max)
        : this.stmts.readForward.all(stream, options.fromRevision ?? 0, max);
    const maxAge = this.maxAges.get(stream);
    const cutoff = maxAge ? Date.now() - maxAge * 1000 : 0;
    return rows.filter((r) => r[CREATED] >= cutoff).map((r) => new StoredEvent(r));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.after ? Number(options.after.commit) : 0, options.maxCount ?? 1000);
  }

  private readAllSync(after: number, max: number): StoredEvent[] {
    const rows = this.stmts.readAll.all(after, max);
    const events = new Array<StoredEvent>(rows.length);
    for (let i = 0; i < rows.length; i++) events[i] = new StoredEvent(rows[i]);
    return events;
  }

  /**
   * Reads `$all` in pages of `batchSize` rows; once a page comes back short the reader
   * is at the head and waits for an append (this process) or the poll interval
   * (other processes). Pages are handed out whole through `batches()`.
   */
  subscribeToAll(after: Position | null): Subscription {
    let closed = false;
    let wake: (() => void) | null = null;
    // Set by an append in this process since the last read: the consumer may take
    // several event-loop turns over a page (a read store doing I/O), and an append
    // then must not wait out the poll interval.
    let appendedSinceRead = false;
    const onAppend = () => {
      appendedSinceRead = true;
      wake?.();
    };
    this.appended.on('append', onAppend);
    const store = this;
    const batchSize = 1000;
    async function* pages(): AsyncGenerator<RecordedEvent[]> {
      let cursor = after ? Number(after.commit) : 0;
      try {
        while (!closed && !store.closed) {
          appendedSinceRead = false;
          const batch = store.readAllSync(cursor, batchSize);
          if (batch.length > 0) {
            cursor = batch[batch.length - 1].positionNumber;
            yield batch;
          }
          if (closed) break;
          if (batch.length < batchSize) {
            if (appendedSinceRead) continue;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, store.pollIntervalMs);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = null;
          } else {
            // Reads are synchronous: without this, catching up over many pages would run
            // in one macrotask and starve timers and I/O (HTTP, write-behind) until done.
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        }
      } finally {
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
        closed = true;
        wake?.();
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

  /** Deletes events past their stream's `$maxAge`, as EventStoreDB's scavenge does. */
  scavenge(now = Date.now()): number {
    let removed = 0;
    for (const [stream, maxAge] of this.maxAges) {
      removed += this.stmts.scavenge.run({ stream, cutoff: now - maxAge * 1000 }).changes;
    }
    return removed;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.queue.length) this.flush();
    this.closed = true;
    this.appended.emit('append');
    this.db.close();
  }
}
