import { DomainEvent } from '../../shared/decider';

/** An RRset as the API shows it (contract §4): records in canonical presentation format. */
export interface RRset {
  subname: string;
  type: string;
  ttl: number;
  records: string[];
}

export type ZoneImported = DomainEvent<
  'ZoneImported',
  {
    zone_id: string;
    account_id: number;
    name: string;
    verification_token: string;
    nameservers: string[];
    rrsets: RRset[];
    created_at: string;
  }
>;
/** Bulk upsert: each RRset replaces the one with its subname and type; `records: []` deletes it. */
export type ZoneRRsetsChanged = DomainEvent<
  'ZoneRRsetsChanged',
  { zone_id: string; account_id: number; name: string; rrsets: RRset[]; at: string }
>;
export type ZoneVerified = DomainEvent<
  'ZoneVerified',
  { zone_id: string; account_id: number; name: string; method: 'ns' | 'txt'; at: string }
>;
export type ZoneDeleted = DomainEvent<'ZoneDeleted', { zone_id: string; account_id: number; name: string; at: string }>;

export type ZoneEvent = ZoneImported | ZoneRRsetsChanged | ZoneVerified | ZoneDeleted;
export const ZONE_EVENT_TYPES: readonly ZoneEvent['type'][] = [
  'ZoneImported',
  'ZoneRRsetsChanged',
  'ZoneVerified',
  'ZoneDeleted',
];

export const zoneStream = (id: string) => `zone-${id}`;
/** Reservation stream that makes a zone name unique across accounts. */
export const zoneNameStream = (name: string) => `zonename-${name}`;
export const verificationRecordName = (zone: string) => `_account-dns-verify.${zone}`;
export const rrsetKey = (r: Pick<RRset, 'subname' | 'type'>) => `${r.subname}|${r.type}`;
