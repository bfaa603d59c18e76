import { specFor } from '../../shared/testing/decider-spec';
import { ZoneCommand, zoneDecider } from './zone.decider';
import { RRset, ZoneEvent } from './zone.events';
import { RRsetInput } from './rrsets';

const spec = specFor(zoneDecider);
const at = '2026-01-01T00:00:00.000Z';
const imported = (rrsets: RRset[] = []): ZoneEvent => ({
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
    const verified: ZoneEvent = {
      type: 'ZoneVerified',
      data: { zone_id: 'z1', account_id: 1, name: 'example.com', method: 'txt', at },
    };
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
              {
                subname: '',
                type: 'TXT',
                ttl: 300,
                records: ['"google-site-verification=abc"', '"v=spf1 ip4:192.0.2.1 -all"'],
              },
              { subname: '_dmarc', type: 'TXT', ttl: 3600, records: ['"v=DMARC1; p=none"'] },
            ],
            at,
          },
        },
      ]);
    // Removing a family that is not there changes nothing; another account's zone is not found.
    spec
      .given([imported([apex])])
      .when({
        type: 'SetManagedTxt',
        accountId: 1,
        ttl: 3600,
        at,
        changes: [{ subname: 'x._domainkey', family: 'v=DKIM1', records: [] }],
      })
      .then([]);
    spec
      .given([imported([apex])])
      .when({ type: 'SetManagedTxt', accountId: 2, ttl: 3600, at, changes: [] })
      .thenFails(404, 'not_found');
  });
});

describe('zone decider: record values the service publishes itself (ACME challenges)', () => {
  const changed = (rrsets: RRset[]): ZoneEvent => ({
    type: 'ZoneRRsetsChanged',
    data: { zone_id: 'z1', account_id: 1, name: 'example.com', rrsets, at },
  });
  const add = (values: string[]): ZoneCommand => ({
    type: 'AddRecordValues',
    accountId: 1,
    rrtype: 'TXT',
    ttl: 60,
    sets: [{ subname: '_acme-challenge', values }],
    at,
  });
  const remove = (values: string[]): ZoneCommand => ({
    type: 'RemoveRecordValues',
    accountId: 1,
    rrtype: 'TXT',
    sets: [{ subname: '_acme-challenge', values }],
    at,
  });
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

describe('zone decider: limits (contract §16)', () => {
  describe('records per zone', () => {
    const values = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `192.0.2.${from + i}`);
    const a = (subname: string, n: number, from = 1): RRset => ({
      subname,
      type: 'A',
      ttl: 300,
      records: values(n, from),
    });
    const limited = (rrsets: RRsetInput[], recordLimit: number): ZoneCommand => ({
      type: 'UpsertRRsets',
      accountId: 1,
      rrsets,
      recordLimit,
      at,
    });

    it('counts every record of every RRset and refuses growth past the limit', () => {
      spec
        .given([imported([a('a', 3)])])
        .when(limited([a('b', 2)], 5))
        .then([expect.objectContaining({ type: 'ZoneRRsetsChanged' }) as never]);
      spec
        .given([imported([a('a', 3)])])
        .when(limited([a('b', 3)], 5))
        .thenFails(403, 'Record limit per zone reached for your plan (5)');
    });

    it('lets a zone above a lowered limit shrink or replace records, never grow', () => {
      const over = [imported([a('a', 10)])];
      spec
        .given(over)
        .when(limited([a('a', 4)], 5))
        .then([expect.objectContaining({ type: 'ZoneRRsetsChanged' }) as never]);
      spec
        .given(over)
        .when(limited([a('a', 10, 50)], 5))
        .then([expect.objectContaining({ type: 'ZoneRRsetsChanged' }) as never]);
      spec
        .given(over)
        .when(limited([a('b', 1)], 5))
        .thenFails(403, /Record limit per zone/);
    });

    it('refuses an import above the limit', () => {
      spec
        .given([])
        .when({
          type: 'ImportZone',
          zoneId: 'z1',
          accountId: 1,
          name: 'example.com',
          token: 't',
          nameservers: [],
          rrsets: [a('a', 6)],
          recordLimit: 5,
          at,
        })
        .thenFails(403, /\(5\)/);
    });

    it('counts generated email-auth TXT records, but never refuses ACME challenge values', () => {
      const full = [imported([a('a', 5)])];
      spec
        .given(full)
        .when({
          type: 'SetManagedTxt',
          accountId: 1,
          changes: [{ subname: '', family: 'v=spf1', records: ['"v=spf1 -all"'] }],
          ttl: 3600,
          recordLimit: 5,
          at,
        })
        .thenFails(403, /Record limit/);
      spec
        .given(full)
        .when({
          type: 'AddRecordValues',
          accountId: 1,
          rrtype: 'TXT',
          ttl: 60,
          sets: [{ subname: '_acme-challenge', values: ['"token"'] }],
          at,
        })
        .then([expect.objectContaining({ type: 'ZoneRRsetsChanged' }) as never]);
    });
  });

  describe('RRset wire size', () => {
    const strings = (count: number, bytes: number) =>
      Array.from({ length: count }, (_, i) => `"${String(i).padStart(4, '0')}${'x'.repeat(bytes - 4)}"`);

    it('refuses a record whose data is over 65,535 bytes, naming it', () => {
      const huge = `${strings(290, 250).join(' ')}`; // 290 strings of 251 bytes: 72,790 bytes of data
      spec
        .given([imported()])
        .when(upsert([{ subname: 'big', type: 'TXT', ttl: 300, records: [huge] }]))
        .thenFails(400, /records\[0\]\.records\[0\]: cannot be served: its data is 72,790 bytes/);
    });

    it('refuses an RRset over 60,000 bytes and accepts one just under', () => {
      // Each record: 15 strings of 252 bytes = 3,780 bytes of data, plus owner "big.example.com" (17) and 10.
      const record = (i: number) =>
        strings(15, 251)
          .map((s) => s.replace(/^"\d{4}/, `"${String(i).padStart(4, '0')}`))
          .join(' ');
      const rrset = (n: number) => ({
        subname: 'big',
        type: 'TXT',
        ttl: 300,
        records: Array.from({ length: n }, (_, i) => record(i)),
      });
      spec
        .given([imported()])
        .when(upsert([rrset(20)]))
        .thenFails(400, /records\[0\]\.records: the RRset is 76,140 bytes/);
      spec
        .given([imported()])
        .when(upsert([rrset(15)]))
        .then([expect.objectContaining({ type: 'ZoneRRsetsChanged' }) as never]);
    });
  });
});
