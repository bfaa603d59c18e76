import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ReadStore } from '../../readstore/read-store.port';

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

/** Embedded: a SQLite table under DATA_DIR (WAL, shared by every process on the host). */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly db: Database.Database;
  private readonly upsert: Database.Statement<[string, number], { count: number }>;
  private readonly prune: Database.Statement<[number]>;
  private lastPrune = 0;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // NORMAL: no fsync per hit (FULL made every API request wait on the disk, ~250 req/s in
    // the bench); a process crash cannot lose a committed hit, a power cut at worst forgets
    // a few counts of the current minute.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS rate_windows (key_id TEXT NOT NULL, window_start INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (key_id, window_start)) WITHOUT ROWID',
    );
    this.upsert = this.db.prepare(
      'INSERT INTO rate_windows (key_id, window_start, count) VALUES (?, ?, 1) ON CONFLICT (key_id, window_start) DO UPDATE SET count = count + 1 RETURNING count',
    );
    this.prune = this.db.prepare('DELETE FROM rate_windows WHERE window_start < ?');
  }

  async hit(keyId: string, windowStart: number): Promise<number> {
    // Old windows are never read again; drop them now and then so the table stays small.
    if (windowStart - this.lastPrune > 10 * 60_000) {
      this.prune.run(windowStart - 60_000);
      this.lastPrune = windowStart;
    }
    return this.upsert.get(keyId, windowStart)!.count;
  }

  async close(): Promise<void> {
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
    return this.readStore.collection<{ _id: string; count: number; window_start: number }>('email_auth_api_rate_windows');
  }

  private lastPrune = 0;

  async hit(keyId: string, windowStart: number): Promise<number> {
    if (windowStart - this.lastPrune > 10 * 60_000) {
      this.lastPrune = windowStart;
      await this.windows.deleteMany({ window_start: { $lt: windowStart - 60_000 } });
    }
    const id = `${keyId}:${windowStart}`;
    await this.windows.updateOne({ _id: id }, { $inc: { count: 1 }, $set: { window_start: windowStart } }, { upsert: true });
    const doc = await this.windows.findOne({ _id: id });
    return doc?.count ?? 1;
  }

  async close(): Promise<void> {}
}
