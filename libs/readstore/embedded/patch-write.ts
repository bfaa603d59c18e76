/**
 * Patch writes (decision 0113): an update the writer thread applies to the stored row in
 * SQL, so the main thread neither reads, parses, copies nor stringifies the document.
 * Taken for `$set`/`$unset` of top-level fields under a filter that pins `_id` and whose
 * other conditions this module can say in SQL exactly as MongoDB decides them (the
 * projections' guards: `_pos` below the event's position or missing, a flag, a position
 * range). Reads of a document with pending patches apply the same update with the same
 * filter in JavaScript (embedded-collection.ts), so both sides must agree: the property
 * test in mongo-semantics-agreement.spec.ts holds them to mingo.
 */
import { Filter, Update } from '../read-store.port';
import { isPlainObject } from './filter-evaluation';

/** Top-level field names SQL paths can name without quoting (and never `_id`, which cannot change). */
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const plainField = (f: string): boolean => f !== '_id' && FIELD.test(f);

/**
 * Whether `v` is JSON that parses back to an equal value: what the row will hold after the
 * patch must be what a read applying the patch in memory builds (no dates, undefined, -0).
 */
function jsonPlain(v: unknown, depth = 0): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (depth > 32 || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.every((e) => jsonPlain(e, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v as object)) {
    // JSON.parse makes an own `__proto__`; an object literal does not: not the same document.
    if (k === '__proto__' || !jsonPlain((v as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

const RANGE: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };

class Guard {
  readonly params: unknown[];
  constructor(params: unknown[]) {
    this.params = params;
  }

  private operand(v: unknown): string {
    this.params.push(v);
    return `(@p ->> '$[${this.params.length - 1}]')`;
  }

  /**
   * A test of one value, as MongoDB applies it to a field: to the value, or to any element
   * when it is an array (json_each gives a scalar as one row, an array's elements as rows;
   * a sub-document never equals or orders against a scalar, and its members must not be
   * taken for elements).
   */
  private anyValue(path: string, test: (type: string, value: string) => string): string {
    // A plain value (nearly always) is tested as it is, without json_each's table.
    const type = `json_type(doc, '${path}')`;
    return (
      `(CASE ${type} WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(doc, '${path}') AS e WHERE ` +
      `${test('e.type', 'e.value')}) WHEN 'object' THEN 0 ELSE coalesce(${test(type, `(doc ->> '${path}')`)}, 0) END)`
    );
  }

  private equals(path: string, v: unknown): string | null {
    if (typeof v === 'boolean') return this.anyValue(path, (type) => `${type} = '${v ? 'true' : 'false'}'`);
    if (typeof v === 'number' && Number.isFinite(v)) {
      const operand = this.operand(v);
      return this.anyValue(path, (type, value) => `${type} IN ('integer', 'real') AND ${value} = ${operand}`);
    }
    if (typeof v === 'string') {
      const operand = this.operand(v);
      return this.anyValue(path, (type, value) => `${type} = 'text' AND ${value} = ${operand}`);
    }
    return null;
  }

  private field(field: string, cond: unknown): string | null {
    if (!plainField(field)) return null;
    const path = `$.${field}`;
    if (!isPlainObject(cond)) return this.equals(path, cond);
    const parts: string[] = [];
    for (const op in cond) {
      const arg = cond[op];
      let sql: string | null = null;
      if (op === '$eq') sql = this.equals(path, arg);
      else if (op in RANGE && typeof arg === 'number' && Number.isFinite(arg)) {
        const operand = this.operand(arg);
        sql = this.anyValue(
          path,
          (type, value) => `${type} IN ('integer', 'real') AND ${value} ${RANGE[op]} ${operand}`,
        );
      } else if (op === '$exists' && typeof arg === 'boolean')
        sql = `json_type(doc, '${path}') IS ${arg ? 'NOT NULL' : 'NULL'}`;
      if (sql === null) return null;
      parts.push(sql);
    }
    return parts.length ? parts.join(' AND ') : null;
  }

  /** The filter's conditions but `_id` (the caller's) as SQL, or null when one of them cannot be said exactly. */
  of(filter: Filter, top: boolean): string | null {
    const parts: string[] = [];
    for (const key in filter) {
      const cond = filter[key];
      if (key === '_id') {
        if (!top) return null;
        continue;
      }
      if (key === '$or' || key === '$and') {
        if (!Array.isArray(cond) || cond.length === 0) return null;
        const subs: string[] = [];
        for (const sub of cond) {
          const s = isPlainObject(sub) ? this.of(sub, false) : null;
          if (s === null) return null;
          subs.push(s);
        }
        parts.push(`(${subs.join(key === '$or' ? ' OR ' : ' AND ')})`);
        continue;
      }
      const sql = this.field(key, cond);
      if (sql === null) return null;
      parts.push(sql);
    }
    return parts.length ? parts.join(' AND ') : top ? '1' : null;
  }
}

/** The `_id` a filter pins as a plain value (`{_id: v}`), the only shape patched. */
export function pinnedId(filter: Filter): string | number | null {
  const id: unknown = filter._id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * One kind of patch: its statement for the writer and the same change as a query on a
 * document given as a parameter (`@d`), which a read applies to the row it finds for the
 * patches not yet on disk: the very SQL functions the writer runs, so both sides agree.
 */
export interface PatchShape {
  sql: string;
  resolve: string;
}

/** The statement (one per table and shape, prepared once in the writer) and its one parameter's JSON. */
export interface PatchSql {
  shape: PatchShape;
  /** A JSON array: the values set, then the guard's operands (`@p -> '$[i]'` in the statement). */
  params: string;
}

function buildShape(table: string, filter: Filter, update: Update): PatchShape | null {
  const params: unknown[] = [];
  const sets: string[] = [];
  const unsets: string[] = [];
  for (const op in update) {
    for (const f in update[op]) {
      if (op === '$unset') unsets.push(`'$.${f}'`);
      else {
        params.push(update[op][f]);
        sets.push(`'$.${f}', @p -> '$[${params.length - 1}]'`);
      }
    }
  }
  const guard = new Guard(params).of(filter, true);
  if (guard === null) return null;
  let doc = 'doc';
  if (sets.length) doc = `jsonb_set(${doc}, ${sets.join(', ')})`;
  if (unsets.length) doc = `jsonb_remove(${doc}, ${unsets.join(', ')})`;
  return {
    sql: `UPDATE ${table} SET doc = ${doc} WHERE key = @k AND ${guard}`,
    resolve: `SELECT CASE WHEN ${guard} THEN ${doc} ELSE doc END FROM (SELECT @d AS doc)`,
  };
}

/** Shapes by table and signature (field names, operators, operand types): the code's own few. */
const SHAPES = new Map<string, PatchShape | null>();

/** A scalar operand's part of a signature, its value kept in `params`; null when SQL does not take it. */
function operandSig(v: unknown, params: unknown[]): string | null {
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (typeof v === 'number' && Number.isFinite(v)) {
    params.push(v);
    return 'n';
  }
  if (typeof v === 'string') {
    params.push(v);
    return 's';
  }
  return null;
}

/** The filter's signature but `_id`, its operands appended to `params` in the order the builder takes them. */
function guardSig(filter: Filter, params: unknown[], top: boolean): string | null {
  let sig = '';
  for (const key in filter) {
    const cond = filter[key];
    if (key === '_id') {
      if (!top) return null;
      continue;
    }
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(cond) || cond.length === 0) return null;
      sig += key + '(';
      for (const sub of cond) {
        const g = isPlainObject(sub) ? guardSig(sub, params, false) : null;
        if (g === null || g === '') return null;
        sig += g + ';';
      }
      sig += ')';
      continue;
    }
    if (!plainField(key)) return null;
    sig += key + ':';
    if (!isPlainObject(cond)) {
      const o = operandSig(cond, params);
      if (o === null) return null;
      sig += o;
    } else {
      let any = false;
      for (const op in cond) {
        const arg = cond[op];
        any = true;
        if (op === '$eq') {
          const o = operandSig(arg, params);
          if (o === null) return null;
          sig += op + o;
        } else if (op in RANGE && typeof arg === 'number' && Number.isFinite(arg)) {
          params.push(arg);
          sig += op;
        } else if (op === '$exists' && typeof arg === 'boolean') sig += op + (arg ? 'T' : 'F');
        else return null;
      }
      if (!any) return null;
    }
    sig += ',';
  }
  return sig;
}

/**
 * The patch that applies `update` to the row under the filter's `_id` in `table` when the
 * rest of `filter` holds, or null when it cannot be said exactly (the usual read-modify-write
 * then). Per update only a walk that collects the operands: the statements are built once per
 * shape.
 */
export function patchSql(table: string, filter: Filter, update: Update): PatchSql | null {
  if (pinnedId(filter) === null) return null;
  const params: unknown[] = [];
  const fields: string[] = [];
  let sig = table;
  for (const op in update) {
    const expr: unknown = update[op];
    if ((op !== '$set' && op !== '$unset') || !isPlainObject(expr)) return null;
    sig += op;
    for (const f in expr) {
      if (!plainField(f) || fields.includes(f)) return null;
      fields.push(f);
      sig += ' ' + f;
      if (op === '$set') {
        if (!jsonPlain(expr[f])) return null;
        params.push(expr[f]);
      }
    }
  }
  if (fields.length === 0) return null;
  const guard = guardSig(filter, params, true);
  if (guard === null) return null;
  sig += '|' + guard;
  let shape = SHAPES.get(sig);
  if (shape === undefined) {
    shape = buildShape(table, filter, update);
    if (SHAPES.size >= 1024) SHAPES.clear();
    SHAPES.set(sig, shape);
  }
  return shape && { shape, params: JSON.stringify(params) };
}
