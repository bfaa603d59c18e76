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
  Sort,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../read-store.port';
import { CollectionHost, CollectionState, valueKey } from './collection-state';
import { fastVerdict, fieldPath, pinnedValue, sortDocuments, valueAt } from './filter-evaluation';
import { CatalogueIndex, indexOnValueColumns } from './read-model-database';
import {
  FieldInfo,
  fieldExpression,
  jsonPath,
  Key,
  keyOf,
  pathPrefixes,
  SqlCondition,
  sqlCondition,
} from './sql-filter';
import { applyUpdate, clone, cloneOnto, seedFromFilter, updatedCopy } from './update-application';

/** A document as a query found it: `shared` when it is the cache's object (callers get a copy). */
interface Hit<T> {
  doc: T;
  shared: boolean;
}

interface Row {
  key: Key;
  doc: string;
}

/**
 * Values remembered per field by `lookupByValue` (about 150 bytes each: 3 MB at most per field). The oldest
 * goes first when full: clearing them all at 5,000 made every DDNS update of more than 5,000 hosts taking
 * turns (`bench:ddns`: 5,000 a round) miss, a SQL read and its row's garbage per update (decision 0130).
 */
const MAX_LOOKUPS_PER_FIELD = 20_000;
const EMPTY: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
const INSERTED: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
const MAX_STATEMENTS = 256;
/** The values MongoDB and SQLite order alike (an ORDER BY may then cut a result short in SQL). */
const sortsAlikeInSql = (v: unknown): boolean =>
  v === undefined || v === null || typeof v === 'string' || typeof v === 'number';

/** A unique index constrains plain values only: missing, null, arrays and documents are left alone, as before. */
const constrainable = (v: unknown): boolean => v !== undefined && v !== null && typeof v !== 'object';

/**
 * One collection of the embedded read store: a SQLite table of JSON documents. Lookups
 * by `_id` go through the store's document cache; other filters pick candidates with
 * SQL on the declared indexes and are decided in full by the fast evaluator or mingo.
 * Writes are decided here (unique indexes, existing `_id`s) and handed to the writer
 * thread; until it has committed them they sit in the overlay, which every read
 * consults first, so a reader always sees the writes made before it.
 */
