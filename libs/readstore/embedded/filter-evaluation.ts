/**
 * MongoDB filter and sort semantics the embedded read store evaluates itself: the filters
 * projections and lookups use on hot paths are decided directly (setting up a mingo query
 * costs more than most lookups take); whatever this does not decide goes to mingo.
 */
import { find as mingoFind } from 'mingo';
import { Doc, Filter } from '../read-store.port';

const PATHS = new Map<string, readonly string[]>();
const MAX_PATHS = 1024;

/**
 * A dotted field's segments, split once: every write and every lookup by value walks the
 * indexed fields' paths, and the fields are the code's own (a few dozen; bounded anyway).
 */
export function fieldPath(field: string): readonly string[] {
  let path = PATHS.get(field);
  if (path === undefined) {
    if (PATHS.size >= MAX_PATHS) PATHS.clear();
    PATHS.set(field, (path = field.split('.')));
  }
  return path;
}

export const valueAt = (doc: any, path: readonly string[]): unknown => {
  let v = doc;
  for (const p of path) {
    if (v === null || v === undefined) return undefined;
    v = v[p];
  }
  return v;
};

type SortClass = 'number' | 'string' | 'mixed';

/** Whether an array lies on the way to the last segment of `path` (MongoDB then sorts by its elements' values). */
const throughArray = (doc: any, path: string[]): boolean => {
  let v = doc;
  for (let i = 0; i < path.length - 1 && v !== null && v !== undefined; i++) {
    v = v[path[i]];
    if (Array.isArray(v)) return true;
  }
  return false;
};

/** The BSON order class of a sort key across documents, when it is one plain type (missing and null sort first). */
function sortClass(docs: readonly Doc[], path: string[]): SortClass {
  let seen: SortClass | null = null;
  for (const doc of docs) {
    if (throughArray(doc, path)) return 'mixed';
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
export function sortDocuments<T extends Doc>(docs: T[], sort: Record<string, 1 | -1>): T[] {
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
export const pinnedValue = (filter: Filter, field: string): { value: unknown } | null => {
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
 * A filter test in three-valued logic: true or false when the fast path can decide,
 * undefined when the document holds something (an array, a sub-document, NaN …) whose
 * MongoDB semantics are left to mingo.
 */
export type Verdict = boolean | undefined;
/** Returned for a filter the fast path does not understand at all: mingo decides. */
export const UNSUPPORTED = null;

export const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const own = (doc: Doc, field: string): unknown => (Object.hasOwn(doc, field) ? doc[field] : undefined);
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Combines verdicts of a conjunction: false wins, then undefined. */
const and = (a: Verdict, b: Verdict): Verdict =>
  a === false || b === false ? false : a === undefined || b === undefined ? undefined : true;
/** Combines verdicts of a disjunction: true wins, then undefined. */
const or = (a: Verdict, b: Verdict): Verdict =>
  a === true || b === true ? true : a === undefined || b === undefined ? undefined : false;

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
export function fastVerdict(filter: Filter, doc: Doc): Verdict | typeof UNSUPPORTED {
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
