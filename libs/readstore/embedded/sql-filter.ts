/**
 * Turns the part of a MongoDB filter that SQLite can answer from the collection's
 * indexes into a WHERE clause that picks candidate rows; the whole filter is still
 * evaluated on every candidate (see filter-evaluation.ts and mingo), so the clause may
 * let through more than the filter matches, never less. It is `exact` when it matches
 * precisely what the filter does, which is when a LIMIT and ORDER BY may run in SQL.
 */
import { Filter } from '../read-store.port';
import { isPlainObject } from './filter-evaluation';
import { valueColumn } from './read-model-database';

export type Key = string;
/** A document's row key: strings as they are, other `_id`s by their JSON (the format stored since the first release). */
export const keyOf = (v: unknown): Key =>
  typeof v === 'string'
    ? `s:${v}`
    : // A finite number's JSON is its string form (numeric ids: the hosts'), without the call.
      typeof v === 'number' && Number.isFinite(v)
      ? `j:${v}`
      : `j:${JSON.stringify(v)}`;

/** jsonPath's answers by field: asked on every indexed lookup and filter (fields are the code's own, a few dozen). */
const JSON_PATHS = new Map<string, string | null>();

/**
 * The SQLite JSON path of a dotted field, or null when SQL cannot follow it as MongoDB
 * would (a numeric segment may be an array position, odd characters need quoting).
 */
export function jsonPath(field: string): string | null {
  let path = JSON_PATHS.get(field);
  if (path === undefined) {
    const segments = field.split('.');
    path = segments.every((s) => /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) ? `$.${segments.join('.')}` : null;
    if (JSON_PATHS.size >= 1024) JSON_PATHS.clear();
    JSON_PATHS.set(field, path);
  }
  return path;
}

/**
 * What conditions and sorts name for an indexed field: its value column (valueColumn in
 * read-model-database.ts), which its index is built on. `_id` has none: it is the row key,
 * and its JSON value is read from the document.
 */
export const fieldExpression = (path: string): string =>
  path === '$._id' ? `json_extract(doc, '$._id')` : valueColumn(path);

/** Every prefix of a dotted field: an array at any of them makes MongoDB match element by element. */
export const pathPrefixes = (field: string): string[] =>
  field.split('.').map((_, i, all) => all.slice(0, i + 1).join('.'));

export interface SqlCondition {
  where: string;
  params: unknown[];
  exact: boolean;
}

/** What the planner needs to know about a collection's fields. */
export interface FieldInfo {
  /** Fields some index covers and that have never held an array on their path. */
  sqlFields(field: string): string | null;
}

type Bindable = string | number;
/** A JSON scalar as SQLite's json_extract returns it (true and false come back as 1 and 0). */
const bindable = (v: unknown): Bindable | null =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' && Number.isFinite(v)
      ? v
      : typeof v === 'boolean'
        ? v
          ? 1
          : 0
        : null;

/**
 * Whether `= v` in SQL selects exactly the documents MongoDB's equality with v does. json_extract
 * returns true and false as 1 and 0, and a sub-document as its JSON text, so the numbers 0 and 1,
 * booleans and strings that could be a document's JSON only pick candidates.
 */
const exactlyBound = (v: unknown): boolean =>
  typeof v === 'number' ? v !== 0 && v !== 1 : typeof v === 'string' && !v.startsWith('{');

const isZeroOrOne = (v: unknown): boolean => v === 0 || v === 1;

/**
 * Equality with the number 0 or 1, told apart from false and true by the JSON type, so it
 * is exact (account 1's audit pages and export may then be cut short by ORDER BY … LIMIT in
 * SQL, rather than read whole); the index on the value still finds the rows.
 */
const numberEquals = (expr: string, path: string): string =>
  `${expr} = ? AND json_type(doc, '${path}') IN ('integer', 'real')`;

const RANGE_SQL: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** Conditions for one field's value test, or null when none can be pushed down. */
function fieldCondition(
  expr: string,
  path: string,
  cond: unknown,
): { sql: string[]; params: unknown[]; exact: boolean } | null {
  if (!isPlainObject(cond)) {
    const b = bindable(cond);
    if (b === null) return null;
    return isZeroOrOne(cond)
      ? { sql: [numberEquals(expr, path)], params: [b], exact: true }
      : { sql: [`${expr} = ?`], params: [b], exact: exactlyBound(cond) };
  }
  const sql: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  for (const op in cond) {
    const arg = cond[op];
    if (op === '$eq' && bindable(arg) !== null) {
      sql.push(isZeroOrOne(arg) ? numberEquals(expr, path) : `${expr} = ?`);
      params.push(bindable(arg));
      if (!exactlyBound(arg) && !isZeroOrOne(arg)) exact = false;
    } else if (op === '$in' && Array.isArray(arg) && arg.length > 0 && arg.every((a) => bindable(a) !== null)) {
      sql.push(`${expr} IN (${arg.map(() => '?').join(', ')})`);
      params.push(...arg.map(bindable));
      if (!arg.every(exactlyBound)) exact = false;
    } else if (op in RANGE_SQL && (typeof arg === 'string' || (typeof arg === 'number' && Number.isFinite(arg)))) {
      // MongoDB compares within a type bracket; SQLite would order every string after every number.
      const types = typeof arg === 'string' ? `'text'` : `'integer', 'real'`;
      sql.push(`${expr} ${RANGE_SQL[op]} ? AND json_type(doc, '${path}') IN (${types})`);
      params.push(arg);
    } else exact = false;
  }
  return sql.length ? { sql, params, exact } : null;
}

/**
 * The candidate condition for `filter`: `_id` tests on the row key, value tests on
 * indexed fields without arrays. Null when nothing can be pushed down (a full scan).
 */
export function sqlCondition(filter: Filter, fields: FieldInfo): SqlCondition | null {
  const sql: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  for (const field in filter) {
    const cond = filter[field];
    if (field === '_id') {
      const b = bindable(cond);
      if (b !== null) {
        sql.push('key = ?');
        params.push(keyOf(cond));
        continue;
      }
      if (
        isPlainObject(cond) &&
        Object.keys(cond).length === 1 &&
        Array.isArray(cond.$in) &&
        cond.$in.every((v) => bindable(v) !== null)
      ) {
        if (cond.$in.length === 0) sql.push('0');
        else sql.push(`key IN (${cond.$in.map(() => '?').join(', ')})`);
        params.push(...cond.$in.map(keyOf));
        continue;
      }
      if (isPlainObject(cond) && Object.keys(cond).length === 1 && bindable(cond.$eq) !== null) {
        sql.push('key = ?');
        params.push(keyOf(cond.$eq));
        continue;
      }
      exact = false;
      continue;
    }
    const path = field.startsWith('$') ? null : fields.sqlFields(field);
    const c = path ? fieldCondition(fieldExpression(path), path, cond) : null;
    if (!c) {
      exact = false;
      continue;
    }
    sql.push(...c.sql);
    params.push(...c.params);
    if (!c.exact) exact = false;
  }
  return sql.length ? { where: sql.join(' AND '), params, exact } : null;
}
