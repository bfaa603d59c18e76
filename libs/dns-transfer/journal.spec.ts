import { ZoneIndex } from '../dns-server';
import { nameToWire } from '../dns-server/names';
import { Journal } from './journal';

const def = (serial: number) => ({
  name: 'example.com',
  ownerAccountId: '1',
  soa: {
    mname: 'ns1.example.net',
    rname: 'hostmaster.example.com',
    serial,
    refresh: 3600,
    retry: 600,
    expire: 604800,
    minimum: 60,
  },
  ttl: 3600,
  nameservers: ['ns1.example.net'],
});
const www = nameToWire('www.example.com').toString('latin1');
const ip = (r: Buffer) => [...r.subarray(r.length - 4)].join('.');

describe('IXFR journal', () => {
  let index: ZoneIndex;
  let journal: Journal;
  beforeEach(() => {
    index = new ZoneIndex();
    journal = new Journal({ maxDeltas: 3, maxRecords: 100 });
    index.observe(journal.apply);
    index.putZone(def(10));
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.1']);
    index.putZone(def(11)); // baseline: the zone as created
  });

  it('starts the history after the zone’s first serial; one delta per serial, record by record', () => {
    expect(journal.since('example.com', 10)).toBeNull();
    expect(journal.since('example.com', 11)).toEqual([]);
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.1', '192.0.2.2']);
    index.putZone(def(12));
    const [delta] = journal.since('example.com', 11)!;
    expect([delta.fromSerial, delta.toSerial, delta.removed, delta.added.map((r) => [r.owner, ip(r.record)])]).toEqual([
      11,
      12,
      [],
      [[www, '192.0.2.2']],
    ]);
  });

  it('nets out changes undone within one serial, and notifies each closed delta', () => {
    const seen: number[] = [];
    journal.onDelta((_zone, d) => seen.push(d.toSerial));
    index.setRRset('example.com', 'tmp', 'TXT', 60, ['"x"']);
    index.removeRRset('example.com', 'tmp', 'TXT');
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.1']); // same records again
    index.putZone(def(12));
    expect(journal.since('example.com', 11)).toEqual([expect.objectContaining({ removed: [], added: [] })]);
    expect(seen).toEqual([12]);
  });

  it('keeps a bounded history and forgets a removed zone', () => {
    for (let serial = 12; serial <= 16; serial++) {
      index.setRRset('example.com', 'www', 'A', 60, [`192.0.2.${serial}`]);
      index.putZone(def(serial));
    }
    expect(journal.size('example.com')).toBe(3);
    expect(journal.since('example.com', 12)).toBeNull();
    expect(journal.since('example.com', 13)!.map((d) => d.toSerial)).toEqual([14, 15, 16]);
    index.removeZone('example.com');
    expect(journal.since('example.com', 16)).toBeNull();
  });
});
