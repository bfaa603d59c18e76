import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
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
import { createPersister, DocumentPersister, openDocumentDatabase, PersistOp } from './document-persistence';

type Key = string;
const keyOf = (v: unknown): Key => (typeof v === 'string' ? `s:${v}` : `j:${JSON.stringify(v)}`);

/**
 * Keys of the documents holding each value of one field; an array is indexed by each
 * element, as MongoDB's multikey indexes are. A string, number or boolean is its own
 * map key (a Map tells "1" from 1, and needs no key string built and hashed per
 * update); other values (dates, sub-documents) go by their JSON in a map of their own.
 */
class EqualityIndex {
  /** `field` split on dots once, not on every lookup. */
  readonly path: string[];
  private readonly scalars = new Map<string | number | boolean, Set<Key>>();
  private readonly others = new Map<string, Set<Key>>();

  constructor(
    readonly field: string,
    readonly unique: boolean,
  ) {
    this.path = field.split('.');
  }

  valueOf(doc: Doc): unknown {
    return valueAt(doc, this.path);
  }

  /** Keys of the documents whose field holds (or, for arrays, contains) `value`, which is neither null nor an array. */
  holders(value: unknown): Set<Key> | undefined {
    const t = typeof value;
    return t === 'string' || t === 'number' || t === 'boolean'
      ? this.scalars.get(value as string | number | boolean)
      : this.others.get(JSON.stringify(value));
  }

  add(value: unknown, key: Key): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) return this.addElement(value, key);
    for (const element of value) this.addElement(element, key);
  }

  remove(value: unknown, key: Key): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) return this.removeElement(value, key);
    for (const element of value) this.removeElement(element, key);
  }

  /** Adds one value as it is, even an array (an element of an indexed array may itself be one). */
  addElement(value: unknown, key: Key): void {
    const t = typeof value;
    if (t === 'string' || t === 'number' || t === 'boolean') EqualityIndex.addTo(this.scalars, value as string, key);
    else EqualityIndex.addTo(this.others, JSON.stringify(value), key);
  }

  private removeElement(value: unknown, key: Key): void {
    const t = typeof value;
    if (t === 'string' || t === 'number' || t === 'boolean') EqualityIndex.removeFrom(this.scalars, value as string, key);
    else EqualityIndex.removeFrom(this.others, JSON.stringify(value), key);
  }

  private static addTo<V>(map: Map<V, Set<Key>>, value: V, key: Key): void {
    const set = map.get(value);
    if (set) set.add(key);
    else map.set(value, new Set<Key>().add(key)); // not `new Set([key])`, which goes through the iterator protocol
  }

  private static removeFrom<V>(map: Map<V, Set<Key>>, value: V, key: Key): void {
    const set = map.get(value);
    if (set?.delete(key) && set.size === 0) map.delete(value);
  }
}

const valueAt = (doc: any, path: string[]): unknown => {
  let v = doc;
  for (const p of path) {
    if (v === null || v === undefined) return undefined;
    v = v[p];
  }
  return v;
};

type SortClass = 'number' | 'string' | 'mixed';

/** The BSON order class of a sort key across documents, when it is one plain type (missing and null sort first). */
function sortClass(docs: readonly Doc[], path: string[]): SortClass {
  let seen: SortClass | null = null;
  for (const doc of docs) {
    const v = valueAt(doc, path);
    if (v === undefined || v === null) continue;
    const c = typeof v === 'number' && !Number.isNaN(v) ? 'number' : typeof v === 'string' ? 'string' : 'mixed';
    if (c === 'mixed' || (seen && seen !== c)) return 'mixed';
    seen = c;
  }
  return seen ?? 'number';
}

/**
 * Sorts like MongoDB. Keys that hold one plain type (numbers, or strings) compare directly;
 * anything else (mixed types, arrays, documents) is left to mingo's full BSON ordering.
 */
