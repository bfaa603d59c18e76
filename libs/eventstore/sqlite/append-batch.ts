/**
 * The write half of the SQLite event store: opening the database and committing a batch
 * of appends in one transaction (group commit).
 */
import Database from 'better-sqlite3';
import { uuidv7 } from '../event-id';
import type { ExpectedRevision } from '../event-store.port';
import { preparePrivateFile } from '../../shared/private-files';

export type Synchronous = 'FULL' | 'NORMAL';

/** An event ready to store: data and metadata already JSON. */
export interface SerializedEvent {
  id?: string;
  type: string;
  data: string;
  metadata: string;
}

export interface AppendRequest {
  stream: string;
  events: SerializedEvent[];
  expected: ExpectedRevision;
}

/** What became of one append. */
export type AppendOutcome =
  | { ok: true; revision: number; position: number }
  | {
      ok: false;
      kind: 'wrong_expected_version';
      stream: string;
      expected: ExpectedRevision;
      actual: number | 'no_stream';
    }
  | { ok: false; kind: 'id_conflict'; id: string }
  | { ok: false; kind: 'failed'; message: string };

/**
 * A batch's outcomes, and what the store needs to hand the events it wrote to its own
 * subscriptions without reading them back (recent-events.ts). Plain strings and numbers: the
 * result crosses from the commit thread, where every object member costs its name again.
 */
export interface CommitResult {
  outcomes: AppendOutcome[];
  /** Per append, in order: the ids of the events it wrote, joined by WRITTEN_IDS_SEPARATOR; '' when it wrote none (refused, or a replay). */
  written: string[];
  /** The `created` time of every event of the batch. */
  created: number;
}

export const WRITTEN_IDS_SEPARATOR = ',';

class Refusal extends Error {
  constructor(readonly outcome: AppendOutcome & { ok: false }) {
    super(outcome.kind);
  }
}

/** Size a checkpointed WAL is truncated to (twice the auto-checkpoint's 32 MiB). */
export const WAL_SIZE_LIMIT_BYTES = 64 * 2 ** 20;

export function openEventDatabase(file: string, synchronous: Synchronous): Database.Database {
  preparePrivateFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  // Checkpoint every 32 MiB of WAL instead of 4 MiB: index pages that every batch
  // touches are copied into the database once per checkpoint, not eight times.
  db.pragma('wal_autocheckpoint = 8192');
  // A WAL stays as large as it ever grew (a retention pass deleting a day of checks writes
  // far more than 32 MiB before the next checkpoint); past this size it is cut back after
  // a checkpoint, so the files on disk stop growing once retention applies.
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.exec(`
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
  return db;
}

/**
 * Commits appends together in one `BEGIN IMMEDIATE` transaction (group commit), each
 * checked against its expected revision, so one append's conflict does not undo the
 * others. `commit` throws only when the transaction itself fails (disk full, I/O
 * error): then nothing of the batch is stored.
 */
export class BatchCommitter {
  private readonly lastRevision: Database.Statement<[string], { revision: number }>;
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement<[string], { stream_id: string; revision: number; position: number }>;
  /** Built once: better-sqlite3 wraps a function per `transaction()` call. */
  private readonly inSavepoint: Database.Transaction<(req: AppendRequest) => AppendOutcome>;
  private readonly commitAll: Database.Transaction<(batch: AppendRequest[]) => CommitResult>;
  /** The time of the batch being committed. */
  private batchTime = 0;
  /** The ids the append being committed wrote (CommitResult.written). */
  private lastWritten = '';

  /** `now`: the store's clock (epoch ms) for `created`; the injected one in tests and benches. */
  constructor(
    db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    this.lastRevision = db.prepare('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
    this.insert = db.prepare(
      'INSERT INTO events (id, stream_id, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.byId = db.prepare('SELECT stream_id, revision, position FROM events WHERE id = ?');
    this.inSavepoint = db.transaction((req: AppendRequest) => this.write(req));
    this.commitAll = db.transaction((batch: AppendRequest[]) => {
      const outcomes = new Array<AppendOutcome>(batch.length);
      const written = new Array<string>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        this.lastWritten = '';
        outcomes[i] = this.commitOne(batch[i]);
        written[i] = outcomes[i].ok ? this.lastWritten : '';
      }
      return { outcomes, written, created: this.batchTime };
    });
  }

  /**
   * `now`: the time the events are stamped with; a commit thread gets it from the store's
   * clock on the event loop (an injected clock lives there only).
   */
  commit(batch: AppendRequest[], now = this.now()): CommitResult {
    this.batchTime = now;
    return this.commitAll.immediate(batch);
  }

  private commitOne(req: AppendRequest): AppendOutcome {
    // Store-made ids cannot collide, so such an append fails only on its revision check,
    // before any insert, and needs no savepoint; caller ids might collide mid-append.
    const callerIds = req.events.some((e) => e.id !== undefined);
    try {
      return callerIds ? this.inSavepoint(req) : this.write(req);
    } catch (error) {
      if (error instanceof Refusal) return error.outcome;
      // Without a savepoint, a failure after an insert cannot be isolated: fail the batch.
      if (!callerIds) throw error;
      return { ok: false, kind: 'failed', message: (error as Error).message };
    }
  }

  private write(req: AppendRequest): AppendOutcome {
    const { stream, events, expected } = req;
    const current = this.lastRevision.get(stream)?.revision ?? -1;
    const replay = this.idempotentReplay(stream, events);
    if (replay) return replay;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === -1) ||
      (expected === 'stream_exists' && current >= 0) ||
      (typeof expected === 'number' && expected === current);
    if (!ok)
      throw new Refusal({
        ok: false,
        kind: 'wrong_expected_version',
        stream,
        expected,
        actual: current === -1 ? 'no_stream' : current,
      });
    const now = this.batchTime;
    let revision = current;
    let position = 0;
    const ids = new Array<string>(events.length);
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const id = (ids[i] = e.id ?? uuidv7(now));
      revision += 1;
      position = Number(this.insert.run(id, stream, revision, e.type, e.data, e.metadata, now).lastInsertRowid);
    }
    this.lastWritten = ids.join(WRITTEN_IDS_SEPARATOR);
    return { ok: true, revision, position };
  }

  /** Like EventStoreDB, re-sending events whose ids are already stored in this stream succeeds without writing. */
  private idempotentReplay(stream: string, events: SerializedEvent[]): AppendOutcome | null {
    const firstId = events[0].id;
    if (!firstId) return null;
    const first = this.byId.get(firstId);
    if (!first) return null;
    if (first.stream_id !== stream) throw new Refusal({ ok: false, kind: 'id_conflict', id: firstId });
    const lastId = events[events.length - 1].id;
    const last = lastId ? this.byId.get(lastId) : undefined;
    if (!last)
      throw new Refusal({ ok: false, kind: 'wrong_expected_version', stream, expected: 'any', actual: first.revision });
    return { ok: true, revision: last.revision, position: last.position };
  }
}
