/**
 * Where the embedded read store's writes reach the disk: batches of document writes,
 * one transaction for all the batches handed over together. Runs in a worker thread
 * (read-model-worker.ts) so SQLite and its index upkeep stay off the service's event
 * loop; inline where no worker script is built (ts-jest without a build) or the
 * database is in memory.
 */
import Database from 'better-sqlite3';
import { commitCounter, valueColumn, valueColumnsOf } from './read-model-database';
import { WorkerClient } from '../../shared/worker-rpc';
import { compiledWorkerScript } from '../../shared/worker-script';

/**
 * A document's new content in a collection table (null: deleted), or a catalogue statement.
 * Hints for the writer, which is right whatever they say: `fresh`, the store knew of no
 * document under the key (an insert: straight to the upsert); `moved`, the JSON paths of
 * the indexed fields whose values this write changes, as the store saw the document before
 * (the other value columns are expected to keep theirs).
 */
export type WriteOp =
  | { table: string; key: string; doc: object | null; fresh?: boolean; moved?: string[] }
  | { sql: string; params: unknown[] };

/**
 * A batch as it crosses to the writer: each write's row key and document JSON, UTF-8,
 * back to back in one buffer that is transferred, not copied. Structured-cloning the
 * documents cost the event loop more than writing their JSON does (the clone walks every
 * value, then the writer thread rebuilt every object only to stringify it), and so did
 * cloning a string per key: the message is now a few objects whatever the batch holds.
 */
export interface EncodedBatch {
  /** Catalogue statements (a field seen holding an array): independent of the documents. */
  statements: { sql: string; params: unknown[] }[];
  /** The tables the writes go to. */
  tables: string[];
  /** The `moved` hints of the writes, each set once (paths joined by a comma). */
  moves: string[];
  /**
   * Three numbers per write: its table (an index into `tables`, in the low 16 bits) with its
   * `moved` hint (an index into `moves`, in the next 15) and FRESH set for a fresh write;
   * where its key ends in `bytes` (it starts where the previous write ends); and where its
   * JSON ends (it starts where the key ends; empty for a deletion).
   */
  index: Uint32Array;
  bytes: Uint8Array;
}

/** The bit of a write's table number that marks it fresh (WriteOp.fresh). */
const FRESH = 0x80000000;
const TABLE_BITS = 0xffff;
const MOVES_SHIFT = 16;
const MAX_MOVES = 0x7fff;

/**
 * Buffers a batch was encoded in, back from the writer thread to encode the next one in:
 * a new pair per batch, freed in the thread, would be garbage outside any heap, collected
 * late by a thread that allocates little.
 */
export interface Scratch {
  bytes: ArrayBuffer;
  index: ArrayBuffer;
}
/** A lent buffer larger than this (a batch of one huge document) is dropped, not kept. */
const MAX_SCRATCH_BYTES = 4 * 2 ** 20;

/**
 * Encodes `ops` for the writer, leaving out those `skip` names (a later write of the same
 * document in the same batch: the transaction's outcome is the same without them).
 * Answers, per op, the length of its document's JSON (0 for the rest), what the store's
 * cache counts.
 */
