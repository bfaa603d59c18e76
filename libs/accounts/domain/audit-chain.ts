/**
 * The audit log's hash chain (contract §19, decision 0080): each entry of an account, as
 * `/account/audit` shows it, is hashed together with the hash of the account's previous
 * entry, so an export proves that nothing between its first and last line was removed,
 * inserted or changed. Pure: the projection, the export and the verifier share it.
 */
import { createHash } from 'node:crypto';
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

/** The hash of `entry` linked to `prevHash` (RFC 8785 JSON Canonicalization Scheme, then SHA-256). */
export function chainHash(entry: AuditEntry, prevHash: string | null): string {
  const text = canonicalize({ ...auditEntryOf(entry), prev_hash: prevHash });
  if (text === undefined) throw new Error('audit entry has no JSON form');
  return createHash('sha256').update(text, 'utf8').digest('hex');
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
