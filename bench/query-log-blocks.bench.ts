/**
 * The query log's raw rows in blocks, at the store (issue 12, mongolog): what appending,
 * export pages, recent queries and retention cost per row in the embedded SQLite store, and
 * what the asynchronous walk the MongoDB adapter uses over its cursor costs against the
 * synchronous one SQLite uses, both over the same blocks in memory (no MongoDB server can
 * run here, so the Mongo round trips themselves are not measured).
 *
 * Figures are CPU time per row or per call (process.cpuUsage): the machine is shared.
 *
 * Also prints what MongoDB would store per query, as BSON, in the former layout and in blocks.
 *
 * Run: npm run bench:query-log-blocks
 * Env: ROWS (400000), DOMAINS (200).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogCursor, QueryLogStore, RawFilter } from '../libs/dns-analytics/application/query-log.store';
import type { QueryRow } from '../libs/dns-analytics/domain/query-row';
import {
  pageBlockRange,
  pageRows,
  pageRowsAsync,
  type BlockRef,
} from '../libs/dns-analytics/infrastructure/block-reads';
import { blocksOf, decodeBlock } from '../libs/dns-analytics/infrastructure/query-blocks';
import { blockDoc, BLOCK_INDEXES } from '../libs/dns-analytics/infrastructure/mongo-query-blocks';
import { SqliteQueryLogStore } from '../libs/dns-analytics/infrastructure/sqlite-query-log.store';
import { BSON, ObjectId } from 'mongodb';

const ROWS = Number(process.env.ROWS ?? 400_000);
const DOMAINS = Number(process.env.DOMAINS ?? 200);
const ACCOUNTS = 4;
const BATCH = 2000;
const T0 = Date.parse('2026-05-10T00:00:00Z');
const PAGE = 1000;

/** Rows of the dnsperf-like mix over DOMAINS domains of ACCOUNTS accounts, one batch a second. */
function batch(n: number): QueryRow[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const k = n * BATCH + i;
    const d = k % DOMAINS;
    return {
      ts: T0 + n * 1000 + Math.floor((i * 1000) / BATCH),
      accountId: 1 + (d % ACCOUNTS),
      domain: `d${d}.example`,
      qname: `host${k % 5000}.d${d}.example`,
      qtype: k % 4 ? 'A' : 'AAAA',
      rcode: k % 10 ? 'NOERROR' : 'NXDOMAIN',
      clientIp: `${1 + (k % 200)}.${(k >> 8) & 255}.${k & 255}.7`,
      country: k % 3 ? 'DE' : 'US',
      asn: k % 3 ? 'AS3320' : 'AS15169',
      asOrg: k % 3 ? 'Deutsche Telekom AG' : 'Google LLC',
      transport: k % 9 ? 'udp' : 'tcp',
      dnssecOk: k % 2 === 0,
      edns: true,
      responseMs: 0.05 + (k % 13) / 100,
    };
  });
}

/** CPU microseconds of `fn` (user + system). */
async function cpu<T>(fn: () => Promise<T> | T): Promise<{ value: T; micros: number }> {
  const start = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(start);
  return { value, micros: used.user + used.system };
}

async function exportAll(store: QueryLogStore, filter: RawFilter, to: number): Promise<number> {
  let rows = 0;
  let after: LogCursor | null = null;
  for (;;) {
    const page = await store.page(filter, T0, to, after, PAGE);
    rows += page.length;
    if (page.length < PAGE) return rows;
    const last = page[PAGE - 1];
    after = { ts: last.ts, id: last.id };
  }
}

const f = (n: number, d = 2) => n.toFixed(d);

