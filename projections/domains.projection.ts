import { familyOfType, RecordType } from '../libs/domains/domain/addresses';
import { Addresses, DomainEventUnion, DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { MonitorEvent, MONITOR_EVENT_TYPES } from '../libs/uptime/domain/uptime.events';
import { guardedUpdate, settled } from './guard';

/** A live dynamic-DNS host: the contract's domain object without `record_ip`, plus `addresses`. */
export interface DomainDoc {
  _id: number;
  id: number;
  account_id: number;
  fqdn: string;
  record_type: RecordType;
  ttl: number;
  monitor_enabled: boolean;
  addresses: Addresses;
  created_at: string;
  updated_at: string;
}

// fqdn first: the embedded store uses the first index a filter pins, and fqdn is the selective one.
export const DOMAINS = defineReadModel<DomainDoc>('domains', 'domains', [
  { keys: { fqdn: 1 } },
  { keys: { account_id: 1 } },
]);

/**
 * domains: one document per live dynamic-DNS host (the contract's domain object plus
 * `addresses`), for the management API and DDNS lookups. Deleted hosts are removed so a
 * re-created fqdn gets a fresh document under its new id. `record_ip` is not stored: it is
 * the address of the record type's family, and leaving it out lets an address change be
 * one update, without first reading the document for its type (every DDNS update).
 */
export const domainsProjection = defineProjection<DomainEventUnion | MonitorEvent>({
  name: 'domains',
  version: 2,
  readModels: [DOMAINS],
  // The monitor toggles (uptime) only set the domain object's `monitor_enabled`.
  handles: [...DOMAIN_EVENT_TYPES, ...MONITOR_EVENT_TYPES],
  // Not async: each case returns its one write's promise as it is (a DDNS update's event passes here; decision 0126).
  apply(event, ctx) {
    const domains = ctx.collection(DOMAINS);
    switch (event.type) {
      case 'DomainCreated': {
        const d = event.data;
        return guardedUpdate(domains, d.domain_id, ctx.position, {
          $set: {
            id: d.domain_id,
            account_id: d.account_id,
            fqdn: d.fqdn,
            record_type: d.record_type,
            ttl: d.ttl,
            monitor_enabled: false,
            addresses: { ipv4: null, ipv6: null, [familyOfType(d.record_type)]: d.record_ip },
            created_at: d.created_at,
            updated_at: d.created_at,
          },
        });
      }
      case 'DomainAddressesChanged': {
        const d = event.data;
        // One family left: it is the record type (decision 0091); with both, the type stays as it was.
        const { ipv4, ipv6 } = d.addresses;
        const type =
          ipv6 === null ? { record_type: 'A' as const } : ipv4 === null ? { record_type: 'AAAA' as const } : {};
        return guardedUpdate(
          domains,
          d.domain_id,
          ctx.position,
          { $set: { addresses: d.addresses, updated_at: d.at, ...type } },
          { upsert: false },
        );
      }
      case 'DomainTtlChanged':
        return guardedUpdate(
          domains,
          event.data.domain_id,
          ctx.position,
          { $set: { ttl: event.data.ttl, updated_at: event.data.at } },
          { upsert: false },
        );
      case 'DomainDeleted':
        return domains.deleteOne({ _id: event.data.domain_id }).then(settled);
      case 'MonitorEnabled':
      case 'MonitorDisabled':
        return guardedUpdate(
          domains,
          event.data.domain_id,
          ctx.position,
          { $set: { monitor_enabled: event.type === 'MonitorEnabled' } },
          { upsert: false },
        );
      default:
        return Promise.resolve();
    }
  },
});
