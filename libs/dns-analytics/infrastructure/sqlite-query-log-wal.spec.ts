import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteQueryLogStore } from './sqlite-query-log.store';

/** The store's own connection: checkpoint settings are per connection, not kept in the file. */
const connectionOf = (store: SqliteQueryLogStore) => (store as unknown as { db: Database.Database }).db;
const setting = (db: Database.Database, name: string) => db.pragma(name, { simple: true }) as number;

// Decision 0131: 64 MiB of WAL between checkpoints whatever the file's page size, cut back to 128 MiB after one.
describe('SqliteQueryLogStore WAL bounds', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'qlog-wal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('checkpoints a new file (16 KiB pages) every 4096 pages and cuts its WAL back to 128 MiB', async () => {
    const store = new SqliteQueryLogStore(join(dir, 'dns-query-log.db'));
    const db = connectionOf(store);
    expect(setting(db, 'page_size')).toBe(16384);
    expect(setting(db, 'wal_autocheckpoint')).toBe(4096);
    expect(setting(db, 'journal_size_limit')).toBe(128 * 2 ** 20);
    await store.close();
  });

  it('keeps the same WAL bytes for a file written before with 4 KiB pages', async () => {
    const file = join(dir, 'dns-query-log.db');
    const old = new Database(file);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.close();
    const store = new SqliteQueryLogStore(file);
    const db = connectionOf(store);
    expect(setting(db, 'page_size')).toBe(4096);
    expect(setting(db, 'wal_autocheckpoint')).toBe(16384);
    await store.close();
  });
});
