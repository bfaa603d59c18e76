import { specFor } from '../../shared/testing/decider-spec';
import { DomainCommand, domainDecider, FamilyChange } from './domain.decider';
import { DomainEventUnion } from './domain.events';
import { Family } from './addresses';
import { fold } from '../../shared/decider';

const spec = specFor(domainDecider);
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms = 0) => new Date(t0 + ms).toISOString();
const keep: FamilyChange = { kind: 'keep' };

const created: DomainEventUnion = {
  type: 'DomainCreated',
  data: {
    domain_id: 7,
    account_id: 1,
    fqdn: 'home.dyn.example.net',
    record_type: 'A',
    record_ip: '192.0.2.1',
    ttl: 60,
    created_at: at(),
  },
};
const changedTo = (ipv4: string | null, ipv6: string | null, source: 'api' | 'ddns', ms = 0): DomainEventUnion => ({
  type: 'DomainAddressesChanged',
  data: { domain_id: 7, account_id: 1, fqdn: 'home.dyn.example.net', addresses: { ipv4, ipv6 }, source, at: at(ms) },
});
const ddns = (ipv4: FamilyChange, ipv6: FamilyChange = keep, ms = 0, accountId = 1): DomainCommand => ({
  type: 'DdnsUpdate',
  accountId,
  ipv4,
  ipv6,
  at: at(ms),
});
const set = (ip: string): FamilyChange => ({ kind: 'set', ip });
const edit = (families: Partial<Record<Family, string | null>>, ttl?: number, accountId = 1): DomainCommand => ({
  type: 'EditHost',
  accountId,
  families,
  ...(ttl === undefined ? {} : { ttl }),
  at: at(),
});
const ttlTo = (ttl: number): DomainEventUnion => ({
  type: 'DomainTtlChanged',
  data: { domain_id: 7, account_id: 1, fqdn: 'home.dyn.example.net', ttl, at: at() },
});

