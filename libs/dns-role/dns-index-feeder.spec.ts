import type { Answer } from 'dns-packet';
import { ZoneIndex } from '../dns-server';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { DnsIndexFeeder } from './dns-index-feeder';

/**
 * The feeder's ownership decisions (contract §4) on events as the log holds them: zones
 * imported before the rules, in either order, and what the index then answers.
 */
describe('DnsIndexFeeder: a name is served from the zone allowed to serve it', () => {
  let store: SqliteEventStore;
  let index: ZoneIndex;
  let feeder: DnsIndexFeeder;
  let n = 0;

  beforeEach(() => {
    store = new SqliteEventStore({ file: ':memory:' });
    index = new ZoneIndex();
    feeder = new DnsIndexFeeder(store, index, {
      ddnsZones: ['dyn.example.net'],
      nameservers: ['ns1.example.net'],
      log: () => undefined,
    });
  });
  afterEach(async () => {
    await feeder.stop();
    await store.close();
  });

  const imported = (name: string, account: number, ip: string) =>
    store.appendToStream(
      `zone-z${++n}`,
      [
        {
          type: 'ZoneImported',
          data: {
            zone_id: `z${n}`,
            account_id: account,
            name,
            verification_token: 't',
            nameservers: ['ns1.example.net'],
            rrsets: [{ subname: 'www', type: 'A', ttl: 60, records: [ip] }],
            created_at: '',
          },
        },
      ],
      'no_stream',
    );
  const deleted = (id: string, name: string, account: number) =>
    store.appendToStream(
      `zone-${id}`,
      [{ type: 'ZoneDeleted', data: { zone_id: id, account_id: account, name, at: '' } }],
      'any',
    );
  const www = (zone: string) => index.lookup(`www.${zone}`, 'A');
  const dataOf = (a: Answer) => (a as { data?: unknown }).data;
  const caughtUp = async () => feeder.waitFor(await store.headPosition());

  it('holds a parent imported after another account’s child, and serves it once the child is gone', async () => {
    await imported('x.example.com', 1, '192.0.2.1'); // z1, the earlier zone
    await imported('example.com', 2, '203.0.113.2'); // z2, above it: held
    await imported('y.example.com', 2, '203.0.113.4'); // z3, under the held z2, same account: a sibling of z1, served
    await feeder.start();
    expect(index.hasZone('example.com')).toBe(false);
    expect(www('x.example.com').answers.map(dataOf)).toEqual(['192.0.2.1']);
    expect(www('y.example.com').answers.map(dataOf)).toEqual(['203.0.113.4']);
    expect(www('example.com').kind).toBe('refused');

    await deleted('z1', 'x.example.com', 1);
    await caughtUp();
    expect(www('example.com').answers.map(dataOf)).toEqual(['203.0.113.2']);
    expect(www('x.example.com').kind).toBe('nxdomain');
  });

  it('holds a zone that conflicts with an earlier one even while that one is held (decisions only ever lift)', async () => {
    await imported('x.example.com', 1, '192.0.2.1'); // z1
    await imported('example.com', 2, '203.0.113.2'); // z2: held (above z1)
    await imported('sub.x.example.com', 1, '192.0.2.3'); // z3: under z2, another account, later: held too
    await feeder.start();
    expect(index.hasZone('sub.x.example.com')).toBe(false);
    expect(www('sub.x.example.com').kind).toBe('nxdomain'); // from z1
  });

  it('serves an allowed overlap and holds the service’s names', async () => {
    await imported('example.com', 1, '192.0.2.1');
    await imported('a.example.com', 2, '203.0.113.2');
    await imported('ns1.example.net', 2, '203.0.113.3');
    await feeder.start();
    expect(www('a.example.com').kind).toBe('nxdomain');
    expect(index.hasZone('ns1.example.net')).toBe(false);
    await store.appendToStream(
      'zone-overlap-allowances',
      [{ type: 'ZoneOverlapAllowed', data: { zone: 'a.example.com', account_id: 2, at: '' } }],
      'any',
    );
    await caughtUp();
    expect(www('a.example.com').answers.map(dataOf)).toEqual(['203.0.113.2']);
  });
});
