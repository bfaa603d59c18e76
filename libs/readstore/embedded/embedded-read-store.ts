import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { Collection, Doc, ReadStore } from '../read-store.port';
import { CollectionHost, CollectionState, Pending, touchesArray, valueKey } from './collection-state';
import { DocumentCache } from './document-cache';
import { approximateJsonLength } from './document-size';
import { EmbeddedCollection } from './embedded-collection';
import { fieldPath, valueAt } from './filter-evaluation';
import { ForeignCommitWatch } from './foreign-commit-watch';
import {
  CatalogueCollection,
  CatalogueIndex,
  commitCounter,
  createCollectionTable,
  dropCollectionTable,
  indexOnValueColumns,
  indexOverExpressions,
  openReadModelDatabase,
  readCatalogue,
  tableName,
} from './read-model-database';
import { createWriter, ReadModelWriter, WriteOp } from './read-model-writer';
import { jsonPath, Key } from './sql-filter';

/** Writes per batch, so the writer thread's heap stays small whatever one call writes. */
const MAX_BATCH = 2000;
/**
 * JSON characters per batch (about, see document-size.ts): a count alone let one batch of
 * large documents (500 row blocks of a 50,000-record report, 16 MB) sit whole in the
 * writer thread's heap, its structured-clone copy and its JSON at once.
 */
const MAX_BATCH_BYTES = 2 ** 20;
const RETRY_MS = 1000;

type DocumentOp = Extract<WriteOp, { table: string }>;
type StatementOp = Extract<WriteOp, { sql: string }>;
/**
 * A write waiting for the writer, with what settling it takes: its number in the order writes
 * were made, about its JSON size (what a batch's byte bound counts), and for a document its
 * collection and its overlay entry, held here so that neither telling a superseded write nor
 * settling one looks the key up again (one object per write, not four parallel arrays).
 */
type QueuedOp =
  | (DocumentOp & { state: CollectionState; pending: Pending<Doc>; number: number; bytes: number })
  | (StatementOp & { state: null; number: number; bytes: number });

export interface EmbeddedReadStoreOptions {
  /** The SQLite file documents live in; `:memory:` for throw-away stores. */
  file: string;
  /** Writes within this many milliseconds are handed to the writer together (one transaction). */
  flushIntervalMs?: number;
  /** JSON size of the parsed documents kept for `_id` lookups (MiB). */
  cacheMiB?: number;
  /** SQLite's page cache, per connection (MiB). */
  pageCacheMiB?: number;
  /** Where writes run: `thread` (a worker), `inline`, or `auto` (thread for a file, when built). */
  writer?: 'auto' | 'inline' | 'thread';
  /** Pending writes beyond which writers wait for the disk to catch up. */
  maxPendingWrites?: number;
  /** JSON size of the pending writes (MiB, about) beyond which writers wait for the disk to catch up. */
  maxPendingMiB?: number;
  /** Look for other processes' commits before reads (default: yes, for a file); off only to measure what it costs. */
  followOtherProcesses?: boolean;
}

/**
 * Embedded read store: documents on disk in SQLite, a bounded cache of parsed documents
 * in front, filters decided with the fast evaluator or mingo. Writes are batched every
 * `flushIntervalMs` and committed by the writer thread, one transaction per batch, so a
 * crash leaves a consistent snapshot of documents and projection checkpoints.
 */
export class EmbeddedReadStore implements ReadStore, CollectionHost {
  readonly kind = 'embedded' as const;
  readonly db: Database.Database;
  readonly cache: DocumentCache<Doc>;
  private readonly collections = new Map<string, EmbeddedCollection<any>>();
  private readonly states = new Map<string, CollectionState>();
  private readonly writer: ReadModelWriter;
  private readonly flushIntervalMs: number;
  private readonly maxPending: number;
  private readonly maxPendingBytes: number;
  private queue: QueuedOp[] = [];
  private opCount = 0;
  /** Every op numbered up to this is on disk. */
  private writtenUpTo = 0;
  private pendingCount = 0;
  /** About the JSON size of the documents in the overlays, waiting for the writer. */
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private batchLimit = MAX_BATCH;
  private batchBytesLimit = MAX_BATCH_BYTES;
  private closed = false;
  /** The last failed write, until a later one succeeds: health reports it. */
  private persistError: Error | null = null;
  /** Null for a store in memory, which no other process can open. */
  private readonly watch: ForeignCommitWatch | null;
  private readonly countCommit: () => void;
  private readonly changeListeners: (() => void)[] = [];
  /** Callers of committed(), each waiting for the writes numbered up to `upTo`. */
  private committedWaiters: { upTo: number; resolve: () => void }[] = [];

