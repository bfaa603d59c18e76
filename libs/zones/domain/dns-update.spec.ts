import { fold } from '../../shared/decider';
import { specFor } from '../../shared/testing/decider-spec';
import { DnsUpdate, DnsUpdateRefused, UPDATE_RCODE, UpdatePermission } from './dns-update';
import { ZoneCommand, zoneDecider } from './zone.decider';
import { RRset, ZoneEvent } from './zone.events';

const spec = specFor(zoneDecider);
const at = '2026-01-01T00:00:00.000Z';
const imported = (rrsets: RRset[]): ZoneEvent => ({
  type: 'ZoneImported',
  data: {
    zone_id: 'z1',
    account_id: 1,
    name: 'example.com',
    verification_token: 'tok',
    nameservers: ['ns1.example.net'],
    rrsets,
    created_at: at,
  },
});
const ZONE = [
  { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] },
  { subname: 'www', type: 'TXT', ttl: 300, records: ['"hello"'] },
];
const apply = (update: Partial<DnsUpdate>, allow: UpdatePermission[] = []): ZoneCommand => ({
  type: 'ApplyDnsUpdate',
  update: { prerequisites: [], updates: [], ...update },
  allow,
  at,
});
const changed = (rrsets: RRset[]): ZoneEvent => ({
  type: 'ZoneRRsetsChanged',
  data: { zone_id: 'z1', account_id: 1, name: 'example.com', rrsets, at },
});

/** The RCODE a refused update answers. */
function rcodeOf(command: ZoneCommand, events: ZoneEvent[] = [imported(ZONE)]): number {
  try {
    zoneDecider.decide(command, fold(zoneDecider, events));
    return UPDATE_RCODE.NOERROR;
  } catch (e) {
    return e instanceof DnsUpdateRefused ? e.rcode : -1;
  }
}

describe('RFC 2136 UPDATE on the zone decider', () => {
  it('adds and deletes records as one change', () => {
    spec
      .given([imported(ZONE)])
      .when(
        apply({
          updates: [
            { kind: 'add', name: 'www', type: 'A', ttl: 600, record: '192.0.2.2' },
            { kind: 'delete-rrset', name: 'www', type: 'TXT' },
            { kind: 'add', name: 'new', type: 'TXT', ttl: 60, record: '"x"' },
          ],
        }),
      )
      .then([
        changed([
          { subname: 'www', type: 'A', ttl: 600, records: ['192.0.2.1', '192.0.2.2'] },
          { subname: 'www', type: 'TXT', ttl: 300, records: [] },
          { subname: 'new', type: 'TXT', ttl: 60, records: ['"x"'] },
        ]),
      ]);
    spec
      .given([imported(ZONE)])
      .when(apply({ updates: [{ kind: 'delete-name', name: 'www' }] }))
      .then([
        changed([
          { subname: 'www', type: 'A', ttl: 300, records: [] },
          { subname: 'www', type: 'TXT', ttl: 300, records: [] },
        ]),
      ]);
    spec
      .given([imported(ZONE)])
      .when(apply({ updates: [{ kind: 'delete-record', name: 'www', type: 'A', record: '192.0.2.9' }] }))
      .then([]);
  });

  it('answers each failed prerequisite with its RCODE, changing nothing', () => {
    expect(rcodeOf(apply({ prerequisites: [{ kind: 'name-in-use', name: 'nope' }] }))).toBe(UPDATE_RCODE.NXDOMAIN);
    expect(rcodeOf(apply({ prerequisites: [{ kind: 'name-not-in-use', name: 'www' }] }))).toBe(UPDATE_RCODE.YXDOMAIN);
    expect(rcodeOf(apply({ prerequisites: [{ kind: 'rrset-exists', name: 'www', type: 'AAAA' }] }))).toBe(
      UPDATE_RCODE.NXRRSET,
    );
    expect(rcodeOf(apply({ prerequisites: [{ kind: 'rrset-absent', name: 'www', type: 'A' }] }))).toBe(
      UPDATE_RCODE.YXRRSET,
    );
    expect(
      rcodeOf(
        apply({ prerequisites: [{ kind: 'rrset-exists-value', name: 'www', type: 'A', records: ['192.0.2.7'] }] }),
      ),
    ).toBe(UPDATE_RCODE.NXRRSET);
    expect(
      rcodeOf(
        apply({
          prerequisites: [
            { kind: 'rrset-exists-value', name: 'www', type: 'A', records: ['192.0.2.1'] },
            { kind: 'rrset-exists', name: '', type: 'SOA' },
          ],
        }),
      ),
    ).toBe(UPDATE_RCODE.NOERROR);
  });

  it('refuses what the key may not change, the apex SOA/NS, DNSSEC data and invalid results', () => {
    const allow = [{ name: '*.dyn', types: ['A'] }];
    expect(
      rcodeOf(apply({ updates: [{ kind: 'add', name: 'host.dyn', type: 'A', ttl: 60, record: '192.0.2.5' }] }, allow)),
    ).toBe(UPDATE_RCODE.NOERROR);
    expect(
      rcodeOf(apply({ updates: [{ kind: 'add', name: 'dyn', type: 'A', ttl: 60, record: '192.0.2.5' }] }, allow)),
    ).toBe(UPDATE_RCODE.REFUSED);
    expect(
      rcodeOf(apply({ updates: [{ kind: 'add', name: 'host.dyn', type: 'TXT', ttl: 60, record: '"t"' }] }, allow)),
    ).toBe(UPDATE_RCODE.REFUSED);
    expect(rcodeOf(apply({ updates: [{ kind: 'delete-rrset', name: '', type: 'NS' }] }))).toBe(UPDATE_RCODE.REFUSED);
    expect(
      rcodeOf(apply({ updates: [{ kind: 'add', name: '', type: 'DNSKEY', ttl: 60, record: '257 3 13 AAAA' }] })),
    ).toBe(UPDATE_RCODE.REFUSED);
    expect(
      rcodeOf(apply({ updates: [{ kind: 'add', name: 'www', type: 'CNAME', ttl: 60, record: 'other.example.com.' }] })),
    ).toBe(UPDATE_RCODE.REFUSED);
    expect(rcodeOf(apply({}), [])).toBe(UPDATE_RCODE.NOTAUTH);
  });
});

