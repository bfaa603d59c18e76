/**
 * DNS analytics benchmark on the service as deployed (dist/apps/server/main.js, all roles,
 * zone imported through the API):
 *  1. dnsperf max qps and CPU per 1,000 queries with the query log on (its own thread, as
 *     deployed), on but written on the main thread (QUERY_LOG_THREAD=off, the earlier
 *     design), off, on with the log thread at a lower priority (QUERY_LOG_NICE=10), and NSD on
 *     the same zone in the same run, plus p50/p99 at a fixed 5k qps and the share of queries
 *     the log dropped at max qps;
 *  2. rows/s the query-log writer sustains (in the service during the run, and the store alone);
 *  3. summary latency (p50/p99 over HTTP) with a year of daily rollups for 10,000 domains
 *     of one account (and hourly buckets where the summary reads them) seeded directly into the store;
 *  4. export rows/s (CSV streamed over HTTP) of the rows the dnsperf run logged.
 * Prints figures only. Env: ANALYTICS_BENCH_SECONDS (default 5), ANALYTICS_BENCH_DOMAINS
 * (10000), ANALYTICS_BENCH_DAYS (365).
 *
 * Run: npm run bench:dns-analytics
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { IpIntel } from '../libs/dns-analytics/application/ip-intel';
import { QueryLogWriter } from '../libs/dns-analytics/application/query-log-writer';
import { THREAD_WRITER } from '../libs/dns-analytics/application/query-log-thread.protocol';
import { ALL_DOMAINS, bucketStart, emptyCounts, latencySlot } from '../libs/dns-analytics/domain/rollup';
import { SqliteQueryLogStore } from '../libs/dns-analytics/infrastructure/sqlite-query-log.store';
import { Metrics } from '../libs/shared/metrics';
import { latencyAt, maxThroughput } from './dns/dnsperf';
import { nsdInstalled, startNsd } from './dns/nsd';
import { mainThreadCpuSeconds, treeCpuSeconds, waitForQuiet } from './dns/cpu';
import { freePort, stopAllOnExit, stopProcess, waitForAnswer } from './dns/processes';
import { BENCH_ZONE, benchRRsets, dnsperfQueries } from './dns/zone';
import { deployedSpawn, localServiceEnv } from './support/start-command';

const SECONDS = Number(process.env.ANALYTICS_BENCH_SECONDS ?? 5);
const DOMAINS = Number(process.env.ANALYTICS_BENCH_DOMAINS ?? 10_000);
const DAYS = Number(process.env.ANALYTICS_BENCH_DAYS ?? 365);
const FIXED_QPS = 5000;
const ADMIN = 'bench-admin-token-0123456789';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; text: string }> {
  try {
    return await once(port, method, path, headers, body);
  } catch (e) {
    // A keep-alive connection the server closed while the bench was busy seeding: once more on a new one.
    if (!['UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET'].includes((e as { code?: string }).code ?? '')) throw e;
    return once(port, method, path, headers, body);
  }
}

async function once(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(`http://127.0.0.1:${port}${path}`, {
    method: method as 'GET',
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

interface Service {
  child: ChildProcess;
  port: number;
  dnsPort: number;
  token: string;
  accountId: number;
  dataDir: string;
}

/** Starts the service as `npm start` does, registers an Elite account and imports the bench zone through the API. */
async function startService(queryLog: boolean, env: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-bench-'));
  const [port, dnsPort] = [await freePort(), await freePort()];
  const deployed = deployedSpawn(join(__dirname, '..', 'apps', 'server', 'main.js'), {
    ...localServiceEnv(dataDir, port, dnsPort),
    ADMIN_TOKEN: ADMIN,
    LOG_REQUESTS: 'false',
    QUERY_LOG: queryLog ? 'on' : 'off',
    ...env,
  });
  const child = spawn(process.execPath, deployed.args, { env: deployed.env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; ; i++) {
    if ((await http(port, 'GET', '/health').catch(() => ({ status: 0 }))).status === 200) break;
    if (i > 300) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const reg = JSON.parse(
    (
      await http(
        port,
        'POST',
        '/auth/register',
        {},
        { username: 'bench', email: 'bench@example.com', password: 'a-long-enough-password' },
      )
    ).text,
  );
  await http(port, 'PUT', `/admin/accounts/${reg.id}/subscription`, { 'x-admin-token': ADMIN }, { plan: 'elite' });
  const token = JSON.parse(
    (await http(port, 'POST', '/auth/login', {}, { username: 'bench', password: 'a-long-enough-password' })).text,
  ).access_token;
  const zoneFile = [
    '$TTL 300',
    ...[...benchRRsets()].flatMap((r) => r.records.map((v) => `${r.subname} IN ${r.type} ${v}`)),
  ].join('\n');
  const imported = await http(
    port,
    'POST',
    '/zones',
    { authorization: `Bearer ${token}` },
    { name: BENCH_ZONE, zone_file: zoneFile },
  );
  if (imported.status !== 201) throw new Error(`zone import: ${imported.status} ${imported.text}`);
  await waitForAnswer(dnsPort, `host1.${BENCH_ZONE}`);
  await waitForQuiet(child.pid!);
  return { child, port, dnsPort, token, accountId: reg.id, dataDir };
}

async function stopService(s: Service): Promise<void> {
  await stopProcess(s.child, 15_000);
  rmSync(s.dataDir, { recursive: true, force: true });
}

async function metric(port: number, name: string): Promise<number> {
  const text = (await http(port, 'GET', '/metrics')).text;
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

interface DnsFigures {
  qps: number;
  lost: number;
  cpuMsPer1000: number;
  /** The main thread's share (NSD: its whole process tree is counted in cpuMsPer1000 only). */
  mainCpuMsPer1000: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of the answered queries the log dropped (backpressure) during the max-qps phase; null without a log. */
  droppedPct: number | null;
}

/** Until the service's query log has written everything queued (nothing to wait for without a log). */
async function logDrained(httpPort: number | null): Promise<void> {
  if (httpPort === null) return;
  // The query-log thread shows its backlog; the main-thread writer only what it wrote.
  for (let i = 0; i < 600 && (await metric(httpPort, 'dns_query_log_backlog')) > 0; i++)
    await new Promise((r) => setTimeout(r, 250));
  let last = -1;
  for (;;) {
    const now = await metric(httpPort, 'dns_query_log_written_total');
    if (now === last || Number.isNaN(now)) return;
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function measureDns(
  pid: number,
  dnsPort: number,
  queryFile: string,
  httpPort: number | null = null,
): Promise<DnsFigures> {
  await maxThroughput(dnsPort, queryFile, 2); // warm-up
  await logDrained(httpPort);
  const cpu0 = treeCpuSeconds(pid);
  const main0 = mainThreadCpuSeconds(pid);
  const dropped0 = httpPort === null ? NaN : await metric(httpPort, 'dns_query_log_dropped_total');
  const t = await maxThroughput(dnsPort, queryFile, SECONDS);
  // CPU per query includes writing the log of what was answered.
  await logDrained(httpPort);
  const dropped = httpPort === null ? NaN : (await metric(httpPort, 'dns_query_log_dropped_total')) - dropped0;
  const cpu = treeCpuSeconds(pid) - cpu0;
  const mainCpu = mainThreadCpuSeconds(pid) - main0;
  const l = await latencyAt(dnsPort, queryFile, SECONDS, FIXED_QPS);
  const answered = t.sent - t.lost;
  const per1000 = (seconds: number) => (seconds * 1000 * 1000) / Math.max(1, answered);
  const droppedPct = Number.isNaN(dropped) ? null : (100 * dropped) / Math.max(1, answered);
  return {
    qps: t.qps,
    lost: t.lost,
    cpuMsPer1000: per1000(cpu),
    mainCpuMsPer1000: per1000(mainCpu),
    p50Ms: l.p50Ms,
    p99Ms: l.p99Ms,
    droppedPct,
  };
}

/** A year of daily buckets (and 8 days of hourly ones) for DOMAINS domains of one account, plus the account series. */
async function seedYear(
  store: SqliteQueryLogStore,
  accountId: number,
  now: number,
): Promise<{ buckets: number; seconds: number }> {
  const counts = () => {
    const c = emptyCounts();
    c.total = 1000;
    c.latencySumMs = 300;
    c.latency[latencySlot(0.3)] = 1000;
    c.rcodes = { NOERROR: 950, NXDOMAIN: 50 };
    c.qtypes = { A: 700, AAAA: 200, TXT: 50, MX: 50 };
    c.tcp = 20;
    c.dnssecOk = 300;
    c.edns = 900;
    c.ipv6 = 150;
    c.countries = { US: 400, DE: 200, FR: 100, GB: 100, JP: 100, BR: 100 };
    c.asns = { AS13335: 300, AS15169: 300, AS16509: 200, AS8075: 200 };
    c.asOrgs = {
      AS13335: 'Cloudflare, Inc.',
      AS15169: 'Google LLC',
      AS16509: 'Amazon.com, Inc.',
      AS8075: 'Microsoft Corporation',
    };
    c.nxdomain = { 'typo.example': 30, 'old.example': 20 };
    return c;
  };
  const started = Date.now();
  const serialized = JSON.stringify(counts());
  const today = bucketStart(now, 'day');
  const hour = bucketStart(now, 'hour');
  let buckets = 0;
  let batch: Array<{
    accountId: number;
    domain: string;
    granularity: 'day' | 'hour';
    start: number;
    serialized: string;
  }> = [];
  const push = (domain: string, granularity: 'day' | 'hour', start: number) => {
    batch.push({ accountId, domain, granularity, start, serialized });
    if (batch.length >= 50_000) flush();
  };
  const flush = () => {
    store.importRollups(batch);
    buckets += batch.length;
    batch = [];
  };
  // Every domain has a year of days; hourly buckets (35 days are kept) only where the summary reads them here.
  for (let d = 0; d < DOMAINS; d++) {
    const domain = d === 0 ? BENCH_ZONE : `seed${d}.example`;
    for (let day = 0; day < DAYS; day++) push(domain, 'day', today - day * DAY);
  }
  for (const domain of [ALL_DOMAINS, BENCH_ZONE]) {
    for (let day = 0; day < DAYS; day++) if (domain === ALL_DOMAINS) push(domain, 'day', today - day * DAY);
    for (let h = 0; h < 35 * 24; h++) push(domain, 'hour', hour - h * HOUR);
  }
  flush();
  return { buckets, seconds: (Date.now() - started) / 1000 };
}

async function summaryLatency(s: Service, paths: string[], requests: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const res = await http(s.port, 'GET', paths[i % paths.length], { authorization: `Bearer ${s.token}` });
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`summary: ${res.status} ${res.text}`);
  }
  times.sort((a, b) => a - b);
  return {
    p50: times[Math.floor(times.length * 0.5)],
    p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))],
  };
}

