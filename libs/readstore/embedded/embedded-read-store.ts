import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { find as mingoFind, Query, update as mingoUpdate } from 'mingo';
import {
  BulkOp,
  Collection,
  Doc,
  DuplicateKeyError,
  Filter,
  FindOptions,
  IndexOptions,
  ReadStore,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../read-store.port';

type Key = string;
const keyOf = (v: unknown): Key => (typeof v === 'string' ? `s:${v}` : `j:${JSON.stringify(v)}`);

interface EqualityIndex {
  field: string;
  unique: boolean;
  entries: Map<Key, Set<Key>>;
}

const getPath = (doc: any, path: string): unknown =>
  path.split('.').reduce((v, p) => (v === null || v === undefined ? undefined : v[p]), doc);

/** Index keys of a document's field; an array is indexed by each element, as MongoDB's multikey indexes are. */
const indexKeys = (doc: unknown, field: string): Key[] => {
  const value = getPath(doc, field);
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value.map(keyOf) : [keyOf(value)];
};

/** The value a filter pins a field to, when it does (`{f: v}` or `{f: {$eq: v}}`). */
const pinnedValue = (filter: Filter, field: string): { value: unknown } | null => {
  if (!(field in filter)) return null;
  const v = filter[field];
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$eq') return { value: v.$eq };
    if (keys.some((k) => k.startsWith('$'))) return null;
  }
  return { value: v };
};

/**
 * Deep copy of a document. Plain objects, arrays and dates (all a document holds in
 * practice) are copied by hand, several times faster than `structuredClone` on small
 * documents; anything else still goes through `structuredClone`.
 */
function cloneValue(v: unknown): unknown {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v;
  if (Array.isArray(v)) return v.map(cloneValue);
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object)) out[k] = cloneValue((v as Record<string, unknown>)[k]);
    return out;
  }
  if (v instanceof Date) return new Date(v.getTime());
  return structuredClone(v);
}
const clone = <T>(v: T): T => cloneValue(v) as T;

/**
 * A filter test in three-valued logic: true or false when the fast path can decide,
 * undefined when the document holds something (an array, a sub-document, NaN …) whose
 * MongoDB semantics are left to mingo.
 */
type Verdict = boolean | undefined;
type FastTest = (doc: Doc) => Verdict;

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const own = (doc: Doc, field: string): unknown => (Object.hasOwn(doc, field) ? doc[field] : undefined);

const allOf = (tests: FastTest[]): FastTest => (tests.length === 1 ? tests[0] : every(tests));
const every = (tests: FastTest[]): FastTest => (doc) => {
  let verdict: Verdict = true;
  for (const t of tests) {
    const v = t(doc);
    if (v === false) return false;
    if (v === undefined) verdict = undefined;
  }
  return verdict;
};
const anyOf = (tests: FastTest[]): FastTest => (doc) => {
  let verdict: Verdict = false;
  for (const t of tests) {
    const v = t(doc);
    if (v === true) return true;
    if (v === undefined) verdict = undefined;
  }
  return verdict;
};

/** Tests of one top-level field against a scalar; missing and null never equal a scalar. */
const scalarTest = (field: string, decide: (v: string | number | boolean) => boolean): FastTest => (doc) => {
  const v = own(doc, field);
  if (isScalar(v)) return decide(v);
  return v === undefined || v === null ? false : undefined;
};

const RANGE: Record<string, (a: number, b: number) => boolean> = {
  $lt: (a, b) => a < b,
  $lte: (a, b) => a <= b,
  $gt: (a, b) => a > b,
  $gte: (a, b) => a >= b,
};

function fieldTest(field: string, cond: unknown): FastTest | null {
  if (isScalar(cond)) return scalarTest(field, (v) => v === cond);
  if (cond === null || typeof cond !== 'object' || Object.getPrototypeOf(cond) !== Object.prototype) return null;
  const tests: FastTest[] = [];
  for (const [op, arg] of Object.entries(cond)) {
    if (op === '$eq' && isScalar(arg)) tests.push(scalarTest(field, (v) => v === arg));
    else if (op in RANGE && typeof arg === 'number' && Number.isFinite(arg)) {
      // MongoDB compares within a type bracket: a string or boolean is never $lt a number.
      const cmp = RANGE[op];
      tests.push(scalarTest(field, (v) => typeof v === 'number' && cmp(v, arg)));
    } else if (op === '$in' && Array.isArray(arg) && arg.every(isScalar)) {
      const set = new Set<unknown>(arg);
      tests.push(scalarTest(field, (v) => set.has(v)));
    } else if (op === '$exists' && typeof arg === 'boolean') {
      tests.push((doc) => {
        const present = Object.hasOwn(doc, field);
        if (present && doc[field] === undefined) return undefined;
        return present === arg;
      });
    } else return null;
  }
  return allOf(tests);
}

