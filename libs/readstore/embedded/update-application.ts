/**
 * MongoDB update operators applied to a document copy: `$set`, `$unset` and `$inc` on
 * top-level fields directly (the projections' hot path), every other operator through
 * mingo. Stored documents are never changed in place: an update builds the next version.
 */
import { update as mingoUpdate } from 'mingo';
import { Doc, Filter, Update } from '../read-store.port';
import { isFiniteNumber, isPlainObject, own, pinnedValue } from './filter-evaluation';

/**
 * Deep copy of a document. Plain objects, arrays and dates (all a document holds in
 * practice) are copied by hand, several times faster than `structuredClone` on small
 * documents; anything else still goes through `structuredClone`. Fields are walked with
 * `for…in` and `Object.hasOwn` (the same own keys in the same order as `Object.keys`):
 * `Object.keys` copies V8's key cache into a new array per object, garbage on every read
 * of a cached document (decision 0130).
 */
function cloneValue(v: unknown): unknown {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v;
  if (Array.isArray(v)) return v.map(cloneValue);
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return copyFields({}, v as Record<string, unknown>);
  if (v instanceof Date) return new Date(v.getTime());
  return structuredClone(v);
}

/** Copies of `source`'s own enumerable fields written onto `out`, in `Object.keys` order. */
function copyFields(out: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const k in source) if (Object.hasOwn(source, k)) out[k] = cloneValue(source[k]);
  return out;
}
export const clone = <T>(v: T): T => cloneValue(v) as T;

/**
 * `target` with copies of `source`'s fields written over it: what `Object.assign(target, clone(source))`
 * gives, without building the whole copy first only to copy its fields again.
 */
export function cloneOnto<T extends object>(target: T, source: object): T {
  const proto: unknown = Object.getPrototypeOf(source);
  if (proto !== Object.prototype && proto !== null) return Object.assign(target, clone(source));
  copyFields(target as Record<string, unknown>, source as Record<string, unknown>);
  return target;
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
export function isFastOp(target: Doc, op: string, expr: unknown): expr is Record<string, unknown> {
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
export function applyFast(target: Doc, op: string, expr: Record<string, unknown>): void {
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
export const effectiveOp = (key: string, inserting: boolean): string | null =>
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
export const SLOW = 0;
export const CHANGES_FIELDS = 1;
export const KEEPS_FIELDS = 2;
export function updatePlan(target: Doc, update: Update): typeof SLOW | typeof CHANGES_FIELDS | typeof KEEPS_FIELDS {
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

/** Applies a Mongo update document to `target` in place; mingo applies one operator per call. */
export function applyUpdate(target: Doc, update: Update, inserting: boolean): void {
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
 * The next version of `current` after `update`, leaving `current` untouched. Fast
 * operators need only a shallow copy, as they replace top-level fields; mingo's may
 * change values in place, so they get a deep one.
 */
export function updatedCopy<T extends Doc>(current: T, update: Update): T {
  const plan = updatePlan(current, update);
  if (plan === SLOW) {
    const next = clone(current);
    applyUpdate(next, update, false);
    return next;
  }
  const next = plan === KEEPS_FIELDS ? { ...current } : Object.assign({}, current);
  for (const key in update) {
    const op = effectiveOp(key, false);
    if (op !== null) applyFast(next, op, update[key]);
  }
  return next;
}

/** The document an upsert starts from: the fields its filter pins by equality. */
export function seedFromFilter<T extends Doc>(filter: Filter): T {
  const seed: Doc = { _id: undefined as unknown as string };
  for (const field of Object.keys(filter)) {
    if (field.startsWith('$')) continue;
    const pinned = pinnedValue(filter, field);
    if (pinned && !field.includes('.')) seed[field] = clone(pinned.value);
  }
  return seed as T;
}
