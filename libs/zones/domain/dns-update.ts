/**
 * RFC 2136 UPDATE as zone logic: prerequisites checked against the zone's RRsets and the
 * update turned into RRset changes, or the RCODE that refuses it. Pure; the zone decider
 * runs it on the stream's state, so the check and the change are one decision (a
 * concurrent writer makes it decide again).
 */
import { MAX_TTL, MIN_TTL, RRsetInput } from './rrsets';
import { RRset, rrsetKey } from './zone.events';

export const UPDATE_RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
} as const;

/** Names are relative to the zone ("" for the apex), types upper case, records canonical presentation text. */
export type Prerequisite =
  | { kind: 'name-in-use'; name: string }
  | { kind: 'name-not-in-use'; name: string }
  | { kind: 'rrset-exists'; name: string; type: string }
  | { kind: 'rrset-exists-value'; name: string; type: string; records: string[] }
  | { kind: 'rrset-absent'; name: string; type: string };

export type UpdateOperation =
  | { kind: 'add'; name: string; type: string; ttl: number; record: string }
  | { kind: 'delete-rrset'; name: string; type: string }
  | { kind: 'delete-name'; name: string }
  | { kind: 'delete-record'; name: string; type: string; record: string };

export interface DnsUpdate {
  prerequisites: Prerequisite[];
  updates: UpdateOperation[];
}

/** An update key's limit (contract §18): `*.x` covers the names below x, not x; no types = any type. */
export interface UpdatePermission {
  name: string;
  types: string[];
}

/** Types no UPDATE may touch: the signer's (contract §18). */
const DNSSEC_TYPES = new Set(['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY']);

export class DnsUpdateRefused extends Error {
  constructor(
    readonly rcode: number,
    reason: string,
  ) {
    super(reason);
  }
}

const covers = (p: UpdatePermission, name: string, type: string): boolean => {
  const nameOk =
    p.name === '*' ? name !== '' : p.name.startsWith('*.') ? name.endsWith(`.${p.name.slice(2)}`) : name === p.name;
  return nameOk && (p.types.length === 0 || p.types.includes(type));
};

/** Whether `allow` (empty: the whole zone) lets an update change `type` at `name`. */
export const permitted = (allow: UpdatePermission[], name: string, type: string): boolean =>
  allow.length === 0 || allow.some((p) => covers(p, name, type));

/**
 * Checks the prerequisites (RFC 2136 §3.2) on `rrsets`, then the permissions (§3.3), then
 * applies the updates in order (§3.4) and returns the RRsets that change ([] records:
 * deleted). Throws DnsUpdateRefused with the RCODE. The apex SOA and NS are the
 * service's and always exist; `hosts` are the A/AAAA RRsets of the account's dynamic-DNS
 * hosts in the zone, which prerequisites see and updates may not change.
 */
