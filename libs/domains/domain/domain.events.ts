import { DomainEvent } from '../../shared/decider';
import { RecordType } from './addresses';

export interface Addresses {
  ipv4: string | null;
  ipv6: string | null;
}

export type DomainCreated = DomainEvent<
  'DomainCreated',
  {
    domain_id: number;
    account_id: number;
    fqdn: string;
    record_type: RecordType;
    record_ip: string;
    ttl: number;
    created_at: string;
  }
>;

/**
 * The host's full address set after a change (not a delta), so the read model and the DNS
 * index apply it without knowing the previous state. `source` tells a DDNS client's update
 * (which counts toward the per-host throttle) from a management-API change.
 */
export type DomainAddressesChanged = DomainEvent<
  'DomainAddressesChanged',
  { domain_id: number; account_id: number; fqdn: string; addresses: Addresses; source: 'api' | 'ddns'; at: string }
>;

export type DomainDeleted = DomainEvent<
  'DomainDeleted',
  { domain_id: number; account_id: number; fqdn: string; at: string }
>;

/** The TTL of the host's A and AAAA answers changed (decision 0091); addresses are untouched. */
export type DomainTtlChanged = DomainEvent<
  'DomainTtlChanged',
  { domain_id: number; account_id: number; fqdn: string; ttl: number; at: string }
>;

export type DomainEventUnion = DomainCreated | DomainAddressesChanged | DomainTtlChanged | DomainDeleted;
export const DOMAIN_EVENT_TYPES: readonly DomainEventUnion['type'][] = [
  'DomainCreated',
  'DomainAddressesChanged',
  'DomainTtlChanged',
  'DomainDeleted',
];

export const domainStream = (id: number) => `domain-${id}`;
/** Reservation stream that makes an fqdn unique across all accounts. */
export const fqdnStream = (fqdn: string) => `fqdn-${fqdn}`;
export const DEFAULT_TTL = 60;
/** A host's TTL bounds: the same as a zone RRset's (contract §4 states none for hosts; decision 0091). */
export const MIN_HOST_TTL = 60;
export const MAX_HOST_TTL = 86_400;

/**
 * The record type a host's addresses imply: the family of its only address, or, when it
 * holds both, the type it had (decision 0091). Removing the record type's family through
 * the management API leaves the other family, which becomes the type.
 */
export function recordTypeAfter(current: 'A' | 'AAAA', addresses: Addresses): 'A' | 'AAAA' {
  if (addresses.ipv4 !== null && addresses.ipv6 === null) return 'A';
  if (addresses.ipv6 !== null && addresses.ipv4 === null) return 'AAAA';
  return current;
}