export class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private readonly fieldInfo: FieldInfo = {
    sqlFields: (field) =>
      this.state && this.state.indexed.has(field) && !this.state.multikey.has(field) ? jsonPath(field) : null,
  };

  constructor(
    readonly name: string,
    private readonly store: CollectionHost,
    private state: CollectionState | null,
  ) {}

  /** Forgets the table (it was dropped); the next write creates a new one. */
  dropped(): void {
    this.state = null;
  }

  /** Takes the table another process created under this name (or in place of a dropped one). */
  adopt(state: CollectionState): void {
    this.state = state;
  }

  private ensureState(): CollectionState {
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

  /** The document stored under `key`: a pending write's, the cache's, or read from disk into the cache. */
  private lookup(state: CollectionState, key: Key): Hit<T> | undefined {
    const pending = state.overlay.get(key);
    if (pending) return pending.doc ? { doc: pending.doc as T, shared: true } : undefined;
    const cached = this.store.cache.get(state.id, key) as T | undefined;
    if (cached) return { doc: cached, shared: true };
    const read = (state.pointRead ??= this.store.db
      .prepare(`SELECT json(doc) FROM ${state.table} WHERE key = ?`)
      .pluck());
    const json = read.get(key) as string | undefined;
    if (json === undefined) return undefined;
    const doc = JSON.parse(json) as T;
    this.store.cache.set(state.id, key, doc, json.length);
    return { doc, shared: true };
  }

  /**
   * A row of a query, as the cache's object when it holds one (no parse). `keep`: a row
   * parsed here goes into the cache, as `lookup` does with what it reads.
   */
  private hitOf(state: CollectionState, row: Row, keep = false): Hit<T> {
    const cached = this.store.cache.get(state.id, row.key) as T | undefined;
    if (cached) return { doc: cached, shared: true };
    const doc = JSON.parse(row.doc) as T;
    if (!keep) return { doc, shared: false };
    this.store.cache.set(state.id, row.key, doc, row.doc.length);
    return { doc, shared: true };
  }

  private tester(filter: Filter): (doc: T) => boolean {
    let query: Query | null = null;
    return (doc) => fastVerdict(filter, doc) ?? (query ??= new Query(filter)).test(doc);
  }

  /** Table rows (overridden ones skipped), then pending documents: the collection as readers see it. */
  private *candidates(state: CollectionState, sql: string, params: unknown[], keep = false): Generator<Hit<T>> {
    const overlay = state.overlay;
    for (const row of this.statement(state, sql).iterate(...params) as Iterable<Row>) {
      if (overlay.size > 0 && overlay.has(row.key)) continue;
      yield this.hitOf(state, row, keep);
    }
    for (const pending of overlay.values()) if (pending.doc) yield { doc: pending.doc as T, shared: true };
  }

  /** The documents matching `filter`, at most `limit`; `keep`: rows read from disk go into the cache. */
  private matching(filter: Filter, limit = Infinity, keep = false): Hit<T>[] {
    const state = this.state;
    if (!state || limit <= 0) return [];
    const id = pinnedValue(filter, '_id');
    if (id && id.value !== null && typeof id.value !== 'object') {
      const hit = this.lookup(state, keyOf(id.value));
      // Tested here, not by a tester closure: the projections read and write by `_id` several times per event.
      return hit && (fastVerdict(filter, hit.doc) ?? new Query(filter).test(hit.doc)) ? [hit] : [];
    }
    const test = this.tester(filter);
    const condition = sqlCondition(filter, this.fieldInfo);
    const sql = `SELECT key, json(doc) AS doc FROM ${state.table}${condition ? ` WHERE ${condition.where}` : ''}`;
    const out: Hit<T>[] = [];
    for (const hit of this.candidates(state, sql, condition?.params ?? [], keep)) {
      if (test(hit.doc) && out.push(hit) >= limit) break;
    }
    return out;
  }

  /**
   * The first `count` matches in sort order, or more, cut by SQLite, when that gives
   * MongoDB's answer: the filter is exactly the SQL condition and every sort key is an
   * indexed field without arrays (or `_id`). Null otherwise, or when a document found
   * holds a value the two order differently (then everything is sorted here). Pending
   * writes may each displace one row, so that many more rows are read.
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
      if (direction === -1 && this.holdsBooleanOrDocument(state, condition, path)) return null;
      order.push(`${fieldExpression(path)} ${direction === -1 ? 'DESC' : 'ASC'}`);
    }
    const sql =
      `SELECT key, json(doc) AS doc FROM ${state.table}${condition ? ` WHERE ${condition.where}` : ''} ` +
      `ORDER BY ${order.join(', ')} LIMIT ?`;
    const test = this.tester(filter);
    const paths = Object.keys(sort).map((f) => f.split('.'));
    const hits: Hit<T>[] = [];
    for (const hit of this.candidates(state, sql, [...(condition?.params ?? []), count + state.overlay.size])) {
      const fromOverlay = hit.shared && state.overlay.size > 0 && state.overlay.has(keyOf(hit.doc._id));
      if (!test(hit.doc)) {
        if (fromOverlay) continue;
        return null;
      }
      if (!paths.every((p) => sortsAlikeInSql(valueAt(hit.doc, p)))) return null;
      hits.push(hit);
    }
    return hits;
  }

  /**
   * Whether a row the condition selects holds a boolean or a document at `path`. MongoDB
   * orders those above every number and string; SQLite sees 1/0 and JSON text among them,
   * so a descending ORDER BY would put them too late, past rows the LIMIT keeps (ascending,
   * they come last in both, and any the LIMIT keeps is caught as sortsAlikeInSql). Asked as
   * the values 0 and 1 and text from '{', so the index seeks rather than scans.
   */
  private holdsBooleanOrDocument(state: CollectionState, condition: SqlCondition | null, path: string): boolean {
    const where = condition ? `${condition.where} AND ` : '';
    const params = condition?.params ?? [];
    const sql =
      path === '$._id'
        ? `SELECT 1 FROM ${state.table} WHERE ${where}key IN ('j:true', 'j:false') UNION ALL SELECT 1 FROM ` +
          `${state.table} WHERE ${where}key >= 'j:{' AND key < 'j:|' LIMIT 1`
        : `SELECT 1 FROM ${state.table} WHERE ${where}${fieldExpression(path)} IN (0, 1) AND json_type(doc, '${path}') IN ('true', 'false')` +
          ` UNION ALL SELECT 1 FROM ${state.table} WHERE ${where}${fieldExpression(path)} >= '{' AND json_type(doc, '${path}') = 'object' LIMIT 1`;
    return this.statement(state, sql).get(...params, ...params) !== undefined;
  }

  /**
   * `findOne({field: value})` on an indexed field (authentication by key hash, DDNS by
   * fqdn, login by username): the key found last time, checked, saves a SQL query.
   * Undefined when the filter is not of that shape.
   */
  private lookupByValue(filter: Filter): Hit<T> | null | undefined {
    const state = this.state;
    if (!state) return undefined;
    let field: string | undefined;
    for (const f in filter) {
      if (field !== undefined) return undefined;
      field = f;
    }
    if (field === undefined || field === '_id') return undefined;
    const value: unknown = filter[field];
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) return undefined;
    if (!this.fieldInfo.sqlFields(field)) return undefined;
    let known = state.lookups.get(field);
    if (!known) state.lookups.set(field, (known = new Map()));
    const vk = valueKey(value);
    const key = known.get(vk);
    if (key === null) return null;
    if (key !== undefined) {
      const hit = this.lookup(state, key);
      if (hit && valueAt(hit.doc, fieldPath(field)) === value) return hit;
    }
    // Cached as found: the document is read by its key next (DDNS: the domains projection updates the host it found).
    const hit = this.matching(filter, 1, true)[0];
    if (known.size >= MAX_LOOKUPS_PER_FIELD && !known.has(vk)) known.delete(known.keys().next().value!);
    known.set(vk, hit ? keyOf(hit.doc._id) : null);
    return hit ?? null;
  }

  /** `limit`: in place of `options.limit` (findOne's 1, without a copy of the options). */
  private select(filter: Filter, options: FindOptions, limit = options.limit): Hit<T>[] {
    this.store.noticeOtherProcesses();
    const skip = options.skip ?? 0;
    const end = limit ? skip + limit : Infinity;
    if (!options.sort && end === 1) {
      const found = this.lookupByValue(filter);
      if (found !== undefined) return found ? [found] : [];
    }
    if (!options.sort) {
      const matched = this.matching(filter, end);
      return skip === 0 ? matched : matched.slice(skip);
    }
    const candidates =
      (Number.isFinite(end) ? this.sortedBySql(filter, options.sort, end) : null) ?? this.matching(filter);
    const byDoc = new Map(candidates.map((h) => [h.doc, h]));
    return sortDocuments(
      candidates.map((h) => h.doc),
      options.sort,
    )
      .slice(skip, end)
      .map((doc) => byDoc.get(doc)!);
  }

  findOne(filter: Filter, options: FindOptions = {}): Promise<T | null> {
    // Not an async function calling find: one promise and no options copy (projections read this way per event).
    try {
      // Indexed, not destructured: array destructuring runs the iterator protocol (an iterator per read).
      const hit = this.select(filter, options, 1)[0];
      if (!hit) return Promise.resolve(null);
      return Promise.resolve(resultOf(hit, options.projection));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const projection = options.projection;
    const fields = projection ? includedFields(projection) : null;
    if (fields) return this.select(filter, options).map((h) => fieldsOf(h.doc, fields));
    const docs = this.select(filter, options).map(ownCopy);
    return projection ? mingoFind<T>(docs, {}, projection).all() : docs;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    this.store.noticeOtherProcesses();
    const state = this.state;
    if (!state) return 0;
    const condition = sqlCondition(filter, this.fieldInfo);
    if (!(Object.keys(filter).length === 0 || condition?.exact)) return this.matching(filter).length;
    const where = condition ? ` WHERE ${condition.where}` : '';
    const params = condition?.params ?? [];
    const overlay = state.overlay;
    if (overlay.size === 0)
      return this.statement(state, `SELECT count(*) FROM ${state.table}${where}`)
        .pluck()
        .get(...params) as number;
    // Pending writes override their rows: the rows' keys only (no document read or parsed), then the pending documents.
    let n = 0;
    for (const key of this.statement(state, `SELECT key FROM ${state.table}${where}`)
      .pluck()
      .iterate(...params) as Iterable<Key>)
      if (!overlay.has(key)) n++;
    const test = this.tester(filter);
    for (const pending of overlay.values()) if (pending.doc && test(pending.doc as T)) n++;
    return n;
  }

  /**
   * Refuses `next` when another document holds the same values of a unique index:
   * pending documents are compared here, stored ones found through the index.
   */
  private checkUnique(state: CollectionState, key: Key, next: Doc, current: Doc | null): void {
    for (const index of state.indexes) {
      if (!index.unique) continue;
      const paths = index.fields.map((f) => f.split('.'));
      const values = paths.map((p) => valueAt(next, p));
      if (!values.every(constrainable)) continue;
      if (current && paths.every((p, i) => valueAt(current, p) === values[i])) continue;
      const holds = (doc: Doc) => paths.every((p, i) => valueAt(doc, p) === values[i]);
      const clash = () => new DuplicateKeyError(this.name, `${index.fields.join(', ')} ${JSON.stringify(values)}`);
      for (const [k, pending] of state.overlay) if (k !== key && pending.doc && holds(pending.doc)) throw clash();
      const where = index.fields.map((f) => `${fieldExpression(jsonPath(f)!)} = ?`).join(' AND ');
      const rows = this.statement(state, `SELECT key, json(doc) AS doc FROM ${state.table} WHERE ${where}`).all(
        ...values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)),
      ) as Row[];
      for (const row of rows) {
        if (row.key !== key && !state.overlay.has(row.key) && holds(JSON.parse(row.doc))) throw clash();
      }
    }
  }

  private hasUnique(state: CollectionState): boolean {
    return state.indexes.some((i) => i.unique);
  }

  async insertOne(document: T): Promise<void> {
    this.insert(clone(document));
    const behind = this.store.keepUp();
    if (behind) await behind;
  }

  /**
   * Stores `doc`, which nobody else holds, under a new key. `missedBy`: a filter that just
   * found nothing; when it only pinned this `_id`, the key is known to be free.
   */
  private insert(doc: T, missedBy?: Filter): void {
    this.store.noticeOtherProcesses();
    const state = this.ensureState();
    if (doc._id === undefined) (doc as Doc)._id = randomUUID();
    const key = keyOf(doc._id);
    const known = missedBy !== undefined && onlyPinsId(missedBy, key);
    if (!known && this.lookup(state, key)) throw new DuplicateKeyError(this.name, `_id ${JSON.stringify(doc._id)}`);
    if (this.hasUnique(state)) this.checkUnique(state, key, doc, null);
    this.store.write(state, key, doc, null);
  }

  private update(filter: Filter, update: Update, upsert: boolean, many: boolean): UpdateResult {
    this.store.noticeOtherProcesses();
    const selected = this.matching(filter, many ? Infinity : 1);
    if (selected.length === 0) {
      if (!upsert) return EMPTY;
      const doc = seedFromFilter<T>(filter);
      applyUpdate(doc, update, true);
      // Copied: mingo's operators may keep references into the update document.
      this.insert(clone(doc), filter);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    const state = this.state!;
    for (const { doc: current } of selected) {
      // `current` (possibly the cache's object) stays untouched: the update builds a new version.
      const next = updatedCopy(current, update);
      if (next._id !== current._id) throw new Error('the _id of a document cannot change');
      const key = keyOf(next._id);
      if (this.hasUnique(state)) this.checkUnique(state, key, next, current);
      this.store.write(state, key, next, current);
    }
    return { matchedCount: selected.length, modifiedCount: selected.length, upsertedCount: 0 };
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    const result = this.update(filter, update, options.upsert ?? false, false);
    const behind = this.store.keepUp();
    if (behind) await behind;
    return result;
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const result = this.update(filter, update, false, true);
    const behind = this.store.keepUp();
    if (behind) await behind;
    return result;
  }

  private replace(filter: Filter, replacement: T, upsert: boolean, unseen = false): UpdateResult {
    this.store.noticeOtherProcesses();
    if (upsert && unseen && this.writeUnseen(filter, replacement)) return INSERTED;
    const current = this.matching(filter, 1)[0];
    if (!current) {
      if (!upsert) return EMPTY;
      this.insert(cloneOnto(seedFromFilter<T>(filter), replacement), filter);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    const state = this.state!;
    // The copy is the caller's no more: its `_id` is set in place (kept where it stood, else last, as a spread would).
    const next = clone(replacement);
    (next as Doc)._id = current.doc._id;
    const key = keyOf(next._id);
    if (this.hasUnique(state)) this.checkUnique(state, key, next, current.doc);
    this.store.write(state, key, next, current.doc);
    return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
  }

  /**
   * An upsert by `_id` alone of a document nobody holds in another form (UpdateOptions.unseen):
   * written without the SQL read that would find nothing (the audit log writes one such
   * document per event). Taken only where nothing could refuse the write (no unique index)
   * and nothing of it is in memory (pending or cached: then the usual path is as cheap).
   */
  private writeUnseen(filter: Filter, replacement: T): boolean {
    const state = this.state;
    if (!state || this.hasUnique(state)) return false;
    const id = pinnedValue(filter, '_id');
    if (!id || id.value === null || typeof id.value === 'object') return false;
    const key = keyOf(id.value);
    if (!onlyPinsId(filter, key) || state.overlay.has(key) || this.store.cache.get(state.id, key) !== undefined)
      return false;
    this.store.write(state, key, cloneOnto(seedFromFilter<T>(filter), replacement), null, true);
    return true;
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    const result = this.replace(filter, replacement, options.upsert ?? false, options.unseen);
    const behind = this.store.keepUp();
    if (behind) await behind;
    return result;
  }

  private delete(filter: Filter, many: boolean): number {
    this.store.noticeOtherProcesses();
    const selected = this.matching(filter, many ? Infinity : 1);
    const state = this.state;
    if (!state) return 0;
    for (const { doc } of selected) this.store.write(state, keyOf(doc._id), null, doc);
    return selected.length;
  }

  async deleteOne(filter: Filter): Promise<number> {
    const n = this.delete(filter, false);
    const behind = this.store.keepUp();
    if (behind) await behind;
    return n;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const n = this.delete(filter, true);
    const behind = this.store.keepUp();
    if (behind) await behind;
    return n;
  }

  async bulkWrite(ops: BulkOp<T>[]): Promise<void> {
    for (const op of ops) {
      if ('insertOne' in op) this.insert(clone(op.insertOne.document));
      else if ('updateOne' in op) this.update(op.updateOne.filter, op.updateOne.update, !!op.updateOne.upsert, false);
      else if ('updateMany' in op) this.update(op.updateMany.filter, op.updateMany.update, false, true);
      else if ('replaceOne' in op)
        this.replace(op.replaceOne.filter, op.replaceOne.replacement, !!op.replaceOne.upsert);
      else if ('deleteOne' in op) this.delete(op.deleteOne.filter, false);
      else if ('deleteMany' in op) this.delete(op.deleteMany.filter, true);
    }
    const behind = this.store.keepUp();
    if (behind) await behind;
  }

  /**
   * A SQLite index on the fields' values, kept in columns of their own (decision 0117). Uniqueness is decided by the
   * store when a write is made (the index only finds the holders), so the writer thread
   * never meets a conflict. Fields SQL cannot address are left to the evaluator.
   */
  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    this.store.noticeOtherProcesses();
    const fields = Object.keys(keys);
    const unique = !!options.unique;
    const same = (i: CatalogueIndex) => i.unique === unique && i.fields.join('\u0000') === fields.join('\u0000');
    if (this.state?.indexes.some(same)) return;
    const paths = fields.map(jsonPath);
    if (paths.some((p) => p === null)) {
      if (unique) throw new Error(`unique index on ${fields.join(', ')}: field names must be plain identifiers`);
      return;
    }
    // Built on a quiet collection: nothing of it pending (checked right before the part below, which never awaits).
    while (this.state && this.state.overlay.size > 0) await this.store.flush();
    if (this.state?.indexes.some(same)) return;
    const state = this.ensureState();
    const db = this.store.db;
    // The values as the documents hold them: the value columns may not exist yet (indexOnValueColumns adds them).
    const expressions = paths.map((p) => `json_extract(doc, '${p}')`);
    if (unique) {
      const plain = paths
        .map((p) => `json_type(doc, '${p}') IN ('text', 'integer', 'real', 'true', 'false')`)
        .join(' AND ');
      const clash = db
        .prepare(
          `SELECT 1 FROM ${state.table} WHERE ${plain} GROUP BY ${expressions.join(', ')}, ` +
            `${paths.map((p) => `json_type(doc, '${p}')`).join(', ')} HAVING count(*) > 1 LIMIT 1`,
        )
        .get();
      if (clash) throw new DuplicateKeyError(this.name, `${fields.join(', ')} (existing documents)`);
    }
    const index: CatalogueIndex = {
      collectionId: state.id,
      name: `${state.table}_i${state.indexes.length + 1}`,
      fields,
      unique,
    };
    this.store.commitHere(() => {
      indexOnValueColumns(db, state.table, index.name, paths as string[]);
      db.prepare('INSERT OR REPLACE INTO rs_indexes (collection_id, name, fields, is_unique) VALUES (?, ?, ?, ?)').run(
        state.id,
        index.name,
        JSON.stringify(fields),
        unique ? 1 : 0,
      );
    });
    state.indexes.push(index);
    for (const field of fields) {
      if (state.indexed.has(field)) continue;
      state.indexed.add(field);
      const arrays = pathPrefixes(field).some(
        (prefix) =>
          db
            .prepare(`SELECT 1 FROM ${state.table} WHERE json_type(doc, '${jsonPath(prefix)}') = 'array' LIMIT 1`)
            .get() !== undefined,
      );
      if (arrays) this.store.markMultikey(state, field);
    }
  }
}