describe('RFC 2136 UPDATE and the dynamic-DNS hosts in the zone', () => {
  const hosts: RRset[] = [{ subname: 'home', type: 'A', ttl: 60, records: ['198.51.100.7'] }];
  const withHosts = (update: Partial<DnsUpdate>): ZoneCommand => ({ ...apply(update), hosts }) as ZoneCommand;

  it('prerequisites see a host as the DNS server serves it', () => {
    expect(
      rcodeOf(
        withHosts({
          prerequisites: [{ kind: 'name-in-use', name: 'home' }],
          updates: [{ kind: 'add', name: 'home', type: 'TXT', ttl: 300, record: '"x"' }],
        }),
      ),
    ).toBe(UPDATE_RCODE.NOERROR);
    expect(rcodeOf(withHosts({ prerequisites: [{ kind: 'name-not-in-use', name: 'home' }] }))).toBe(
      UPDATE_RCODE.YXDOMAIN,
    );
    expect(rcodeOf(withHosts({ prerequisites: [{ kind: 'rrset-absent', name: 'home', type: 'A' }] }))).toBe(
      UPDATE_RCODE.YXRRSET,
    );
    expect(
      rcodeOf(
        withHosts({
          prerequisites: [{ kind: 'rrset-exists-value', name: 'home', type: 'A', records: ['198.51.100.7'] }],
        }),
      ),
    ).toBe(UPDATE_RCODE.NOERROR);
    // Without the hosts the same name is free: what the fix is about.
    expect(rcodeOf(apply({ prerequisites: [{ kind: 'name-not-in-use', name: 'home' }] }))).toBe(UPDATE_RCODE.NOERROR);
  });

  it('a host’s addresses are not the UPDATE’s to change; its other types are', () => {
    expect(
      rcodeOf(withHosts({ updates: [{ kind: 'add', name: 'home', type: 'A', ttl: 300, record: '192.0.2.9' }] })),
    ).toBe(UPDATE_RCODE.REFUSED);
    expect(rcodeOf(withHosts({ updates: [{ kind: 'delete-name', name: 'home' }] }))).toBe(UPDATE_RCODE.REFUSED);
    spec
      .given([imported(ZONE)])
      .when(withHosts({ updates: [{ kind: 'add', name: 'home', type: 'TXT', ttl: 300, record: '"router"' }] }))
      .then([changed([{ subname: 'home', type: 'TXT', ttl: 300, records: ['"router"'] }])]);
  });
});
