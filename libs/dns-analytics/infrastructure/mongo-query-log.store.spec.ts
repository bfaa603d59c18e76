/**
 * What only the MongoDB store has: documents of the former one-per-query layout read beside
 * the blocks, and the row-id counter. Needs a server: set MONGODB_URL (skipped otherwise,
 * as on this machine, where none can run).
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { legacyRowDoc } from './conformance/legacy-row-doc';
import { queryRows } from './conformance/query-row.builder';
import { MongoQueryLogStore } from './mongo-query-log.store';
import { LEGACY_COLLECTION, META_COLLECTION, type LegacyRowDoc } from './mongo-query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });
const mongoUrl = process.env.MONGODB_URL;

(mongoUrl ? describe : describe.skip)('MongoDB query log: former documents and the id counter', () => {
  let client: MongoClient;
  let dbName: string;
  beforeEach(async () => {
    client = await MongoClient.connect(mongoUrl!);
    dbName = `qlog_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  });
  afterEach(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  it('reads former per-query documents beside new blocks, in one order, until retention empties and drops them', async () => {
    // As the former adapter wrote them, with its time index.
    const legacy = client.db(dbName).collection<LegacyRowDoc>(LEGACY_COLLECTION);
    await legacy.createIndex({ ts: 1 });
    await legacy.insertMany(
      [row({ qname: 'old1.a.test' }), row({ ts: T0 + 1000, qname: 'old2.a.test' })].map(legacyRowDoc),
    );
    const store = await MongoQueryLogStore.connect(mongoUrl!, dbName);
    try {
      await store.append([row({ ts: T0 + 1000, qname: 'new1.a.test' }), row({ ts: T0 + 2000, qname: 'new2.a.test' })]);
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => r.qname)).toEqual([
        'new2.a.test',
        'new1.a.test',
        'old2.a.test',
        'old1.a.test',
      ]);
      const first = await store.page({ accountId: 1, domain: 'a.test' }, 0, T0 + 10_000, null, 2);
      expect(first.map((r) => r.qname)).toEqual(['old1.a.test', 'old2.a.test']);
      const next = await store.page(
        { accountId: 1, domain: 'a.test' },
        0,
        T0 + 10_000,
        { ts: first[1].ts, id: first[1].id },
        10,
      );
      expect(next.map((r) => [r.qname, r.id])).toEqual([
        ['new1.a.test', '1'],
        ['new2.a.test', '2'],
      ]);

      // new1 and new2 share a block: it is rewritten with new2 only; the former collection goes.
      expect((await store.prune(T0 + 1500, 0, 0)).rows).toBe(3);
      expect(await client.db(dbName).listCollections({ name: LEGACY_COLLECTION }).toArray()).toEqual([]);
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => [r.qname, r.id])).toEqual([
        ['new2.a.test', '2'],
      ]);
      expect((await store.prune(T0 + 2500, 0, 0)).rows).toBe(1);
      await store.append([row({ ts: T0 + 3000, qname: 'new3.a.test' })]);
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => r.id)).toEqual(['3']);
    } finally {
      await store.close();
    }
  });

  it('numbers rows of concurrent writers without overlap, one counter document for the store', async () => {
    const [a, b] = await Promise.all([
      MongoQueryLogStore.connect(mongoUrl!, dbName),
      MongoQueryLogStore.connect(mongoUrl!, dbName),
    ]);
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).append(Array.from({ length: 5 }, (_, j) => row({ ts: T0 + i * 10 + j }))),
        ),
      );
      const ids = (await a.page({ accountId: 1, domain: null }, 0, T0 + 1000, null, 100))
        .map((r) => Number(r.id))
        .sort((x, y) => x - y);
      expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await client.db(dbName).collection(META_COLLECTION).find().toArray()).toEqual([
        { _id: 'last_row_id', value: 50 },
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
