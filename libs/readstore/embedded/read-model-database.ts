/**
 * The SQLite file the embedded read store keeps its documents in: a table per
 * collection (row key + the document in SQLite's binary JSON, JSONB; readers get it back
 * as text with `json(doc)`), the values of indexed fields in columns of their own with the
 * port's `createIndex` indexes on them (decision 0117), and two catalogue tables naming them. Collection tables are named by
 * an id never reused, so nothing cached for a dropped collection can be mistaken for a
 * later one of the same name.
 */
import Database from 'better-sqlite3';
import { preparePrivateFile } from '../../shared/private-files';

export interface CatalogueCollection {
  id: number;
  name: string;
  /** Fields whose path has held an array: MongoDB matches those element by element, which SQL cannot follow. */
  multikey: string[];
}

export interface CatalogueIndex {
  collectionId: number;
  name: string;
  fields: string[];
  unique: boolean;
}

export const tableName = (collectionId: number): string => `c${collectionId}`;

export function openReadModelDatabase(file: string, pageCacheMiB: number): Database.Database {
  preparePrivateFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // A process crash loses nothing committed; a power cut may lose the last commits,
  // which projections replay from their checkpoints (committed with their documents).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = ${-Math.round(pageCacheMiB * 1024)}`);
  // Checkpoints every 8192 pages (32 MiB of WAL) rather than SQLite's 1000: DDNS updates
  // rewrite the same index and table pages over and over, and a checkpoint copies each
  // page once however often it was written since the last one (measured on the writer's
  // upserts: 19.5 µs a row at 1000, 13.6 at 16000). The WAL is a file: memory is not its size.
  db.pragma('wal_autocheckpoint = 8192');
  // The WAL is cut back to this size after a checkpoint instead of staying as large as it grew.
  db.pragma('journal_size_limit = 67108864');
  db.exec(`CREATE TABLE IF NOT EXISTS rs_collections (
      id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, multikey TEXT NOT NULL DEFAULT '[]');
    CREATE TABLE IF NOT EXISTS rs_indexes (
      collection_id INTEGER NOT NULL, name TEXT NOT NULL PRIMARY KEY, fields TEXT NOT NULL, is_unique INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS rs_writers (writer TEXT PRIMARY KEY, commits INTEGER NOT NULL)`);
  importLegacyDocuments(db);
  return db;
}

/**
 * Counts a commit of `writer` (one store instance: its process and thread share the id),
 * inside the transaction that commits. Readers in other processes compare the commits of
 * every other writer to tell their caches are stale (see ForeignCommitWatch).
 */
export function commitCounter(db: Database.Database, writer: string): () => void {
  const bump = db.prepare(
    'INSERT INTO rs_writers (writer, commits) VALUES (?, 1) ON CONFLICT (writer) DO UPDATE SET commits = commits + 1',
  );
  return () => bump.run(writer);
}

export function createCollectionTable(db: Database.Database, name: string): CatalogueCollection {
  const id = Number(db.prepare('INSERT INTO rs_collections (name) VALUES (?)').run(name).lastInsertRowid);
  db.exec(`CREATE TABLE ${tableName(id)} (key TEXT PRIMARY KEY, doc BLOB NOT NULL)`);
  return { id, name, multikey: [] };
}

export function dropCollectionTable(db: Database.Database, id: number): void {
  db.exec(`DROP TABLE IF EXISTS ${tableName(id)}`);
  db.prepare('DELETE FROM rs_indexes WHERE collection_id = ?').run(id);
  db.prepare('DELETE FROM rs_collections WHERE id = ?').run(id);
}

export function readCatalogue(db: Database.Database): {
  collections: CatalogueCollection[];
  indexes: CatalogueIndex[];
} {
  const collections = (
    db.prepare('SELECT id, name, multikey FROM rs_collections').all() as {
      id: number;
      name: string;
      multikey: string;
    }[]
  ).map((r) => ({
    id: r.id,
    name: r.name,
    multikey: JSON.parse(r.multikey) as string[],
  }));
  const indexes = (
    db.prepare('SELECT collection_id, name, fields, is_unique FROM rs_indexes').all() as {
      collection_id: number;
      name: string;
      fields: string;
      is_unique: number;
    }[]
  ).map((r) => ({
    collectionId: r.collection_id,
    name: r.name,
    fields: JSON.parse(r.fields) as string[],
    unique: r.is_unique === 1,
  }));
  return { collections, indexes };
}

/**
 * Earlier releases kept every document in memory and wrote them to one `documents`
 * table (collection, key, JSON) with the same row keys. Its rows move into the
 * per-collection tables once, in one transaction, on the first start after the upgrade:
 * documents and projection checkpoints were written together, so the import is a
 * consistent snapshot and no projection has to replay history. Indexes come back when
 * projections declare them at start.
 */
function importLegacyDocuments(db: Database.Database): void {
  const legacy = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents'`).get();
  if (!legacy) return;
  db.transaction(() => {
    const names = db.prepare('SELECT DISTINCT collection FROM documents').pluck().all() as string[];
    for (const name of names) {
      const existing = db.prepare('SELECT id FROM rs_collections WHERE name = ?').pluck().get(name) as
        number | undefined;
      const id = existing ?? createCollectionTable(db, name).id;
      db.prepare(
        `INSERT OR REPLACE INTO ${tableName(id)} (key, doc) SELECT key, jsonb(doc) FROM documents WHERE collection = ?`,
      ).run(name);
    }
    db.exec('DROP TABLE documents');
  })();
}

/**
 * The column holding an indexed field's value, named by the field's JSON path (`"$.fqdn"`):
 * what `json_extract(doc, path)` gives, written with the document. An index on a column is
 * left alone by an update that does not set the column, where an index on an expression of
 * the document was rewritten by every write of the document, its value changed or not
 * (decision 0117). Paths are plain (jsonPath in sql-filter.ts), so they need no escaping.
 */
export const valueColumn = (path: string): string => `"${path}"`;

/** The JSON paths `table` keeps value columns for, in column order. */
export function valueColumnsOf(db: Database.Database, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).filter((name) =>
    name.startsWith('$.'),
  );
}

/**
 * Makes `name` an index of `table` on the value columns of `paths`: missing columns are
 * added and filled from the documents, and an index of that name over expressions of the
 * document (written before decision 0117) is replaced. Idempotent; run inside a
 * transaction of the caller (a process opening the file, or createIndex).
 */
export function indexOnValueColumns(db: Database.Database, table: string, name: string, paths: string[]): void {
  const present = new Set(valueColumnsOf(db, table));
  for (const path of paths) {
    if (present.has(path)) continue;
    db.exec(`ALTER TABLE ${table} ADD COLUMN ${valueColumn(path)}`);
    db.exec(`UPDATE ${table} SET ${valueColumn(path)} = json_extract(doc, '${path}')`);
    present.add(path);
  }
  const sql = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(name) as
    string | undefined;
  if (sql !== undefined && !sql.includes('json_extract')) return;
  db.exec(`DROP INDEX IF EXISTS ${name}`);
  db.exec(`CREATE INDEX ${name} ON ${table} (${paths.map(valueColumn).join(', ')})`);
}

/** Whether `name`, an index of the catalogue, is still one over expressions of the document (a file written before decision 0117). */
export function indexOverExpressions(db: Database.Database, name: string): boolean {
  const sql = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(name) as
    string | undefined;
  return sql !== undefined && sql.includes('json_extract');
}