function sortDocuments<T extends Doc>(docs: T[], sort: Record<string, 1 | -1>): T[] {
  const keys = Object.entries(sort).map(([field, direction]) => ({ path: field.split('.'), direction }));
  if (keys.some((k) => sortClass(docs, k.path) === 'mixed')) return mingoFind<T>(docs, {}).sort(sort).all();
  const rank = (v: unknown) => (v === undefined || v === null ? 0 : 1);
  return [...docs].sort((a, b) => {
    for (const { path, direction } of keys) {
      const x = valueAt(a, path) as number | string | null | undefined;
      const y = valueAt(b, path) as number | string | null | undefined;
      const byRank = rank(x) - rank(y);
      const order = byRank !== 0 ? byRank : rank(x) === 0 ? 0 : x! < y! ? -1 : x! > y! ? 1 : 0;
      if (order !== 0) return order * direction;
    }
    return 0;
  });
}

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
/** Returned for a filter the fast path does not understand at all: mingo decides. */
const UNSUPPORTED = null;

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const own = (doc: Doc, field: string): unknown => (Object.hasOwn(doc, field) ? doc[field] : undefined);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Combines verdicts of a conjunction: false wins, then undefined. */
const and = (a: Verdict, b: Verdict): Verdict => (a === false || b === false ? false : a === undefined || b === undefined ? undefined : true);
/** Combines verdicts of a disjunction: true wins, then undefined. */
const or = (a: Verdict, b: Verdict): Verdict => (a === true || b === true ? true : a === undefined || b === undefined ? undefined : false);

/**
 * One top-level field against a scalar. Missing and null never equal (or compare
 * with) a scalar; MongoDB compares within a type bracket, so a string or boolean is
 * never `$lt` a number.
 */
function scalarVerdict(doc: Doc, field: string, op: string, arg: unknown): Verdict {
  const v = own(doc, field);
  if (!isScalar(v)) return v === undefined || v === null ? false : undefined;
  switch (op) {
    case '$eq':
      return v === arg;
    case '$in':
      return (arg as unknown[]).includes(v);
    case '$lt':
      return typeof v === 'number' && v < (arg as number);
    case '$lte':
      return typeof v === 'number' && v <= (arg as number);
    case '$gt':
      return typeof v === 'number' && v > (arg as number);
    default:
      return typeof v === 'number' && v >= (arg as number);
  }
}

/** The verdict of `{field: cond}` (top-level field), or UNSUPPORTED when cond is outside the fast path. */
function fieldVerdict(doc: Doc, field: string, cond: unknown): Verdict | typeof UNSUPPORTED {
  if (isScalar(cond)) return scalarVerdict(doc, field, '$eq', cond);
  if (!isPlainObject(cond)) return UNSUPPORTED;
  let verdict: Verdict = true;
  for (const op in cond) {
    const arg = cond[op];
    let v: Verdict;
    if (op === '$eq' && isScalar(arg)) v = scalarVerdict(doc, field, op, arg);
    else if ((op === '$lt' || op === '$lte' || op === '$gt' || op === '$gte') && isFiniteNumber(arg)) {
      v = scalarVerdict(doc, field, op, arg);
    } else if (op === '$in' && Array.isArray(arg) && arg.every(isScalar)) v = scalarVerdict(doc, field, op, arg);
    else if (op === '$exists' && typeof arg === 'boolean') {
      const present = Object.hasOwn(doc, field);
      v = present && doc[field] === undefined ? undefined : present === arg;
    } else return UNSUPPORTED;
    verdict = and(verdict, v);
  }
  return verdict;
}

/**
 * Evaluates the filters projections and lookups use on hot paths (top-level equality,
 * numeric ranges, `$in`, `$exists`, `$or`/`$and` of those) directly, since building a
 * mingo Query costs far more than evaluating it, and most filters (a guarded update by
 * `_id`) test a single document, so even compiling them into closures does not pay.
 * The whole filter is always walked (no short-circuit), so UNSUPPORTED depends on the
 * filter alone, never on the document.
 */
