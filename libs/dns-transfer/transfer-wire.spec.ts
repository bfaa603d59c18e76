import * as dnsPacket from 'dns-packet';
import { ZoneIndex } from '../dns-server';
import { header, question } from './message';
import { Journal } from './journal';
import {
  FullTransferCache,
  fullTransfer,
  incrementalTransfer,
  MESSAGE_BODY_BYTES,
  type TransferBodies,
} from './transfer-wire';

const ZONE = 'example.com';
const soa = (serial: number) => ({
  mname: 'ns1.example.net',
  rname: 'hostmaster.example.com',
  serial,
  refresh: 3600,
  retry: 600,
  expire: 604800,
  minimum: 60,
});
const def = (serial: number, name = ZONE) => ({
  name,
  ownerAccountId: '1',
  soa: soa(serial),
  ttl: 3600,
  nameservers: ['ns1.example.net'],
});
const AXFR = 252;
const noPause = () => Promise.resolve();

/** Each body as the message a secondary reads (header, the zone's question, the body), decoded by dns-packet. */
function decoded(built: TransferBodies, zone = ZONE): dnsPacket.Answer[][] {
  // dns-packet's name codec is public but missing from its typings.
  const names = (dnsPacket as unknown as { name: { encode(name: string): Buffer } }).name;
  const q = question(names.encode(zone).toString('latin1'), AXFR);
  return built.bodies.map((body) => {
    const msg = Buffer.concat([header(1, 0x8400, [1, body.count, 0, 0]), q, body.bytes]);
    expect(msg.length).toBeLessThanOrEqual(65_535 - 512);
    return dnsPacket.decode(msg).answers ?? [];
  });
}

function bigZone(index: ZoneIndex, rrsets: number): void {
  index.putZone(def(1));
  for (let i = 0; i < rrsets; i++)
    index.setRRset(
      ZONE,
      `host-${i}`,
      'A',
      300,
      Array.from({ length: 100 }, (_, j) => `10.${i >> 8}.${i & 255}.${j}`),
    );
}

describe('transfer wire form', () => {
  it('packs a full transfer into messages under 64 KiB: the SOA, every record once, the SOA', async () => {
    const index = new ZoneIndex();
    bigZone(index, 100);
    index.setRRset(ZONE, '', 'TXT', 60, ['"at the apex"']);
    const built = await fullTransfer(index.contents(ZONE)!, noPause);
    const messages = decoded(built);
    expect(messages.length).toBeGreaterThan(1);
    for (const body of built.bodies.slice(0, -1)) expect(body.bytes.length).toBeGreaterThan(MESSAGE_BODY_BYTES - 100);
    const records = messages.flat();
    expect(records).toHaveLength(built.records);
    expect(built.records).toBe(1 + 1 + 1 + 100 * 100 + 1); // SOA, NS, TXT, the A records, SOA
    expect(records[0]).toMatchObject({ type: 'SOA', name: ZONE });
    expect(records[records.length - 1]).toMatchObject({ type: 'SOA', name: ZONE });
    expect(records.find((r) => r.type === 'TXT')).toMatchObject({ name: ZONE });
    const a = records.filter((r) => r.type === 'A');
    expect(new Set(a.map((r) => `${r.name} ${String((r as { data: unknown }).data)}`)).size).toBe(10_000);
    expect(
      a.find((r) => r.name === 'host-42.example.com' && (r as { data: unknown }).data === '10.0.42.7'),
    ).toBeTruthy();
  });

  it('lets the loop turn between slices of a build', async () => {
    const index = new ZoneIndex();
    bigZone(index, 200);
    let turns = 0;
    await fullTransfer(index.contents(ZONE)!, () => {
      turns++;
      return Promise.resolve();
    });
    // 20,003 records in slices of 5,000, and once at the end.
    expect(turns).toBe(5);
  });

  it('writes an IXFR as the current SOA, each delta (old SOA, removals, new SOA, additions), the current SOA', async () => {
    const index = new ZoneIndex();
    const journal = new Journal();
    index.observe(journal.apply);
    index.putZone(def(10));
    index.setRRset(ZONE, 'www', 'A', 60, ['192.0.2.1']);
    index.putZone(def(11));
    index.setRRset(ZONE, 'www', 'A', 60, ['192.0.2.2']);
    index.putZone(def(12));
    const built = await incrementalTransfer(index.zoneVersion(ZONE)!, journal.since(ZONE, 11)!, noPause);
    const records = decoded(built).flat();
    expect(
      records.map((r) =>
        r.type === 'SOA' ? `SOA ${(r.data as { serial: number }).serial}` : (r as { data: unknown }).data,
      ),
    ).toEqual(['SOA 12', 'SOA 11', '192.0.2.1', 'SOA 12', '192.0.2.2', 'SOA 12']);
  });
});