async function storeFigures(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qlog-blocks-bench-'));
  const store = new SqliteQueryLogStore(join(dir, 'q.db'));
  try {
    const batches = Math.ceil(ROWS / BATCH);
    const data = Array.from({ length: batches }, (_, n) => batch(n));
    const append = await cpu(async () => {
      for (const rows of data) await store.append(rows, []);
    });
    const total = batches * BATCH;
    const end = T0 + batches * 1000;
    console.log(
      `SQLite append (raw rows only, ${BATCH}-row batches over ${DOMAINS} domains): ${total} rows, ${f(append.micros / total)} µs CPU per row`,
    );

    const account = await cpu(() => exportAll(store, { accountId: 1, domain: null }, end));
    console.log(
      `SQLite export pages of ${PAGE}, one account: ${account.value} rows, ${f(account.micros / account.value)} µs CPU per row`,
    );
    const domain = await cpu(() => exportAll(store, { accountId: 1, domain: 'd0.example' }, end));
    console.log(
      `SQLite export pages of ${PAGE}, one domain: ${domain.value} rows, ${f(domain.micros / domain.value)} µs CPU per row`,
    );

    const calls = 500;
    const recent = await cpu(async () => {
      for (let i = 0; i < calls; i++)
        await store.recent(
          { accountId: 1 + (i % ACCOUNTS), domain: i % 2 ? null : `d${i % ACCOUNTS}.example` },
          T0,
          100,
        );
    });
    console.log(`SQLite recent (100 rows, account or domain): ${f(recent.micros / calls / 1000, 3)} ms CPU per call`);

    // A cutoff inside a batch: whole blocks deleted, the ones it falls in rewritten.
    const pruned = await cpu(() => store.prune(T0 + Math.floor(batches / 2) * 1000 + 500, 0, 0));
    console.log(
      `SQLite prune half the log: ${pruned.value.rows} rows, ${f(pruned.micros / pruned.value.rows)} µs CPU per row removed`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The blocks of `n` batches in memory, ascending, as a scan hands them over. */
function memoryBlocks(n: number): BlockRef[] {
  return Array.from({ length: n }, (_, i) => blocksOf(batch(i), i * BATCH + 1))
    .flat()
    .filter((b) => b.accountId === 1)
    .sort((a, b) => a.minTs - b.minTs)
    .map((b) => ({ minTs: b.minTs, maxTs: b.maxTs, rows: () => decodeBlock(b, b.data) }));
}

async function* asCursor(blocks: BlockRef[]): AsyncGenerator<BlockRef> {
  yield* blocks;
}

async function walkFigures(): Promise<void> {
  const blocks = memoryBlocks(100);
  const end = T0 + 100 * 1000;
  const pages = (read: (after: LogCursor | null) => Promise<number>) =>
    cpu(async () => {
      let rows = 0;
      let after: LogCursor | null = null;
      for (;;) {
        const n = await read(after);
        rows += n;
        if (n < PAGE) return rows;
        after = lastCursor;
      }
    });
  let lastCursor: LogCursor | null = null;
  const remember = (page: { ts: number; id: string }[]) => {
    if (page.length) lastCursor = { ts: page[page.length - 1].ts, id: page[page.length - 1].id };
    return page.length;
  };
  // The blocks the store's scan would hand over for a page: its range, in min_ts order.
  const scan = (after: LogCursor | null) => {
    const r = pageBlockRange(T0, end, after);
    return blocks.filter((b) => b.minTs >= r.minTsFrom && b.minTs < r.minTsBelow && b.maxTs >= r.maxTsFrom);
  };
  for (let round = 0; round < 3; round++) {
    const sync = await pages(async (after) => remember(pageRows(scan(after), T0, end, after, PAGE)));
    const async = await pages(async (after) =>
      remember(await pageRowsAsync(asCursor(scan(after)), T0, end, after, PAGE)),
    );
    console.log(
      `walk over ${blocks.length} blocks in memory, round ${round + 1}: synchronous (SQLite) ` +
        `${f(sync.micros / sync.value)} µs CPU per row, asynchronous (MongoDB cursor) ` +
        `${f(async.micros / async.value)} µs (${sync.value} rows each)`,
    );
  }
}

/**
 * What MongoDB stores per query, as BSON before its own compression: the former adapter's
 * document per query (with its three secondary indexes and _id: four index entries a query)
 * against block documents (five secondary indexes and _id per block).
 */
function mongoSizes(): void {
  const batches = Array.from({ length: 20 }, (_, n) => batch(n));
  const rows = batches.flat();
  const perQuery = rows.reduce(
    (sum, q) =>
      sum +
      BSON.calculateObjectSize({
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
      }),
    0,
  );
  let id = 1;
  const docs = batches.flatMap((b) => {
    const drafts = blocksOf(b, id);
    id += b.length;
    return drafts.map(blockDoc);
  });
  const blockBytes = docs.reduce((sum, d) => sum + BSON.calculateObjectSize(d), 0);
  const indexEntries = (docs.length * (BLOCK_INDEXES.length + 1)) / rows.length;
  console.log(
    `MongoDB BSON per query (${rows.length} queries over ${DOMAINS} domains, ${BATCH}-row batches): one document ` +
      `per query ${f(perQuery / rows.length, 1)} bytes and 4 index entries; blocks ` +
      `${f(blockBytes / rows.length, 1)} bytes and ${f(indexEntries, 3)} index entries (${docs.length} blocks of ` +
      `${f(rows.length / docs.length, 1)} queries)`,
  );
}

async function main(): Promise<void> {
  console.log(`query-log blocks bench (CPU per row; shared, loaded machine: compare figures of one run)`);
  mongoSizes();
  await storeFigures();
  await walkFigures();
}

void main();
