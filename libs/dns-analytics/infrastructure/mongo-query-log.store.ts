import { Collection, Db, FindCursor, MongoClient, MongoServerError } from 'mongodb';
import type { LogCursor, QueryLogStore, RawFilter, StoredRow } from '../application/query-log.store';
import type { QueryRow } from '../domain/query-row';
import { asQueryRows, type QueryRows } from '../domain/query-rows';
import { capNxdomain, emptyCounts, Granularity, mergeCounts, Rollup, RollupCounts, rollupsOf } from '../domain/rollup';
import {
  mergeNewest,
  mergePage,
  newestRowsAsync,
  pageBlockRange,
  pageRowsAsync,
  straddlingBlockRange,
  type BlockRef,
} from './block-reads';
import { trimBlock } from './block-retention';
import { DecodedBlocks } from './decoded-blocks';
import {
  BLOCK_INDEXES,
  blockBytes,
  blockDoc,
  blockFields,
  blockMeta,
  BLOCKS_COLLECTION,
  expiredBlocksFilter,
  firstReservedId,
  inRange,
  LEGACY_COLLECTION,
  legacyPageFilter,
  legacyRecentFilter,
  legacyRow,
  META_COLLECTION,
  pageBlocksFilter,
  recentBlocksFilter,
  ROW_ID_COUNTER,
  type BlockDoc,
  type CounterDoc,
  type LegacyRowDoc,
} from './mongo-query-blocks';
import { blocksOf, decodeBlock } from './query-blocks';

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
const NAMESPACE_NOT_FOUND = 26;
const MAX_RETRIES = 20;
/**
 * Blocks fetched per round trip by readers: a recent-queries read usually needs one or two
 * blocks and a block can hold 8,192 queries (~100-200 KB), so not the driver's 101.
 */
const READ_BATCH = 4;
/** Expired blocks deleted per round trip (ids and counts fetched first, to count the rows). */
const PRUNE_CHUNK = 5000;
/** Straddling blocks rewritten concurrently (one per domain at most: thousands at worst). */
const TRIM_PARALLEL = 32;

const rollupId = (r: Rollup) => `${r.accountId}|${r.domain}|${r.granularity}|${r.start}`;

/**
 * The production query log on MongoDB. Raw rows in blocks as the embedded store keeps them
 * (`dns_query_blocks`, one document per block of one account's domain, the
 * query-blocks.ts encoding as BSON Binary), row ids from a counter document; bucketed
 * rollups in `dns_rollups`; rows of the former one-document-per-query layout
 * (`dns_query_log`) read beside the blocks until retention empties it.
 *
 * Without a replica set there is no multi-document transaction: an append reserves its
 * ids, then inserts its blocks, then adds its rollups, each step atomic per document. A
 * crash between them leaves an unused id range (harmless: ids need only be unique and
 * ordered), some of the batch's blocks (each whole) or rollups missing their increments:
 * telemetry lost, never counted twice (nothing is retried).
 */