  constructor(options: EmbeddedReadStoreOptions) {
    const pageCacheMiB = options.pageCacheMiB ?? 8;
    this.db = openReadModelDatabase(options.file, pageCacheMiB);
    this.cache = new DocumentCache((options.cacheMiB ?? 16) * 2 ** 20);
    this.flushIntervalMs = options.flushIntervalMs ?? 20;
    this.maxPending = options.maxPendingWrites ?? 20_000;
    this.maxPendingBytes = (options.maxPendingMiB ?? 4) * 2 ** 20;
    // Names this store's commits (writer thread and catalogue changes alike) apart from other processes'.
    const writerId = `${process.pid}:${randomUUID()}`;
    this.countCommit = commitCounter(this.db, writerId);
    this.writer = createWriter(this.db, options.file, pageCacheMiB, options.writer ?? 'auto', writerId);
    this.watch =
      options.file === ':memory:' || options.followOtherProcesses === false
        ? null
        : new ForeignCommitWatch(this.db, writerId);
    const { collections, indexes } = readCatalogue(this.db);
    for (const c of collections)
      this.states.set(
        c.name,
        this.stateOf(
          c,
          indexes.filter((i) => i.collectionId === c.id),
        ),
      );
    this.moveIndexesToValueColumns();
    this.dropIdleIndexes();
  }

  /**
   * A file written before decision 0117 has its indexes over expressions of the document:
   * each becomes an index on value columns, added and filled from the documents, in one
   * transaction at open (the first process of the new release to open the file does it;
   * the others find nothing left to do). Nothing is read or written meanwhile: the store
   * is not open yet, and other processes wait for the transaction as for any commit.
   */
  private moveIndexesToValueColumns(): void {
    const moves = (state: CollectionState) => {
      const idle = new Set(this.idleIndexes(state));
      return state.indexes.filter((index) => !idle.has(index.name) && indexOverExpressions(this.db, index.name));
    };
    if (![...this.states.values()].some((state) => moves(state).length > 0)) return;
    this.commitHere(() => {
      for (const state of this.states.values())
        for (const index of moves(state))
          indexOnValueColumns(
            this.db,
            state.table,
            index.name,
            index.fields.map((f) => jsonPath(f)!),
          );
    });
  }

  /**
   * The SQLite indexes of multikey fields (decision 0113): queries on such a field are not
   * answered in SQL (sqlFields leaves it to the evaluator), so nothing reads its index,
   * while every write of a document kept it up (the history subjects' and zones' `ancestors`).
   * The catalogue keeps the index (the field stays indexed and followed, and MongoDB's index
   * is its own); the SQLite index goes when its field is found multikey, and at open for
   * databases written before (each process looks; DROP INDEX IF EXISTS is idempotent).
   * Unique indexes stay: a write's uniqueness check finds holders through them.
   */
  private idleIndexes(state: CollectionState): string[] {
    return state.indexes
      .filter((index) => !index.unique && index.fields.some((f) => state.multikey.has(f)))
      .map((index) => index.name);
  }

