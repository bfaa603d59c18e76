import { RRset, rrsetKey } from '../../zones/domain/zone.events';
import { FieldChange, HostFields, RecordChange } from './record-changes';
import { SettingChange } from './settings-changes';

/**
 * A zone's records are snapshotted after every SNAPSHOT_EVERY-th event of its stream (and
 * after its import), so the records at any instant are one snapshot plus at most
 * SNAPSHOT_EVERY - 1 stored changes folded onto it, however long the history (decision 0075).
 */
export const SNAPSHOT_EVERY = 64;

/** A history subject: a zone (`zone:<uuid>`) or a dynamic-DNS host (`host:<id>`). */
export const zoneSubject = (zoneId: string) => `zone:${zoneId}`;
export const hostSubject = (domainId: number) => `host:${domainId}`;

/** The §19 change types. */
export type ChangeType =
  | 'zone_imported'
  | 'records_changed'
  | 'restored'
  | 'zone_verified'
  | 'zone_deleted'
  | 'host_created'
  | 'address_updated'
  | 'ttl_updated'
  | 'host_deleted';

/** One stored change of a zone or host, its diff computed once when projected. */
export interface StoredChange {
  seq: number;
  at: number;
  /** A ChangeType, or for settings the event type in snake case (`api_key_created`). */
  type: ChangeType | string;
  changes: RecordChange[] | FieldChange[] | SettingChange[];
  /** Hosts: every field after the change (a host's state is three fields: no snapshots needed). */
  host?: HostFields;
}

export const isRecordChange = (c: RecordChange | FieldChange | SettingChange): c is RecordChange => 'subname' in c;

/**
 * The records after `changes` (in stream order) applied to a snapshot: each RecordChange
 * carries the RRset's records and TTL after it, so the fold only sets or removes.
 */
export function foldRecords(snapshot: readonly RRset[], changes: readonly Pick<StoredChange, 'changes'>[]): RRset[] {
  const records = new Map(snapshot.map((r) => [rrsetKey(r), r]));
  for (const stored of changes) {
    for (const c of stored.changes) {
      if (!isRecordChange(c)) continue;
      const key = rrsetKey(c);
      if (c.after === null) records.delete(key);
      else records.set(key, { subname: c.subname, type: c.type, ttl: c.after_ttl ?? 0, records: c.after });
    }
  }
  return [...records.values()].sort((a, b) => a.subname.localeCompare(b.subname) || a.type.localeCompare(b.type));
}

/** `user:7` → `{type: 'user', id: '7'}`; the name is looked up by the caller. */
export function actorParts(actor: string | null): {
  type: 'user' | 'api_key' | 'system' | 'operator';
  id: string | null;
} {
  if (!actor || actor === 'system') return { type: 'system', id: null };
  // A DDNS client's update names the credential it used: `ddns:key:<uuid>`, `ddns:user:<id>`.
  if (actor.startsWith('ddns:')) return actorParts(actor.slice(5));
  const at = actor.indexOf(':');
  const [kind, id] = at < 0 ? [actor, null] : [actor.slice(0, at), actor.slice(at + 1)];
  switch (kind) {
    case 'user':
      return { type: 'user', id };
    case 'key':
      return { type: 'api_key', id };
    case 'admin':
    case 'operator':
      return { type: 'operator', id };
    default:
      return { type: 'system', id: actor };
  }
}
