import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { familyOfType } from '../libs/domains/domain/addresses';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { MonitorEvent, MONITOR_EVENT_TYPES } from '../libs/uptime/domain/uptime.events';
import { guardedUpdate } from './guard';

/**
 * domains: one document per live dynamic-DNS host (the contract's domain object plus
 * `addresses`), for the management API and DDNS lookups. Deleted hosts are removed so a
 * re-created fqdn gets a fresh document under its new id. `record_ip` is not stored: it is
 * the address of the record type's family, and leaving it out lets an address change be
 * one update, without first reading the document for its type (every DDNS update).
 */
export const domainsProjection: ProjectionDefinition = {
  name: 'domains',
  version: 2,
  collections: ['domains'],
  // The monitor toggles (uptime) only set the domain object's `monitor_enabled`.
  handles: [...DOMAIN_EVENT_TYPES, ...MONITOR_EVENT_TYPES],
  async setup(ctx) {
    // fqdn first: the embedded store uses the first index a filter pins, and fqdn is the selective one.
    await ctx.collection('domains').createIndex({ fqdn: 1 });
    await ctx.collection('domains').createIndex({ account_id: 1 });
  },
  async apply(raw, ctx) {
    const domains = ctx.collection('domains');
    const event = raw as unknown as DomainEventUnion | MonitorEvent;
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
        return guardedUpdate(domains, d.domain_id, ctx.position, { $set: { addresses: d.addresses, updated_at: d.at } }, { upsert: false });
      }
      case 'DomainDeleted':
        await domains.deleteOne({ _id: event.data.domain_id });
        return;
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
        return;
    }
  },
};
