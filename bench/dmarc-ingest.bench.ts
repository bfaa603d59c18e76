/**
 * DMARC report ingestion benchmark, against the running service (the compiled server
 * spawned as its own process, as `npm start` runs it), through HTTP (`POST /admin/reports`):
 *
 *  (a) one generated aggregate report of LARGE records (default 50,000), gzip: seconds from
 *      sending to the 201 (parse, one atomic append of header + chunks, and the read model
 *      rows written, since the answer waits for the projections), and the server's peak RSS.
 *  (b) TYPICAL reports (default 2,000) of 10–50 records each, gzip, CONCURRENCY in flight:
 *      reports/s and records/s.
 *
 * Parse speed is compared side by side with `dmarc-cat -N` (Debian; no DNS lookups) on the
 * same XML files: our parser in this process against dmarc-cat's whole run (it parses and
 * prints a table).
 *
 * A 50,000-record report is ~16 MB of XML, above the contract's 10 MiB unpacked limit, so
 * the server runs with REPORT_MAX_UNPACKED_BYTES=32 MiB for this bench (the default stays
 * 10 MiB); the bench says so in its output.
 *
 * Run: npm run bench:dmarc-ingest
 *   env: DMARC_BENCH_LARGE (50000), DMARC_BENCH_TYPICAL (2000; 0: only the large report),
 *        DMARC_BENCH_CONCURRENCY (8), DMARC_BENCH_NODE_ARGS (flags for the server process, e.g.
 *        --cpu-prof); the server inherits the environment, so QUERY_LOG_THREAD=off measures
 *        the ingestion without the query-log thread's share of the resident memory.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ReportParser } from '../libs/dmarc-reports/application/report-parser';
import { generatedAggregateReport } from './dmarc/generated-report';
import { freePort } from './dns/processes';
import { deployedSpawn, localServiceEnv } from './support/start-command';

const LARGE = Number(process.env.DMARC_BENCH_LARGE ?? 50_000);
const TYPICAL = Number(process.env.DMARC_BENCH_TYPICAL ?? 2_000);
const CONCURRENCY = Number(process.env.DMARC_BENCH_CONCURRENCY ?? 8);
const MAX_UNPACKED = 32 * 1024 * 1024;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const ROOT = join(__dirname, '..', '..');
const SERVER_MAIN = join(ROOT, 'dist', 'apps', 'server', 'main.js');
/** dmarc-cat files compared on the typical side (each is its own process). */
const CAT_FILES = 50;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
/** The memory target is in MB (10^6 bytes); /proc counts KiB, so both are printed. */
const mbAndMib = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB (${mib(bytes)} MiB)`;
const PEAK_TARGET_BYTES = 300e6;

/** Peak and current resident set of a process, from /proc (kB → bytes). */
function memoryOf(pid: number): { peak: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { peak: kb('VmHWM'), rss: kb('VmRSS') };
}

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s on Linux). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  // DMARC_BENCH_NODE_ARGS passes flags to the server process (e.g. --cpu-prof to see where the time goes).
  const nodeArgs = (process.env.DMARC_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const deployed = deployedSpawn(
    SERVER_MAIN,
    {
      ...localServiceEnv(dataDir, port, await freePort(), await freePort()),
      ADMIN_TOKEN,
      SECRET_KEY: 'bench-secret-key',
      LOG_REQUESTS: 'false',
      REPORT_MAX_UNPACKED_BYTES: String(MAX_UNPACKED),
    },
    nodeArgs,
  );
  const child = spawn(process.execPath, deployed.args, { env: deployed.env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function json(url: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function postReport(url: string, gz: Buffer): Promise<{ record_count: number }> {
  const res = await fetch(`${url}/admin/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/gzip', 'x-admin-token': ADMIN_TOKEN },
    body: gz,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`report refused: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Wall and CPU seconds of a piece of work: CPU is what a loaded machine does not distort. */
interface Timing {
  wall: number;
  cpu: number;
}

/**
 * dmarc-cat over each file, one process per file as it is used; CPU from the shell's
 * `times` (user + system of its children), so the comparison holds on a loaded machine.
 */
function dmarcCat(files: string[]): Timing | null {
  const script = 'for f in "$@"; do dmarc-cat -N "$f" >/dev/null || exit 1; done; times';
  const started = process.hrtime.bigint();
  const r = spawnSync('sh', ['-c', script, 'sh', ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) {
    if (spawnSync('sh', ['-c', 'command -v dmarc-cat']).status !== 0) return null;
    throw new Error(`dmarc-cat failed: ${r.stderr}`);
  }
  // `times` prints the shell's own user/system times, then its children's: "0m1.234s 0m0.056s".
  const children = r.stdout.trim().split('\n').pop() ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, m) => sum + Number(m[1]) * 60 + Number(m[2]),
    0,
  );
  return { wall, cpu: seconds };
}

/** Our parser over the files in this process (`rounds` times, averaged). */
async function parseTiming(parser: ReportParser, files: Buffer[], rounds = 1): Promise<Timing> {
  const started = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const f of files) await parser.parse(f);
  const cpu = process.cpuUsage(cpu0);
  return {
    wall: Number(process.hrtime.bigint() - started) / 1e9 / rounds,
    cpu: (cpu.user + cpu.system) / 1e6 / rounds,
  };
}

const compared = (what: string, ours: Timing, cat: Timing, note = ''): string =>
  `parse ${what}: ours ${(ours.cpu * 1000).toFixed(1)} ms CPU (${(ours.wall * 1000).toFixed(1)} ms wall), ` +
  `dmarc-cat -N ${(cat.cpu * 1000).toFixed(1)} ms CPU (${(cat.wall * 1000).toFixed(1)} ms wall)${note}, ` +
  `ratio dmarc-cat/ours ${(cat.cpu / ours.cpu).toFixed(1)}x CPU, ${(cat.wall / ours.wall).toFixed(1)}x wall`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dmarc-bench-'));
  const filesDir = mkdtempSync(join(tmpdir(), 'dmarc-bench-files-'));
  const { child, url } = await startServer(dataDir);
  try {
    const account = await json(`${url}/auth/register`, 'POST', {
      username: 'dmarcbench',
      email: 'dmarcbench@example.com',
      password: 'a-long-enough-password',
    });
    await json(
      `${url}/admin/accounts/${account.id}/subscription`,
      'PUT',
      { email_auth: { tier: 'enterprise', domains: ['example.com'] } },
      { 'x-admin-token': ADMIN_TOKEN },
    );
    const pid = child.pid!;
    console.log(
      `server pid ${pid}, REPORT_MAX_UNPACKED_BYTES=${MAX_UNPACKED} (default 10 MiB; a ${LARGE}-record report does not fit in 10 MiB)`,
    );

    // (a) one large report
    const largeXml = generatedAggregateReport(LARGE, { reportId: 'bench-large' });
    const largeGz = gzipSync(largeXml);
    // Resident before the report: the ingestion's own cost is the peak over it (the peak
    // before it is start-up's, which the service may never reach again).
    const idle = memoryOf(pid);
    const cpu0 = cpuSecondsOf(pid);
    const t0 = process.hrtime.bigint();
    const large = await postReport(url, largeGz);
    const largeSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const largeCpu = cpuSecondsOf(pid) - cpu0;
    // The answer waits for the rows' read model only: the stats projection may still be writing.
    await new Promise((r) => setTimeout(r, 1500));
    const afterLarge = memoryOf(pid);
    console.log(
      `(a) ${large.record_count} records (${mib(largeXml.length)} MiB XML, ${(largeGz.length / 1024).toFixed(0)} KiB gzip): ` +
        `${largeSeconds.toFixed(2)} s (server CPU ${largeCpu.toFixed(2)} s), ` +
        `${(large.record_count / largeSeconds).toFixed(0)} records/s, server peak RSS ` +
        `${mbAndMib(afterLarge.peak)}, ` +
        `+${mbAndMib(afterLarge.peak - idle.rss)} over its RSS before the report (${mbAndMib(idle.rss)}; start-up peak ${mbAndMib(idle.peak)}) ` +
        `[targets: < 3 s ${largeSeconds < 3 ? 'met' : 'NOT met'}, peak < 300 MB = ${mib(PEAK_TARGET_BYTES)} MiB ` +
        `${afterLarge.peak < PEAK_TARGET_BYTES ? 'met' : 'NOT met'}]`,
    );
    if (TYPICAL === 0) return;

    // (b) typical reports, gzip, CONCURRENCY in flight
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const typicalXml = Array.from({ length: TYPICAL }, (_, i) =>
      generatedAggregateReport(10 + Math.floor(random() * 41), {
        reportId: `bench-typical-${i}`,
        org: `reporter${i % 37}.example`,
        begin: 1_700_000_000 + (i % 30) * 86_400,
      }),
    );
    const typicalGz = typicalXml.map((x) => gzipSync(x));
    let next = 0;
    let records = 0;
    const cpu1 = cpuSecondsOf(pid);
    const t1 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < typicalGz.length) {
          const stored = await postReport(url, typicalGz[next++]);
          records += stored.record_count;
        }
      }),
    );
    const typicalSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
    const typicalCpu = cpuSecondsOf(pid) - cpu1;
    console.log(
      `(b) ${TYPICAL} reports, ${records} records, ${CONCURRENCY} in flight: ${typicalSeconds.toFixed(2)} s ` +
        `(server CPU ${typicalCpu.toFixed(2)} s, ` +
        `${((typicalCpu / TYPICAL) * 1000).toFixed(2)} ms per report, ${(TYPICAL / typicalCpu).toFixed(0)} reports per CPU-second), ` +
        `${(TYPICAL / typicalSeconds).toFixed(0)} reports/s, ${(records / typicalSeconds).toFixed(0)} records/s, ` +
        `server peak RSS ${mbAndMib(memoryOf(pid).peak)} ` +
        `[target: >= 300 reports/s: ${TYPICAL / typicalSeconds >= 300 ? 'met' : 'NOT met'} in wall time, ` +
        `${TYPICAL / typicalCpu >= 300 ? 'met' : 'NOT met'} per server CPU-second]`,
    );

    // Parse speed against dmarc-cat on the same files.
    const parser = new ReportParser(MAX_UNPACKED);
    // dmarc-cat picks its reader by the reporter's file-name convention (org!domain!begin!end.xml).
    const largeFile = join(filesDir, 'bench.example!example.com!1700000000!1700086399.xml');
    writeFileSync(largeFile, largeXml);
    const typicalFiles = typicalXml.slice(0, CAT_FILES).map((x, i) => {
      const f = join(filesDir, `reporter${i % 37}.example!example.com!1700000000!1700086399!${i}.xml`);
      writeFileSync(f, x);
      return f;
    });
    const oursLarge = await parseTiming(parser, [largeXml]);
    const oursTypical = await parseTiming(parser, typicalXml.slice(0, CAT_FILES), 5);
    const catLarge = dmarcCat([largeFile]);
    const catTypical = dmarcCat(typicalFiles);
    if (catLarge === null || catTypical === null) {
      console.log('dmarc-cat not installed (Debian package dmarc-cat): no comparison');
    } else {
      console.log(compared(`${LARGE}-record XML`, oursLarge, catLarge));
      console.log(
        compared(`${CAT_FILES} typical XML files`, oursTypical, catTypical, ' (a process per file, as it is used)'),
      );
    }
    console.log('figures from a shared 2-core machine under load from other work');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(filesDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
