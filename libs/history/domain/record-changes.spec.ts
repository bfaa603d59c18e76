import { applyHostEvent, applyZoneEvent, NO_HOST, ZoneRecords } from './record-changes';

const zone = { zone_id: 'z1', account_id: 1, name: 'example.test' };
const rrset = (subname: string, type: string, records: string[], ttl = 300) => ({ subname, type, ttl, records });

describe('zone record changes', () => {
  it('an import creates every RRset, sorted by name and type', () => {
    const records: ZoneRecords = new Map();
    const changes = applyZoneEvent(records, {
      type: 'ZoneImported',
      data: {
        ...zone,
        verification_token: 't',
        nameservers: [],
        created_at: '',
        rrsets: [rrset('www', 'A', ['192.0.2.1']), rrset('', 'MX', ['10 mx.example.test.'])],
      },
    });
    expect(changes).toEqual([
      { subname: '', type: 'MX', before: null, after: ['10 mx.example.test.'], before_ttl: null, after_ttl: 300 },
      { subname: 'www', type: 'A', before: null, after: ['192.0.2.1'], before_ttl: null, after_ttl: 300 },
    ]);
    expect(records.size).toBe(2);
  });

  it('a change reports before and after, skips what is unchanged, and an empty RRset is a removal', () => {
    const records: ZoneRecords = new Map([
      ['www|A', rrset('www', 'A', ['192.0.2.1', '192.0.2.2'])],
      ['mail|A', rrset('mail', 'A', ['192.0.2.9'])],
    ]);
    const changes = applyZoneEvent(records, {
      type: 'ZoneRRsetsChanged',
      data: {
        ...zone,
        at: '',
        rrsets: [
          rrset('www', 'A', ['192.0.2.2', '192.0.2.1']),
          rrset('mail', 'A', []),
          rrset('gone', 'TXT', []),
          rrset('www', 'AAAA', ['2001:db8::1'], 60),
        ],
      },
    });
    expect(changes).toEqual([
      { subname: 'mail', type: 'A', before: ['192.0.2.9'], after: null, before_ttl: 300, after_ttl: null },
      { subname: 'www', type: 'AAAA', before: null, after: ['2001:db8::1'], before_ttl: null, after_ttl: 60 },
    ]);
    expect([...records.keys()].sort()).toEqual(['www|A', 'www|AAAA']);
  });

  it('a TTL-only edit is a change', () => {
    const records: ZoneRecords = new Map([['www|A', rrset('www', 'A', ['192.0.2.1'])]]);
    const changes = applyZoneEvent(records, {
      type: 'ZoneRRsetsChanged',
      data: { ...zone, at: '', rrsets: [rrset('www', 'A', ['192.0.2.1'], 600)] },
    });
    expect(changes).toEqual([
      { subname: 'www', type: 'A', before: ['192.0.2.1'], after: ['192.0.2.1'], before_ttl: 300, after_ttl: 600 },
    ]);
  });

  it('deletion removes every RRset; verification changes nothing', () => {
    const records: ZoneRecords = new Map([['www|A', rrset('www', 'A', ['192.0.2.1'])]]);
    expect(applyZoneEvent(records, { type: 'ZoneVerified', data: { ...zone, method: 'txt', at: '' } })).toEqual([]);
    expect(applyZoneEvent(records, { type: 'ZoneDeleted', data: { ...zone, at: '' } })).toEqual([
      { subname: 'www', type: 'A', before: ['192.0.2.1'], after: null, before_ttl: 300, after_ttl: null },
    ]);
    expect(records.size).toBe(0);
  });
});

describe('host field changes', () => {
  const host = { domain_id: 7, account_id: 1, fqdn: 'home.example.net' };
  it('creation sets the address of its family and the TTL', () => {
    const r = applyHostEvent(NO_HOST, {
      type: 'DomainCreated',
      data: { ...host, record_type: 'AAAA', record_ip: '2001:db8::1', ttl: 60, created_at: '' },
    });
    expect(r.host).toEqual({ ipv4: null, ipv6: '2001:db8::1', ttl: 60 });
    expect(r.changes).toEqual([
      { field: 'ipv6', before: null, after: '2001:db8::1' },
      { field: 'ttl', before: null, after: 60 },
    ]);
  });
  it('an address change names only the fields that changed; deletion clears them all', () => {
    const before = { ipv4: '192.0.2.1', ipv6: '2001:db8::1', ttl: 60 };
    const r = applyHostEvent(before, {
      type: 'DomainAddressesChanged',
      data: { ...host, addresses: { ipv4: '192.0.2.7', ipv6: '2001:db8::1' }, source: 'ddns', at: '' },
    });
    expect(r.changes).toEqual([{ field: 'ipv4', before: '192.0.2.1', after: '192.0.2.7' }]);
    expect(
      applyHostEvent(r.host, { type: 'DomainDeleted', data: { ...host, at: '' } }).changes.map((c) => c.field),
    ).toEqual(['ipv4', 'ipv6', 'ttl']);
  });
});