/**
 * Compiles the filters projections and lookups use on hot paths (top-level equality,
 * numeric ranges, `$in`, `$exists`, `$or`/`$and` of those) into plain functions, since
 * building a mingo Query costs far more than evaluating it. Null for anything else.
 */
function compileFast(filter: Filter): FastTest | null {
  const tests: FastTest[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(cond) || cond.length === 0) return null;
      const subs: FastTest[] = [];
      for (const sub of cond) {
        const t = sub !== null && typeof sub === 'object' && !Array.isArray(sub) ? compileFast(sub) : null;
        if (!t) return null;
        subs.push(t);
      }
      tests.push(key === '$or' ? anyOf(subs) : allOf(subs));
      continue;
    }
    if (key.startsWith('$') || key.includes('.')) return null;
    const t = fieldTest(key, cond);
    if (!t) return null;
    tests.push(t);
  }
  return allOf(tests);
}

/** True when every key of an operator's argument is a plain top-level field name. */
const plainFields = (expr: unknown): expr is Record<string, unknown> =>
  expr !== null &&
  typeof expr === 'object' &&
  Object.getPrototypeOf(expr) === Object.prototype &&
  Object.keys(expr).every((k) => !k.includes('.') && !k.startsWith('$') && k !== '__proto__');

/**
 * Applies `$set`, `$unset` and `$inc` on top-level fields directly, as MongoDB would;
 * false leaves the operator to mingo (dotted paths, positional updates, other operators,
 * and the cases MongoDB rejects, so the error stays mingo's).
 */
function applyFast(target: Doc, op: string, expr: unknown): boolean {
  if (!plainFields(expr)) return false;
  const fields = Object.keys(expr);
  switch (op) {
    case '$set':
      // MongoDB cannot store `undefined`; mingo's handling of it is kept.
      if (fields.some((k) => expr[k] === undefined)) return false;
      for (const k of fields) target[k] = clone(expr[k]);
      return true;
    case '$unset':
      for (const k of fields) delete target[k];
      return true;
    case '$inc':
      if (fields.some((k) => !isFiniteNumber(expr[k]) || !(own(target, k) === undefined || isFiniteNumber(own(target, k))))) {
        return false;
      }
      for (const k of fields) target[k] = ((own(target, k) as number | undefined) ?? 0) + (expr[k] as number);
      return true;
    default:
      return false;
  }
}

/** The filter as a document test: the fast path where it decides, mingo (built once, lazily) otherwise. */
function compileFilter(filter: Filter): (doc: Doc) => boolean {
  const fast = compileFast(filter);
  let query: Query | null = null;
  const slow = (doc: Doc) => (query ??= new Query(filter)).test(doc);
  if (!fast) return slow;
  return (doc) => fast(doc) ?? slow(doc);
}

/**
 * One collection of the embedded read store: documents in memory, queried and
 * updated with mingo (MongoDB's query and update language), equality indexes for
 * the lookups on hot paths, and write-behind persistence through the owning store.
 */
class EmbeddedCollection<T extends Doc> implements Collection<T> {
  readonly docs = new Map<Key, T>();
  private readonly indexes: EqualityIndex[] = [];

  constructor(
    readonly name: string,
    private readonly store: EmbeddedReadStore,
  ) {}

  private candidates(filter: Filter): Iterable<T> {
    const id = pinnedValue(filter, '_id');
    if (id) {
      const doc = this.docs.get(keyOf(id.value));
      return doc ? [doc] : [];
    }
    for (const index of this.indexes) {
      const pinned = pinnedValue(filter, index.field);
      // `{f: null}` also matches documents without f, which the index does not hold.
      if (pinned && pinned.value !== null && !Array.isArray(pinned.value)) {
        const ids = index.entries.get(keyOf(pinned.value));
        return ids ? [...ids].map((k) => this.docs.get(k)!).filter(Boolean) : [];
      }
    }
    return this.docs.values();
  }

