/**
 * The audit log's hash chain (contract §19, decision 0080): each entry of an account, as
 * `/account/audit` shows it, is hashed together with the hash of the account's previous
 * entry, so an export proves that nothing between its first and last line was removed,
 * inserted or changed. Pure: the projection, the export and the verifier share it.
 */
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** One entry as `/account/audit` gives it. */
export interface AuditEntry {
  id: string;
  type: string;
  occurred_at: string;
  stream: string;
  revision: number;
  actor: string | null;
  source_ip: string | null;
  correlation_id: string | null;
  data: unknown;
}

/** An entry as the export gives it: linked to the account's previous entry. */
export interface ChainedAuditEntry extends AuditEntry {
  /** The previous entry's `hash`; null for the account's first ever entry. */
  prev_hash: string | null;
  /** Hex SHA-256 of the RFC 8785 canonical JSON of the entry with `prev_hash`, without `hash`. */
  hash: string;
}

/**
 * The entry's fields and nothing else, in a fixed order (a document carries more: the
 * account, its position, its own hashes), so what is hashed is what the API shows.
 */
export const auditEntryOf = (d: AuditEntry): AuditEntry => ({
  id: d.id,
  type: d.type,
  occurred_at: d.occurred_at,
  stream: d.stream,
  revision: d.revision,
  actor: d.actor,
  source_ip: d.source_ip,
  correlation_id: d.correlation_id ?? null,
  data: d.data,
});

/**
 * RFC 8785 canonical JSON of the entry with `prev_hash`: what `canonicalize` gives for the
 * whole object, written out for the entry's known fields (their names in RFC 8785 order,
 * UTF-16 code units; strings and finite numbers as `JSON.stringify` writes them, which is
 * RFC 8785's own serialisation), and `data` with its members in that order (`inCanonicalOrder`), by one
 * `JSON.stringify`. It is the projection's cost per audited event (decisions 0093, 0114, 0130); the
 * library writes the rest. The spec checks it against `canonicalize` of the whole entry.
 */
export function canonicalEntry(entry: AuditEntry, prevHash: string | null): string {
  const correlationId = entry.correlation_id ?? null;
  const known =
    typeof entry.revision === 'number' &&
    Number.isFinite(entry.revision) &&
    stringOrNull(entry.actor) &&
    stringOrNull(correlationId) &&
    stringOrNull(entry.id) &&
    stringOrNull(entry.occurred_at) &&
    stringOrNull(entry.source_ip) &&
    stringOrNull(entry.stream) &&
    stringOrNull(entry.type) &&
    stringOrNull(prevHash);
  if (known) {
    // One JSON.stringify of the entry with its members (and its data's) in RFC 8785 order: a string built of
    // pieces cost ~3 KB of intermediate strings per audited event (decision 0130). Data whose order a copy
    // cannot take (inCanonicalOrder) goes to the library below, as rare as it is.
    const ordered = inCanonicalOrder(entry.data);
    if (ordered !== NOT_CANONICAL)
      return JSON.stringify({
        actor: entry.actor,
        correlation_id: correlationId,
        data: ordered,
        id: entry.id,
        occurred_at: entry.occurred_at,
        prev_hash: prevHash,
        revision: entry.revision,
        source_ip: entry.source_ip,
        stream: entry.stream,
        type: entry.type,
      });
  }
  // Anything else (a field missing, a number JSON cannot write) takes the library's path, which decides it.
  const text = canonicalize({ ...auditEntryOf(entry), prev_hash: prevHash });
  if (text === undefined) throw new Error('audit entry has no JSON form');
  return text;
}

/** inCanonicalOrder's answer where `JSON.stringify` of a copy would not write `canonicalize`'s string. */
const NOT_CANONICAL = Symbol('not canonical');