export function encodeBatch(
  ops: WriteOp[],
  skip: (i: number) => boolean,
  scratch: Scratch | null = null,
): { batch: EncodedBatch; lengths: number[] } {
  const statements: EncodedBatch['statements'] = [];
  const tables: string[] = [];
  const tableIndex = new Map<string, number>();
  const moves: string[] = [''];
  const moveIndex = new Map<string, number>([['', 0]]);
  const texts: string[] = [];
  const tableOf: number[] = [];
  const lengths = new Array<number>(ops.length).fill(0);
  let chars = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if ('sql' in op) {
      statements.push({ sql: op.sql, params: op.params });
      continue;
    }
    if (skip(i)) continue;
    let t = tableIndex.get(op.table);
    if (t === undefined) {
      tableIndex.set(op.table, (t = tables.length));
      tables.push(op.table);
    }
    const text = op.doc === null ? '' : JSON.stringify(op.doc);
    let m = 0;
    if (op.moved && op.moved.length > 0) {
      const joined = op.moved.join(',');
      m = moveIndex.get(joined) ?? -1;
      if (m < 0 && moves.length <= MAX_MOVES) {
        moveIndex.set(joined, (m = moves.length));
        moves.push(joined);
      }
      // Beyond what the bits hold, no hint: the writer then expects every value kept, and falls back to the upsert.
      if (m < 0) m = 0;
    }
    tableOf.push((t | (m << MOVES_SHIFT) | (op.fresh ? FRESH : 0)) >>> 0);
    texts.push(op.key, text);
    lengths[i] = text.length;
    chars += op.key.length + text.length;
  }
  // One byte a character for ASCII (nearly all); grown when a key or document holds more.
  let bytes =
    scratch && scratch.bytes.byteLength >= chars + 16 ? new Uint8Array(scratch.bytes) : new Uint8Array(chars + 16);
  // Written through one Buffer view of the batch's bytes: `Buffer#write` answers the bytes written as a
  // number, where `encodeInto` took a view per text and answered an object (garbage per write, 0130).
  let view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let at = 0;
  const index =
    scratch && scratch.index.byteLength >= tableOf.length * 12
      ? new Uint32Array(scratch.index, 0, tableOf.length * 3)
      : new Uint32Array(tableOf.length * 3);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (text.length > 0) {
      let written = view.write(text, at);
      // Fewer than 4 bytes left: the text may have been cut before a character that did not fit (never within one).
      if (view.length - at - written < 4 && Buffer.byteLength(text) > written) {
        const grown = new Uint8Array(bytes.length * 2 + Buffer.byteLength(text));
        grown.set(bytes.subarray(0, at));
        bytes = grown;
        view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
        written = view.write(text, at);
      }
      at += written;
    }
    const write = i >> 1;
    if ((i & 1) === 0) index[write * 3] = tableOf[write];
    index[write * 3 + 1 + (i & 1)] = at;
  }
  return { batch: { statements, tables, moves, index, bytes: bytes.subarray(0, at) }, lengths };
}

/**
 * A row's parameters: its key's and its document's bytes, read as text by SQLite (the document then made
 * JSONB). The key is not made a JS string only to be encoded back to UTF-8 for SQLite.
 */
interface RowParams {
  key: Buffer;
  doc: Buffer;
}

/** How the writer writes one table's rows. */
interface TableWrites {
  /** The table's value columns' paths, in column order. */
  paths: string[];
  /** Stores the document and every value column. */
  upsert: Database.Statement;
  /**
   * By `moved` hint: replaces the document of an existing row, setting the value columns
   * the hint names, where the others keep their values, and only then (no change
   * otherwise): the indexes of columns it does not set are not touched. None for a table
   * without value columns.
   */
  updates: Map<string, Database.Statement>;
  remove: Database.Statement;
}

const DOC = 'CAST(@doc AS TEXT)';
const KEY = 'CAST(@key AS TEXT)';
const extracted = (path: string) => `json_extract(${DOC}, '${path}')`;

/** The statements for `table` as its columns now are (SQLite parses the JSON once per row for them all). */
function tableWrites(db: Database.Database, table: string): TableWrites {
  const paths = valueColumnsOf(db, table);
  const columns = paths.map((p) => `, ${valueColumn(p)}`).join('');
  const values = paths.map((p) => `, ${extracted(p)}`).join('');
  const sets = paths.map((p) => `, ${valueColumn(p)} = excluded.${valueColumn(p)}`).join('');
  return {
    paths,
    upsert: db.prepare(
      `INSERT INTO ${table} (key, doc${columns}) VALUES (${KEY}, jsonb(${DOC})${values}) ` +
        `ON CONFLICT (key) DO UPDATE SET doc = excluded.doc${sets}`,
    ),
    updates: new Map(),
    remove: db.prepare(`DELETE FROM ${table} WHERE key = CAST(? AS TEXT)`),
  };
}

function updateStatement(db: Database.Database, table: string, writes: TableWrites, moved: string): Database.Statement {
  let statement = writes.updates.get(moved);
  if (statement) return statement;
  const named = new Set(moved.split(','));
  const sets = writes.paths.filter((p) => named.has(p)).map((p) => `, ${valueColumn(p)} = ${extracted(p)}`);
  const kept = writes.paths.filter((p) => !named.has(p)).map((p) => ` AND ${valueColumn(p)} IS ${extracted(p)}`);
  statement = db.prepare(`UPDATE ${table} SET doc = jsonb(${DOC})${sets.join('')} WHERE key = ${KEY}${kept.join('')}`);
  writes.updates.set(moved, statement);
  return statement;
}

