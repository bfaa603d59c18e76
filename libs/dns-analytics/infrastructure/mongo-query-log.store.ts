import { Collection, Db, MongoClient, MongoServerError, ObjectId } from 'mongodb';
import type { LogCursor, QueryLogStore, RawFilter, StoredRow } from '../application/query-log.store';
import type { QueryRow } from '../domain/query-row';
import { capNxdomain, emptyCounts, Granularity, mergeCounts, Rollup, RollupCounts, rollupsOf } from '../domain/rollup';

interface RawDoc {
  _id: ObjectId;
  ts: number;
  account_id: number;
  domain: string;
  qname: string;
  qtype: string;
  rcode: string;
  client_ip: string;
  country: string;
  asn: string;
  as_org: string;
  transport: 'udp' | 'tcp';
  dnssec_ok: boolean;
  edns: boolean;
  response_ms: number;
}

/**
 * One rollup bucket per document. The counts are kept as one JSON string: their keys are
 * query names and the like (dots, dollars), which MongoDB field paths cannot carry, and
 * nothing ever queries inside them. `v` makes concurrent writers (several DNS processes)
 * retry instead of losing each other's increments.
 */
interface RollupDoc {
  _id: string;
  account_id: number;
  domain: string;
  granularity: Granularity;
  start: number;
  counts: string;
  v: number;
}

const DUPLICATE_KEY = 11000;
const MAX_RETRIES = 20;

const toRow = (d: RawDoc): StoredRow => ({
  id: d._id.toHexString(),
  ts: d.ts,
  accountId: d.account_id,
  domain: d.domain,
  qname: d.qname,
  qtype: d.qtype,
  rcode: d.rcode,
  clientIp: d.client_ip,
  country: d.country,
  asn: d.asn,
  asOrg: d.as_org,
  transport: d.transport,
  dnssecOk: d.dnssec_ok,
  edns: d.edns,
  responseMs: d.response_ms,
});

const rollupId = (r: Rollup) => `${r.accountId}|${r.domain}|${r.granularity}|${r.start}`;

/** The production query log on MongoDB: raw rows in `dns_query_log`, bucketed rollups in `dns_rollups`. */
export class MongoQueryLogStore implements QueryLogStore {
  private readonly raw: Collection<RawDoc>;
  private readonly rollups: Collection<RollupDoc>;
  private readonly ready: Promise<unknown>;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.raw = db.collection<RawDoc>('dns_query_log');
    this.rollups = db.collection<RollupDoc>('dns_rollups');
    this.ready = Promise.all([
      this.raw.createIndex({ account_id: 1, ts: 1, _id: 1 }),
      this.raw.createIndex({ account_id: 1, domain: 1, ts: 1, _id: 1 }),
      this.raw.createIndex({ ts: 1 }),
      this.rollups.createIndex({ account_id: 1, domain: 1, granularity: 1, start: 1 }),
      this.rollups.createIndex({ granularity: 1, start: 1 }),
    ]);
  }

  static async connect(url: string, dbName?: string): Promise<MongoQueryLogStore> {
    const client = new MongoClient(url);
    await client.connect();
    const store = new MongoQueryLogStore(client, client.db(dbName));
    await store.ready;
    return store;
  }

  /** Rows first, then their rollups: MongoDB has no multi-collection transaction without a replica set. */
  async append(rows: QueryRow[], rollups: Rollup[] = rollupsOf(rows)): Promise<void> {
    if (rows.length) await this.insertRows(rows);
    if (rollups.length) await this.addRollups(rollups);
  }

  private async insertRows(rows: QueryRow[]): Promise<void> {
    // Ids made here increase with insertion order within this process, as the SQLite rowid does.
    await this.raw.insertMany(
      rows.map((q) => ({
        _id: new ObjectId(),
        ts: q.ts,
        account_id: q.accountId,
        domain: q.domain,
        qname: q.qname,
        qtype: q.qtype,
        rcode: q.rcode,
        client_ip: q.clientIp,
        country: q.country,
        asn: q.asn,
        as_org: q.asOrg,
        transport: q.transport,
        dnssec_ok: q.dnssecOk,
        edns: q.edns,
        response_ms: q.responseMs,
      })),
      { ordered: false },
    );
  }

  async addRollups(rollups: Rollup[]): Promise<void> {
    let pending = rollups;
    for (let attempt = 0; pending.length && attempt < MAX_RETRIES; attempt++) {
      const prior = new Map((await this.rollups.find({ _id: { $in: pending.map(rollupId) } }).toArray()).map((d) => [d._id, d]));
      const failed: Rollup[] = [];
      await Promise.all(
        pending.map(async (r) => {
          const doc = prior.get(rollupId(r));
          const counts = doc ? mergeCounts(JSON.parse(doc.counts) as RollupCounts, r.counts) : structuredClone(r.counts);
          const next = { account_id: r.accountId, domain: r.domain, granularity: r.granularity, start: r.start, counts: JSON.stringify(capNxdomain(counts)), v: (doc?.v ?? 0) + 1 };
          try {
            const res = doc ? await this.rollups.replaceOne({ _id: doc._id, v: doc.v }, next) : await this.rollups.insertOne({ _id: rollupId(r), ...next });
            if ('matchedCount' in res && res.matchedCount === 0) failed.push(r);
          } catch (e) {
            if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) failed.push(r);
            else throw e;
          }
        }),
      );
      pending = failed;
    }
    if (pending.length) throw new Error(`rollup update kept conflicting for ${pending.length} buckets`);
  }

  async sumRollups(accountId: number, domain: string, granularity: Granularity, from: number, to: number): Promise<RollupCounts> {
    const sum = emptyCounts();
    for await (const d of this.rollups.find({ account_id: accountId, domain, granularity, start: { $gte: from, $lte: to } }, { projection: { counts: 1 } })) {
      mergeCounts(sum, JSON.parse(d.counts) as RollupCounts);
    }
    return sum;
  }

  async recent(filter: RawFilter, since: number, limit: number): Promise<StoredRow[]> {
    const docs = await this.raw.find({ ...this.where(filter), ts: { $gte: since } }, { sort: { ts: -1, _id: -1 }, limit }).toArray();
    return docs.map(toRow);
  }

  async page(filter: RawFilter, from: number, to: number, after: LogCursor | null, limit: number): Promise<StoredRow[]> {
    const start = after ? { $or: [{ ts: { $gt: after.ts, $lt: to } }, { ts: after.ts, _id: { $gt: new ObjectId(after.id) } }] } : { ts: { $gte: from, $lt: to } };
    const docs = await this.raw.find({ ...this.where(filter), ...start }, { sort: { ts: 1, _id: 1 }, limit }).toArray();
    return docs.map(toRow);
  }

  async prune(rawBefore: number, hourlyBefore: number, dailyBefore: number): Promise<{ rows: number; rollups: number }> {
    const rows = (await this.raw.deleteMany({ ts: { $lt: rawBefore } })).deletedCount;
    const hourly = (await this.rollups.deleteMany({ granularity: 'hour', start: { $lt: hourlyBefore } })).deletedCount;
    const daily = (await this.rollups.deleteMany({ granularity: 'day', start: { $lt: dailyBefore } })).deletedCount;
    return { rows, rollups: hourly + daily };
  }

  /** For tests: each conformance run works in its own database. */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private where(filter: RawFilter) {
    return filter.domain === null ? { account_id: filter.accountId } : { account_id: filter.accountId, domain: filter.domain };
  }
}
