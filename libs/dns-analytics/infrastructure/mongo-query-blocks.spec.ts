import { BSON, ObjectId } from 'mongodb';
import { queryRows } from './conformance/query-row.builder';
import { compareRowIds, pageBlockRange } from './block-reads';
import {
  blockBytes,
  blockDoc,
  blockFields,
  blockMeta,
  expiredBlocksFilter,
  firstReservedId,
  legacyPageFilter,
  legacyRow,
  pageBlocksFilter,
  recentBlocksFilter,
  type LegacyRowDoc,
} from './mongo-query-blocks';
import { blocksOf, decodeBlock, MAX_BLOCK_SPAN_MS } from './query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });

/** Through the wire format and back, as the driver does on insert and find. */
const throughBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc)) as T;

describe('MongoDB query-log documents', () => {
  it('carry a block through BSON: metadata as fields, the encoding as Binary, rows decoded unchanged', () => {
    const rows = [
      row({ qname: 'ä.a.test', transport: 'tcp' }),
      row({ ts: T0 + 7, rcode: 'NXDOMAIN', responseMs: 3.25 }),
    ];
    const [draft] = blocksOf(rows, 1001);
    const stored = throughBson(blockDoc(draft));
    expect(stored).toMatchObject({
      account_id: 1,
      domain: 'a.test',
      min_ts: T0,
      max_ts: T0 + 7,
      first_id: 1001,
      count: 2,
    });
    expect(stored._id).toBeInstanceOf(ObjectId);
    const decoded = decodeBlock(blockMeta(stored), blockBytes(stored));
    expect(decoded.map((r) => r.id)).toEqual(['1001', '1002']);
    expect(decoded.map(({ id: _id, ...r }) => r)).toEqual(rows);
  });

  it('rewrite a block in place with every field but its id (retention)', () => {
    const [draft] = blocksOf([row(), row({ ts: T0 + 1 })], 5);
    const fields = throughBson(blockFields(draft));
    expect(fields).not.toHaveProperty('_id');
    expect(blockMeta(fields)).toEqual({
      accountId: 1,
      domain: 'a.test',
      minTs: T0,
      maxTs: T0 + 1,
      firstId: 5,
      count: 2,
    });
    expect(Buffer.from(blockBytes(fields))).toEqual(draft.data);
  });

  it('number a batch from the counter after its increment', () => {
    // A fresh counter upserted by a batch of 3 holds 3: ids 1..3; the next batch of 2 gets 4..5.
    expect(firstReservedId(3, 3)).toBe(1);
    expect(firstReservedId(5, 2)).toBe(4);
  });

  it('select blocks by owner and time as the indexes are laid out', () => {
    expect(recentBlocksFilter({ accountId: 7, domain: null }, T0)).toEqual({ account_id: 7, max_ts: { $gte: T0 } });
    expect(pageBlocksFilter({ accountId: 7, domain: 'a.test' }, pageBlockRange(T0, T0 + 1000, null))).toEqual({
      account_id: 7,
      domain: 'a.test',
      min_ts: { $gte: T0 - MAX_BLOCK_SPAN_MS, $lt: T0 + 1000 },
      max_ts: { $gte: T0 },
    });
    expect(expiredBlocksFilter(T0)).toEqual({ min_ts: { $lt: T0 }, max_ts: { $lt: T0 } });
  });
});

describe('MongoDB documents of the former one-per-query layout', () => {
  const doc: LegacyRowDoc = {
    _id: new ObjectId('6566a0f0c2a1b2c3d4e5f601'),
    ts: T0,
    account_id: 1,
    domain: 'a.test',
    qname: 'www.a.test',
    qtype: 'AAAA',
    rcode: 'NOERROR',
    client_ip: '2001:db8::1',
    country: 'DE',
    asn: 'AS3320',
    as_org: 'Deutsche Telekom AG',
    transport: 'udp',
    dnssec_ok: true,
    edns: true,
    response_ms: 0.25,
  };

  it('read as rows whose ids sort before every block row', () => {
    const r = legacyRow(throughBson(doc));
    expect(r).toEqual({
      id: '6566a0f0c2a1b2c3d4e5f601',
      ts: T0,
      accountId: 1,
      domain: 'a.test',
      qname: 'www.a.test',
      qtype: 'AAAA',
      rcode: 'NOERROR',
      clientIp: '2001:db8::1',
      country: 'DE',
      asn: 'AS3320',
      asOrg: 'Deutsche Telekom AG',
      transport: 'udp',
      dnssecOk: true,
      edns: true,
      responseMs: 0.25,
    });
    expect(compareRowIds(r.id, '1')).toBeLessThan(0);
  });

  it('page from the window start, after a former row’s cursor, or past every former row of a block row’s millisecond', () => {
    const f = { accountId: 1, domain: null };
    expect(legacyPageFilter(f, T0, T0 + 1000, null)).toEqual({ account_id: 1, ts: { $gte: T0, $lt: T0 + 1000 } });
    expect(legacyPageFilter(f, T0, T0 + 1000, { ts: T0 + 5, id: doc._id.toHexString() })).toEqual({
      account_id: 1,
      $or: [{ ts: { $gt: T0 + 5, $lt: T0 + 1000 } }, { ts: T0 + 5, _id: { $gt: doc._id } }],
    });
    expect(legacyPageFilter(f, T0, T0 + 1000, { ts: T0 + 5, id: '42' })).toEqual({
      account_id: 1,
      ts: { $gt: T0 + 5, $lt: T0 + 1000 },
    });
    // A cursor before the window cannot reach back before its start.
    expect(legacyPageFilter(f, T0, T0 + 1000, { ts: T0 - 5, id: doc._id.toHexString() })).toEqual({
      account_id: 1,
      ts: { $gte: T0, $lt: T0 + 1000 },
    });
  });
});
