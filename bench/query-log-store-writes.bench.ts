/**
 * The query log's SQLite store alone, under `bench:ddns`'s shape (decision 0131): batches of
 * QLOG_STORE_BATCH queries, each of a host drawn at random from 20,000 DDNS hosts (a domain
 * each) over 40 accounts, one batch per simulated second, and every tenth batch the rollup
 * buckets of the ten (in transactions of 256, as the writer does). Nothing else runs: the CPU
 * of this thread (`/proc/thread-self/schedstat`, kernel time included: WAL writes, checkpoints)
 * in the store's calls is what is printed, per query, for rows and for rollups.
 *
 * QLOG_STORE_OTHER_DIST=<another build's dist> runs that build's store in alternate rounds
 * (each round a new file), so both see the same machine load; the ratio is this / other.
 *
 * Run: npm run build && node dist/bench/query-log-store-writes.bench.js
 * Env: QLOG_STORE_BATCH (3000), QLOG_STORE_BATCHES (60), QLOG_STORE_ROUNDS (4), QLOG_STORE_OTHER_DIST
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryRow } from '../libs/dns-analytics/domain/query-row';
import type { Rollup } from '../libs/dns-analytics/domain/rollup';

const HOSTS = 20_000;
const PER_BATCH = Number(process.env.QLOG_STORE_BATCH ?? 3000);
const BATCHES = Number(process.env.QLOG_STORE_BATCHES ?? 60);
const ROUNDS = Number(process.env.QLOG_STORE_ROUNDS ?? 4);
/** Batches before the measured ones: the file's first pages and indexes. */
const WARMUP = 10;

interface Build {
  name: string;
  Store: new (file: string) => { append(rows: QueryRow[], rollups: Rollup[]): void; addRollups(r: Rollup[]): void };
  rollupsOf: (rows: unknown) => Rollup[];
  asQueryRows: (rows: QueryRow[]) => unknown;
}

function loadBuild(name: string, dist: string): Build {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { SqliteQueryLogStore } = require(join(dist, 'libs/dns-analytics/infrastructure/sqlite-query-log.store.js'));
  const { rollupsOf } = require(join(dist, 'libs/dns-analytics/domain/rollup.js'));
  const { asQueryRows } = require(join(dist, 'libs/dns-analytics/domain/query-rows.js'));
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { name, Store: SqliteQueryLogStore, rollupsOf, asQueryRows };
}

/** CPU µs of this thread so far, kernel time included. */
const cpuUs = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;

function query(h: number, ts: number): QueryRow {
  const name = `h${h}.dyn.example.net`;
  return {
    ts,
    accountId: 1 + (h % 40),
    domain: name,
    qname: name,
    qtype: 'A',
    rcode: 'NOERROR',
    clientIp: '127.0.0.1',
    country: 'Unknown',
    asn: 'Unknown',
    asOrg: 'Unknown',
    transport: 'udp',
    dnssecOk: false,
    edns: true,
    responseMs: 0,
  };
}

function round(build: Build, start: number): { rows: number; rollups: number } {
  const dir = mkdtempSync(join(tmpdir(), 'qlog-store-writes-'));
  const store = new build.Store(join(dir, 'dns-query-log.db'));
  let ts = start;
  let rowsUs = 0;
  let rollupsUs = 0;
  let measured = 0;
  let sinceRollups: QueryRow[] = [];
  try {
    for (let b = 0; b < WARMUP + BATCHES; b++) {
      const rows = Array.from({ length: PER_BATCH }, () =>
        query(Math.floor(Math.random() * HOSTS), (ts += 1000 / PER_BATCH)),
      );
      sinceRollups = sinceRollups.concat(rows);
      let at = cpuUs();
      store.append(rows, []);
      const rowCost = cpuUs() - at;
      let rollupCost = 0;
      if (b % 10 === 9) {
        const buckets = build.rollupsOf(build.asQueryRows(sinceRollups));
        sinceRollups = [];
        at = cpuUs();
        for (let i = 0; i < buckets.length; i += 256) store.addRollups(buckets.slice(i, i + 256));
        rollupCost = cpuUs() - at;
      }
      if (b < WARMUP) continue;
      rowsUs += rowCost;
      rollupsUs += rollupCost;
      measured += PER_BATCH;
    }
  } finally {
    (store as unknown as { close(): Promise<void> }).close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { rows: rowsUs / measured, rollups: rollupsUs / measured };
}

function main(): void {
  const builds = [loadBuild('this build', join(__dirname, '..'))];
  if (process.env.QLOG_STORE_OTHER_DIST) builds.push(loadBuild('other build', process.env.QLOG_STORE_OTHER_DIST));
  const totals = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  let start = Date.UTC(2026, 0, 1, 10);
  for (let r = 1; r <= ROUNDS; r++) {
    // The order flips every round: neither build always runs second.
    for (const build of r % 2 ? builds : [...builds].reverse()) {
      const res = round(build, (start += 3_600_000));
      totals.get(build.name)!.push(res.rows + res.rollups);
      console.log(
        `round ${r} ${build.name}: rows ${res.rows.toFixed(2)} µs, rollups ${res.rollups.toFixed(2)} µs per query`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [name, t] of totals) console.log(`${name}: median ${median(t).toFixed(2)} µs per query`);
  if (builds.length === 2) {
    const [mine, other] = [totals.get('this build')!, totals.get('other build')!];
    const ratios = mine.map((m, i) => m / other[i]);
    console.log(
      `ratio this / other: ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
  console.log(`hosts ${HOSTS}, ${PER_BATCH} queries a batch, ${BATCHES} batches, rounds ${ROUNDS}`);
}

main();