describe('domain decider', () => {
  it('creates a host with a canonical address of the record type’s family', () => {
    spec
      .given([])
      .when({
        type: 'CreateDomain',
        domainId: 7,
        accountId: 1,
        fqdn: 'v6.dyn.example.net',
        recordType: 'AAAA',
        recordIp: '2001:DB8:0::1',
        ttl: 60,
        at: at(),
      })
      .then([
        {
          type: 'DomainCreated',
          data: {
            domain_id: 7,
            account_id: 1,
            fqdn: 'v6.dyn.example.net',
            record_type: 'AAAA',
            record_ip: '2001:db8::1',
            ttl: 60,
            created_at: at(),
          },
        },
      ]);
  });

  it('refuses an address of the other family', () => {
    spec
      .given([])
      .when({
        type: 'CreateDomain',
        domainId: 7,
        accountId: 1,
        fqdn: 'a.dyn.example.net',
        recordType: 'A',
        recordIp: '2001:db8::1',
        ttl: 60,
        at: at(),
      })
      .thenFails(400, 'validation_failed');
  });

  it('sets the other family through the API and leaves the primary alone', () => {
    spec
      .given([created])
      .when(edit({ ipv6: '2001:DB8::5' }))
      .then([changedTo('192.0.2.1', '2001:db8::5', 'api')]);
  });

  it('answers nothing to change when the address is the same', () => {
    spec
      .given([created])
      .when(ddns(set('192.0.2.1')))
      .then([]);
  });

  it('hides other accounts’ and deleted hosts', () => {
    spec
      .given([created])
      .when(ddns(set('192.0.2.9'), keep, 0, 2))
      .thenFails(404, 'not_found');
    const deleted: DomainEventUnion = {
      type: 'DomainDeleted',
      data: { domain_id: 7, account_id: 1, fqdn: 'home.dyn.example.net', at: at() },
    };
    spec.given([created, deleted]).when({ type: 'DeleteDomain', accountId: 1, at: at() }).thenFails(404, 'not_found');
  });

  it('deletes a secondary family but never the primary one', () => {
    const dual = [created, changedTo('192.0.2.1', '2001:db8::1', 'ddns')];
    spec
      .given(dual)
      .when(ddns({ kind: 'delete' }, { kind: 'delete' }, 1000))
      .then([changedTo('192.0.2.1', null, 'ddns', 1000)]);
    spec
      .given([created])
      .when(ddns({ kind: 'delete' }))
      .then([]);
  });

  describe('throttle: more than 10 changing updates in 10 minutes', () => {
    const ten = Array.from({ length: 10 }, (_, i) => changedTo(`192.0.2.${10 + i}`, null, 'ddns', i * 1000));

    it('refuses the 11th change within the window', () => {
      spec
        .given([created, ...ten])
        .when(ddns(set('192.0.2.99'), keep, 20_000))
        .thenFails(429, 'abuse');
    });

    it('still answers an unchanged address while throttled', () => {
      spec
        .given([created, ...ten])
        .when(ddns(set('192.0.2.19'), keep, 20_000))
        .then([]);
    });

    it('lets changes through again once the oldest leaves the window', () => {
      spec
        .given([created, ...ten])
        .when(ddns(set('192.0.2.99'), keep, 600_000))
        .then([changedTo('192.0.2.99', null, 'ddns', 600_000)]);
    });

    it('does not count management-API changes', () => {
      const api = Array.from({ length: 10 }, (_, i) => changedTo(`192.0.2.${10 + i}`, null, 'api', i));
      spec
        .given([created, ...api])
        .when(ddns(set('192.0.2.99'), keep, 100))
        .then([changedTo('192.0.2.99', null, 'ddns', 100)]);
    });
  });

  describe('management edits (decision 0091)', () => {
    const dual = changedTo('192.0.2.1', '2001:db8::5', 'api');

    it('changes the TTL with its own event, addresses untouched', () => {
      spec
        .given([created])
        .when(edit({}, 300))
        .then([ttlTo(300)]);
    });

    it('appends nothing when the TTL is the one it has', () => {
      spec.given([created]).when(edit({}, 60)).then([]);
    });

    it.each([59, 86_401, 1.5])('refuses a TTL of %p', (ttl) => {
      spec
        .given([created])
        .when(edit({}, ttl))
        .thenFails(400, /ttl must be a whole number of seconds from 60 to 86400/);
    });

    it('removes the IPv6 address of a dual-stack host', () => {
      spec
        .given([created, dual])
        .when(edit({ ipv6: null }))
        .then([changedTo('192.0.2.1', null, 'api')]);
    });

    it('removes the record type’s family when the other remains; the other becomes the type', () => {
      spec
        .given([created, dual])
        .when(edit({ ipv4: null }))
        .then([changedTo(null, '2001:db8::5', 'api')]);
      expect(fold(domainDecider, [created, dual, changedTo(null, '2001:db8::5', 'api')]).recordType).toBe('AAAA');
    });

    it('refuses to remove the only address', () => {
      spec
        .given([created])
        .when(edit({ ipv4: null }))
        .thenFails(400, /at least one address/);
    });

    it('refuses an address of the wrong family, naming the field', () => {
      spec
        .given([created])
        .when(edit({ ipv4: '2001:db8::1' }))
        .thenFails(400, 'ipv4 must be an IPv4 address');
    });

    it('changes addresses and TTL in one append', () => {
      spec
        .given([created, dual])
        .when(edit({ ipv6: null }, 120))
        .then([changedTo('192.0.2.1', null, 'api'), ttlTo(120)]);
    });

    it('refuses the whole edit when one part is wrong', () => {
      spec
        .given([created, dual])
        .when(edit({ ipv6: null }, 30))
        .thenFails(400, 'validation_failed');
    });

    it('hides other accounts’ hosts', () => {
      spec
        .given([created])
        .when(edit({}, 300, 2))
        .thenFails(404, 'not_found');
    });

    it('restores addresses and TTL as they were', () => {
      spec
        .given([created, dual, ttlTo(300)])
        .when({
          type: 'RestoreAddresses',
          accountId: 1,
          addresses: { ipv4: '192.0.2.1', ipv6: null },
          ttl: 60,
          at: at(),
        })
        .then([changedTo('192.0.2.1', null, 'api'), ttlTo(60)]);
    });
  });

  it('still never deletes the primary family over DDNS after the type moved', () => {
    spec
      .given([created, changedTo('192.0.2.1', '2001:db8::5', 'api'), changedTo(null, '2001:db8::5', 'api')])
      .when(ddns({ kind: 'set', ip: '192.0.2.7' }, { kind: 'delete' }))
      .then([changedTo('192.0.2.7', '2001:db8::5', 'ddns')]);
  });
});
