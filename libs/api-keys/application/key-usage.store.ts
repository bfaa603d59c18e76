import Database from 'better-sqlite3';
import { ReadStore } from '../../readstore/read-store.port';
import { preparePrivateFile } from '../../shared/private-files';

/**
 * Where `last_used_at` lives. It changes on every authenticated request, so it is not
 * an event (that would storm the store) and not a projection (a rebuild would lose
 * it): a small durable table written synchronously on each successful use, so the
 * value is exact and survives restarts, crashes and projection rebuilds.
 */
export interface KeyUsageStore {
  recordUse(keyId: string, at: Date): Promise<void>;
  lastUsed(keyIds: string[]): Promise<Map<string, string>>;
  close(): Promise<void>;
}

export const KEY_USAGE_STORE = Symbol('KEY_USAGE_STORE');

export class SqliteKeyUsageStore implements KeyUsageStore {
  private readonly db: Database.Database;
  private readonly upsert: Database.Statement;
  private readonly select: Database.Statement<[string], { key_id: string; last_used_at: string }>;
  private readonly writeAll: (uses: Map<string, string>) => void;
  private pending = new Map<string, string>();
  private written: Promise<void> | null = null;

  constructor(file: string) {
    preparePrivateFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // NORMAL: the WAL write reaches the OS before we answer, which a process crash cannot undo.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS key_usage (key_id TEXT PRIMARY KEY, last_used_at TEXT NOT NULL) WITHOUT ROWID',
    );
    this.upsert = this.db.prepare(
      'INSERT INTO key_usage (key_id, last_used_at) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET ' +
        'last_used_at = max(last_used_at, excluded.last_used_at)',
    );
    this.select = this.db.prepare('SELECT key_id, last_used_at FROM key_usage WHERE key_id = ?');
    this.writeAll = this.db.transaction((uses: Map<string, string>) => {
      for (const [keyId, iso] of uses) this.upsert.run(keyId, iso);
    });
  }

  /**
   * Uses within one event-loop turn are written together, one row per key and one
   * transaction in all, before any of their requests is answered: a DDNS client or a
   * busy integration hits the same key many times a second.
   */
  recordUse(keyId: string, at: Date): Promise<void> {
    const iso = at.toISOString();
    const prior = this.pending.get(keyId);
    if (!prior || prior < iso) this.pending.set(keyId, iso);
    return (this.written ??= new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        const uses = this.pending;
        this.pending = new Map();
        this.written = null;
        try {
          this.writeAll(uses);
          resolve();
        } catch (e) {
          reject(e);
        }
      }),
    ));
  }

  async lastUsed(keyIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const id of keyIds) {
      const row = this.select.get(id);
      if (row) out.set(id, row.last_used_at);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.written?.catch(() => undefined);
    this.db.close();
  }
}

/** Production: a plain (non-projected) MongoDB collection updated with `$max`. */
export class ReadStoreKeyUsageStore implements KeyUsageStore {
  constructor(private readonly readStore: ReadStore) {}

  private get usage() {
    return this.readStore.collection<{ _id: string; last_used_at: string }>('api_key_usage');
  }

  async recordUse(keyId: string, at: Date): Promise<void> {
    await this.usage.updateOne({ _id: keyId }, { $max: { last_used_at: at.toISOString() } }, { upsert: true });
  }

  async lastUsed(keyIds: string[]): Promise<Map<string, string>> {
    const docs = await this.usage.find({ _id: { $in: keyIds } });
    return new Map(docs.map((d) => [d._id, d.last_used_at]));
  }

  async close(): Promise<void> {}
}