/**
 * `value` (a decoded event's data) with every object's members in UTF-16 code-unit order, so that
 * `JSON.stringify` writes `canonicalize(value)`: it writes strings and finite numbers as RFC 8785 does, leaves
 * out undefined and symbol members and writes them as null in arrays, as `canonicalize` does. An object or
 * array already in order is itself (a DDNS update's `addresses`), one out of order a copy in order (its data:
 * one object). NOT_CANONICAL for what JSON cannot write as RFC 8785 does (then the library decides) and where a copy's
 * order cannot be chosen: a key that may be an array index (V8 enumerates those first, ascending) or
 * `__proto__` (assigning it sets the prototype); the library writes those.
 */
function inCanonicalOrder(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : NOT_CANONICAL;
    case 'object':
      break;
    default:
      return NOT_CANONICAL;
  }
  if (value === null) return null;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    let out: unknown[] | null = null;
    for (let i = 0; i < array.length; i++) {
      const v = array[i];
      // Holes, undefined and symbols are null to both; anything else as a member is.
      if (v === undefined || typeof v === 'symbol') continue;
      const ordered = inCanonicalOrder(v);
      if (ordered === NOT_CANONICAL) return NOT_CANONICAL;
      if (ordered !== v) (out ??= array.slice())[i] = ordered;
    }
    return out ?? array;
  }
  if (proto !== Object.prototype && proto !== null) return NOT_CANONICAL;
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === 'function') return NOT_CANONICAL;
  let previous: string | null = null;
  let copy = false;
  for (const key in object) {
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === '__proto__' || !Object.hasOwn(object, key)) return NOT_CANONICAL;
    if (previous !== null && previous > key) copy = true;
    previous = key;
    const v = object[key];
    if (v === undefined || typeof v === 'symbol') continue;
    const ordered = inCanonicalOrder(v);
    if (ordered === NOT_CANONICAL) return NOT_CANONICAL;
    if (ordered !== v) copy = true;
  }
  if (!copy) return object;
  const out: Record<string, unknown> = {};
  for (const key of sortedKeys(object)) {
    const v = object[key];
    if (v !== undefined && typeof v !== 'symbol') out[key] = inCanonicalOrder(v);
  }
  return out;
}

const stringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

/** An object's own keys in UTF-16 code-unit order (what `sort()` gives), sorted in place: a data object has a few. */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return keys;
}

/** The hash of `entry` linked to `prevHash` (RFC 8785 JSON Canonicalization Scheme, then SHA-256). */
export function chainHash(entry: AuditEntry, prevHash: string | null): string {
  return hash('sha256', canonicalEntry(entry, prevHash), 'hex');
}

export const chained = (entry: AuditEntry, prevHash: string | null): ChainedAuditEntry => ({
  ...auditEntryOf(entry),
  prev_hash: prevHash,
  hash: chainHash(entry, prevHash),
});

/** CSV columns, in order (contract §19). */
export const AUDIT_CSV_COLUMNS = [
  'id',
  'occurred_at',
  'type',
  'actor_type',
  'actor_id',
  'source_ip',
  'correlation_id',
  'data',
  'prev_hash',
  'hash',
] as const;

/**
 * The metadata's actor (`user:<id>`, `key:<uuid>`, `ddns:<id>`, `system`, `admin`, …) as
 * the CSV's two columns: the part before the first colon names the type, in the contract's
 * words where it has one (`key` is `api_key`), the rest is the id (empty when none).
 * Reversible by actorFromCsv, so a CSV line gives back the hashed entry.
 */
export function actorToCsv(actor: string | null): { actor_type: string; actor_id: string } {
  if (actor === null) return { actor_type: '', actor_id: '' };
  const colon = actor.indexOf(':');
  const prefix = colon < 0 ? actor : actor.slice(0, colon);
  return { actor_type: prefix === 'key' ? 'api_key' : prefix, actor_id: colon < 0 ? '' : actor.slice(colon + 1) };
}

export function actorFromCsv(actorType: string, actorId: string): string | null {
  if (actorType === '') return null;
  const prefix = actorType === 'api_key' ? 'key' : actorType;
  return actorId === '' ? prefix : `${prefix}:${actorId}`;
}