async function exportRate(s: Service): Promise<{ rows: number; seconds: number }> {
  const day = new Date().toISOString().slice(0, 10);
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${s.port}/dns-analytics/export?format=csv&start=${day}&end=${day}`, {
    headers: { authorization: `Bearer ${s.token}` },
  });
  let lines = 0;
  for await (const chunk of res.body) for (const b of chunk as Buffer) if (b === 10) lines++;
  return { rows: lines - 1, seconds: (performance.now() - started) / 1000 };
}

/** The writer alone: enrichment with the shipped IP databases and SQLite appends, no DNS in front. */
async function writerRate(): Promise<{ rows: number; seconds: number; cpuMicrosPerRow: number; dropped: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'analytics-writer-'));
  const store = new SqliteQueryLogStore(join(dir, 'q.db'));
  const intel = new IpIntel();
  await intel.ready();
  // Batched as the query-log thread batches.
  const writer = new QueryLogWriter(store, intel, new Metrics(), (e) => console.error(e), {
    ...THREAD_WRITER,
    maxPending: 2_000_000,
  });
  const total = 300_000;
  const now = Date.now();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < total; i++) {
    writer.record({
      name: `host${i % 10_000}.d${i % 1000}.example`,
      type: i % 4 ? 'A' : 'AAAA',
      rcode: i % 10 ? 'NOERROR' : 'NXDOMAIN',
      clientIp: `${1 + (i % 200)}.${(i >> 8) & 255}.${i & 255}.${(i * 7) & 255}`,
      transport: 'udp',
      dnssecOk: i % 3 === 0,
      edns: true,
      durationMs: 0.05,
      timestamp: now + i,
      domain: `d${i % 1000}.example`,
      accountId: String(1 + (i % 10)),
    });
  }
  await writer.close();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { rows: total, seconds, cpuMicrosPerRow: (cpu.user + cpu.system) / total, dropped: writer.dropped };
}

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

async function main(): Promise<void> {
  stopAllOnExit();
  const dir = mkdtempSync(join(tmpdir(), 'analytics-bench-q-'));
  const queryFile = join(dir, 'queries.txt');
  writeFileSync(queryFile, dnsperfQueries());
  const cores = availableParallelism();
  console.log(`${cores} cores (shared machine: figures vary run to run); ${SECONDS}s per dnsperf phase`);
  const results = new Map<string, DnsFigures>();
  try {
    // 1+3+4: the service with the query log on.
    const on = await startService(true);
    try {
      // DNS first, on a store as fresh as the other variants'; then a year of rollups behind the summary.
      const written0 = await metric(on.port, 'dns_query_log_written_total');
      const t0 = performance.now();
      results.set('ours, log on', await measureDns(on.child.pid!, on.dnsPort, queryFile, on.port));
      const written = (await metric(on.port, 'dns_query_log_written_total')) - written0;
      console.log(
        `query log in the service: ${written} rows written during the dnsperf phases ` +
          `(${f(written / ((performance.now() - t0) / 1000))} rows/s averaged), dropped ` +
          `${await metric(on.port, 'dns_query_log_dropped_total')}`,
      );
      await new Promise((r) => setTimeout(r, 1000));
      const exp = await exportRate(on);
      console.log(
        `export (CSV over HTTP): ${exp.rows} rows in ${f(exp.seconds, 2)} s = ${f(exp.rows / exp.seconds)} rows/s`,
      );

      const store = new SqliteQueryLogStore(join(on.dataDir, 'dns-query-log.db'));
      const seeded = await seedYear(store, on.accountId, Date.now());
      await store.close();
      console.log(
        `seeded ${seeded.buckets} rollup buckets (${DOMAINS} domains x ${DAYS} days, 35 days hourly for the ` +
          `account and one zone) in ${f(seeded.seconds, 1)} s`,
      );
      const summaryPaths = [
        '/dns-analytics/summary',
        `/dns-analytics/summary?domain=${BENCH_ZONE}`,
        '/dns-analytics/summary?window=30d',
        '/dns-analytics/summary?window=7d',
      ];
      await summaryLatency(on, summaryPaths, 50); // warm-up: JIT, SQLite page cache
      const summary = await summaryLatency(on, summaryPaths, 400);
      console.log(
        `summary latency over HTTP: p50 ${f(summary.p50, 2)} ms, p99 ${f(summary.p99, 2)} ms (target p99 <= 50 ms)`,
      );
      // The dashboard's volume chart (one rollup bucket read per point: 24 hourly or up to 30 daily), same store, same run.
      const volumePaths = [
        '/dns-analytics/volume',
        `/dns-analytics/volume?domain=${BENCH_ZONE}`,
        '/dns-analytics/volume?window=30d',
        '/dns-analytics/volume?window=7d',
      ];
      await summaryLatency(on, volumePaths, 50);
      const volume = await summaryLatency(on, volumePaths, 400);
      console.log(`volume series latency over HTTP: p50 ${f(volume.p50, 2)} ms, p99 ${f(volume.p99, 2)} ms`);
    } finally {
      await stopService(on);
    }
    const off = await startService(false);
    try {
      results.set('ours, log off', await measureDns(off.child.pid!, off.dnsPort, queryFile, off.port));
    } finally {
      await stopService(off);
    }
    // The query-log thread below the answering threads (QUERY_LOG_NICE, off by default).
    const nice10 = await startService(true, { QUERY_LOG_NICE: '10' });
    try {
      results.set('log on, nice 10', await measureDns(nice10.child.pid!, nice10.dnsPort, queryFile, nice10.port));
    } finally {
      await stopService(nice10);
    }
    // The earlier design side by side: queries forwarded as objects and logged on the main thread.
    const mainThread = await startService(true, { QUERY_LOG_THREAD: 'off' });
    try {
      results.set(
        'log main thread',
        await measureDns(mainThread.child.pid!, mainThread.dnsPort, queryFile, mainThread.port),
      );
    } finally {
      await stopService(mainThread);
    }
    if (nsdInstalled()) {
      const port = await freePort();
      const nsd = startNsd(dir, port, cores);
      try {
        await waitForAnswer(port, `host1.${BENCH_ZONE}`);
        results.set('nsd', await measureDns(nsd.pid!, port, queryFile));
      } finally {
        await stopProcess(nsd);
      }
    } else console.log('nsd is not installed: no NSD column');

    console.log('\nserver          max qps   log dropped   CPU ms/1k q   main thread ms/1k q   p50 @5k     p99 @5k');
    for (const [name, r] of results) {
      const main = name === 'nsd' ? '' : f(r.mainCpuMsPer1000, 2);
      const dropped = r.droppedPct === null ? '' : `${f(r.droppedPct, 2)} %`;
      console.log(
        `${name.padEnd(15)} ${f(r.qps).padStart(8)}   ${dropped.padStart(11)}   ` +
          `${f(r.cpuMsPer1000, 2).padStart(9)}   ${main.padStart(19)}   ${f(r.p50Ms, 3).padStart(7)} ms  ` +
          `${f(r.p99Ms, 3).padStart(7)} ms`,
      );
    }
    const logOn = results.get('ours, log on')!;
    const logOff = results.get('ours, log off')!;
    const nsd = results.get('nsd');
    if (nsd) console.log(`log on / nsd: ${(logOn.qps / nsd.qps).toFixed(2)}x (target >= 1.0x)`);
    console.log(`p99 @5k qps, log on minus log off: ${f(logOn.p99Ms - logOff.p99Ms, 3)} ms (target <= 0.1 ms)`);

    const w = await writerRate();
    console.log(
      `log writer alone (enrich + rollups + SQLite append): ${w.rows} rows in ${f(w.seconds, 2)} s = ` +
        `${f(w.rows / w.seconds)} rows/s, ${f(w.cpuMicrosPerRow, 2)} µs CPU per row, dropped ${w.dropped}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
