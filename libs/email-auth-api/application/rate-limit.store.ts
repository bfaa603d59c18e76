import Database from 'better-sqlite3';
import { ReadStore } from '../../readstore/read-store.port';
import { preparePrivateFile } from '../../shared/private-files';

/**
 * Request counters of the email-auth API, one per key and fixed one-minute window.
 * The limit must hold across every process serving the API (contract §9), so the
 * counter lives in a store they all share and each hit is one atomic increment that
 * returns the new count: two processes can never both see "59".
 */
export interface RateLimitStore {
  /** Adds one request of `keyId` to the window starting at `windowStart` (epoch ms); returns the window's count. */
  hit(keyId: string, windowStart: number): Promise<number>;
  close(): Promise<void>;
}

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

interface PendingHits {
  keyId: string;
  windowStart: number;
  /** One per request, in arrival order: each is told its own count. */
  waiters: Array<{ resolve: (count: number) => void; reject: (e: unknown) => void }>;
}

/**
 * Embedded: a SQLite table under DATA_DIR (WAL, shared by every process on the host).
 * Hits are batched: those arriving in one turn of the event loop are added in one
 * transaction, one `count = count + n` per key and window, and the requests get the n
 * numbers ending at the count it returns, in arrival order. Exact across processes all
 * the same (each batch's increment is atomic, so two processes' numbers never overlap),
 * and one commit serves many requests instead of one each (a commit per hit was the
 * largest single cost of an API request after its body).
 */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly db: Database.Database;
  private readonly add: Database.Statement<[string, number, number], { count: number }>;
  private readonly prune: Database.Statement<[number]>;
  private readonly commit: (batch: PendingHits[]) => number[];
  private lastPrune = 0;
  private pending = new Map<string, PendingHits>();
  private flushScheduled = false;

  constructor(file: string) {
    preparePrivateFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // NORMAL: no fsync per commit (FULL made every API request wait on the disk, ~250 req/s in
    // the bench); a process crash cannot lose a committed hit, a power cut at worst forgets
    // a few counts of the current minute.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS rate_windows (key_id TEXT NOT NULL, window_start INTEGER NOT NULL, count ' +
        'INTEGER NOT NULL, PRIMARY KEY (key_id, window_start)) WITHOUT ROWID',
    );
    this.add = this.db.prepare(
      'INSERT INTO rate_windows (key_id, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key_id, ' +
        'window_start) DO UPDATE SET count = count + excluded.count RETURNING count',
    );
    this.prune = this.db.prepare('DELETE FROM rate_windows WHERE window_start < ?');
    // IMMEDIATE: the write lock is taken up front, so a batch never fails half-way on a busy database.
    this.commit = this.db.transaction((batch: PendingHits[]) =>
      batch.map((p) => this.add.get(p.keyId, p.windowStart, p.waiters.length)!.count),
    ).immediate;
  }

  hit(keyId: string, windowStart: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const id = `${windowStart}:${keyId}`;
      let hits = this.pending.get(id);
      if (!hits) this.pending.set(id, (hits = { keyId, windowStart, waiters: [] }));
      hits.waiters.push({ resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After this turn's I/O callbacks: every request parsed in it joins the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (batch.length === 0) return;
    let counts: number[];
    try {
      // Old windows are never read again; drop them now and then so the table stays small.
      const newest = Math.max(...batch.map((p) => p.windowStart));
      if (newest - this.lastPrune > 10 * 60_000) {
        this.prune.run(newest - 60_000);
        this.lastPrune = newest;
      }
      counts = this.commit(batch);
    } catch (e) {
      for (const p of batch) for (const w of p.waiters) w.reject(e);
      return;
    }
    batch.forEach((p, i) => {
      const first = counts[i] - p.waiters.length + 1;
      p.waiters.forEach((w, j) => w.resolve(first + j));
    });
  }

  async close(): Promise<void> {
    this.flush();
    this.db.close();
  }
}

/**
 * Production (MongoDB): a plain collection shared by every replica. `$inc` with upsert is
 * atomic per document; the count read back may include a concurrent replica's hit, which
 * can only make the limit stricter, never looser.
 */
export class ReadStoreRateLimitStore implements RateLimitStore {
  constructor(private readonly readStore: ReadStore) {}

  private get windows() {
    return this.readStore.collection<{ _id: string; count: number; window_start: number }>(
      'email_auth_api_rate_windows',
    );
  }

  private lastPrune = 0;

  async hit(keyId: string, windowStart: number): Promise<number> {
    if (windowStart - this.lastPrune > 10 * 60_000) {
      this.lastPrune = windowStart;
      await this.windows.deleteMany({ window_start: { $lt: windowStart - 60_000 } });
    }
    const id = `${keyId}:${windowStart}`;
    await this.windows.updateOne(
      { _id: id },
      { $inc: { count: 1 }, $set: { window_start: windowStart } },
      { upsert: true },
    );
    const doc = await this.windows.findOne({ _id: id });
    return doc?.count ?? 1;
  }

  async close(): Promise<void> {}
}
