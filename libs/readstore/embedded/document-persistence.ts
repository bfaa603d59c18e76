/**
 * Where the embedded read store's documents persist: one SQLite table, written
 * write-behind in batches. A batch is one transaction, so a crash leaves a consistent
 * snapshot (documents and projection checkpoints together). Batches are written on the
 * calling thread or in the persistence worker; either way in the order they were given.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { WorkerClient } from '../../shared/worker-rpc';
import { compiledWorkerScript } from '../../shared/worker-script';

/**
 * A document's new content (null: deleted), or a whole collection dropped. Documents
 * travel as objects and become JSON where the batch is written: in the worker, the copy
 * made by postMessage costs the event loop less than JSON.stringify would.
 */
export type PersistOp = { collection: string; key: string; doc: object | null } | { drop: string };

export function openDocumentDatabase(file: string): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL, key TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, key)
  ) WITHOUT ROWID`);
  return db;
}

/** Writes batches of operations, each batch in one transaction. */
export function documentWriter(db: Database.Database): (batches: PersistOp[][]) => void {
  const upsert = db.prepare('INSERT INTO documents (collection, key, doc) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET doc = excluded.doc');
  const remove = db.prepare('DELETE FROM documents WHERE collection = ? AND key = ?');
  const drop = db.prepare('DELETE FROM documents WHERE collection = ?');
  return db.transaction((batches: PersistOp[][]) => {
    for (const ops of batches) {
      for (const op of ops) {
        if ('drop' in op) drop.run(op.drop);
        else if (op.doc === null) remove.run(op.collection, op.key);
        else upsert.run(op.collection, op.key, JSON.stringify(op.doc));
      }
    }
  });
}

export interface DocumentPersister {
  readonly kind: 'inline' | 'thread';
  write(ops: PersistOp[]): Promise<void>;
  close(): Promise<void>;
}

class InlinePersister implements DocumentPersister {
  readonly kind = 'inline' as const;
  private readonly writeBatches: (batches: PersistOp[][]) => void;

  constructor(db: Database.Database) {
    this.writeBatches = documentWriter(db);
  }

  async write(ops: PersistOp[]): Promise<void> {
    this.writeBatches([ops]);
  }

  async close(): Promise<void> {}
}

class ThreadPersister implements DocumentPersister {
  readonly kind = 'thread' as const;
  private readonly worker: WorkerClient<PersistOp[], null>;

  constructor(script: string, file: string) {
    this.worker = new WorkerClient(script, { file });
  }

  async write(ops: PersistOp[]): Promise<void> {
    await this.worker.call(ops);
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

export function createPersister(db: Database.Database, file: string, mode: 'auto' | 'inline' | 'thread'): DocumentPersister {
  const script = mode === 'inline' || file === ':memory:' ? null : compiledWorkerScript(__dirname, 'persist-worker');
  if (mode === 'thread' && !script) throw new Error('the persistence worker script is not built (run npm run build)');
  return script ? new ThreadPersister(script, file) : new InlinePersister(db);
}
