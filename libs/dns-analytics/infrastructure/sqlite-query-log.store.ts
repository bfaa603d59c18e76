import Database from 'better-sqlite3';
import type { LogCursor, QueryLogStore, RawFilter, StoredRow } from '../application/query-log.store';
import type { QueryRow } from '../domain/query-row';
import { asQueryRows, type QueryRows } from '../domain/query-rows';
import {
  mergeNewest,
  mergePage,
  newestRows,
  pageBlockRange,
  pageRows,
  straddlingBlockRange,
  type BlockRange,
  type BlockRef,
} from './block-reads';
import { trimBlock } from './block-retention';
import { DecodedBlocks } from './decoded-blocks';
import { blocksOf } from './query-blocks';
import { capNxdomain, emptyCounts, Granularity, mergeCounts, Rollup, RollupCounts, rollupsOf } from '../domain/rollup';
import { preparePrivateFile } from '../../shared/private-files';

interface RawRecord {
  id: number;
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
  dnssec_ok: number;
  edns: number;
  response_ms: number;
}

const SCHEMA = `
-- Raw rows, in blocks (query-blocks.ts): one record per block of one account's domain.
CREATE TABLE IF NOT EXISTS query_blocks (
  -- Never reused: readers cache decoded blocks by id.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  domain TEXT NOT NULL,
  min_ts INTEGER NOT NULL,
  max_ts INTEGER NOT NULL,
  first_id INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL
);
-- Oldest first (export pages) and newest first (recent queries), by account or by domain.
CREATE INDEX IF NOT EXISTS query_blocks_account_start ON query_blocks (account_id, min_ts, max_ts);
CREATE INDEX IF NOT EXISTS query_blocks_account_end ON query_blocks (account_id, max_ts);
CREATE INDEX IF NOT EXISTS query_blocks_domain_start ON query_blocks (account_id, domain, min_ts, max_ts);
CREATE INDEX IF NOT EXISTS query_blocks_domain_end ON query_blocks (account_id, domain, max_ts);
-- The next row id (rows are numbered across blocks, in the order they were appended).
CREATE TABLE IF NOT EXISTS query_log_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rollups (
  account_id INTEGER NOT NULL,
  domain TEXT NOT NULL,
  granularity TEXT NOT NULL,
  start INTEGER NOT NULL,
  counts TEXT NOT NULL,
  PRIMARY KEY (account_id, domain, granularity, start)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rollups_age ON rollups (granularity, start);
`;

/**
 * Bytes per page of a new file. A block (thousands of queries, ~100 KB) is a chain of overflow
 * pages, each a WAL frame of its own (written, then copied by the checkpoint): 16 KiB pages
 * make a quarter of the frames and system calls of SQLite's 4 KiB default, and the few pages a
 * batch changes besides (index leaves, the id counter, rollups) stay small.
 */
const PAGE_SIZE = 16 * 1024;

/**
 * WAL between checkpoints (decision 0131): 64 MiB, where SQLite's default is 1000 pages (16 MiB
 * at PAGE_SIZE). Under many small domains (every DDNS host is one) a batch rewrites index leaves
 * and rollup buckets spread over the file, and a checkpoint copies each such page once however
 * often it was written since the last one: a quarter as many checkpoints copy fewer pages per query
 * (bench:query-log-store-writes: 0.92x). In pages of the file's own size: 4 KiB files get the same bytes.
 */
const CHECKPOINT_WAL_BYTES = 64 * 2 ** 20;

/** Size a checkpointed WAL is cut back to (twice the above), as the other stores do (decision 0003). */
const WAL_SIZE_LIMIT_BYTES = 128 * 2 ** 20;

/** The table of one row per query that files written before blocks hold (read until retention empties it). */
const LEGACY_TABLE = 'query_log';

interface BlockRecord {
  id: number;
  /** Selected where the block is read (readers), not where only its place is needed. */
  data?: Buffer;
  account_id: number;
  domain: string;
  min_ts: number;
  max_ts: number;
  first_id: number;
  count: number;
}

/** Skip scan: the accounts present, one index seek each, so pruning needs no index on time alone. */
const ACCOUNTS_OF = (table: string) => `
  WITH RECURSIVE accounts(id) AS (
    SELECT MIN(account_id) FROM ${table}
    UNION ALL
    SELECT (SELECT MIN(account_id) FROM ${table} WHERE account_id > accounts.id) FROM accounts WHERE accounts.id IS NOT NULL
  )
  SELECT id FROM accounts WHERE id IS NOT NULL`;

