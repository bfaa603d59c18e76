/**
 * Soak benchmark: 30 simulated days of an installation at accelerated time, through the
 * service's real stores (the app of `npm start`, embedded event and read stores under a
 * throw-away DATA_DIR, every role) with a manual clock moved over IPC
 * (bench/soak/clocked-service.ts). Each simulated day: every DDNS host changes address
 * once (dyndns2 with its account's key), every monitored domain is checked every 300 s
 * against a local TCP listener, every account uses its key on the API, and the retention
 * pass runs. Prints per day: RSS and heap of the service (after a GC), event-store and
 * read-store size on disk, and the API p99 of that day; then day 1 against the last.
 *
 * Run: npm run build && node dist/bench/soak.bench.js
 * Env: SOAK_SCALE (1 = 10,000 hosts, 1,000 monitored domains, 100 accounts; 0.01 for a
 *      quick run), SOAK_DAYS (30).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './dns/processes';
import { ADMIN_TOKEN, call, ddnsDay, p99, pool, request, setUpInstallation, startClockedService } from './soak/driver';

const SCALE = Number(process.env.SOAK_SCALE ?? 1);
const DAYS = Number(process.env.SOAK_DAYS ?? 30);
const HOSTS = Math.max(1, Math.round(10_000 * SCALE));
const MONITORED = Math.max(1, Math.round(1_000 * SCALE));
const ACCOUNTS = Math.max(1, Math.round(100 * SCALE));
const KEY_USES_PER_ACCOUNT_PER_DAY = 20;
/** Days after which the service writes a heap snapshot to the temp dir, e.g. "1,10": to compare what grows. */
const SNAPSHOT_DAYS = (process.env.SOAK_SNAPSHOT_DAYS ?? '').split(',').filter(Boolean).map(Number);
const DAY_MS = 86_400_000;

const sizeOf = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'soak-'));
  const listener = createServer((s) => s.destroy());
  const checkPort = await freePort();
  await new Promise<void>((r) => listener.listen({ host: '127.0.0.1', port: checkPort }, r));
  // SOAK_SERVICE_FLAGS: extra node flags for the service (e.g. --trace-gc, which prints every
  // isolate's heap, worker threads included, to the service's stdout, then inherited).
  const flags = process.env.SOAK_SERVICE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const { child, base } = await startClockedService(dataDir, checkPort, flags, flags.length ? 'inherit' : 'ignore');
  const stop = () => child.kill('SIGKILL');
  process.on('exit', stop);
  try {
    console.log(
      `soak: ${DAYS} simulated days, ${HOSTS} DDNS hosts, ${MONITORED} monitored domains, ${ACCOUNTS} accounts (scale ${SCALE})`,
    );
    const setupStarted = Date.now();
    const { accounts, hosts } = await setUpInstallation(base, ACCOUNTS, HOSTS, MONITORED);
    console.log(
      `setup: ${HOSTS} hosts (${MONITORED} monitored) in ${((Date.now() - setupStarted) / 1000).toFixed(0)} s`,
    );
    console.log(
      'day   rss MB  heap MB  of MB  ext MB  events MB  readmodels MB  checks  ddns  api p99 ms  pruned  wall s',
    );

    const p99s: number[] = [];
    for (let day = 1; day <= DAYS; day++) {
      const dayStarted = Date.now();
      const latencies = await ddnsDay(base, hosts, day);
      const timed = async (fn: () => Promise<unknown>) => {
        const t = performance.now();
        await fn();
        latencies.push(performance.now() - t);
      };
      // The day's DDNS changes (above) and key uses, then the day's checks (288 intervals of 300 s).
      await pool(
        accounts.flatMap((a) => Array.from({ length: KEY_USES_PER_ACCOUNT_PER_DAY }, () => a)),
        16,
        async (a) => timed(() => call(base, 'GET', '/domains', { authorization: `Bearer ${a.key}` })),
      );
      const { checks } = await request(child, { op: 'advance', ms: DAY_MS }, 'done');
      const pruned = await call(base, 'POST', '/admin/retention/run', { 'x-admin-token': ADMIN_TOKEN });
      const mem = await request(child, { op: 'stats' }, 'stats');
      if (SNAPSHOT_DAYS.includes(day))
        await request(child, { op: 'snapshot', file: join(tmpdir(), `soak-day${day}.heapsnapshot`) }, 'snapshot');
      const dayP99 = p99(latencies);
      p99s.push(dayP99);
      console.log(
        `${String(day).padStart(3)}  ${mb(mem.rss).padStart(7)}  ${mb(mem.heapUsed).padStart(7)}  ` +
          `${mb(mem.heapTotal).padStart(5)}  ${mb(mem.external).padStart(6)}  ` +
          `${mb(sizeOf(dataDir, 'events.db')).padStart(9)}  ${mb(sizeOf(dataDir, 'readmodels')).padStart(13)}  ` +
          `${String(checks).padStart(6)}  ${String(hosts.length).padStart(4)}  ` +
          `${dayP99.toFixed(1).padStart(10)}  ${String(pruned.events_pruned ?? 'n/a').padStart(6)}  ` +
          `${((Date.now() - dayStarted) / 1000).toFixed(0).padStart(6)}`,
      );
    }
    console.log(`API p99: day 1 ${p99s[0].toFixed(1)} ms, day ${DAYS} ${p99s[p99s.length - 1].toFixed(1)} ms`);
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ op: 'stop' });
    await exited;
  } finally {
    stop();
    listener.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
