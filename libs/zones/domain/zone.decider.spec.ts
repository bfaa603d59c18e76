import { specFor } from '../../shared/testing/decider-spec';
import { ZoneCommand, zoneDecider } from './zone.decider';
import { RRset, ZoneEvent } from './zone.events';
import { RRsetInput } from './rrsets';

const spec = specFor(zoneDecider);
const at = '2026-01-01T00:00:00.000Z';
const imported = (rrsets: RRset[] = []): ZoneEvent => ({
  type: 'ZoneImported',
  data: { zone_id: 'z1', account_id: 1, name: 'example.com', verification_token: 'tok', nameservers: ['ns1.example.net'], rrsets, created_at: at },
});
const upsert = (rrsets: RRsetInput[], accountId = 1): ZoneCommand => ({ type: 'UpsertRRsets', accountId, rrsets, at });

describe('zone decider', () => {
  it('imports a zone with canonical records', () => {
    spec
      .given([])
      .when({
        type: 'ImportZone',
        zoneId: 'z1',
        accountId: 1,
        name: 'example.com',
        token: 'tok',
        nameservers: ['ns1.example.net'],
        rrsets: [{ subname: 'WWW', type: 'cname', ttl: 300, records: ['Target.Example.org'] }],
        at,
      })
      .then([imported([{ subname: 'www', type: 'CNAME', ttl: 300, records: ['target.example.org.'] }])]);
  });

  it('refuses bad presentation format, naming the record', () => {
    spec
      .given([imported()])
      .when(upsert([{ subname: 'a', type: 'A', ttl: 300, records: ['1.2.3.4', '300.1.1.1'] }]))
      .thenFails(400, /records\[0\]\.records\[1\]/);
    spec
      .given([imported()])
      .when(upsert([{ subname: 'm', type: 'MX', ttl: 300, records: ['mail.example.com'] }]))
      .thenFails(400, /invalid MX/);
  });

  it('refuses TTLs outside 60-86400, apex NS and apex CNAME', () => {
    spec
      .given([imported()])
      .when(upsert([{ subname: 'a', type: 'A', ttl: 59, records: ['1.2.3.4'] }]))
      .thenFails(400, /ttl/);
    spec
      .given([imported()])
      .when(upsert([{ subname: '', type: 'NS', ttl: 300, records: ['ns.other.net'] }]))
      .thenFails(400, /apex NS/);
    spec
      .given([imported()])
      .when(upsert([{ subname: '', type: 'CNAME', ttl: 300, records: ['x.other.net'] }]))
      .thenFails(400, /apex/);
  });

  it('refuses a CNAME beside other data', () => {
    const a = { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] };
    spec
      .given([imported([a])])
      .when(upsert([{ subname: 'www', type: 'CNAME', ttl: 300, records: ['x.example.org'] }]))
      .thenFails(400, /CNAME/);
  });

  it('upserts and deletes RRsets, recording only what changes', () => {
    const a = { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] };
    spec
      .given([imported([a])])
      .when(upsert([a]))
      .then([]);
    spec
      .given([imported([a])])
      .when(
        upsert([
          { ...a, records: [] },
          { subname: 'txt', type: 'TXT', ttl: 60, records: ['"hello world"'] },
        ]),
      )
      .then([
        {
          type: 'ZoneRRsetsChanged',
          data: {
            zone_id: 'z1',
            account_id: 1,
            name: 'example.com',
            rrsets: [
              { ...a, records: [] },
              { subname: 'txt', type: 'TXT', ttl: 60, records: ['"hello world"'] },
            ],
            at,
          },
        },
      ]);
  });

  it('hides other accounts’ zones and verifies once', () => {
    spec.given([imported()]).when(upsert([], 2)).thenFails(404, 'not_found');
    const verified: ZoneEvent = { type: 'ZoneVerified', data: { zone_id: 'z1', account_id: 1, name: 'example.com', method: 'txt', at } };
    spec.given([imported()]).when({ type: 'MarkVerified', accountId: 1, method: 'txt', at }).then([verified]);
    spec.given([imported(), verified]).when({ type: 'MarkVerified', accountId: 1, method: 'ns', at }).then([]);
  });

  it('replaces only the managed TXT family at a name, keeping the owner’s other strings', () => {
    const apex = { subname: '', type: 'TXT', ttl: 300, records: ['"google-site-verification=abc"', '"v=spf1 a -all"'] };
    spec
      .given([imported([apex])])
      .when({
        type: 'SetManagedTxt',
        accountId: 1,
        ttl: 3600,
        at,
        changes: [
          { subname: '', family: 'v=spf1', records: ['"v=spf1 ip4:192.0.2.1 -all"'] },
          { subname: '_dmarc', family: 'v=DMARC1', records: ['"v=DMARC1; p=none"'] },
        ],
      })
      .then([
        {
          type: 'ZoneRRsetsChanged',
          data: {
            zone_id: 'z1',
            account_id: 1,
            name: 'example.com',
            rrsets: [
              { subname: '', type: 'TXT', ttl: 300, records: ['"google-site-verification=abc"', '"v=spf1 ip4:192.0.2.1 -all"'] },
              { subname: '_dmarc', type: 'TXT', ttl: 3600, records: ['"v=DMARC1; p=none"'] },
            ],
            at,
          },
        },
      ]);
    // Removing a family that is not there changes nothing; another account's zone is not found.
    spec
      .given([imported([apex])])
      .when({ type: 'SetManagedTxt', accountId: 1, ttl: 3600, at, changes: [{ subname: 'x._domainkey', family: 'v=DKIM1', records: [] }] })
      .then([]);
    spec
      .given([imported([apex])])
      .when({ type: 'SetManagedTxt', accountId: 2, ttl: 3600, at, changes: [] })
      .thenFails(404, 'not_found');
  });
});