describe('FullTransferCache', () => {
  it('builds a zone once per revision, shared by transfers asking meanwhile, and again after a change', async () => {
    const index = new ZoneIndex();
    bigZone(index, 10);
    const cache = new FullTransferCache();
    let walks = 0;
    const contents = () => (walks++, index.contents(ZONE)!);
    const [one, two] = await Promise.all([
      cache.get(index.zoneVersion(ZONE)!, contents, noPause),
      cache.get(index.zoneVersion(ZONE)!, contents, noPause),
    ]);
    expect(two).toBe(one);
    expect(await cache.get(index.zoneVersion(ZONE)!, contents, noPause)).toBe(one);
    expect(cache.builds).toBe(1);
    expect(walks).toBe(1);
    expect(cache.bytes).toBe(one.bytes);

    // A change without a new serial (a signature, a DDNS host before the feeder moves the serial) is a new revision.
    index.setRRset(ZONE, 'www', 'A', 60, ['192.0.2.9']);
    const after = await cache.get(index.zoneVersion(ZONE)!, contents, noPause);
    expect(after).not.toBe(one);
    expect(after.records).toBe(one.records + 1);
    expect(cache.builds).toBe(2);
    expect(cache.bytes).toBe(after.bytes);
  });

  it('holds at most its bytes, dropping the zone transferred longest ago', async () => {
    const index = new ZoneIndex();
    for (const zone of ['a.test', 'b.test', 'c.test']) {
      index.putZone(def(1, zone));
      index.setRRset(zone, 'www', 'TXT', 60, [`"${'x'.repeat(200)}"`]);
    }
    const size = (await fullTransfer(index.contents('a.test')!, noPause)).bytes;
    const cache = new FullTransferCache(size * 2);
    const get = (zone: string) => cache.get(index.zoneVersion(zone)!, () => index.contents(zone)!, noPause);
    await get('a.test');
    await get('b.test');
    await get('a.test'); // a is now the most recent
    await get('c.test'); // b goes
    expect(cache.bytes).toBe(size * 2);
    await get('a.test');
    expect(cache.builds).toBe(3);
    await get('b.test');
    expect(cache.builds).toBe(4);

    const tiny = new FullTransferCache(size - 1);
    await tiny.get(index.zoneVersion('a.test')!, () => index.contents('a.test')!, noPause);
    expect(tiny.bytes).toBe(0);
  });
});

describe('ZoneIndex revisions', () => {
  it('move with every change of the zone, and only of that zone', () => {
    const index = new ZoneIndex();
    index.putZone(def(1));
    index.putZone(def(1, 'other.test'));
    const start = index.zoneVersion(ZONE)!.revision;
    index.setRRset('other.test', 'www', 'A', 60, ['192.0.2.1']);
    expect(index.zoneVersion(ZONE)!.revision).toBe(start);
    index.setRRset(ZONE, 'www', 'A', 60, ['192.0.2.1']);
    const changed = index.zoneVersion(ZONE)!.revision;
    expect(changed).toBeGreaterThan(start);
    index.removeRRset(ZONE, 'www', 'A');
    expect(index.zoneVersion(ZONE)!.revision).toBeGreaterThan(changed);
    expect(index.zoneVersion('nowhere.test')).toBeNull();
  });
});