/** A BlockRange as SQL (arguments: rangeArgs). */
const IN_RANGE = 'min_ts >= ? AND min_ts < ? AND max_ts >= ?';
const rangeArgs = (r: BlockRange): [number, number, number] => [r.minTsFrom, r.minTsBelow, r.maxTsFrom];

/** Whole blocks whose newest row is before the cutoff, account by account through (account_id, max_ts). */
const PRUNE_BLOCKS = `DELETE FROM query_blocks WHERE max_ts < ? AND account_id IN (${ACCOUNTS_OF('query_blocks')}) RETURNING count`;
/** Blocks the cutoff falls within (older rows and newer ones): rewritten without the older. */
const STRADDLING_BLOCKS = `SELECT id, account_id, domain, min_ts, max_ts, first_id, count FROM query_blocks
  WHERE account_id IN (${ACCOUNTS_OF('query_blocks')}) AND ${IN_RANGE}`;
const PRUNE_LEGACY_ROWS = `DELETE FROM ${LEGACY_TABLE} WHERE ts < ? AND account_id IN (${ACCOUNTS_OF(LEGACY_TABLE)})`;

/** Read lazily, block by block: a reader stops at the first block it does not need, before its data is fetched. */
const BLOCK_COLUMNS = 'id, account_id, domain, min_ts, max_ts, first_id, count, data';

const toRow = (r: RawRecord): StoredRow => ({
  id: String(r.id),
  ts: r.ts,
  accountId: r.account_id,
  domain: r.domain,
  qname: r.qname,
  qtype: r.qtype,
  rcode: r.rcode,
  clientIp: r.client_ip,
  country: r.country,
  asn: r.asn,
  asOrg: r.as_org,
  transport: r.transport,
  dnssecOk: r.dnssec_ok === 1,
  edns: r.edns === 1,
  responseMs: r.response_ms,
});

/**
 * The embedded query log: one SQLite file of its own under DATA_DIR (never the event
 * store's), WAL so the API reads while the DNS role's writer appends. Raw rows are stored
 * in blocks (query-blocks.ts); a batch's blocks and its rollup increments commit in one
 * transaction.
 */
export class SqliteQueryLogStore implements QueryLogStore {
  private readonly db: Database.Database;
  private readonly insertBlock: Database.Statement;
  private readonly getNextId: Database.Statement<[], { value: number }>;
  private readonly putNextId: Database.Statement;
  private readonly getRollup: Database.Statement<[number, string, string, number], { counts: string }>;
  private readonly putRollup: Database.Statement;
  private readonly appendTx: Database.Transaction<(rows: QueryRows, rollups: Rollup[]) => void>;
  private readonly rollupTx: (rollups: Rollup[]) => void;
  private readonly blockData: Database.Statement<[number], { data: Buffer }>;
  /** The few most recently decoded blocks (export pages overlap by a block). */
  private readonly decoded = new DecodedBlocks();
  /** Whether the file still has rows of the former one-row-per-query table. */
  private legacy: boolean;