  private dropIdleIndexes(): void {
    const idle = [...this.states.values()].flatMap((state) => this.idleIndexes(state));
    if (idle.length === 0) return;
    const present = this.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (${idle.map(() => '?').join(', ')})`)
      .pluck()
      .all(...idle) as string[];
    if (present.length === 0) return;
    this.commitHere(() => {
      for (const name of present) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
    });
  }

  /**
   * Drops what other processes' commits may have made stale (checked at most once per
   * event-loop turn, see ForeignCommitWatch): cached documents, value lookups, and the
   * catalogue, so collections created, dropped (a rebuild's switch) or indexed elsewhere
   * are seen. Own pending writes stay: they are newer than anything on disk.
   */
  noticeOtherProcesses(): void {
    if (!this.watch?.changedElsewhere()) return;
    this.cache.clear();
    this.reloadCatalogue();
    for (const state of this.states.values()) state.lookups.clear();
    for (const listener of this.changeListeners) listener();
  }

  /** The next read looks for other processes' commits even within this event-loop turn. */
  lookAgain(): void {
    this.watch?.lookAgain();
  }

  /** Calls `listener` whenever this store has noticed another process's commit. */
  onCommitElsewhere(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private reloadCatalogue(): void {
    const { collections, indexes } = readCatalogue(this.db);
    const onDisk = new Set<string>();
    for (const c of collections) {
      onDisk.add(c.name);
      const ofCollection = indexes.filter((i) => i.collectionId === c.id);
      const known = this.states.get(c.name);
      if (known && known.id === c.id) {
        // Same table: another process may have added indexes or seen arrays in indexed fields.
        if (ofCollection.length !== known.indexes.length) {
          known.indexes = ofCollection;
          known.indexed = new Set(ofCollection.flatMap((i) => i.fields));
        }
        for (const field of c.multikey) known.multikey.add(field);
        continue;
      }
      const state = this.stateOf(c, ofCollection);
      this.states.set(c.name, state);
      this.collections.get(c.name)?.adopt(state);
    }
    for (const name of [...this.states.keys()]) {
      if (onDisk.has(name)) continue;
      this.states.delete(name);
      this.collections.get(name)?.dropped();
    }
  }

  /** Runs `change` to the catalogue or schema in one transaction, counted as this store's commit. */
  commitHere<R>(change: () => R): R {
    return this.db
      .transaction(() => {
        this.countCommit();
        return change();
      })
      .immediate();
  }

  private stateOf(c: CatalogueCollection, indexes: CatalogueIndex[]): CollectionState {
    return {
      id: c.id,
      table: tableName(c.id),
      indexes,
      indexed: new Set(indexes.flatMap((i) => i.fields)),
      multikey: new Set(c.multikey),
      statements: new Map(),
      overlay: new Map(),
      lookups: new Map(),
    };
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new EmbeddedCollection<T>(name, this, this.states.get(name) ?? null)));
    return c;
  }

  /** Creates a collection's table at once (rare: a new collection), waiting out a commit of the writer if need be. */
  createTable(name: string): CollectionState {
    if (this.closed) throw new Error('the read store is closed');
    const created = this.commitHere(() => {
      // Another process may have created it since this one last looked.
      const exists = this.db.prepare('SELECT 1 FROM rs_collections WHERE name = ?').get(name) !== undefined;
      return exists ? null : createCollectionTable(this.db, name);
    });
    if (!created) {
      this.reloadCatalogue();
      return this.states.get(name)!;
    }
    const state = this.stateOf(created, []);
    this.states.set(name, state);
    return state;
  }

  /** Records that an indexed field has held an array: queries on it are no longer answered by SQL alone. */
  markMultikey(state: CollectionState, field: string): void {
    const idle = new Set(this.idleIndexes(state));
    state.multikey.add(field);
    this.enqueue({
      sql: 'UPDATE rs_collections SET multikey = ? WHERE id = ?',
      params: [JSON.stringify([...state.multikey]), state.id],
      state: null,
      number: 0,
      bytes: 0,
    });
    // Nothing reads these any more (dropIdleIndexes): not kept up by every write from now on.
    for (const name of this.idleIndexes(state))
      if (!idle.has(name))
        this.enqueue({ sql: `DROP INDEX IF EXISTS ${name}`, params: [], state: null, number: 0, bytes: 0 });
  }

  /**
   * Makes `doc` (null: deleted) the document under `key` in place of `previous`, at once
   * for readers, on disk with the next batch.
   */
  write(state: CollectionState, key: Key, doc: Doc | null, previous: Doc | null, uncached = false): void {
    if (this.closed) throw new Error('the read store is closed');
    // A value a write keeps (most updates: an address, not the fqdn) still leads to the same document.
    // By key, then get: iterating entries builds a [key, value] array per lookup field per write.
    for (const field of state.lookups.keys()) {
      const known = state.lookups.get(field)!;
      const path = fieldPath(field);
      const before = previous ? valueAt(previous, path) : undefined;
      const after = doc ? valueAt(doc, path) : undefined;
      if (before === after && (after === undefined || typeof after !== 'object')) continue;
      forgetLookup(known, before);
      forgetLookup(known, after);
    }
    // Before the op numbers are taken: a first array in an indexed field enqueues a catalogue op.
    if (doc) {
      for (const field of state.indexed) {
        if (!state.multikey.has(field) && touchesArray(doc, field)) this.markMultikey(state, field);
      }
    }
    const bytes = key.length + (doc ? approximateJsonLength(doc) : 0);
    let pending = state.overlay.get(key);
    // The op enqueued last below gets this number.
    const op = this.opCount + 1;
    if (pending) {
      this.pendingBytes += bytes - pending.bytes;
      pending.doc = doc;
      pending.op = op;
      pending.bytes = bytes;
      pending.recache ||= previous !== null;
    } else {
      state.overlay.set(key, (pending = { doc, op, bytes, recache: previous !== null }));
      this.pendingCount += 1;
      this.pendingBytes += bytes;
      // Only here: nothing caches a document while a write of it is pending (reads take the overlay's).
      if (!uncached) this.cache.delete(state.id, key);
    }
    // One shape for every document write (encodeBatch reads them all in one loop).
    this.enqueue({
      table: state.table,
      key,
      doc,
      fresh: doc !== null && previous === null,
      moved: doc !== null && previous !== null ? movedValues(state, previous, doc) : undefined,
      state,
      pending,
      number: 0,
      bytes,
    });
  }

  private enqueue(op: QueuedOp): void {
    op.number = ++this.opCount;
    this.queue.push(op);
    if (!this.timer && !this.inFlight) {
      this.timer = setTimeout(() => this.sendBatch(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * Writers wait here while too many writes, or too large ones, are pending (the disk
   * falls behind, or one projection step wrote megabytes): the overlay holds parsed
   * documents until their commit, so its size is resident memory.
   */
  keepUp(): Promise<void> | undefined {
    if (this.pendingCount > this.maxPending || this.pendingBytes > this.maxPendingBytes) return this.drain();
    return undefined;
  }

  /** The writes waiting for the writer: how many, and about how many characters of JSON. */
  pendingWrites(): { count: number; bytes: number } {
    return { count: this.pendingCount, bytes: this.pendingBytes };
  }

  /** How many queued writes the next batch takes: up to the count and byte bounds, at least one. */
  private batchLength(): number {
    const most = Math.min(this.queue.length, this.batchLimit);
    let n = 0;
    for (let bytes = 0; n < most; n++) {
      bytes += this.queue[n].bytes;
      if (bytes > this.batchBytesLimit && n > 0) break;
    }
    return n;
  }

  /**
   * Hands the queued writes to the writer as one batch, one batch at a time: what queues
   * up meanwhile goes with the next (fewer, larger transactions under load), and the
   * writer thread never holds more than one batch of at most MAX_BATCH writes.
   */
  private sendBatch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0 || this.inFlight) return;
    const length = this.batchLength();
    const whole = length === this.queue.length;
    const ops = whole ? this.queue : this.queue.splice(0, length);
    // Writes left behind go with a later batch; they never settle with this one, whose
    // op numbers are all lower (no scan of what is left: that was quadratic under a rebuild).
    if (whole) this.queue = [];
    // A document written again later in this batch is written once, as it ends: the batch
    // is one transaction, so nobody sees the difference (its overlay entry names the later op).
    // The entry a queued write holds is the key's entry in the overlay: it leaves the overlay
    // only when its newest op settles, which no earlier op outlives.
    const last = ops[ops.length - 1].number;
    const superseded = (i: number) => {
      const op = ops[i];
      return op.state !== null && op.pending.op !== op.number && op.pending.op <= last;
    };
    // An async call: a document JSON cannot write (a BigInt) fails the batch as a failed commit does.
    this.inFlight = this.writer.write(ops, superseded).then(
      (lengths) => {
        this.persistError = null;
        this.batchLimit = Math.min(MAX_BATCH, this.batchLimit * 2);
        this.batchBytesLimit = Math.min(MAX_BATCH_BYTES, this.batchBytesLimit * 2);
        this.writtenUpTo = Math.max(this.writtenUpTo, last);
        this.settle(ops, lengths);
        this.releaseCommittedWaiters();
      },
      (e: Error) => {
        this.persistError = e;
        // Smaller batches next time: a batch too large for the writer thread's heap must not fail forever.
        this.batchLimit = Math.max(1, this.batchLimit >> 1);
        this.batchBytesLimit = Math.max(1, this.batchBytesLimit >> 1);
        if (!this.closed) this.retry(ops);
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = null;
      if (this.queue.length === 0 || this.closed) return;
      // The next batch goes at once: holding it back to one per interval (larger
      // transactions) saved the writer thread little and delayed every commit (decision 0105).
      if (!this.persistError) this.sendBatch();
      else if (!this.timer) {
        // Tried again after a pause (a full disk may be freed), not in a tight loop.
        this.timer = setTimeout(() => this.sendBatch(), RETRY_MS);
        this.timer.unref();
      }
    });
  }

  /** A batch is on disk: its writes leave the overlay (unless written again since), updated documents for the cache. */
  private settle(ops: QueuedOp[], lengths: number[]): void {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      if (op.state === null) continue;
      const pending = op.pending;
      // Written again since: it stays, for the batch holding that op.
      if (pending.op !== op.number) continue;
      op.state.overlay.delete(op.key);
      this.pendingCount -= 1;
      this.pendingBytes -= pending.bytes;
      if (pending.doc && pending.recache) this.cache.set(op.state.id, op.key, pending.doc, lengths[i]);
    }
  }

  /**
   * A batch failed: it goes again, as it was, ahead of everything queued since, so the
   * disk always holds a prefix of the writes in the order they were made (a checkpoint
   * never lands before the documents it covers, nor without a write that came before it).
   */
  private retry(failed: QueuedOp[]): void {
    // Their pending writes keep their op numbers: they settle with the batch that retries them.
    this.queue.unshift(...failed);
  }

  /** Resolves once every write made so far is on disk (or has failed); later writes are not waited for. */
  private async drain(): Promise<void> {
    const target = this.opCount;
    while (this.writtenUpTo < target) {
      this.sendBatch();
      if (!this.inFlight) return;
      await this.inFlight;
      if (this.persistError) return;
    }
  }

  async listCollections(): Promise<string[]> {
    this.noticeOtherProcesses();
    return [...this.states.keys()];
  }

  async dropCollection(name: string): Promise<void> {
    // Dropped once none of its writes is pending (checked right before the part below,
    // which never awaits); other collections may keep writing meanwhile.
    let state = this.states.get(name);
    while (state && state.overlay.size > 0) {
      await this.flush();
      state = this.states.get(name);
    }
    if (!state) return;
    const table = state.table;
    // Only catalogue statements can still name it; they would change nothing once it is gone.
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const op = this.queue[i];
      if ('table' in op && op.table === table) this.queue.splice(i, 1);
    }
    this.commitHere(() => dropCollectionTable(this.db, state.id));
    this.states.delete(name);
    this.collections.get(name)?.dropped();
    // Its cached documents are keyed by the dropped table's id, never reused: they age out.
  }

  /** Resolves once every write made so far is on disk; unlike flush, the batch goes at its usual time. */
  committed(): Promise<void> {
    const upTo = this.opCount;
    if (this.writtenUpTo >= upTo || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.committedWaiters.push({ upTo, resolve }));
  }

  private releaseCommittedWaiters(all = false): void {
    if (this.committedWaiters.length === 0) return;
    const waiting = this.committedWaiters;
    this.committedWaiters = [];
    for (const w of waiting) {
      if (all || w.upTo <= this.writtenUpTo) w.resolve();
      else this.committedWaiters.push(w);
    }
  }

  /** Makes every write made so far durable. */
  async flush(): Promise<void> {
    await this.drain();
    if (this.persistError) throw this.persistError;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    if (this.persistError) throw this.persistError;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.drain();
    this.closed = true;
    this.releaseCommittedWaiters(true);
    await this.writer.close();
    this.db.close();
  }
}

/** A value a write moves away from or to no longer leads to a known key (a document value: none does). */
function forgetLookup(known: Map<string, Key | null>, v: unknown): void {
  if (typeof v === 'string' || typeof v === 'number') known.delete(valueKey(v));
  else if (v !== null && typeof v === 'object') known.clear();
}

/**
 * The JSON paths of the indexed fields whose values `doc` changes from `previous`: the
 * writer's hint (WriteOp.moved) of the value columns to set; it checks the others kept. A
 * document or array in a field counts as moved unless it is the same object (documents are
 * never changed in place).
 */
function movedValues(state: CollectionState, previous: Doc, doc: Doc): string[] | undefined {
  let moved: string[] | undefined;
  for (const field of state.indexed) {
    const path = fieldPath(field);
    if (valueAt(previous, path) === valueAt(doc, path)) continue;
    const json = jsonPath(field);
    if (json !== null) (moved ??= []).push(json);
  }
  return moved;
}