function fastVerdict(filter: Filter, doc: Doc): Verdict | typeof UNSUPPORTED {
  let verdict: Verdict = true;
  for (const key in filter) {
    const cond = filter[key];
    let v: Verdict | typeof UNSUPPORTED;
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(cond) || cond.length === 0) return UNSUPPORTED;
      const isOr = key === '$or';
      v = isOr ? false : true;
      for (const sub of cond) {
        const s = sub !== null && typeof sub === 'object' && !Array.isArray(sub) ? fastVerdict(sub, doc) : UNSUPPORTED;
        if (s === UNSUPPORTED) return UNSUPPORTED;
        v = isOr ? or(v, s) : and(v, s);
      }
    } else if (key.startsWith('$') || key.includes('.')) return UNSUPPORTED;
    else v = fieldVerdict(doc, key, cond);
    if (v === UNSUPPORTED) return UNSUPPORTED;
    verdict = and(verdict, v);
  }
  return verdict;
}

/** True when every key of an operator's argument is a plain top-level field name. */
const plainFields = (expr: unknown): expr is Record<string, unknown> => {
  if (!isPlainObject(expr)) return false;
  for (const k in expr) if (k.includes('.') || k.startsWith('$') || k === '__proto__') return false;
  return true;
};

/**
 * Whether `applyFast` applies an operator itself: `$set`, `$unset` and `$inc` on
 * top-level fields, as MongoDB would. The rest goes to mingo (dotted paths, positional
 * updates, other operators, and the cases MongoDB rejects, so the error stays mingo's).
 * A pure check, so an update can be classified before anything is copied.
 */
function isFastOp(target: Doc, op: string, expr: unknown): expr is Record<string, unknown> {
  if (!plainFields(expr)) return false;
  switch (op) {
    case '$set':
      // MongoDB cannot store `undefined`; mingo's handling of it is kept.
      for (const k in expr) if (expr[k] === undefined) return false;
      return true;
    case '$unset':
      return true;
    case '$inc':
      for (const k in expr) {
        const current = own(target, k);
        if (!isFiniteNumber(expr[k]) || !(current === undefined || isFiniteNumber(current))) return false;
      }
      return true;
    default:
      return false;
  }
}

/**
 * Applies a fast operator (see `isFastOp`). It only ever replaces or deletes top-level
 * fields of `target`, never mutating a value inside it; `$set` stores copies.
 */
function applyFast(target: Doc, op: string, expr: Record<string, unknown>): void {
  switch (op) {
    case '$set':
      for (const k in expr) target[k] = clone(expr[k]);
      return;
    case '$unset':
      for (const k in expr) delete target[k];
      return;
    case '$inc':
      for (const k in expr) target[k] = ((own(target, k) as number | undefined) ?? 0) + (expr[k] as number);
      return;
  }
}

/** The operator an update key applies; `$setOnInsert` is `$set` when inserting and nothing otherwise. */
const effectiveOp = (key: string, inserting: boolean): string | null =>
  key === '$setOnInsert' ? (inserting ? '$set' : null) : key;

/**
 * How an update of an existing document must copy it first: SLOW when an operator
 * needs mingo (a deep copy, since mingo may change values in place), otherwise a
 * shallow copy suffices, as fast operators only replace top-level fields. KEEPS_FIELDS
 * means the update only writes fields the document already has; the copy is then an
 * object spread, the cheapest. An update that adds or removes fields gets an
 * Object.assign copy instead: on Node 20 a spread copy that gains a property takes
 * V8's slow path, ten times the cost.
 */
