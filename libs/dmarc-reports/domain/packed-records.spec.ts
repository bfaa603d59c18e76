import { RecordedEvent } from '../../eventstore/event-store.port';
import { upcast } from '../../eventstore/upcasters';
import { AggregateRecord } from './aggregate-report';
import { PackedRecordList, packRecords, RecordPacker, RECORDS_PER_CHUNK, unpackRecords } from './packed-records';
import { AggregateRecordsAddedV1, chunkRecords } from './report.events';

const full: AggregateRecord = {
  source_ip: '2001:db8::1',
  count: 123_456_789_012,
  disposition: 'quarantine',
  dkim: 'fail',
  spf: 'pass',
  header_from: 'é.example',
  dkim_results: [
    { domain: 'example.com', selector: 's1', result: 'fail' },
    { domain: 'esp.example', result: 'pass' },
  ],
  spf_results: [{ domain: 'bounce.example.net', scope: 'mfrom', result: 'pass' }],
  reasons: [{ type: 'forwarded', comment: 'list "a\tb"' }, { type: 'local_policy' }],
  envelope_from: 'bounce.example.net',
  envelope_to: 'example.org',
};
const bare: AggregateRecord = {
  source_ip: '192.0.2.1',
  count: 1,
  disposition: 'none',
  dkim: 'pass',
  spf: 'fail',
  header_from: 'example.com',
  dkim_results: [],
  spf_results: [],
};
const envelopeToOnly: AggregateRecord = { ...bare, source_ip: '192.0.2.2', envelope_to: 'example.org' };

describe('packed aggregate records', () => {
  it('unpack gives back every record as parsed: optional fields absent where they were, present where they were', () => {
    const records = [full, bare, envelopeToOnly, full];
    const unpacked = unpackRecords(packRecords(records));
    expect(unpacked).toEqual(records);
    expect(Object.keys(unpacked[1])).toEqual(Object.keys(bare));
    expect('selector' in unpacked[0].dkim_results[1]).toBe(false);
    expect('comment' in unpacked[0].reasons![1]).toBe(false);
    expect('envelope_from' in unpacked[2]).toBe(false);
  });

  it('keeps each distinct string once, so a chunk is a fraction of its records as JSON', () => {
    const records = Array.from({ length: 1000 }, (_, i) => ({ ...full, source_ip: `10.0.${i >> 8}.${i & 255}` }));
    const packed = packRecords(records);
    expect(packed.strings.filter((s) => s === 'example.com')).toHaveLength(1);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(records).length / 3);
    expect(unpackRecords(JSON.parse(JSON.stringify(packed)))).toEqual(records);
  });

  it('a packer starts afresh after each take (one chunk at a time)', () => {
    const packer = new RecordPacker();
    packer.add(full);
    packer.add(bare);
    expect(packer.size).toBe(2);
    const first = packer.take();
    expect(packer.size).toBe(0);
    packer.add(envelopeToOnly);
    const second = packer.take();
    expect(unpackRecords(first)).toEqual([full, bare]);
    expect(unpackRecords(second)).toEqual([envelopeToOnly]);
  });

  it('refuses a chunk that does not follow the layout instead of making up rows', () => {
    const packed = packRecords([full]);
    expect(() => unpackRecords({ ...packed, values: packed.values.slice(0, -1) })).toThrow(/middle of a record/);
    expect(() => unpackRecords({ strings: [], values: packed.values })).toThrow(/string 0 of 0/);
    expect(unpackRecords({ strings: [], values: [] })).toEqual([]);
  });

  it('a report’s list packs its records in chunks of RECORDS_PER_CHUNK as they come, with the totals of its header', () => {
    const records = Array.from({ length: 2 * RECORDS_PER_CHUNK + 1 }, (_, i) => ({
      ...bare,
      source_ip: `10.1.${i >> 8}.${i & 255}`,
      count: 2,
      dkim: i % 2 ? 'pass' : 'fail',
    }));
    const list = PackedRecordList.of(records);
    expect(list).toHaveLength(records.length);
    expect([list.messages, list.passing]).toEqual([2 * records.length, 2 * RECORDS_PER_CHUNK]);
    expect(list.chunks().map((c) => unpackRecords(c).length)).toEqual([RECORDS_PER_CHUNK, RECORDS_PER_CHUNK, 1]);
    expect(list.toArray()).toEqual(records);
    expect([...list]).toEqual(records);
    expect(() => list.add(bare)).toThrow(/after their chunks/);
  });

  it('a chunk stored before version 2 (records as objects) is read as version 2 with the same records', () => {
    const v1: AggregateRecordsAddedV1['data'] = {
      report_key: 'k',
      zone: 'example.com',
      begin: '2026-03-01T00:00:00.000Z',
      offset: 1000,
      records: [full, bare],
    };
    const stored: RecordedEvent = {
      id: 'e1',
      streamId: 'dmarc-report-k',
      revision: 1,
      type: 'DmarcAggregateRecordsAdded',
      data: v1,
      metadata: { version: 1 },
      position: { commit: 1n, prepare: 1n },
      created: new Date(0),
    };
    const lifted = upcast(stored);
    expect(lifted.metadata.version).toBe(2);
    expect(lifted.data).toMatchObject({
      report_key: 'k',
      zone: 'example.com',
      begin: '2026-03-01T00:00:00.000Z',
      offset: 1000,
    });
    expect('records' in lifted.data).toBe(false);
    expect(chunkRecords(lifted.data)).toEqual([full, bare]);
    // Version 2 events are left as they are.
    const current = { ...stored, data: lifted.data, metadata: { version: 2 } };
    expect(upcast(current)).toBe(current);
  });
});
