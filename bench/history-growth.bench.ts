/**
 * Does a DDNS update cost more once the installation has a month of history? (issue 10:
 * the soak's API p99 rose from 18.8 ms on day 1 to 19–29 ms later.) A fast reproduction of
 * the soak's day-30 shape without running 30 days of probes:
 *
 *  - two services as `npm start` runs them (bench/soak/clocked-service.ts), each on its own
 *    DATA_DIR, set up as the soak sets up (100 accounts, 10,000 DDNS hosts, 1,000 monitored);
 *  - one is filled with FILL_DAYS (29) simulated days: every host's daily address change
 *    through the API (64 in flight), then the day's 288 checks per monitored domain, in the
 *    worker's order (every domain once per 300 s interval) and through its own check sink,
 *    but appended by this process to the service's events.db, an hour of checks per commit
 *    (the service follows another process's appends as it does in a multi-process
 *    deployment): recording them live, one fsync'd commit per interval, takes ~2 min per
 *    simulated day on a loaded machine;
 *  - then both answer the same DDNS rounds, 16 in flight as in the soak, alternating between
 *    the services so both are measured under the same machine load.
 *
 * Prints per round: p50/p99 latency, the service's CPU time per update (all threads) and
 * read calls/bytes per update from /proc/<pid>/io; then the day-30 / day-1 ratios.
 *
 * Run: npm run build && node dist/bench/history-growth.bench.js
 * Env: FILL_DAYS (29), ROUNDS (3 per service), GROWTH_SCALE (1 = soak's SOAK_SCALE=1),
 *      GROWTH_PROFILE_DIR (write a CPU profile of each service's last round there).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreams } from '../libs/eventstore/event-streams';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { EventStoreCheckSink } from '../libs/uptime/application/check-recorder';
import { freePort } from './dns/processes';
import { ClockedService, ddnsDay, Host, request, setUpInstallation, startClockedService } from './soak/driver';

const SCALE = Number(process.env.GROWTH_SCALE ?? 1);
const FILL_DAYS = Number(process.env.FILL_DAYS ?? 29);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PROFILE_DIR = process.env.GROWTH_PROFILE_DIR;
const HOSTS = Math.max(1, Math.round(10_000 * SCALE));
const MONITORED = Math.max(1, Math.round(1_000 * SCALE));
const ACCOUNTS = Math.max(1, Math.round(100 * SCALE));
const DAY_MS = 86_400_000;
const CHECK_INTERVAL_MS = 300_000;
const INTERVALS_PER_COMMIT = 12;

interface Installation extends ClockedService {
  name: string;
  dataDir: string;
  hosts: Host[];
  day: number;
}

interface Round {
  p50: number;
  p99: number;
  cpuMsPerUpdate: number;
  readCallsPerUpdate: number;
  readKiBPerUpdate: number;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const sizeOf = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)];
const median = (xs: number[]) => quantile(xs, 0.5);

async function usage(svc: ClockedService): Promise<{ cpuMs: number; syscr: number; rchar: number }> {
  const u = await request(svc.child, { op: 'usage' }, 'usage');
  return { cpuMs: (u.cpu.user + u.cpu.system) / 1000, syscr: u.io.syscr ?? NaN, rchar: u.io.rchar ?? NaN };
}

/** Waits until the service has gone (nearly) idle: projections caught up after a fill. */
async function settle(svc: ClockedService): Promise<void> {
  for (let last = await usage(svc); ; ) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await usage(svc);
    if (now.cpuMs - last.cpuMs < 50) return;
    last = now;
  }
}

async function install(name: string, checkPort: number): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), `growth-${name}-`));
  const svc = await startClockedService(dataDir, checkPort);
  process.on('exit', () => svc.child.kill('SIGKILL'));
  const { hosts } = await setUpInstallation(svc.base, ACCOUNTS, HOSTS, MONITORED);
  return { ...svc, name, dataDir, hosts, day: 0 };
}

/**
 * One simulated day of history: every host's address change, then the day's checks
 * (`store`: this process's connection to the service's events.db, on the simulated clock).
 */
