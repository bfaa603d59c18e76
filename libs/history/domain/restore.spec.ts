import { specFor } from '../../shared/testing/decider-spec';
import { domainDecider } from '../../domains/domain/domain.decider';
import { DomainEventUnion } from '../../domains/domain/domain.events';
import { zoneDecider } from '../../zones/domain/zone.decider';
import { RRset, ZoneEvent } from '../../zones/domain/zone.events';

/** Restores are commands of the zone and host deciders: the rules of every other edit hold for them too. */
const at = '2026-01-01T00:00:00.000Z';
const zoneData = { zone_id: 'z1', account_id: 1, name: 'example.com' };
const rr = (subname: string, type: string, records: string[], ttl = 300): RRset => ({ subname, type, ttl, records });
const imported = (rrsets: RRset[]): ZoneEvent => ({
  type: 'ZoneImported',
  data: { ...zoneData, verification_token: 't', nameservers: ['ns1.example.net'], rrsets, created_at: at },
});
const changed = (rrsets: RRset[]): ZoneEvent => ({ type: 'ZoneRRsetsChanged', data: { ...zoneData, rrsets, at } });

describe('restoring a zone’s records (zone decider, RestoreRRsets)', () => {
  const zone = specFor(zoneDecider);
  const www = rr('www', 'A', ['192.0.2.1']);
  const mail = rr('mail', 'A', ['192.0.2.25']);

  it('appends one change that puts back what differs and removes what was added since', () => {
    zone
      .given([imported([www]), changed([rr('www', 'A', ['192.0.2.9']), mail])])
      .when({ type: 'RestoreRRsets', accountId: 1, rrsets: [www], at })
      .then([changed([rr('mail', 'A', []), www])]);
  });

  it('appends nothing when the records already are as they were', () => {
    zone
      .given([imported([www])])
      .when({ type: 'RestoreRRsets', accountId: 1, rrsets: [www], at })
      .then([]);
  });

  it('brings back a removed RRset with its TTL', () => {
    zone
      .given([imported([www, rr('txt', 'TXT', ['"a"'], 60)]), changed([rr('txt', 'TXT', [])])])
      .when({ type: 'RestoreRRsets', accountId: 1, rrsets: [www, rr('txt', 'TXT', ['"a"'], 60)], at })
      .then([changed([rr('txt', 'TXT', ['"a"'], 60)])]);
  });

  it('is refused for another account’s or a deleted zone, and over the plan’s record limit', () => {
    zone
      .given([imported([www])])
      .when({ type: 'RestoreRRsets', accountId: 2, rrsets: [], at })
      .thenFails(404, 'not_found');
    zone
      .given([imported([www]), { type: 'ZoneDeleted', data: { ...zoneData, at } }])
      .when({ type: 'RestoreRRsets', accountId: 1, rrsets: [], at })
      .thenFails(404, 'not_found');
    zone
      .given([imported([www]), changed([rr('www', 'A', [])])])
      .when({
        type: 'RestoreRRsets',
        accountId: 1,
        rrsets: [rr('www', 'A', ['192.0.2.1', '192.0.2.2'])],
        recordLimit: 1,
        at,
      })
      .thenFails(403, 'limit_reached');
  });

  it('keeps the record rules (a CNAME beside other data is refused)', () => {
    zone
      .given([imported([www])])
      .when({ type: 'RestoreRRsets', accountId: 1, rrsets: [www, rr('www', 'CNAME', ['x.example.org.'])], at })
      .thenFails(400, /CNAME/);
  });
});

describe('restoring a host’s addresses (domain decider, RestoreAddresses)', () => {
  const host = specFor(domainDecider);
  const data = { domain_id: 7, account_id: 1, fqdn: 'home.dyn.example.net' };
  const created: DomainEventUnion = {
    type: 'DomainCreated',
    data: { ...data, record_type: 'A', record_ip: '192.0.2.1', ttl: 60, created_at: at },
  };
  const moved = (ipv4: string | null, ipv6: string | null, source: 'api' | 'ddns' = 'ddns'): DomainEventUnion => ({
    type: 'DomainAddressesChanged',
    data: { ...data, addresses: { ipv4, ipv6 }, source, at },
  });

  it('sets both families back in one change, made through the API (outside the DDNS throttle)', () => {
    host
      .given([created, moved('192.0.2.7', '2001:db8::7')])
      .when({ type: 'RestoreAddresses', accountId: 1, addresses: { ipv4: '192.0.2.1', ipv6: null }, at })
      .then([moved('192.0.2.1', null, 'api')]);
  });

  it('appends nothing when nothing differs; refuses another account and a state without any address', () => {
    host
      .given([created])
      .when({ type: 'RestoreAddresses', accountId: 1, addresses: { ipv4: '192.0.2.1', ipv6: null }, at })
      .then([]);
    host
      .given([created])
      .when({ type: 'RestoreAddresses', accountId: 2, addresses: { ipv4: '192.0.2.1', ipv6: null }, at })
      .thenFails(404, 'not_found');
    host
      .given([created])
      .when({ type: 'RestoreAddresses', accountId: 1, addresses: { ipv4: null, ipv6: null }, at })
      .thenFails(400, 'validation_failed');
  });

  it('restores a state whose only address is the other family (decision 0091: it becomes the record type)', () => {
    host
      .given([created])
      .when({ type: 'RestoreAddresses', accountId: 1, addresses: { ipv4: null, ipv6: '2001:db8::1' }, at })
      .then([moved(null, '2001:db8::1', 'api')]);
  });
});