export class MongoQueryLogStore implements QueryLogStore {
  private readonly blocks: Collection<BlockDoc>;
  private readonly meta: Collection<CounterDoc>;
  private readonly legacyRows: Collection<LegacyRowDoc>;
  private readonly rollups: Collection<RollupDoc>;
  private readonly decoded = new DecodedBlocks();
  /** Whether the former collection still has rows (checked at connect; false once retention dropped it here). */
  private legacy = false;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.blocks = db.collection<BlockDoc>(BLOCKS_COLLECTION);
    this.meta = db.collection<CounterDoc>(META_COLLECTION);
    this.legacyRows = db.collection<LegacyRowDoc>(LEGACY_COLLECTION);
    this.rollups = db.collection<RollupDoc>('dns_rollups');
  }

  static async connect(url: string, dbName?: string): Promise<MongoQueryLogStore> {
    const client = new MongoClient(url);
    await client.connect();
    const store = new MongoQueryLogStore(client, client.db(dbName));
    await store.prepare();
    return store;
  }

  private async prepare(): Promise<void> {
    await Promise.all([
      this.blocks.createIndexes(BLOCK_INDEXES),
      this.rollups.createIndex({ account_id: 1, domain: 1, granularity: 1, start: 1 }),
      this.rollups.createIndex({ granularity: 1, start: 1 }),
    ]);
    // Its indexes were made by the former adapter; none is created here (that would create the collection).
    this.legacy = (await this.legacyRows.findOne({}, { projection: { _id: 1 } })) !== null;
  }

  async append(given: readonly QueryRow[] | QueryRows, rollups?: Rollup[]): Promise<void> {
    const rows = asQueryRows(given);
    if (rows.count) {
      const firstId = await this.reserveIds(rows.count);
      await this.blocks.insertMany(blocksOf(rows, firstId).map(blockDoc), { ordered: false });
    }
    const buckets = rollups ?? rollupsOf(rows);
    if (buckets.length) await this.addRollups(buckets);
  }

  /** Reserves `n` row ids for one batch, one round trip; returns the first. */
  private async reserveIds(n: number): Promise<number> {
    const bump = () =>
      this.meta.findOneAndUpdate(
        { _id: ROW_ID_COUNTER },
        { $inc: { value: n } },
        { upsert: true, returnDocument: 'after' },
      );
    let counter: CounterDoc | null;
    try {
      counter = await bump();
    } catch (e) {
      // Two writers creating the counter at once: one upsert loses on the key and retries as an update.
      if (!(e instanceof MongoServerError && e.code === DUPLICATE_KEY)) throw e;
      counter = await bump();
    }
    if (!counter) throw new Error('row id counter: no document after an upsert');
    return firstReservedId(counter.value, n);
  }

  async addRollups(rollups: Rollup[]): Promise<void> {
    let pending = rollups;
    for (let attempt = 0; pending.length && attempt < MAX_RETRIES; attempt++) {
      const prior = new Map(
        (await this.rollups.find({ _id: { $in: pending.map(rollupId) } }).toArray()).map((d) => [d._id, d]),
      );
      const failed: Rollup[] = [];
      await Promise.all(
        pending.map(async (r) => {
          const doc = prior.get(rollupId(r));
          const counts = doc
            ? mergeCounts(JSON.parse(doc.counts) as RollupCounts, r.counts)
            : structuredClone(r.counts);
          const next = {
            account_id: r.accountId,
            domain: r.domain,
            granularity: r.granularity,
            start: r.start,
            counts: JSON.stringify(capNxdomain(counts)),
            v: (doc?.v ?? 0) + 1,
          };
          try {
            const res = doc
              ? await this.rollups.replaceOne({ _id: doc._id, v: doc.v }, next)
              : await this.rollups.insertOne({ _id: rollupId(r), ...next });
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

  async sumRollups(
    accountId: number,
    domain: string,
    granularity: Granularity,
    from: number,
    to: number,
  ): Promise<RollupCounts> {
    const sum = emptyCounts();
    for await (const d of this.rollups.find(
      { account_id: accountId, domain, granularity, start: { $gte: from, $lte: to } },
      { projection: { counts: 1 } },
    )) {
      mergeCounts(sum, JSON.parse(d.counts) as RollupCounts);
    }
    return sum;
  }

  async recent(filter: RawFilter, since: number, limit: number): Promise<StoredRow[]> {
    const rows = await newestRowsAsync(
      this.scan(this.blocks.find(recentBlocksFilter(filter, since), { sort: { max_ts: -1 } })),
      since,
      limit,
    );
    if (!this.legacy) return rows;
    const old = await this.legacyRows
      .find(legacyRecentFilter(filter, since), { sort: { ts: -1, _id: -1 }, limit })
      .toArray();
    return mergeNewest(rows, old.map(legacyRow), since, limit);
  }

  async page(
    filter: RawFilter,
    from: number,
    to: number,
    after: LogCursor | null,
    limit: number,
  ): Promise<StoredRow[]> {
    // Sorted by min_ts alone, the index order (as in the SQLite store).
    const scan = this.blocks.find(pageBlocksFilter(filter, pageBlockRange(from, to, after)), { sort: { min_ts: 1 } });
    const rows = await pageRowsAsync(this.scan(scan), from, to, after, limit);
    if (!this.legacy) return rows;
    const old = await this.legacyRows
      .find(legacyPageFilter(filter, from, to, after), { sort: { ts: 1, _id: 1 }, limit })
      .toArray();
    return mergePage(old.map(legacyRow), rows, from, to, after, limit);
  }

  /** Blocks in the cursor's order, a few per round trip, each decoded only when a reader asks for its rows. */
  private async *scan(cursor: FindCursor<BlockDoc>): AsyncGenerator<BlockRef> {
    // Leaving the reader's loop early returns this generator, and the driver closes the cursor.
    for await (const d of cursor.batchSize(READ_BATCH)) {
      yield {
        minTs: d.min_ts,
        maxTs: d.max_ts,
        rows: () => this.decoded.rowsOf(d._id.toHexString(), blockMeta(d), () => blockBytes(d)),
      };
    }
  }

  async prune(
    rawBefore: number,
    hourlyBefore: number,
    dailyBefore: number,
  ): Promise<{ rows: number; rollups: number }> {
    let rows = (await this.pruneExpiredBlocks(rawBefore)) + (await this.trimStraddling(rawBefore));
    this.decoded.clear();
    if (this.legacy) rows += await this.pruneLegacy(rawBefore);
    const hourly = (await this.rollups.deleteMany({ granularity: 'hour', start: { $lt: hourlyBefore } })).deletedCount;
    const daily = (await this.rollups.deleteMany({ granularity: 'day', start: { $lt: dailyBefore } })).deletedCount;
    return { rows, rollups: hourly + daily };
  }

  /**
   * Deletes the blocks wholly before the cutoff and returns how many rows they held. The
   * count is of the blocks found; two processes pruning at the same moment could both count
   * a block (the data is right either way).
   */
  private async pruneExpiredBlocks(cutoff: number): Promise<number> {
    let rows = 0;
    for (;;) {
      const expired = await this.blocks
        .find(expiredBlocksFilter(cutoff), { projection: { _id: 1, count: 1 }, limit: PRUNE_CHUNK })
        .toArray();
      if (!expired.length) return rows;
      await this.blocks.deleteMany({ _id: { $in: expired.map((b) => b._id) } });
      rows += expired.reduce((sum, b) => sum + b.count, 0);
    }
  }

  /**
   * Rewrites the blocks the cutoff falls within with their newer rows (ids kept); returns
   * the rows removed. The rewrite applies only if the block is still as read (first id and
   * count), so a block trimmed meanwhile by another pruner is neither rewritten nor counted twice.
   */
  private async trimStraddling(cutoff: number): Promise<number> {
    let removed = 0;
    const trim = async (d: BlockDoc) => {
      const trimmed = trimBlock(decodeBlock(blockMeta(d), blockBytes(d)), cutoff);
      // A straddling block keeps its rows from the cutoff on (max_ts >= cutoff): never emptied.
      const res = await this.blocks.updateOne(
        { _id: d._id, first_id: d.first_id, count: d.count },
        { $set: blockFields(trimmed.block!) },
      );
      if (res.modifiedCount) removed += trimmed.removed;
    };
    // A few at a time from the cursor: thousands of domains can each have one, with up to ~100 KB of data.
    let group: BlockDoc[] = [];
    for await (const d of this.blocks.find(inRange(straddlingBlockRange(cutoff))).batchSize(TRIM_PARALLEL)) {
      group.push(d);
      if (group.length === TRIM_PARALLEL) {
        await Promise.all(group.map(trim));
        group = [];
      }
    }
    await Promise.all(group.map(trim));
    return removed;
  }

  /** Former rows go by the same cutoff; once none is left the collection is dropped, with its indexes. */
  private async pruneLegacy(cutoff: number): Promise<number> {
    const n = (await this.legacyRows.deleteMany({ ts: { $lt: cutoff } })).deletedCount;
    if ((await this.legacyRows.findOne({}, { projection: { _id: 1 } })) === null) {
      try {
        await this.legacyRows.drop();
      } catch (e) {
        // Dropped meanwhile by another process's retention.
        if (!(e instanceof MongoServerError && e.code === NAMESPACE_NOT_FOUND)) throw e;
      }
      this.legacy = false;
    }
    return n;
  }

  /** For tests: each conformance run works in its own database. */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