async function fillDay(inst: Installation, store: SqliteEventStore, clock: { now: number }): Promise<void> {
  inst.day++;
  await ddnsDay(inst.base, inst.hosts, inst.day, 64);
  const sink = new EventStoreCheckSink(new EventStreams(store), 'worker:0');
  const targets = inst.hosts.slice(0, MONITORED).map((h) => ({ domainId: h.id, accountId: h.account.id, ip: '127.0.0.1' }));
  const dayEnd = clock.now + DAY_MS;
  while (clock.now < dayEnd) {
    // Appends made in one event-loop turn are committed together: one transaction per hour.
    const appended: Promise<void>[] = [];
    for (let i = 0; i < INTERVALS_PER_COMMIT; i++) {
      clock.now += CHECK_INTERVAL_MS;
      const at = new Date(clock.now);
      for (const t of targets) appended.push(sink.record(t, at, { up: true, responseTimeMs: 0, error: null, port: 80 }));
    }
    await Promise.all(appended);
  }
  await request(inst.child, { op: 'clock', ms: DAY_MS }, 'clock');
}

async function measure(inst: Installation, profile: boolean): Promise<Round> {
  await settle(inst);
  inst.day++;
  if (profile) await request(inst.child, { op: 'profile', file: join(PROFILE_DIR!, `${inst.name}-day${inst.day}.cpuprofile`) }, 'profile');
  const before = await usage(inst);
  const latencies = await ddnsDay(inst.base, inst.hosts, inst.day, 16);
  const after = await usage(inst);
  if (profile) await request(inst.child, { op: 'profile', stop: true }, 'profile');
  const n = latencies.length;
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpuMsPerUpdate: (after.cpuMs - before.cpuMs) / n,
    readCallsPerUpdate: (after.syscr - before.syscr) / n,
    readKiBPerUpdate: (after.rchar - before.rchar) / n / 1024,
  };
}

const row = (inst: Installation, r: Round) =>
  `${inst.name.padEnd(6)} ${String(inst.day).padStart(4)}  ${mb(sizeOf(inst.dataDir, 'events.db')).padStart(9)}  ${mb(sizeOf(inst.dataDir, 'readmodels')).padStart(13)}  ${r.p50.toFixed(1).padStart(6)}  ${r.p99.toFixed(1).padStart(6)}  ${r.cpuMsPerUpdate.toFixed(3).padStart(10)}  ${r.readCallsPerUpdate.toFixed(1).padStart(12)}  ${r.readKiBPerUpdate.toFixed(1).padStart(12)}`;

async function main(): Promise<void> {
  const listener = createServer((s) => s.destroy());
  const checkPort = await freePort();
  await new Promise<void>((r) => listener.listen({ host: '127.0.0.1', port: checkPort }, r));
  const installs: Installation[] = [];
  try {
    console.log(`history-growth: ${HOSTS} DDNS hosts, ${MONITORED} monitored, ${ACCOUNTS} accounts; filled store gets ${FILL_DAYS} days`);
    const empty = await install('empty', checkPort);
    installs.push(empty);
    const filled = await install('filled', checkPort);
    installs.push(filled);
    const fillStarted = Date.now();
    const clock = { now: (await request(filled.child, { op: 'clock', ms: 0 }, 'clock')).now as number };
    const store = new SqliteEventStore({ file: join(filled.dataDir, 'events.db'), now: () => clock.now });
    for (let d = 0; d < FILL_DAYS; d++) {
      await fillDay(filled, store, clock);
      if ((d + 1) % 5 === 0 || d + 1 === FILL_DAYS) console.log(`  filled day ${d + 1}: events ${mb(sizeOf(filled.dataDir, 'events.db'))} MB, ${((Date.now() - fillStarted) / 1000).toFixed(0)} s`);
    }
    await store.close();
    console.log('store   day  events MB  readmodels MB  p50 ms  p99 ms  cpu ms/upd  read calls/upd  read KiB/upd');
    const results = new Map<Installation, Round[]>(installs.map((i) => [i, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const inst of installs) {
        const round = await measure(inst, PROFILE_DIR !== undefined && r === ROUNDS - 1);
        results.get(inst)!.push(round);
        console.log(row(inst, round));
      }
    }
    const med = (inst: Installation, k: keyof Round) => median(results.get(inst)!.map((x) => x[k]));
    for (const k of ['p99', 'cpuMsPerUpdate', 'readCallsPerUpdate'] as const) {
      console.log(`median ${k}: empty ${med(empty, k).toFixed(3)}, filled ${med(filled, k).toFixed(3)}, ratio ${(med(filled, k) / med(empty, k)).toFixed(2)}`);
    }
  } finally {
    for (const inst of installs) {
      inst.child.kill('SIGKILL');
      rmSync(inst.dataDir, { recursive: true, force: true });
    }
    listener.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
