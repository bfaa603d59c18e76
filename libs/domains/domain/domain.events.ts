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

export type DomainEventUnion = DomainCreated | DomainAddressesChanged | DomainDeleted;
export const DOMAIN_EVENT_TYPES: readonly DomainEventUnion['type'][] = [
  'DomainCreated',
  'DomainAddressesChanged',
  'DomainDeleted',
];

export const domainStream = (id: number) => `domain-${id}`;
/** Reservation stream that makes an fqdn unique across all accounts. */
export const fqdnStream = (fqdn: string) => `fqdn-${fqdn}`;
export const DEFAULT_TTL = 60;