  private matching(filter: Filter): T[] {
    const test = compileFilter(filter);
    const out: T[] = [];
    for (const doc of this.candidates(filter)) if (test(doc)) out.push(doc);
    return out;
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<T | null> {
    const found = await this.find(filter, { ...options, limit: 1 });
    return found[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = mingoFind<T>(this.matching(filter), {}, options.projection);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cursor.all().map(clone);
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return Object.keys(filter).length === 0 ? this.docs.size : this.matching(filter).length;
  }

  async insertOne(document: T): Promise<void> {
    this.insertSync(document);
  }

  private insertSync(document: T): void {
    const doc = clone(document);
    if (doc._id === undefined) (doc as Doc)._id = randomUUID();
    const key = keyOf(doc._id);
    if (this.docs.has(key)) throw new DuplicateKeyError(this.name, `_id ${String(doc._id)}`);
    this.checkUnique(doc, key);
    this.docs.set(key, doc);
    this.indexAdd(doc, key);
    this.store.markDirty(this.name, key);
  }

  private checkUnique(doc: T, key: Key): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const value = getPath(doc, index.field);
      if (value === undefined || value === null || Array.isArray(value)) continue;
      const holders = index.entries.get(keyOf(value));
      if (holders && [...holders].some((k) => k !== key)) {
        throw new DuplicateKeyError(this.name, `${index.field} ${JSON.stringify(value)}`);
      }
    }
  }

  private indexAdd(doc: T, key: Key): void {
    for (const index of this.indexes) {
      for (const k of indexKeys(doc, index.field)) {
        let set = index.entries.get(k);
        if (!set) index.entries.set(k, (set = new Set()));
        set.add(key);
      }
    }
  }

  private indexRemove(doc: T, key: Key): void {
    for (const index of this.indexes) {
      for (const k of indexKeys(doc, index.field)) {
        const set = index.entries.get(k);
        set?.delete(key);
        if (set && set.size === 0) index.entries.delete(k);
      }
    }
  }

  /** Applies a Mongo update document; mingo applies one operator per call. */
  private applyUpdate(target: T, update: Update, inserting: boolean): void {
    for (const [key, expr] of Object.entries(update)) {
      if (key === '$setOnInsert' && !inserting) continue;
      if (!key.startsWith('$')) throw new Error(`update document must use operators, got ${key}`);
      const op = key === '$setOnInsert' ? '$set' : key;
      if (!applyFast(target, op, expr)) mingoUpdate(target, { [op]: expr } as any);
    }
  }

  private replaceDoc(oldDoc: T | undefined, next: T): void {
    const key = keyOf(next._id);
    if (oldDoc) this.indexRemove(oldDoc, key);
    try {
      this.checkUnique(next, key);
    } catch (e) {
      if (oldDoc) this.indexAdd(oldDoc, key);
      throw e;
    }
    this.docs.set(key, next);
    this.indexAdd(next, key);
    this.store.markDirty(this.name, key);
  }

  private seedFromFilter(filter: Filter): T {
    const seed: Doc = { _id: undefined as unknown as string };
    for (const field of Object.keys(filter)) {
      if (field.startsWith('$')) continue;
      const pinned = pinnedValue(filter, field);
      if (pinned && !field.includes('.')) seed[field] = clone(pinned.value);
    }
    return seed as T;
  }