/** Whether `filter` is `{_id: v}` (or `$eq`) with v stored under `key`. */
const onlyPinsId = (filter: Filter, key: Key): boolean => {
  const keys = Object.keys(filter);
  const id = keys.length === 1 ? pinnedValue(filter, '_id') : null;
  return id !== null && id.value !== null && typeof id.value !== 'object' && keyOf(id.value) === key;
};

/** A result the caller may change: the cache's documents are copied, freshly parsed ones handed over. */
const ownCopy = <T>(hit: Hit<T>): T => (hit.shared ? clone(hit.doc) : hit.doc);

/**
 * The fields an inclusion projection of top-level fields keeps (`_id` unless it says
 * `_id: 0`), or null for any other projection (mingo's then).
 */
function includedFields(projection: Record<string, 0 | 1>): Set<string> | null {
  const fields = new Set(['_id']);
  let includes = false;
  for (const k in projection) {
    const v: unknown = projection[k];
    if (k === '_id' && (v === 0 || v === false)) fields.delete('_id');
    else if ((v === 1 || v === true) && !k.includes('.') && !k.startsWith('$')) {
      fields.add(k);
      includes = true;
    } else return null;
  }
  // `{}` and `{_id: 0}` alone keep everything (else): not an inclusion.
  return includes ? fields : null;
}

/**
 * A result as the caller gets it: with an inclusion projection of top-level fields, a
 * copy of those fields only (a projection reading three fields of a large document copies
 * three), in the document's order as MongoDB gives them; otherwise through mingo.
 */
function resultOf<T extends Doc>(hit: Hit<T>, projection: Record<string, 0 | 1> | undefined): T {
  if (!projection) return ownCopy(hit);
  const fields = includedFields(projection);
  return fields ? fieldsOf(hit.doc, fields) : mingoFind<T>([ownCopy(hit)], {}, projection).all()[0];
}

/** Copies of `doc`'s fields named in `fields`, in the document's order. */
function fieldsOf<T extends Doc>(doc: T, fields: Set<string>): T {
  const out: Doc = {} as Doc;
  for (const k in doc) if (fields.has(k) && Object.hasOwn(doc, k)) out[k] = clone(doc[k]);
  return out as T;
}
