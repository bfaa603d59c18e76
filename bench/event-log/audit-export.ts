/**
 * Audit export benchmark (issue 26, contract §19, decision 0080). Runs the compiled service as
 * its own process, as `npm start` runs it (all roles, embedded stores), gives one Elite account
 * AUDIT_BENCH_ENTRIES audit entries through the public API (record changes, `PUT
 * /zones/{zone}/records`, spread over zones), then measures, side by side and alternating per
 * round:
 *   - `GET /account/audit/export?format=jsonl` and `?format=csv` of the whole history: entries/s
 *     and MB/s as the client reads the stream, the server's RSS before and its peak during;
 *   - the same export of a window holding the last ~1% of the entries (O(window), not O(history));
 *   - reading the whole history through the current `GET /account/audit` pages (limit 100);
 *   - the JSON Lines export to a client that stops reading for AUDIT_BENCH_STALL_SECONDS: the
 *     server's RSS shows that it waits for the socket rather than buffering the history;
 * and, once, `npm run cli -- audit:verify` over the JSON Lines export (entries/s).
 *
 * Run: npm run build && node dist/bench/event-log/audit-export.js
 *   env: AUDIT_BENCH_ENTRIES (50000), AUDIT_BENCH_ROUNDS (3), AUDIT_BENCH_CONCURRENCY (32),
 *        AUDIT_BENCH_ZONES (32), AUDIT_BENCH_VERIFY (1; 0 skips the CLI), AUDIT_BENCH_STALL_SECONDS (8)
 */
import { execFile } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { Client, Dispatcher, Pool } from 'undici';
import { BENCH_ADMIN_TOKEN as ADMIN, BenchService, eliteAccount, startBenchService } from '../support/bench-service';

const ENTRIES = Number(process.env.AUDIT_BENCH_ENTRIES ?? 50_000);
const ROUNDS = Number(process.env.AUDIT_BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.AUDIT_BENCH_CONCURRENCY ?? 32);
const ZONES = Number(process.env.AUDIT_BENCH_ZONES ?? 32);
const VERIFY = process.env.AUDIT_BENCH_VERIFY !== '0';
/** How long the stalled client stops reading: longer than a whole export takes. */
const STALL_SECONDS = Number(process.env.AUDIT_BENCH_STALL_SECONDS ?? 8);
const CLI = resolve(__dirname, '..', '..', 'apps', 'cli', 'main.js');

const rssMiB = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
/** Bytes the process has read through read(2)/pread(2): the stores' pages that missed SQLite's cache (it does not mmap). */
const rcharMB = (pid: number): number => {
  const m = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) / 1e6 : NaN;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Service extends BenchService {
  pool: Pool;
}