/**
 * Writes batches in one transaction, counted as a commit of `writer`, each write in the
 * order made. One statement per row: a multi-row upsert (16 rows a statement) cost SQLite
 * more per row than the calls it saved (measured: 21.6 against 16.1 µs a row). A row that
 * exists is first offered the update its `moved` hint says (most updates: an address
 * changes, not the fqdn or the account), guarded by the values it expects kept; only when
 * that changes nothing (a new row, or a value the hint did not name moved) does the upsert
 * set every value column. The statements follow the tables' columns: another connection
 * (createIndex, a process opening a file written before) may add some, which changes the
 * schema version.
 */
export function batchWriter(db: Database.Database, writer: string): (batches: EncodedBatch[]) => Scratch[] {
  const countCommit = commitCounter(db, writer);
  const schemaVersion = db.prepare('PRAGMA schema_version').pluck();
  let schema: unknown = null;
  const tables = new Map<string, TableWrites>();
  const writesOf = (table: string) => {
    let w = tables.get(table);
    if (!w) tables.set(table, (w = tableWrites(db, table)));
    return w;
  };
  const writeOne = (batch: EncodedBatch) => {
    for (const s of batch.statements) db.prepare(s.sql).run(...s.params);
    const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
    const index = batch.index;
    let start = 0;
    for (let i = 0; i < index.length; i += 3) {
      const table = batch.tables[index[i] & TABLE_BITS];
      const writes = writesOf(table);
      const keyEnd = index[i + 1];
      const end = index[i + 2];
      const key = bytes.subarray(start, keyEnd);
      start = end;
      if (end === keyEnd) {
        writes.remove.run(key);
        continue;
      }
      const row: RowParams = { key, doc: bytes.subarray(keyEnd, end) };
      const fresh = (index[i] & FRESH) !== 0;
      const moved = batch.moves[(index[i] >>> MOVES_SHIFT) & MAX_MOVES];
      if (fresh || writes.paths.length === 0 || updateStatement(db, table, writes, moved).run(row).changes === 0)
        writes.upsert.run(row);
    }
    return { bytes: batch.bytes.buffer as ArrayBuffer, index: batch.index.buffer as ArrayBuffer };
  };
  return db.transaction((batches: EncodedBatch[]) => {
    countCommit();
    // Read within the write transaction, so no schema change can come between this and the writes.
    const version = schemaVersion.get();
    if (version !== schema) {
      schema = version;
      tables.clear();
    }
    return batches.map(writeOne);
  });
}

export interface ReadModelWriter {
  /** Writes `ops` but those `skip` names (see encodeBatch); answers each op's JSON length once on disk. */
  write(ops: WriteOp[], skip: (i: number) => boolean): Promise<number[]>;
  close(): Promise<void>;
}

class InlineWriter implements ReadModelWriter {
  private readonly writeBatches: (batches: EncodedBatch[]) => Scratch[];
  private scratch: Scratch | null = null;

  constructor(db: Database.Database, writer: string) {
    this.writeBatches = batchWriter(db, writer);
  }

  async write(ops: WriteOp[], skip: (i: number) => boolean): Promise<number[]> {
    const { batch, lengths } = encodeBatch(ops, skip, this.scratch);
    this.scratch = keep(this.writeBatches([batch])[0]);
    return lengths;
  }

  async close(): Promise<void> {}
}

const keep = (scratch: Scratch): Scratch | null => (scratch.bytes.byteLength <= MAX_SCRATCH_BYTES ? scratch : null);

class ThreadWriter implements ReadModelWriter {
  private readonly worker: WorkerClient<EncodedBatch, Scratch>;
  /** The buffers the last batch came back with; null while they are in the thread. */
  private scratch: Scratch | null = null;

  constructor(script: string, file: string, pageCacheMiB: number, writer: string) {
    // The thread only ever holds the batch in hand: a small heap keeps its garbage from
    // piling up in resident memory (hundreds of MiB under a rebuild without a limit). A
    // batch is at most ~1 MiB of JSON (embedded-read-store.ts), outside the heap (the
    // lent buffer), so a 4 MB young generation holds what it builds from it.
    this.worker = new WorkerClient(
      script,
      { file, pageCacheMiB, writer },
      { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 4 },
    );
  }

  async write(ops: WriteOp[], skip: (i: number) => boolean): Promise<number[]> {
    const { batch, lengths } = encodeBatch(ops, skip, this.scratch);
    this.scratch = null;
    // Moved to the thread, not copied, and moved back with the answer.
    const back = await this.worker.call(batch, [batch.index.buffer as ArrayBuffer, batch.bytes.buffer as ArrayBuffer]);
    this.scratch = keep(back);
    return lengths;
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
