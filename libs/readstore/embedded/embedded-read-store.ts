import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { find as mingoFind, Query } from 'mingo';
import {
  BulkOp,
  Collection,
  Doc,
  DuplicateKeyError,
  Filter,
  FindOptions,
  IndexOptions,
  ReadStore,
  Sort,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../read-store.port';
import { DocumentCache } from './document-cache';
import { fastVerdict, pinnedValue, sortDocuments, valueAt } from './filter-evaluation';
import {
  CatalogueCollection,
  CatalogueIndex,
  createCollectionTable,
  dropCollectionTable,
  openReadModelDatabase,
  readCatalogue,
  tableName,
} from './read-model-database';
import { FieldInfo, fieldExpression, jsonPath, Key, keyOf, pathPrefixes, sqlCondition } from './sql-filter';
import { applyUpdate, clone, seedFromFilter, updatedCopy } from './update-application';

/** A document as a query found it: `shared` when it is the cache's object (callers get a copy). */
interface Hit<T> {
  doc: T;
  shared: boolean;
}

interface Row {
  key: Key;
  doc: string;
}

/** What a collection that exists on disk knows about itself. */
interface CollectionState {
  id: number;
  table: string;
  indexes: CatalogueIndex[];
  /** Every field some index covers. */
  indexed: Set<string>;
  multikey: Set<string>;
  statements: Map<string, Database.Statement>;
}

const EMPTY: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
const MAX_STATEMENTS = 256;

const isConstraintError = (e: unknown): boolean => {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
};

/** Whether any step of `field`'s path in `doc` is an array. */
function touchesArray(doc: unknown, field: string): boolean {
  let v: any = doc;
  for (const segment of field.split('.')) {
    if (v === null || typeof v !== 'object') return false;
    v = v[segment];
    if (Array.isArray(v)) return true;
  }
  return false;
}

/** The values MongoDB and SQLite order alike (an ORDER BY may then cut a result short in SQL). */
const sortsAlikeInSql = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string' || typeof v === 'number';

/**
 * One collection of the embedded read store: a SQLite table of JSON documents. Lookups
 * by `_id` go through the store's document cache; other filters pick candidates with
 * SQL on the declared indexes and are decided in full by the fast evaluator or mingo.
 * Writes go straight into the store's open transaction, so a query sees them at once
 * and unique indexes refuse a duplicate in the call that made it.
 */
class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private readonly fieldInfo: FieldInfo = {
    sqlFields: (field) => (this.state && this.state.indexed.has(field) && !this.state.multikey.has(field) ? jsonPath(field) : null),
  };

  constructor(
    readonly name: string,
    private readonly store: EmbeddedReadStore,
    private state: CollectionState | null,
  ) {}

  /** Forgets the table (it was dropped); the next write creates a new one. */
  dropped(): void {
    this.state = null;
  }

  private ensureState(): CollectionState {
    this.store.beginWrite();
    return (this.state ??= this.store.createTable(this.name));
  }

  private statement(state: CollectionState, sql: string): Database.Statement {
    let s = state.statements.get(sql);
    if (!s) {
      if (state.statements.size >= MAX_STATEMENTS) state.statements.clear();
      state.statements.set(sql, (s = this.store.db.prepare(sql)));
    }
    return s;
  }

  private cacheKey(state: CollectionState, key: Key): string {
    return `${state.id}\u0000${key}`;
  }

  /** The document stored under `key`: from the cache, or read from disk into it. */
  private lookup(state: CollectionState, key: Key): Hit<T> | undefined {
    const ck = this.cacheKey(state, key);
    const cached = this.store.cache.get(ck) as T | undefined;
    if (cached) return { doc: cached, shared: true };
    const json = this.statement(state, `SELECT doc FROM ${state.table} WHERE key = ?`).pluck().get(key) as string | undefined;
    if (json === undefined) return undefined;
    const doc = JSON.parse(json) as T;
    this.store.cache.set(ck, doc, json.length);
    return { doc, shared: true };
  }

  /** A row of a query, as the cache's object when it holds one (no parse). */
  private hitOf(state: CollectionState, row: Row): Hit<T> {
    const cached = this.store.cache.get(this.cacheKey(state, row.key)) as T | undefined;
    return cached ? { doc: cached, shared: true } : { doc: JSON.parse(row.doc) as T, shared: false };
  }

  private tester(filter: Filter): (doc: T) => boolean {
    let query: Query | null = null;
    return (doc) => fastVerdict(filter, doc) ?? (query ??= new Query(filter)).test(doc);
  }

  /** The documents matching `filter`, in storage order, at most `limit`. */
  private matching(filter: Filter, limit = Infinity): Hit<T>[] {
    const state = this.state;
    if (!state) return [];
    const test = this.tester(filter);
    const id = pinnedValue(filter, '_id');
    if (id && id.value !== null && typeof id.value !== 'object') {
      const hit = this.lookup(state, keyOf(id.value));
      return hit && test(hit.doc) ? [hit] : [];
    }
    const condition = sqlCondition(filter, this.fieldInfo);
    const sql = `SELECT key, doc FROM ${state.table}${condition ? ` WHERE ${condition.where}` : ''}`;
    const out: Hit<T>[] = [];
    if (limit <= 0) return out;
    for (const row of this.statement(state, sql).iterate(...(condition?.params ?? [])) as Iterable<Row>) {
      const hit = this.hitOf(state, row);
      if (test(hit.doc) && out.push(hit) >= limit) break;
    }
    return out;
  }

  /**
   * The first `count` matches in sort order, sorted and cut by SQLite, when that gives
   * MongoDB's answer: the filter is exactly the SQL condition and every sort key is an
   * indexed field without arrays (or `_id`). Null otherwise, or when a document found
   * holds a value the two order differently (then everything is sorted here).
   */
  private sortedBySql(filter: Filter, sort: Sort, count: number): Hit<T>[] | null {
    const state = this.state;
    if (!state) return [];
    const condition = sqlCondition(filter, this.fieldInfo);
    if (condition ? !condition.exact : Object.keys(filter).length > 0) return null;
    const order: string[] = [];
    for (const [field, direction] of Object.entries(sort)) {
      const path = field === '_id' ? '$._id' : this.fieldInfo.sqlFields(field);
      if (!path) return null;
      order.push(`${fieldExpression(path)} ${direction === -1 ? 'DESC' : 'ASC'}`);
    }
    const sql = `SELECT key, doc FROM ${state.table}${condition ? ` WHERE ${condition.where}` : ''} ORDER BY ${order.join(', ')} LIMIT ?`;
    const rows = this.statement(state, sql).all(...(condition?.params ?? []), count) as Row[];
    const hits = rows.map((row) => this.hitOf(state, row));
    const test = this.tester(filter);
    const paths = Object.keys(sort).map((f) => f.split('.'));
    for (const { doc } of hits) {
      if (!test(doc) || !paths.every((p) => sortsAlikeInSql(valueAt(doc, p)))) return null;
    }
    return hits;
  }

  private select(filter: Filter, options: FindOptions): Hit<T>[] {
    const skip = options.skip ?? 0;
    const end = options.limit ? skip + options.limit : Infinity;
    if (!options.sort) return this.matching(filter, end).slice(skip);
    const candidates = (Number.isFinite(end) ? this.sortedBySql(filter, options.sort, end) : null) ?? this.matching(filter);
    const byDoc = new Map(candidates.map((h) => [h.doc, h]));
    return sortDocuments(
      candidates.map((h) => h.doc),
      options.sort,
    )
      .slice(skip, end)
      .map((doc) => byDoc.get(doc)!);
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const docs = this.select(filter, options).map(ownCopy);
    return options.projection ? mingoFind<T>(docs, {}, options.projection).all() : docs;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    const state = this.state;
    if (!state) return 0;
    const condition = sqlCondition(filter, this.fieldInfo);
    if (Object.keys(filter).length === 0 || condition?.exact) {
      const sql = `SELECT count(*) FROM ${state.table}${condition ? ` WHERE ${condition.where}` : ''}`;
      return this.statement(state, sql).pluck().get(...(condition?.params ?? [])) as number;
    }
    return this.matching(filter).length;
  }

  async insertOne(document: T): Promise<void> {
    this.insert(document);
  }

  /** Stores a copy of `document` under a new key (its JSON: the copy is what a later read gets). */
  private insert(document: T): void {
    const state = this.ensureState();
    if (document._id === undefined) document = { ...document, _id: randomUUID() };
    const json = JSON.stringify(document);
    const key = keyOf(document._id);
    this.run(state, `INSERT INTO ${state.table} (key, doc) VALUES (?, ?)`, key, json);
    this.cached(state, key, JSON.parse(json) as T, json);
  }

  /** Writes a new version of an existing document; a unique index refusing it leaves everything as it was. */
  private rewrite(state: CollectionState, next: T): void {
    const json = JSON.stringify(next);
    const key = keyOf(next._id);
    this.run(state, `UPDATE ${state.table} SET doc = ? WHERE key = ?`, json, key);
    this.cached(state, key, next, json);
  }

  private cached(state: CollectionState, key: Key, doc: T, json: string): void {
    this.store.cache.set(this.cacheKey(state, key), doc, json.length);
    for (const field of state.indexed) {
      if (!state.multikey.has(field) && touchesArray(doc, field)) this.store.markMultikey(state, field);
    }
  }

  private run(state: CollectionState, sql: string, ...params: unknown[]): void {
    this.store.beginWrite();
    try {
      this.statement(state, sql).run(...params);
    } catch (e) {
      if (isConstraintError(e)) throw new DuplicateKeyError(this.name, (e as Error).message);
      this.store.writeFailed(e as Error);
      throw e;
    }
  }

  private update(filter: Filter, update: Update, upsert: boolean, many: boolean): UpdateResult {
    const selected = this.matching(filter, many ? Infinity : 1);
    if (selected.length === 0) {
      if (!upsert) return EMPTY;
      const doc = seedFromFilter<T>(filter);
      applyUpdate(doc, update, true);
      this.insert(doc);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    const state = this.state!;
    for (const { doc: current } of selected) {
      // `current` (possibly the cache's object) stays untouched: the update builds a new version.
      const next = updatedCopy(current, update);
      if (next._id !== current._id) throw new Error('the _id of a document cannot change');
      this.rewrite(state, next);
    }
    return { matchedCount: selected.length, modifiedCount: selected.length, upsertedCount: 0 };
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.update(filter, update, options.upsert ?? false, false);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.update(filter, update, false, true);
  }

  private replace(filter: Filter, replacement: T, upsert: boolean): UpdateResult {
    const [current] = this.matching(filter, 1);
    if (!current) {
      if (!upsert) return EMPTY;
      this.insert(Object.assign(seedFromFilter<T>(filter), replacement));
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    const next = JSON.parse(JSON.stringify({ ...replacement, _id: current.doc._id })) as T;
    this.rewrite(this.state!, next);
    return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.replace(filter, replacement, options.upsert ?? false);
  }

  private delete(filter: Filter, many: boolean): number {
    const selected = this.matching(filter, many ? Infinity : 1);
    const state = this.state;
    if (!state) return 0;
    for (const { doc } of selected) {
      const key = keyOf(doc._id);
      this.run(state, `DELETE FROM ${state.table} WHERE key = ?`, key);
      this.store.cache.delete(this.cacheKey(state, key));
    }
    return selected.length;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.delete(filter, false);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.delete(filter, true);
  }

  async bulkWrite(ops: BulkOp<T>[]): Promise<void> {
    for (const op of ops) {
      if ('insertOne' in op) this.insert(op.insertOne.document);
      else if ('updateOne' in op) this.update(op.updateOne.filter, op.updateOne.update, !!op.updateOne.upsert, false);
      else if ('updateMany' in op) this.update(op.updateMany.filter, op.updateMany.update, false, true);
      else if ('replaceOne' in op) this.replace(op.replaceOne.filter, op.replaceOne.replacement, !!op.replaceOne.upsert);
      else if ('deleteOne' in op) this.delete(op.deleteOne.filter, false);
      else if ('deleteMany' in op) this.delete(op.deleteMany.filter, true);
    }
  }

  /**
   * A SQLite expression index on the fields' JSON values (unique ones refuse duplicates,
   * code 11000; documents without the field do not count, as before). Fields SQL cannot
   * address are left to the evaluator, unindexed.
   */
  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    const fields = Object.keys(keys);
    const unique = !!options.unique;
    const same = (i: CatalogueIndex) => i.unique === unique && i.fields.join('\u0000') === fields.join('\u0000');
    if (this.state?.indexes.some(same)) return;
    const paths = fields.map(jsonPath);
    if (paths.some((p) => p === null)) {
      if (unique) throw new Error(`unique index on ${fields.join(', ')}: field names must be plain identifiers`);
      return;
    }
    const state = this.ensureState();
    const index: CatalogueIndex = { collectionId: state.id, name: `${state.table}_i${state.indexes.length + 1}`, fields, unique };
    try {
      this.store.db.exec(
        `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${index.name} ON ${state.table} (${paths.map((p) => fieldExpression(p!)).join(', ')})`,
      );
    } catch (e) {
      if (isConstraintError(e)) throw new DuplicateKeyError(this.name, `${fields.join(', ')}: ${(e as Error).message}`);
      throw e;
    }
    this.store.db
      .prepare('INSERT INTO rs_indexes (collection_id, name, fields, is_unique) VALUES (?, ?, ?, ?)')
      .run(state.id, index.name, JSON.stringify(fields), unique ? 1 : 0);
    state.indexes.push(index);
    for (const field of fields) {
      if (state.indexed.has(field)) continue;
      state.indexed.add(field);
      const arrays = pathPrefixes(field).some(
        (prefix) => this.store.db.prepare(`SELECT 1 FROM ${state.table} WHERE json_type(doc, '${jsonPath(prefix)}') = 'array' LIMIT 1`).get() !== undefined,
      );
      if (arrays) this.store.markMultikey(state, field);
    }
  }
}

/** A result the caller may change: the cache's documents are copied, freshly parsed ones handed over. */
const ownCopy = <T>(hit: Hit<T>): T => (hit.shared ? clone(hit.doc) : hit.doc);

export interface EmbeddedReadStoreOptions {
  /** The SQLite file documents live in; `:memory:` for throw-away stores. */
  file: string;
  /** Writes within this many milliseconds are committed together, in one transaction. */
  flushIntervalMs?: number;
  /** JSON size of the parsed documents kept for `_id` lookups (MiB). */
  cacheMiB?: number;
  /** SQLite's page cache (MiB). */
  pageCacheMiB?: number;
}

/**
 * Embedded read store: documents on disk in SQLite, a bounded cache of parsed documents
 * in front, filters decided with the fast evaluator or mingo. Writes join an open
 * transaction committed every `flushIntervalMs` (or on `flush()`), so a burst of
 * projection updates pays one commit, and a crash leaves a consistent snapshot of
 * documents and projection checkpoints, committed together.
 */
export class EmbeddedReadStore implements ReadStore {
  readonly kind = 'embedded' as const;
  readonly db: Database.Database;
  readonly cache: DocumentCache<Doc>;
  private readonly collections = new Map<string, EmbeddedCollection<any>>();
  private readonly states = new Map<string, CollectionState>();
  private readonly flushIntervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The last failed write or commit, until a commit succeeds: health reports it. */
  private persistError: Error | null = null;

  constructor(options: EmbeddedReadStoreOptions) {
    this.db = openReadModelDatabase(options.file, options.pageCacheMiB ?? 16);
    this.cache = new DocumentCache((options.cacheMiB ?? 16) * 2 ** 20);
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    const { collections, indexes } = readCatalogue(this.db);
    for (const c of collections) this.states.set(c.name, this.stateOf(c, indexes.filter((i) => i.collectionId === c.id)));
  }

  private stateOf(c: CatalogueCollection, indexes: CatalogueIndex[]): CollectionState {
    return {
      id: c.id,
      table: tableName(c.id),
      indexes,
      indexed: new Set(indexes.flatMap((i) => i.fields)),
      multikey: new Set(c.multikey),
      statements: new Map(),
    };
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new EmbeddedCollection<T>(name, this, this.states.get(name) ?? null)));
    return c;
  }

  createTable(name: string): CollectionState {
    const state = this.stateOf(createCollectionTable(this.db, name), []);
    this.states.set(name, state);
    return state;
  }

  /** Records that an indexed field has held an array: queries on it are no longer answered by SQL alone. */
  markMultikey(state: CollectionState, field: string): void {
    state.multikey.add(field);
    this.db.prepare('UPDATE rs_collections SET multikey = ? WHERE id = ?').run(JSON.stringify([...state.multikey]), state.id);
  }

  /** Opens the write transaction if none is open, and schedules its commit. */
  beginWrite(): void {
    if (this.closed) throw new Error('the read store is closed');
    if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
    if (!this.timer) {
      this.timer = setTimeout(() => this.commit(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * A write failed for another reason than a constraint. When SQLite rolled the whole
   * transaction back, the cache may hold documents that never reached the disk: it is
   * emptied, and reads go back to the last commit (projections replay from their
   * checkpoints, which were committed with their documents).
   */
  writeFailed(e: Error): void {
    this.persistError = e;
    if (!this.db.inTransaction) this.cache.clear();
  }

  private commit(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('COMMIT');
      this.persistError = null;
    } catch (e) {
      this.persistError = e as Error;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.cache.clear();
    }
  }

  async listCollections(): Promise<string[]> {
    return [...this.states.keys()];
  }

  async dropCollection(name: string): Promise<void> {
    const state = this.states.get(name);
    if (!state) return;
    this.beginWrite();
    dropCollectionTable(this.db, state.id);
    this.states.delete(name);
    this.collections.get(name)?.dropped();
    // Its cached documents are keyed by the dropped table's id, never reused: they age out.
    this.commit();
  }

  /** Commits every write made so far. */
  async flush(): Promise<void> {
    this.commit();
    if (this.persistError) throw this.persistError;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    if (this.persistError) throw this.persistError;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.commit();
    this.closed = true;
    this.db.close();
  }
}