async function request(s: Service, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await s.pool.request({
    method: method as Dispatcher.HttpMethod,
    path,
    headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
    body: payload,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

async function start(): Promise<Service> {
  const service = await startBenchService('audit-export');
  return { ...service, pool: new Pool(service.base, { connections: CONCURRENCY + 4 }) };
}

async function stop(s: Service): Promise<void> {
  await s.pool.close();
  await s.stop();
}

/** An Elite account whose audit log holds at least ENTRIES entries; answers its token and the instant before the last ~1%. */
async function populate(s: Service): Promise<{ token: string; tailFrom: string }> {
  const { token } = await eliteAccount(s.base, 'auditbench');
  const auth = { authorization: `Bearer ${token}` };
  const zones = Array.from({ length: ZONES }, (_, i) => `z${i}.audit-bench.example`);
  for (const name of zones) {
    const res = await request(s, 'POST', '/zones', auth, { name });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  }
  const started = Date.now();
  let next = 0;
  let tailFrom = '';
  const tail = Math.floor(ENTRIES * 0.99);
  // Each writer owns zones (one stream each), so writes never conflict; each PUT is one audited change.
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let k = 0; ; k++) {
        const n = next++;
        if (n >= ENTRIES) return;
        if (n === tail) tailFrom = new Date().toISOString();
        const zone = zones[w % ZONES];
        const res = await request(s, 'PUT', `/zones/${zone}/records`, auth, {
          records: [{ subname: 'www', type: 'A', ttl: 300, records: [`192.0.2.${(k % 250) + 1}`] }],
        });
        if (res.status !== 200) throw new Error(`PUT records ${zone}: ${res.status} ${res.text}`);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `wrote ${ENTRIES} record changes in ${seconds.toFixed(1)} s (${Math.round(ENTRIES / seconds)}/s) over ${ZONES} zones, ${CONCURRENCY} writers`,
  );
  return { token, tailFrom };
}

interface Reading {
  entries: number;
  bytes: number;
  seconds: number;
  rssBefore: number;
  rssPeak: number;
  /** MB the server read from its files meanwhile. */
  storeReadMB: number;
}

/** Reads a body to the end, counting bytes and lines (as `entries`), while sampling the server's RSS. */
async function measure(s: Service, read: (onChunk: (b: Buffer) => void) => Promise<void>): Promise<Reading> {
  const pid = s.child.pid!;
  const rssBefore = rssMiB(pid);
  const rcharBefore = rcharMB(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 20);
  let bytes = 0;
  let lines = 0;
  const started = process.hrtime.bigint();
  await read((b) => {
    bytes += b.length;
    for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssMiB(pid));
  return { entries: lines, bytes, seconds, rssBefore, rssPeak, storeReadMB: rcharMB(pid) - rcharBefore };
}

async function exportReading(s: Service, token: string, query: string): Promise<Reading> {
  const r = await measure(s, async (onChunk) => {
    const res = await s.pool.request({
      method: 'GET',
      path: `/account/audit/export${query}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.statusCode !== 200) throw new Error(`export ${query}: ${res.statusCode} ${await res.body.text()}`);
    for await (const chunk of res.body) onChunk(chunk as Buffer);
  });
  // One line per entry, plus the CSV's header.
  return { ...r, entries: query.includes('csv') ? r.entries - 1 : r.entries };
}

/**
 * A client that reads the first chunk of the JSON Lines export and then stops reading for
 * STALL_SECONDS (longer than the whole export takes at full speed). A server that buffered
 * the history would hold it all by then; one that waits for the socket holds a page or two.
 * Answers the server's RSS before and its peak during the stall, and what it read from its
 * files meanwhile (a server producing the whole export would read the history's pages).
 */
async function stalledReading(
  s: Service,
  token: string,
): Promise<{ rssBefore: number; rssPeak: number; storeReadMB: number }> {
  const pid = s.child.pid!;
  // A connection of its own: one the pool used at full speed has had its kernel receive buffer grown (up to
  // tcp_rmem's maximum, 32 MiB here), which would hold most of the export out of the server's sight.
  const client = new Client(`http://127.0.0.1:${s.port}`);
  const res = await client.request({
    method: 'GET',
    path: '/account/audit/export?format=jsonl',
    headers: { authorization: `Bearer ${token}` },
    highWaterMark: 64 * 1024,
  });
  const rssBefore = rssMiB(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 20);
  const iterator = res.body[Symbol.asyncIterator]();
  await iterator.next();
  const rcharBefore = rcharMB(pid);
  await new Promise((ok) => setTimeout(ok, STALL_SECONDS * 1000));
  clearInterval(sampler);
  const storeReadMB = rcharMB(pid) - rcharBefore;
  for (let r = await iterator.next(); !r.done; r = await iterator.next());
  await client.close();
  return { rssBefore, rssPeak, storeReadMB };
}

/** The whole history through `/account/audit` pages of 100, newest first (the current read). */
async function pagesReading(s: Service, token: string): Promise<Reading> {
  let entries = 0;
  const r = await measure(s, async (onChunk) => {
    for (let cursor: string | null = ''; cursor !== null;) {
      const res = await s.pool.request({
        method: 'GET',
        path: `/account/audit?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        headers: { authorization: `Bearer ${token}` },
      });
      const text = await res.body.text();
      onChunk(Buffer.from(text));
      const page = JSON.parse(text) as { data: unknown[]; next_cursor: string | null };
      entries += page.data.length;
      cursor = page.next_cursor;
    }
  });
  return { ...r, entries };
}

const row = (name: string, rs: Reading[]) => {
  const rate = median(rs.map((r) => r.entries / r.seconds));
  const mbs = median(rs.map((r) => r.bytes / 1e6 / r.seconds));
  const r = rs[0];
  return (
    `${name.padEnd(34)} ${String(r.entries).padStart(7)} ${(r.bytes / 1e6).toFixed(1).padStart(7)} MB ` +
    `${Math.round(rate).toString().padStart(9)} entries/s ${mbs.toFixed(1).padStart(6)} MB/s ` +
    `store read ${median(rs.map((x) => x.storeReadMB))
      .toFixed(1)
      .padStart(5)} MB ` +
    `${median(rs.map((x) => x.seconds * 1000))
      .toFixed(0)
      .padStart(
        7,
      )} ms   RSS ${Math.round(median(rs.map((x) => x.rssBefore)))} → peak ${Math.round(Math.max(...rs.map((x) => x.rssPeak)))} MiB`
  );
};

export async function run(): Promise<void> {
  const s = await start();
  try {
    console.log(
      `audit export bench: ${ENTRIES} entries, ${ROUNDS} rounds (service as npm start runs it, pid ${s.child.pid})`,
    );
    const { token, tailFrom } = await populate(s);
    console.log(`server RSS after writing: ${Math.round(rssMiB(s.child.pid!))} MiB`);
    const cases: Array<[string, () => Promise<Reading>]> = [
      ['export jsonl (whole history)', () => exportReading(s, token, '?format=jsonl')],
      ['export csv (whole history)', () => exportReading(s, token, '?format=csv')],
      [
        'export jsonl (last ~1%, from=)',
        () => exportReading(s, token, `?format=jsonl&from=${encodeURIComponent(tailFrom)}`),
      ],
      ['/account/audit pages of 100', () => pagesReading(s, token)],
    ];
    // A warm-up pass of each (JIT, page cache), not counted.
    for (const [, c] of cases) await c();
    const results = new Map<string, Reading[]>(cases.map(([n]) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) for (const [n, c] of cases) results.get(n)!.push(await c());
    console.log('\nmedian of rounds (each case once per round, in turn):');
    for (const [n, rs] of results) console.log(row(n, rs));
    const stalls = [];
    for (let round = 0; round < ROUNDS; round++) stalls.push(await stalledReading(s, token));
    console.log(
      `export jsonl, client stalled ${STALL_SECONDS} s after its first chunk: RSS ${Math.round(median(stalls.map((x) => x.rssBefore)))} → peak ` +
        `${Math.round(Math.max(...stalls.map((x) => x.rssPeak)))} MiB during the stall, the server read ` +
        `${median(stalls.map((x) => x.storeReadMB)).toFixed(1)} MB ` +
        `from its files meanwhile (the export is ${(results.get(cases[0][0])![0].bytes / 1e6).toFixed(1)} MB)`,
    );
    if (VERIFY) {
      const file = join(s.dataDir, 'export.jsonl');
      const res = await s.pool.request({
        method: 'GET',
        path: '/account/audit/export?format=jsonl',
        headers: { authorization: `Bearer ${token}` },
      });
      await pipeline(res.body, createWriteStream(file));
      const started = Date.now();
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'audit:verify', file], {
        env: { ...process.env, ADMIN_URL: `http://127.0.0.1:${s.port}`, ADMIN_TOKEN: ADMIN },
        maxBuffer: 1 << 20,
      });
      const seconds = (Date.now() - started) / 1000;
      const out = JSON.parse(stdout) as { entries: number };
      console.log(
        `\naudit:verify (CLI, against the store): ${out.entries} entries in ${seconds.toFixed(1)} s (${Math.round(out.entries / seconds)} entries/s)`,
      );
    }
  } finally {
    await stop(s);
  }
}

if (require.main === module) {
  run().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