  private updateSync(filter: Filter, update: Update, upsert: boolean, many: boolean): UpdateResult {
    const targets = this.matching(filter);
    const selected = many ? targets : targets.slice(0, 1);
    if (selected.length === 0) {
      if (!upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      const doc = this.seedFromFilter(filter);
      this.applyUpdate(doc, update, true);
      if (doc._id === undefined) (doc as Doc)._id = randomUUID();
      this.insertSync(doc);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    let modified = 0;
    for (const current of selected) {
      const next = clone(current);
      this.applyUpdate(next, update, false);
      if (next._id !== current._id) throw new Error('the _id of a document cannot change');
      this.replaceDoc(current, next);
      modified += 1;
    }
    return { matchedCount: selected.length, modifiedCount: modified, upsertedCount: 0 };
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.updateSync(filter, update, options.upsert ?? false, false);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.updateSync(filter, update, false, true);
  }

  private replaceSync(filter: Filter, replacement: T, upsert: boolean): UpdateResult {
    const [current] = this.matching(filter);
    if (!current) {
      if (!upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      const doc = { ...this.seedFromFilter(filter), ...clone(replacement) };
      this.insertSync(doc);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    const next = { ...clone(replacement), _id: current._id } as T;
    this.replaceDoc(current, next);
    return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.replaceSync(filter, replacement, options.upsert ?? false);
  }

  private deleteSync(filter: Filter, many: boolean): number {
    const targets = this.matching(filter);
    const selected = many ? targets : targets.slice(0, 1);
    for (const doc of selected) {
      const key = keyOf(doc._id);
      this.indexRemove(doc, key);
      this.docs.delete(key);
      this.store.markDirty(this.name, key);
    }
    return selected.length;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.deleteSync(filter, false);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.deleteSync(filter, true);
  }

  async bulkWrite(ops: BulkOp<T>[]): Promise<void> {
    for (const op of ops) {
      if ('insertOne' in op) this.insertSync(op.insertOne.document);
      else if ('updateOne' in op) this.updateSync(op.updateOne.filter, op.updateOne.update, !!op.updateOne.upsert, false);
      else if ('updateMany' in op) this.updateSync(op.updateMany.filter, op.updateMany.update, false, true);
      else if ('replaceOne' in op) this.replaceSync(op.replaceOne.filter, op.replaceOne.replacement, !!op.replaceOne.upsert);
      else if ('deleteOne' in op) this.deleteSync(op.deleteOne.filter, false);
      else if ('deleteMany' in op) this.deleteSync(op.deleteMany.filter, true);
    }
  }

  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    const fields = Object.keys(keys);
    // Compound indexes only speed up Mongo; here the first field narrows the scan.
    const field = fields[0];
    if (fields.length > 1 && options.unique) throw new Error('compound unique indexes are not supported');
    if (this.indexes.some((i) => i.field === field)) return;
    const index: EqualityIndex = { field, unique: !!options.unique, entries: new Map() };
    this.indexes.push(index);
    for (const [key, doc] of this.docs) {
      for (const k of indexKeys(doc, field)) {
        let set = index.entries.get(k);
        if (!set) index.entries.set(k, (set = new Set()));
        if (index.unique && set.size > 0) {
          this.indexes.pop();
          throw new DuplicateKeyError(this.name, `${field} ${k}`);
        }
        set.add(key);
      }
    }
  }

  /** Loads persisted documents without marking them dirty. */
  load(doc: T): void {
    const key = keyOf(doc._id);
    this.docs.set(key, doc);
    this.indexAdd(doc, key);
  }
}

export interface EmbeddedReadStoreOptions {
  /** SQLite file the documents persist to; `:memory:` keeps them in memory only. */
  file: string;
  /** Write-behind delay: dirty documents are written together at most this often. */
  flushIntervalMs?: number;
}

/**
 * Embedded read store: collections held in memory and evaluated with mingo, persisted
 * write-behind to SQLite (one transaction per flush, so a crash leaves a consistent
 * snapshot that projections catch up from their checkpoints).
 */
export class EmbeddedReadStore implements ReadStore {
  readonly kind = 'embedded' as const;
  private readonly db: Database.Database;
  private readonly collections = new Map<string, EmbeddedCollection<any>>();
  private dirty = new Map<string, Set<Key>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly flushIntervalMs: number;
  private closed = false;

  constructor(options: EmbeddedReadStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS documents (
      collection TEXT NOT NULL, key TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, key)
    ) WITHOUT ROWID`);
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    const rows = this.db.prepare('SELECT collection, doc FROM documents').iterate() as Iterable<{
      collection: string;
      doc: string;
    }>;
    for (const row of rows) this.collection(row.collection).load(JSON.parse(row.doc));
  }

  collection<T extends Doc = Doc>(name: string): EmbeddedCollection<T> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new EmbeddedCollection<T>(name, this)));
    return c;
  }

  markDirty(collection: string, key: Key): void {
    let set = this.dirty.get(collection);
    if (!set) this.dirty.set(collection, (set = new Set()));
    set.add(key);
    if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => this.flushSync(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  private flushSync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dirty.size === 0) return;
    const dirty = this.dirty;
    this.dirty = new Map();
    const upsert = this.db.prepare(
      'INSERT INTO documents (collection, key, doc) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET doc = excluded.doc',
    );
    const remove = this.db.prepare('DELETE FROM documents WHERE collection = ? AND key = ?');
    this.db.transaction(() => {
      for (const [name, keys] of dirty) {
        const c = this.collections.get(name);
        for (const key of keys) {
          const doc = c?.docs.get(key);
          if (doc) upsert.run(name, key, JSON.stringify(doc));
          else remove.run(name, key);
        }
      }
    })();
  }

  async listCollections(): Promise<string[]> {
    return [...this.collections.entries()].filter(([, c]) => c.docs.size > 0).map(([n]) => n);
  }

  async dropCollection(name: string): Promise<void> {
    this.flushSync();
    this.collections.delete(name);
    this.dirty.delete(name);
    this.db.prepare('DELETE FROM documents WHERE collection = ?').run(name);
  }

  async flush(): Promise<void> {
    this.flushSync();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flushSync();
    this.closed = true;
    this.db.close();
  }
}
