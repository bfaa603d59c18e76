/**
 * What a logged query costs the query-log writer as the number of domains the queries spread
 * over grows (issue 28, decision 0124): `bench:ddns` polls thousands of DDNS hosts, each a domain
 * of its own, where `bench:dns` asks one zone. The real writer (QueryLogWriter with the thread's
 * options, THREAD_WRITER) and the embedded SQLite store are fed QLOG_DOMAINS_QPS queries a second,
 * each of a host drawn at random from DOMAINS hosts spread over 40 accounts, for
 * QLOG_DOMAINS_SECONDS after 5 s of warm-up. Queries go in as objects (the ring's columns are the
 * query-log thread's way in; from the delivery on, rows, blocks and rollups are the same code).
 *
 * Prints per query: CPU of the process (process.cpuUsage: this thread and V8's helpers), of the
 * store's calls that write rows only, and of those that write rollups (with a batch's rows when
 * they come together); and how many rollup buckets were written (in transactions of at most 256).
 *
 * Run: npm run bench:query-log-domains
 * Env: QLOG_DOMAINS (list, "1,30,5000,20000"), QLOG_DOMAINS_QPS (8000), QLOG_DOMAINS_SECONDS (20).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryLogWriter } from '../libs/dns-analytics/application/query-log-writer';
import { THREAD_WRITER } from '../libs/dns-analytics/application/query-log-thread.protocol';
import type { LoggedQuery } from '../libs/dns-analytics/application/query-batch';
import type { QueryRow } from '../libs/dns-analytics/domain/query-row';
import type { QueryRows } from '../libs/dns-analytics/domain/query-rows';
import type { Rollup } from '../libs/dns-analytics/domain/rollup';
import { SqliteQueryLogStore } from '../libs/dns-analytics/infrastructure/sqlite-query-log.store';

const DOMAIN_COUNTS = (process.env.QLOG_DOMAINS ?? '1,30,5000,20000').split(',').map(Number);
const QPS = Number(process.env.QLOG_DOMAINS_QPS ?? 8000);
const SECONDS = Number(process.env.QLOG_DOMAINS_SECONDS ?? 20);
const WARMUP_MS = 5000;
const TICK_MS = 10;
const ACCOUNTS = 40;

const cpuUs = (since?: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(since);
  return c.user + c.system;
};

async function run(domains: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qlog-domains-'));
  const store = new SqliteQueryLogStore(join(dir, 'dns-query-log.db'));
  const spent = { rows: 0, rollups: 0, buckets: 0, calls: 0 };
  let measuring = false;
  const append = store.append.bind(store);
  store.append = async (rows: readonly QueryRow[] | QueryRows, rollups: Rollup[] = []) => {
    const before = process.cpuUsage();
    await append(rows, rollups);
    if (!measuring) return;
    if (rollups.length) {
      spent.rollups += cpuUs(before);
      spent.buckets += rollups.length;
      spent.calls++;
    } else spent.rows += cpuUs(before);
  };
  const info = { country: 'Unknown', asn: 'Unknown', asOrg: 'Unknown' };
  const writer = new QueryLogWriter(
    store,
    { ready: async () => undefined, lookup: () => info },
    null,
    (e) => console.error(e),
    THREAD_WRITER,
  );
  const names = Array.from({ length: domains }, (_, i) => `h${i}.bench.example.net`);
  // A fixed linear congruential sequence: the same hosts every run.
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const query = (h: number): LoggedQuery => ({
    timestamp: Date.now(),
    durationMs: 0.02,
    accountId: String(1 + (h % ACCOUNTS)),
    domain: names[h],
    name: names[h],
    type: 'A',
    rcode: 'NOERROR',
    clientIp: '127.0.0.1',
    transport: 'udp',
    dnssecOk: false,
    edns: false,
  });
  const started = Date.now();
  let sent = 0;
  let from = 0;
  let cpuFrom: NodeJS.CpuUsage | undefined;
  while (Date.now() - started < WARMUP_MS + SECONDS * 1000) {
    if (!measuring && Date.now() - started >= WARMUP_MS) {
      measuring = true;
      cpuFrom = process.cpuUsage();
      from = sent;
    }
    const due = Math.floor(((Date.now() - started) * QPS) / 1000);
    for (; sent < due; sent++) writer.record(query(Math.floor(next() * domains)));
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  const cpu = cpuUs(cpuFrom);
  const n = sent - from;
  measuring = false;
  await writer.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const per = (us: number) => (us / n).toFixed(2);
  console.log(
    `${domains} domains: ${per(cpu)} us CPU per query; store calls writing rows only ${per(spent.rows)}, ` +
      `writing rollups ${per(spent.rollups)} (${spent.buckets} buckets in ${spent.calls} transactions, ` +
      `${(spent.rollups / Math.max(1, spent.buckets)).toFixed(1)} us per bucket); ${n} queries at ${QPS}/s`,
  );
}

async function main(): Promise<void> {
  for (const domains of DOMAIN_COUNTS) await run(domains);
  process.exit(0);
}

void main();
