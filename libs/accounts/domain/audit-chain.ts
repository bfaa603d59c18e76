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
 * RFC 8785's own serialisation), and `canonicalize` for `data`, whose shape varies by
 * event type. It is the projection's cost per audited event (decision 0093); the spec
 * checks it against `canonicalize` of the whole entry.
 */
export function canonicalEntry(entry: AuditEntry, prevHash: string | null): string {
  const e = auditEntryOf(entry);
  const data = e.data;
  const known =
    typeof e.revision === 'number' &&
    Number.isFinite(e.revision) &&
    [e.actor, e.correlation_id, e.id, e.occurred_at, e.source_ip, e.stream, e.type, prevHash].every(stringOrNull) &&
    (data === null || ['object', 'string', 'number', 'boolean'].includes(typeof data));
  // Anything else (a field missing, a number JSON cannot write) takes the library's path, which decides it.
  if (!known) {
    const text = canonicalize({ ...e, prev_hash: prevHash });
    if (text === undefined) throw new Error('audit entry has no JSON form');
    return text;
  }
  const s = JSON.stringify;
  return (
    `{"actor":${s(e.actor)},"correlation_id":${s(e.correlation_id)},"data":${canonicalize(data)}` +
    `,"id":${s(e.id)},"occurred_at":${s(e.occurred_at)},"prev_hash":${s(prevHash)},"revision":${s(e.revision)}` +
    `,"source_ip":${s(e.source_ip)},"stream":${s(e.stream)},"type":${s(e.type)}}`
  );
}

const stringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

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