  constructor(readonly file: string) {
    preparePrivateFile(file);
    this.db = new Database(file);
    // New files only (SQLite keeps an existing file's): see PAGE_SIZE.
    this.db.pragma(`page_size = ${PAGE_SIZE}`);
    this.db.pragma('journal_mode = WAL');
    // Telemetry: losing the last batch to a power cut is acceptable, an fsync per batch is not.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    this.db.pragma(`wal_autocheckpoint = ${Math.round(CHECKPOINT_WAL_BYTES / pageSize)}`);
    // A WAL otherwise stays as large as it ever grew (a retention pass deleting a day of blocks).
    this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    this.db.exec(SCHEMA);
    this.legacy =
      this.db.prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get('table', LEGACY_TABLE) !==
      undefined;
    this.insertBlock = this.db.prepare(
      'INSERT INTO query_blocks (account_id, domain, min_ts, max_ts, first_id, count, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.getNextId = this.db.prepare("SELECT value FROM query_log_meta WHERE key = 'next_id'");
    this.putNextId = this.db.prepare(
      "INSERT INTO query_log_meta (key, value) VALUES ('next_id', ?) ON CONFLICT DO UPDATE SET value = excluded.value",
    );
    this.blockData = this.db.prepare('SELECT data FROM query_blocks WHERE id = ?');
    this.getRollup = this.db.prepare(
      'SELECT counts FROM rollups WHERE account_id = ? AND domain = ? AND granularity = ? AND start = ?',
    );
    this.putRollup = this.db.prepare(
      'INSERT INTO rollups (account_id, domain, granularity, start, counts) VALUES (?, ?, ?, ?, ?) ON CONFLICT ' +
        'DO UPDATE SET counts = excluded.counts',
    );
    this.rollupTx = this.db.transaction((rollups: Rollup[]) => {
      for (const r of rollups) {
        const prior = this.getRollup.get(r.accountId, r.domain, r.granularity, r.start);
        const counts = prior ? mergeCounts(JSON.parse(prior.counts) as RollupCounts, r.counts) : r.counts;
        this.putRollup.run(r.accountId, r.domain, r.granularity, r.start, JSON.stringify(capNxdomain(counts)));
      }
    });
    this.appendTx = this.db.transaction((rows: QueryRows, rollups: Rollup[]) => {
      if (rows.count) {
        // Ids go on from the file's counter (after the former table's ids, so cursors keep their order).
        const firstId = this.getNextId.get()?.value ?? this.firstIdAfterLegacy();
        for (const b of blocksOf(rows, firstId))
          this.insertBlock.run(b.accountId, b.domain, b.minTs, b.maxTs, b.firstId, b.count, b.data);
        this.putNextId.run(firstId + rows.count);
      }
      this.rollupTx(rollups);
    });
  }

  private firstIdAfterLegacy(): number {
    if (!this.legacy) return 1;
    return (this.db.prepare<[], { id: number | null }>(`SELECT MAX(id) AS id FROM ${LEGACY_TABLE}`).get()?.id ?? 0) + 1;
  }

  async append(given: readonly QueryRow[] | QueryRows, rollups?: Rollup[]): Promise<void> {
    const rows = asQueryRows(given);
    const buckets = rollups ?? rollupsOf(rows);
    // Immediate: the id counter is read and written in one transaction, whoever else writes.
    if (rows.count || buckets.length) this.appendTx.immediate(rows, buckets);
  }

  async addRollups(rollups: Rollup[]): Promise<void> {
    this.rollupTx(rollups);
  }

  /**
   * History import: writes buckets as given, replacing any there, without reading them
   * first (benchmarks seed a year of buckets this way). `serialized` is the JSON of each
   * bucket's counts, so identical buckets are serialised once by the caller.
   */
  importRollups(
    rows: Array<{ accountId: number; domain: string; granularity: Granularity; start: number; serialized: string }>,
  ): void {
    this.db.transaction(() => {
      for (const r of rows) this.putRollup.run(r.accountId, r.domain, r.granularity, r.start, r.serialized);
    })();
  }

  async sumRollups(
    accountId: number,
    domain: string,
    granularity: Granularity,
    from: number,
    to: number,
  ): Promise<RollupCounts> {
    const rows = this.db
      .prepare<[number, string, string, number, number], { counts: string }>(
        'SELECT counts FROM rollups WHERE account_id = ? AND domain = ? AND granularity = ? AND start BETWEEN ? AND ?',
      )
      .all(accountId, domain, granularity, from, to);
    return rows.reduce((sum, r) => mergeCounts(sum, JSON.parse(r.counts) as RollupCounts), emptyCounts());
  }

  async recent(filter: RawFilter, since: number, limit: number): Promise<StoredRow[]> {
    const [where, args] = this.where(filter);
    const blocks = this.blocks(
      `SELECT ${BLOCK_COLUMNS} FROM query_blocks WHERE ${where} AND max_ts >= ? ORDER BY max_ts DESC`,
      [...args, since],
    );
    const rows = newestRows(blocks, since, limit);
    if (!this.legacy) return rows;
    const old = this.legacyRows(`WHERE ${where} AND ts >= ? ORDER BY ts DESC, id DESC LIMIT ?`, [
      ...args,
      since,
      limit,
    ]);
    return mergeNewest(rows, old, since, limit);
  }

  async page(
    filter: RawFilter,
    from: number,
    to: number,
    after: LogCursor | null,
    limit: number,
  ): Promise<StoredRow[]> {
    const [where, args] = this.where(filter);
    // Ordered by min_ts alone, the index order: a tie-break on id would sort every block of the range first.
    const blocks = this.blocks(
      `SELECT ${BLOCK_COLUMNS} FROM query_blocks WHERE ${where} AND ${IN_RANGE} ORDER BY min_ts`,
      [...args, ...rangeArgs(pageBlockRange(from, to, after))],
    );
    const rows = pageRows(blocks, from, to, after, limit);
    if (!this.legacy) return rows;
    const start = after ? 'AND (ts > ? OR (ts = ? AND id > ?))' : 'AND ts >= ?';
    const startArgs = after ? [after.ts, after.ts, Number(after.id)] : [from];
    const old = this.legacyRows(`WHERE ${where} ${start} AND ts < ? ORDER BY ts, id LIMIT ?`, [
      ...args,
      ...startArgs,
      to,
      limit,
    ]);
    return mergePage(old, rows, from, to, after, limit);
  }

  async prune(
    rawBefore: number,
    hourlyBefore: number,
    dailyBefore: number,
  ): Promise<{ rows: number; rollups: number }> {
    let rows = this.db
      .transaction(() => {
        let n = this.db
          .prepare<[number], { count: number }>(PRUNE_BLOCKS)
          .all(rawBefore)
          .reduce((sum, b) => sum + b.count, 0);
        n += this.trimStraddling(rawBefore);
        return n;
      })
      .immediate();
    this.decoded.clear();
    if (this.legacy) rows += this.pruneLegacy(rawBefore);
    const hourly = this.db
      .prepare("DELETE FROM rollups WHERE granularity = 'hour' AND start < ?")
      .run(hourlyBefore).changes;
    const daily = this.db
      .prepare("DELETE FROM rollups WHERE granularity = 'day' AND start < ?")
      .run(dailyBefore).changes;
    return { rows, rollups: hourly + daily };
  }

  /** Rewrites the blocks holding rows on both sides of the cutoff with the newer rows only; returns the rows removed. */
  private trimStraddling(cutoff: number): number {
    const straddling = this.db
      .prepare<[number, number, number], BlockRecord>(STRADDLING_BLOCKS)
      .all(...rangeArgs(straddlingBlockRange(cutoff)));
    const update = this.db.prepare(
      'UPDATE query_blocks SET min_ts = ?, max_ts = ?, first_id = ?, count = ?, data = ? WHERE id = ?',
    );
    let removed = 0;
    for (const m of straddling) {
      // A straddling block keeps its rows from the cutoff on (max_ts >= cutoff): never emptied.
      const trimmed = trimBlock(this.rowsOf(m), cutoff);
      const b = trimmed.block!;
      update.run(b.minTs, b.maxTs, b.firstId, b.count, b.data, m.id);
      removed += trimmed.removed;
    }
    return removed;
  }

  /** Old rows of the former table go by the same cutoff; once it is empty it is dropped, with its indexes. */
  private pruneLegacy(rawBefore: number): number {
    return this.db
      .transaction(() => {
        const n = this.db.prepare(PRUNE_LEGACY_ROWS).run(rawBefore).changes;
        if (this.db.prepare(`SELECT 1 FROM ${LEGACY_TABLE} LIMIT 1`).get() === undefined) {
          this.putNextId.run(this.getNextId.get()?.value ?? this.firstIdAfterLegacy());
          this.db.exec(`DROP TABLE ${LEGACY_TABLE}`);
          this.legacy = false;
        }
        return n;
      })
      .immediate();
  }

  /** Blocks in the statement's order, each decoded only when a reader asks for its rows. */
  private *blocks(sql: string, args: unknown[]): Generator<BlockRef> {
    // Lazily: a reader usually stops after the first few blocks.
    for (const m of this.db.prepare<unknown[], BlockRecord>(sql).iterate(...args)) {
      yield { minTs: m.min_ts, maxTs: m.max_ts, rows: () => this.rowsOf(m) };
    }
  }

  private rowsOf(m: BlockRecord): StoredRow[] {
    const meta = {
      accountId: m.account_id,
      domain: m.domain,
      minTs: m.min_ts,
      maxTs: m.max_ts,
      firstId: m.first_id,
      count: m.count,
    };
    return this.decoded.rowsOf(String(m.id), meta, () => m.data ?? this.blockData.get(m.id)?.data);
  }

  private legacyRows(clause: string, args: unknown[]): StoredRow[] {
    try {
      return this.db
        .prepare<unknown[], RawRecord>(`SELECT * FROM ${LEGACY_TABLE} ${clause}`)
        .all(...args)
        .map(toRow);
    } catch (e) {
      // Another connection (the writer's or the pruner's) dropped it once it was empty.
      if (e instanceof Error && /no such table/.test(e.message)) {
        this.legacy = false;
        return [];
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private where(filter: RawFilter): [string, unknown[]] {
    return filter.domain === null
      ? ['account_id = ?', [filter.accountId]]
      : ['account_id = ? AND domain = ?', [filter.accountId, filter.domain]];
  }
}