export function planDnsUpdate(
  zoneRRsets: ReadonlyMap<string, RRset>,
  update: DnsUpdate,
  allow: UpdatePermission[],
  hosts: readonly RRset[] = [],
): RRsetInput[] {
  // Prerequisites see the zone as the DNS server serves it: a dynamic-DNS host's addresses win
  // over zone records at its name (dns-index-feeder.ts).
  const served = new Map(zoneRRsets);
  for (const h of hosts) served.set(rrsetKey(h), h);
  const hostNames = new Set(hosts.map((h) => h.subname));
  const rrsets: ReadonlyMap<string, RRset> = served;
  const at = (name: string) => [...rrsets.values()].filter((r) => r.subname === name);
  const exists = (name: string, type: string) =>
    (name === '' && (type === 'SOA' || type === 'NS')) || rrsets.has(rrsetKey({ subname: name, type }));
  const byRRset = new Map<string, { name: string; type: string; records: string[] }>();
  for (const p of update.prerequisites) {
    switch (p.kind) {
      case 'name-in-use':
        if (p.name !== '' && at(p.name).length === 0)
          throw new DnsUpdateRefused(UPDATE_RCODE.NXDOMAIN, `${p.name || '@'} is not in use`);
        break;
      case 'name-not-in-use':
        if (p.name === '' || at(p.name).length > 0)
          throw new DnsUpdateRefused(UPDATE_RCODE.YXDOMAIN, `${p.name || '@'} is in use`);
        break;
      case 'rrset-exists':
        if (!exists(p.name, p.type))
          throw new DnsUpdateRefused(UPDATE_RCODE.NXRRSET, `no ${p.type} at ${p.name || '@'}`);
        break;
      case 'rrset-absent':
        if (exists(p.name, p.type))
          throw new DnsUpdateRefused(UPDATE_RCODE.YXRRSET, `${p.type} exists at ${p.name || '@'}`);
        break;
      case 'rrset-exists-value': {
        const key = rrsetKey({ subname: p.name, type: p.type });
        const entry = byRRset.get(key) ?? { name: p.name, type: p.type, records: [] };
        entry.records.push(...p.records);
        byRRset.set(key, entry);
        break;
      }
    }
  }
  // Value-dependent prerequisites compare whole RRsets (§3.2.3).
  for (const [key, want] of byRRset) {
    const have = rrsets.get(key)?.records ?? [];
    const same = have.length === new Set(want.records).size && want.records.every((r) => have.includes(r));
    if (!same) throw new DnsUpdateRefused(UPDATE_RCODE.NXRRSET, `${want.type} at ${want.name || '@'} differs`);
  }

  for (const u of update.updates) {
    const type = u.kind === 'delete-name' ? null : u.type;
    if (type && DNSSEC_TYPES.has(type))
      throw new DnsUpdateRefused(UPDATE_RCODE.REFUSED, `${type} records are the signer's`);
    if (u.name === '' && (type === 'SOA' || type === 'NS'))
      throw new DnsUpdateRefused(UPDATE_RCODE.REFUSED, 'the apex SOA and NS are the service’s');
    const types = type ? [type] : at(u.name).map((r) => r.type);
    if (hostNames.has(u.name) && types.some((t) => t === 'A' || t === 'AAAA')) {
      throw new DnsUpdateRefused(
        UPDATE_RCODE.REFUSED,
        `${u.name} is a dynamic-DNS host: its addresses change through DDNS or the hosts API`,
      );
    }
    for (const t of types)
      if (!permitted(allow, u.name, t))
        throw new DnsUpdateRefused(UPDATE_RCODE.REFUSED, `the key may not change ${t} at ${u.name || '@'}`);
  }

  const next = new Map<string, RRsetInput>();
  const current = (name: string, type: string): RRsetInput => {
    const key = rrsetKey({ subname: name, type });
    const have = next.get(key) ?? zoneRRsets.get(key);
    return have ? { ...have, records: [...have.records] } : { subname: name, type, ttl: MIN_TTL, records: [] };
  };
  for (const u of update.updates) {
    switch (u.kind) {
      case 'add': {
        const r = current(u.name, u.type);
        if (!r.records.includes(u.record)) r.records.push(u.record);
        // One TTL per RRset: the last add sets it (§3.4.2.2), within the API's range.
        r.ttl = Math.min(MAX_TTL, Math.max(MIN_TTL, u.ttl));
        if (u.type === 'CNAME') r.records = [u.record];
        next.set(rrsetKey(r), r);
        break;
      }
      case 'delete-rrset':
        next.set(rrsetKey({ subname: u.name, type: u.type }), { ...current(u.name, u.type), records: [] });
        break;
      case 'delete-name':
        for (const r of [
          ...[...zoneRRsets.values()].filter((z) => z.subname === u.name),
          ...[...next.values()].filter((n) => n.subname === u.name),
        ])
          next.set(rrsetKey(r), { ...current(u.name, r.type), records: [] });
        break;
      case 'delete-record': {
        const r = current(u.name, u.type);
        next.set(rrsetKey(r), { ...r, records: r.records.filter((x) => x !== u.record) });
        break;
      }
    }
  }
  return [...next.values()];
}
