import { Addresses, DomainEventUnion } from '../../domains/domain/domain.events';
import { familyOfType } from '../../domains/domain/addresses';
import { RRset, rrsetKey, ZoneEvent } from '../../zones/domain/zone.events';

/**
 * What one zone event did to the records (contract §19 "change"): each RRset it created,
 * altered or removed, with its records before and after. TTLs ride along because a
 * TTL-only edit is a change a reviewer must see.
 */
export interface RecordChange {
  subname: string;
  type: string;
  before: string[] | null;
  after: string[] | null;
  before_ttl: number | null;
  after_ttl: number | null;
}

/** The records of a zone by `subname|type`, as the events left them. */
export type ZoneRecords = Map<string, RRset>;

const sameRecords = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

function change(before: RRset | undefined, after: RRset | undefined): RecordChange | null {
  if (!before && !after) return null;
  if (before && after && before.ttl === after.ttl && sameRecords(before.records, after.records)) return null;
  const { subname, type } = (after ?? before)!;
  return {
    subname,
    type,
    before: before?.records ?? null,
    after: after?.records ?? null,
    before_ttl: before?.ttl ?? null,
    after_ttl: after?.ttl ?? null,
  };
}

const byName = (a: RecordChange, b: RecordChange) => a.subname.localeCompare(b.subname) || a.type.localeCompare(b.type);

/**
 * Applies one zone event to `records` (mutated in place, so a fold over a long history
 * allocates per change, not per event) and returns what it changed, sorted by name and type.
 * Verification changes no record.
 */
export function applyZoneEvent(records: ZoneRecords, event: ZoneEvent): RecordChange[] {
  const changes: RecordChange[] = [];
  const put = (next: RRset) => {
    const key = rrsetKey(next);
    const c = change(records.get(key), next.records.length ? next : undefined);
    if (next.records.length) records.set(key, next);
    else records.delete(key);
    if (c) changes.push(c);
  };
  switch (event.type) {
    case 'ZoneImported':
      records.clear();
      event.data.rrsets.forEach(put);
      break;
    case 'ZoneRRsetsChanged':
      event.data.rrsets.forEach(put);
      break;
    case 'ZoneDeleted':
      for (const rrset of records.values()) changes.push(change(rrset, undefined)!);
      records.clear();
      break;
    case 'ZoneVerified':
      break;
  }
  return changes.sort(byName);
}

/** A host's fields as §19 names them in `{field, before, after}`. */
export interface HostFields {
  ipv4: string | null;
  ipv6: string | null;
  ttl: number | null;
}
export interface FieldChange {
  field: keyof HostFields;
  before: string | number | null;
  after: string | number | null;
}

export const NO_HOST: Readonly<HostFields> = { ipv4: null, ipv6: null, ttl: null };
const HOST_FIELDS: (keyof HostFields)[] = ['ipv4', 'ipv6', 'ttl'];

function hostAfter(host: HostFields, event: DomainEventUnion): HostFields {
  switch (event.type) {
    case 'DomainCreated': {
      const addresses: Addresses = { ipv4: null, ipv6: null };
      addresses[familyOfType(event.data.record_type)] = event.data.record_ip;
      return { ...addresses, ttl: event.data.ttl };
    }
    case 'DomainAddressesChanged':
      return { ...host, ...event.data.addresses };
    case 'DomainTtlChanged':
      return { ...host, ttl: event.data.ttl };
    case 'DomainDeleted':
      return { ...NO_HOST };
  }
}

/** The host's fields after `event`, and which fields it changed (in ipv4, ipv6, ttl order). */
export function applyHostEvent(
  host: HostFields,
  event: DomainEventUnion,
): { host: HostFields; changes: FieldChange[] } {
  const next = hostAfter(host, event);
  const changes = HOST_FIELDS.filter((f) => host[f] !== next[f]).map((field) => ({
    field,
    before: host[field],
    after: next[field],
  }));
  return { host: next, changes };
}
