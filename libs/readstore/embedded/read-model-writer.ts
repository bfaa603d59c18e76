/**
 * Where the embedded read store's writes reach the disk: batches of document writes,
 * one transaction for all the batches handed over together, in the order they were
 * given. Runs in a worker thread (read-model-worker.ts) so JSON encoding, SQLite and
 * its index upkeep stay off the service's event loop; inline where no worker script is
 * built (ts-jest without a build) or the database is in memory.
 */
import Database from 'better-sqlite3';
import { commitCounter } from './read-model-database';
import { WorkerClient } from '../../shared/worker-rpc';
import { compiledWorkerScript } from '../../shared/worker-script';

/**
 * A document's new content in a collection table (null: deleted), or a catalogue
 * statement. Documents travel as objects and become JSON where the batch is written:
 * in the worker, the copy postMessage makes costs the event loop less than
 * JSON.stringify would.
 */
export type WriteOp = { table: string; key: string; doc: object | null } | { sql: string; params: unknown[] };

/**
 * Writes batches in one transaction, counted as a commit of `writer`; answers, per batch,
 * the JSON length of each document written (0 for the rest).
 */
export function batchWriter(db: Database.Database, writer: string): (batches: WriteOp[][]) => number[][] {
  const countCommit = commitCounter(db, writer);
  const upserts = new Map<string, Database.Statement>();
  const deletes = new Map<string, Database.Statement>();
  const prepared = (cache: Map<string, Database.Statement>, table: string, sql: string) => {
    let s = cache.get(table);
    if (!s) cache.set(table, (s = db.prepare(sql)));
    return s;
  };
  return db.transaction((batches: WriteOp[][]) => {
    countCommit();
    return batches.map((ops) =>
      ops.map((op) => {
        if ('sql' in op) {
          db.prepare(op.sql).run(...op.params);
          return 0;
        }
        if (op.doc === null) {
          prepared(deletes, op.table, `DELETE FROM ${op.table} WHERE key = ?`).run(op.key);
          return 0;
        }
        const json = JSON.stringify(op.doc);
        prepared(
          upserts,
          op.table,
          `INSERT INTO ${op.table} (key, doc) VALUES (?, jsonb(?)) ON CONFLICT (key) DO UPDATE SET doc = excluded.doc`,
        ).run(op.key, json);
        return json.length;
      }),
    );
  });
}

export interface ReadModelWriter {
  write(ops: WriteOp[]): Promise<number[]>;
  close(): Promise<void>;
}

class InlineWriter implements ReadModelWriter {
  private readonly writeBatches: (batches: WriteOp[][]) => number[][];

  constructor(db: Database.Database, writer: string) {
    this.writeBatches = batchWriter(db, writer);
  }

  async write(ops: WriteOp[]): Promise<number[]> {
    return this.writeBatches([ops])[0];
  }

  async close(): Promise<void> {}
}

class ThreadWriter implements ReadModelWriter {
  private readonly worker: WorkerClient<WriteOp[], number[]>;

  constructor(script: string, file: string, pageCacheMiB: number, writer: string) {
    // The thread only ever holds the batch in hand: a small heap keeps its garbage from
    // piling up in resident memory (hundreds of MiB under a rebuild without a limit). A
    // batch is at most ~1 MiB of documents (embedded-read-store.ts), so a 4 MB young
    // generation holds one; 16 MB let the thread's heap reach 25 MB on a large report.
    this.worker = new WorkerClient(
      script,
      { file, pageCacheMiB, writer },
      { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 4 },
    );
  }

  write(ops: WriteOp[]): Promise<number[]> {
    return this.worker.call(ops);
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

export function createWriter(
  db: Database.Database,
  file: string,
  pageCacheMiB: number,
  mode: 'auto' | 'inline' | 'thread',
  writer: string,
): ReadModelWriter {
  const script = mode === 'inline' || file === ':memory:' ? null : compiledWorkerScript(__dirname, 'read-model-worker');
  if (mode === 'thread' && !script) throw new Error('the read-model writer script is not built (run npm run build)');
  return script ? new ThreadWriter(script, file, pageCacheMiB, writer) : new InlineWriter(db, writer);
}
