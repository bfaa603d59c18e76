import Database from 'better-sqlite3';
import { Coordination, PendingTimer, RecordChange } from './coordination';
import { preparePrivateFile } from '../shared/private-files';

/** Expired shared records are deleted every this many record changes, a bounded number at a time. */
const SWEEP_EVERY = 64;
const SWEEP_BATCH = 256;

/**
 * Coordination in a small SQLite file beside the embedded stores (`DATA_DIR/coordination.db`):
 * SQLite in WAL mode lets every process on the same DATA_DIR read and write it, and each
 * statement below is one atomic transaction, which is what makes a lease exclusive.
 */
export class SqliteCoordination implements Coordination {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements: ReturnType<SqliteCoordination['prepare']>;
  private recordChanges = 0;

  constructor(file: string) {
    preparePrivateFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS consumer_positions (name TEXT PRIMARY KEY, position TEXT, updated_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS generations (projection TEXT PRIMARY KEY, generation INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS timers (owner TEXT NOT NULL, stream TEXT NOT NULL, id TEXT NOT NULL,
        due_at INTEGER NOT NULL, PRIMARY KEY (owner, stream, id)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS rebuild_requests (projection TEXT PRIMARY KEY, requested_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS timers_due ON timers (owner, due_at);
      CREATE TABLE IF NOT EXISTS shared_records (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS shared_records_expiry ON shared_records (expires_at);
    `);
    this.statements = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      // The WHERE of the upsert is the lease rule: renew one's own, or take an expired one.
      lease: db.prepare(`INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE leases.holder = excluded.holder OR leases.expires_at <= ? OR leases.holder = ?`),
      release: db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?'),
      holder: db.prepare('SELECT holder FROM leases WHERE name = ? AND expires_at > ?').pluck(),
      savePosition: db.prepare(`INSERT INTO consumer_positions (name, position, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`),
      position: db.prepare('SELECT position FROM consumer_positions WHERE name = ?').pluck(),
      setGeneration: db.prepare(`INSERT INTO generations (projection, generation) VALUES (?, ?)
        ON CONFLICT (projection) DO UPDATE SET generation = excluded.generation`),
      generations: db.prepare('SELECT projection, generation FROM generations'),
      requestRebuild: db.prepare(
        'INSERT INTO rebuild_requests (projection, requested_at) VALUES (?, ?) ON CONFLICT (projection) DO NOTHING',
      ),
      takeRebuild: db.prepare('DELETE FROM rebuild_requests WHERE projection = ?'),
      rebuildRequests: db.prepare('SELECT projection FROM rebuild_requests').pluck(),
      schedule: db.prepare(
        'INSERT INTO timers (owner, id, stream, due_at) VALUES (?, ?, ?, ?) ON CONFLICT (owner, stream, id) DO NOTHING',
      ),
      cancel: db.prepare('DELETE FROM timers WHERE owner = ? AND stream = ? AND id = ?'),
      due: db.prepare(
        'SELECT owner, id, stream, due_at FROM timers WHERE owner = ? AND due_at <= ? ORDER BY due_at LIMIT ?',
      ),
      record: db.prepare('SELECT value FROM shared_records WHERE key = ? AND expires_at > ?').pluck(),
      putRecord: db.prepare(`INSERT INTO shared_records (key, value, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`),
      deleteRecord: db.prepare('DELETE FROM shared_records WHERE key = ?'),
      sweepRecords: db.prepare(
        `DELETE FROM shared_records WHERE key IN (SELECT key FROM shared_records WHERE expires_at <= ? LIMIT ${SWEEP_BATCH})`,
      ),
    };
  }

  async tryLease(name: string, holder: string, ttlMs: number, now: number, replacing?: string): Promise<boolean> {
    return this.statements.lease.run(name, holder, now + ttlMs, now, replacing ?? holder).changes === 1;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    this.statements.release.run(name, holder);
  }

  async leaseHolder(name: string, now: number): Promise<string | null> {
    return (this.statements.holder.get(name, now) as string | undefined) ?? null;
  }

  async savePosition(consumer: string, position: string | null): Promise<void> {
    this.statements.savePosition.run(consumer, position, Date.now());
  }

  /** Built on first use: better-sqlite3 wraps a function per `transaction()` call. */
  private saveAll: ((positions: ReadonlyMap<string, string | null>, now: number) => void) | null = null;

  async savePositions(positions: ReadonlyMap<string, string | null>): Promise<void> {
    this.saveAll ??= this.db.transaction((all: ReadonlyMap<string, string | null>, now: number) => {
      for (const [consumer, position] of all) this.statements.savePosition.run(consumer, position, now);
    });
    this.saveAll(positions, Date.now());
  }

  async positions(consumers: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const name of consumers)
      out.set(name, (this.statements.position.get(name) as string | null | undefined) ?? null);
    return out;
  }

  async setGeneration(projection: string, generation: number): Promise<void> {
    this.statements.setGeneration.run(projection, generation);
  }

  async generations(): Promise<Map<string, number>> {
    const rows = this.statements.generations.all() as Array<{ projection: string; generation: number }>;
    return new Map(rows.map((r) => [r.projection, r.generation]));
  }

  async requestRebuild(projection: string): Promise<void> {
    this.statements.requestRebuild.run(projection, Date.now());
  }

  async takeRebuildRequests(projections: readonly string[]): Promise<string[]> {
    // Asked every follow interval (250 ms) and almost always answered "none": one read
    // then, not a DELETE (a write transaction and its locks) per projection held.
    const requested = this.statements.rebuildRequests.all() as string[];
    if (requested.length === 0) return [];
    return projections.filter((p) => requested.includes(p) && this.statements.takeRebuild.run(p).changes === 1);
  }

  async scheduleTimer(t: PendingTimer): Promise<void> {
    this.statements.schedule.run(t.owner, t.id, t.stream, t.dueAt);
  }

  async cancelTimer(owner: string, stream: string, id: string): Promise<void> {
    this.statements.cancel.run(owner, stream, id);
  }

  async dueTimers(owner: string, now: number, limit: number): Promise<PendingTimer[]> {
    const rows = this.statements.due.all(owner, now, limit) as Array<{
      owner: string;
      id: string;
      stream: string;
      due_at: number;
    }>;
    return rows.map((r) => ({ owner: r.owner, id: r.id, stream: r.stream, dueAt: r.due_at }));
  }

  async updateRecord<T, R>(key: string, now: number, change: (current: T | null) => RecordChange<T, R>): Promise<R> {
    const sweep = ++this.recordChanges % SWEEP_EVERY === 0;
    // BEGIN IMMEDIATE takes the write lock before the read: another process's change
    // waits (busy_timeout) instead of both reading the same value.
    return this.db
      .transaction(() => {
        const stored = this.statements.record.get(key, now) as string | undefined;
        const { next, expiresAt, result } = change(stored === undefined ? null : (JSON.parse(stored) as T));
        if (next === null || expiresAt <= now) this.statements.deleteRecord.run(key);
        else this.statements.putRecord.run(key, JSON.stringify(next), expiresAt);
        if (sweep) this.statements.sweepRecords.run(now);
        return result;
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