const SLOW = 0;
const CHANGES_FIELDS = 1;
const KEEPS_FIELDS = 2;
function updatePlan(target: Doc, update: Update): typeof SLOW | typeof CHANGES_FIELDS | typeof KEEPS_FIELDS {
  let plan: typeof CHANGES_FIELDS | typeof KEEPS_FIELDS = KEEPS_FIELDS;
  for (const key in update) {
    const op = effectiveOp(key, false);
    if (op === null) continue;
    const expr = update[key];
    if (!isFastOp(target, op, expr)) return SLOW;
    if (plan === KEEPS_FIELDS) {
      if (op === '$unset') plan = CHANGES_FIELDS;
      else for (const k in expr) if (!Object.hasOwn(target, k)) plan = CHANGES_FIELDS;
    }
  }
  return plan;
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
        const ids = index.holders(pinned.value);
        // Copied out of the index: callers may change the index while going through these.
        const docs: T[] = [];
        if (ids) {
          for (const k of ids) {
            const doc = this.docs.get(k);
            if (doc) docs.push(doc);
          }
        }
        return docs;
      }
    }
    return this.docs.values();
  }

  /**
   * Candidates tested with the fast path where it decides, mingo (built once, lazily)
   * otherwise; the first `limit` in candidate order, for the single-document writes.
   */
  private matching(filter: Filter, limit = Infinity): T[] {
    let query: Query | null = null;
    const out: T[] = [];
    for (const doc of this.candidates(filter)) {
      if (fastVerdict(filter, doc) ?? (query ??= new Query(filter)).test(doc)) {
        if (out.push(doc) >= limit) break;
      }
    }
    return out;
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<T | null> {
    // The common lookup (no sort, skip or projection) stops at the first match: it runs on
    // every authentication and DDNS update, so it skips find's copies and extra await.
    if (!options.sort && !options.skip && !options.projection) {
      const [doc] = this.matching(filter, 1);
      return doc ? clone(doc) : null;
    }
    const found = await this.find(filter, { ...options, limit: 1 });
    return found[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let docs = this.matching(filter);
    if (options.sort) docs = sortDocuments(docs, options.sort);
    const start = options.skip ?? 0;
    if (start || options.limit) docs = docs.slice(start, options.limit ? start + options.limit : undefined);
    // mingo's cursor costs more to set up than most lookups take: only projections need it.
    if (options.projection) return mingoFind<T>(docs, {}, options.projection).all().map(clone);
    return docs.map(clone);
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return Object.keys(filter).length === 0 ? this.docs.size : this.matching(filter).length;
  }

  async insertOne(document: T): Promise<void> {
    this.insertSync(document);
  }

  private insertSync(document: T): void {
    this.insertOwned(clone(document));
  }

  /** Inserts a document this collection may keep as it is (a fresh copy nobody else holds). */
  private insertOwned(doc: T): void {
    if (doc._id === undefined) (doc as Doc)._id = randomUUID();
    const key = keyOf(doc._id);
    if (this.docs.has(key)) throw new DuplicateKeyError(this.name, `_id ${String(doc._id)}`);
    this.checkUnique(doc, key);
    this.docs.set(key, doc);
    this.indexAdd(doc, key);
    this.store.markDirty(this.name, key);
  }

  /** Refuses a document whose unique field's value another document (any key but `key`) holds. */
  private checkUnique(doc: T, key: Key): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const value = index.valueOf(doc);
      if (value === undefined || value === null || Array.isArray(value)) continue;
      const holders = index.holders(value);
      if (!holders) continue;
      for (const k of holders) {
        if (k !== key) throw new DuplicateKeyError(this.name, `${index.field} ${JSON.stringify(value)}`);
      }
    }
  }

  private indexAdd(doc: T, key: Key): void {
    for (const index of this.indexes) index.add(index.valueOf(doc), key);
  }

  private indexRemove(doc: T, key: Key): void {
    for (const index of this.indexes) index.remove(index.valueOf(doc), key);
  }

  /** Applies a Mongo update document; mingo applies one operator per call. */
  private applyUpdate(target: T, update: Update, inserting: boolean): void {
    for (const key in update) {
      const op = effectiveOp(key, inserting);
      if (op === null) continue;
      if (!key.startsWith('$')) throw new Error(`update document must use operators, got ${key}`);
      const expr = update[key];
      if (isFastOp(target, op, expr)) applyFast(target, op, expr);
      else mingoUpdate(target, { [op]: expr } as any);
    }
  }

  /**
   * Stores `next` in place of `oldDoc`, or nothing changes when a unique index refuses
   * it. Index entries are only touched for indexed values that changed.
   */
  private replaceDoc(oldDoc: T | undefined, next: T): void {
    const key = keyOf(next._id);
    // The document's own entries never count as a conflict, so this needs no index change first.
    this.checkUnique(next, key);
    for (const index of this.indexes) {
      const before = oldDoc ? index.valueOf(oldDoc) : undefined;
      const after = index.valueOf(next);
      if (before === after && (after === null || typeof after !== 'object')) continue;
      index.remove(before, key);
      index.add(after, key);
    }
    this.docs.set(key, next);
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
    const selected = this.matching(filter, many ? Infinity : 1);
    if (selected.length === 0) {
      if (!upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      const doc = this.seedFromFilter(filter);
      this.applyUpdate(doc, update, true);
      if (doc._id === undefined) (doc as Doc)._id = randomUUID();
      // Copied once more: mingo's operators may keep references into the update document.
      this.insertSync(doc);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    }
    let modified = 0;
    for (const current of selected) {
      // `current` stays untouched until replaceDoc accepts `next` (a unique index may refuse it).
      let next: T;
      const plan = updatePlan(current, update);
      if (plan !== SLOW) {
        next = plan === KEEPS_FIELDS ? { ...current } : Object.assign({}, current);
        for (const key in update) {
          const op = effectiveOp(key, false);
          if (op !== null) applyFast(next, op, update[key]);
        }
      } else {
        next = clone(current);
        this.applyUpdate(next, update, false);
      }
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
    const [current] = this.matching(filter, 1);
    if (!current) {
      if (!upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      this.insertOwned(Object.assign(this.seedFromFilter(filter), clone(replacement)));
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
    const selected = this.matching(filter, many ? Infinity : 1);
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
    const index = new EqualityIndex(field, !!options.unique);
    for (const [key, doc] of this.docs) {
      const value = index.valueOf(doc);
      for (const element of Array.isArray(value) ? value : [value]) {
        if (element === undefined || element === null) continue;
        if (index.unique && index.holders(element)?.size) {
          throw new DuplicateKeyError(this.name, `${field} ${JSON.stringify(element)}`);
        }
        index.addElement(element, key);
      }
    }
    this.indexes.push(index);
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
  /** Where persistence writes run: `thread` (a worker), `inline`, or `auto` (thread for a file, when built). */
  persist?: 'auto' | 'inline' | 'thread';
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
  private readonly persister: DocumentPersister;
  private readonly writing = new Set<Promise<void>>();
  /** The last persistence failure, until a later write succeeds: health reports it. */
  private persistError: Error | null = null;

  constructor(options: EmbeddedReadStoreOptions) {
    this.db = openDocumentDatabase(options.file);
    this.persister = createPersister(this.db, options.file, options.persist ?? 'auto');
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

  /** Hands the dirty documents to the persister as one batch (one transaction). */
  private flushSync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dirty.size === 0) return;
    const dirty = this.dirty;
    this.dirty = new Map();
    const ops: PersistOp[] = [];
    for (const [name, keys] of dirty) {
      const c = this.collections.get(name);
      for (const key of keys) {
        const doc = c?.docs.get(key);
        // The stored object itself: documents are replaced on update, never changed in place.
        ops.push({ collection: name, key, doc: doc ?? null });
      }
    }
    this.persist(ops, () => {
      // Written again with the next flush, as the documents are then.
      for (const [name, keys] of dirty) for (const key of keys) this.markDirty(name, key);
    });
  }

  private persist(ops: PersistOp[], onFailure: () => void = () => undefined): void {
    const write = this.persister.write(ops).then(
      () => void (this.persistError = null),
      (e: Error) => {
        this.persistError = e;
        if (!this.closed) onFailure();
      },
    );
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  async listCollections(): Promise<string[]> {
    return [...this.collections.entries()].filter(([, c]) => c.docs.size > 0).map(([n]) => n);
  }

  async dropCollection(name: string): Promise<void> {
    this.flushSync();
    this.collections.delete(name);
    this.dirty.delete(name);
    this.persist([{ drop: name }]);
    await this.flush();
  }

  /** Resolves once every change made so far is written. */
  async flush(): Promise<void> {
    this.flushSync();
    await Promise.all(this.writing);
    if (this.persistError) throw this.persistError;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    if (this.persistError) throw this.persistError;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flushSync();
    this.closed = true;
    await Promise.all(this.writing);
    await this.persister.close();
    this.db.close();
  }
}
