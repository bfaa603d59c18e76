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
    journal.onDelta((_zone, d) => seen.push(d?.toSerial ?? 0));
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

describe('IXFR journal of zones nobody may transfer (decision 0107)', () => {
  let index: ZoneIndex;
  let journal: Journal;
  let transferable: boolean;
  let told: Array<[string, number | null]>;
  beforeEach(() => {
    transferable = false;
    told = [];
    index = new ZoneIndex();
    journal = new Journal({ maxDeltas: 10, maxRecords: 100 }, () => transferable);
    journal.onDelta((zone, d) => told.push([zone, d && d.toSerial]));
    index.observe(journal.apply);
    index.putZone(def(10));
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.1']);
    index.putZone(def(11));
  });

  it('keeps no history and tells nobody while no secondary may transfer the zone', () => {
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.2']);
    index.putZone(def(12));
    expect(journal.since('example.com', 11)).toBeNull();
    expect(journal.size('example.com')).toBe(0);
    expect(told).toEqual([]);
    // A secondary at the current serial is told it is current, whatever the history.
    expect(journal.since('example.com', 12)).toEqual([]);
  });

  it('starts the history at the current serial when the zone became transferable unchanged since it', () => {
    transferable = true;
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.2']);
    index.putZone(def(12));
    const [delta] = journal.since('example.com', 11)!;
    expect([delta.fromSerial, delta.toSerial, delta.removed.map((r) => ip(r.record))]).toEqual([11, 12, ['192.0.2.1']]);
    expect(told).toEqual([['example.com', 12]]);
  });

  it('starts it at the next serial when the zone had changed since its serial, and tells the secondaries', () => {
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.2']); // before any secondary: not recorded
    transferable = true;
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.3']);
    index.putZone(def(12));
    // The history cannot tell 11 from 12 without the first change: a secondary at 11 gets the whole zone.
    expect(journal.since('example.com', 11)).toBeNull();
    expect(journal.since('example.com', 12)).toEqual([]);
    expect(told).toEqual([['example.com', null]]);
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.4']);
    index.putZone(def(13));
    expect(journal.since('example.com', 12)!.map((d) => d.toSerial)).toEqual([13]);
    expect(told).toEqual([
      ['example.com', null],
      ['example.com', 13],
    ]);
  });

  it('forgets the history once the zone’s last secondary is gone', () => {
    transferable = true;
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.2']);
    index.putZone(def(12));
    transferable = false;
    index.setRRset('example.com', 'www', 'A', 60, ['192.0.2.3']);
    index.putZone(def(13));
    expect(journal.size('example.com')).toBe(0);
    expect(journal.since('example.com', 12)).toBeNull();
  });
});