describe('zone decider: record values the service publishes itself (ACME challenges)', () => {
  const changed = (rrsets: RRset[]): ZoneEvent => ({ type: 'ZoneRRsetsChanged', data: { zone_id: 'z1', account_id: 1, name: 'example.com', rrsets, at } });
  const add = (values: string[]): ZoneCommand => ({ type: 'AddRecordValues', accountId: 1, rrtype: 'TXT', ttl: 60, sets: [{ subname: '_acme-challenge', values }], at });
  const remove = (values: string[]): ZoneCommand => ({ type: 'RemoveRecordValues', accountId: 1, rrtype: 'TXT', sets: [{ subname: '_acme-challenge', values }], at });
  const txt = (records: string[]): RRset => ({ subname: '_acme-challenge', type: 'TXT', ttl: 60, records });

  it('adds values beside existing ones; adding them again appends nothing', () => {
    spec
      .given([imported()])
      .when(add(['"a"']))
      .then([changed([txt(['"a"'])])]);
    spec
      .given([imported(), changed([txt(['"a"'])])])
      .when(add(['"b"']))
      .then([changed([txt(['"a"', '"b"'])])]);
    spec
      .given([imported(), changed([txt(['"a"', '"b"'])])])
      .when(add(['"b"', '"a"']))
      .then([]);
  });

  it('removes only the given values; the last one removes the RRset; removing again appends nothing', () => {
    spec
      .given([imported(), changed([txt(['"a"', '"b"'])])])
      .when(remove(['"a"']))
      .then([changed([txt(['"b"'])])]);
    spec
      .given([imported(), changed([txt(['"b"'])])])
      .when(remove(['"b"']))
      .then([changed([{ ...txt([]), records: [] }])]);
    spec
      .given([imported()])
      .when(remove(['"b"']))
      .then([]);
  });

  it('a batch from several publishers is one event, one RRset per owner', () => {
    spec
      .given([imported()])
      .when({
        type: 'AddRecordValues',
        accountId: 1,
        rrtype: 'TXT',
        ttl: 60,
        sets: [
          { subname: '_acme-challenge', values: ['"a"'] },
          { subname: '_acme-challenge.www', values: ['"w"'] },
          { subname: '_acme-challenge', values: ['"b"'] },
        ],
        at,
      })
      .then([changed([txt(['"a"', '"b"']), { ...txt(['"w"']), subname: '_acme-challenge.www' }])]);
  });

  it('refuses another account and a deleted zone', () => {
    spec
      .given([imported()])
      .when({ ...add(['"a"']), accountId: 2 } as ZoneCommand)
      .thenFails(404, 'Zone not found');
  });
});
