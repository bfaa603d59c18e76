/**
 * Does a DDNS update cost more once the installation has a month of history? (issue 10:
 * the soak's API p99 rose from 18.8 ms on day 1 to 19–29 ms later.) A fast reproduction of
 * the soak's day-30 shape without running 30 days of probes:
 *
 *  - two services as `npm start` runs them (bench/soak/clocked-service.ts), each on its own
 *    DATA_DIR, set up as the soak sets up (100 accounts, 10,000 DDNS hosts, 1,000 monitored);
 *  - one is then filled, with its service stopped, with FILL_DAYS (29) simulated days written
 *    through the store's own append API by the service's own generators: every host's daily
 *    address change decided by the domain decider on its stream (EventStreams.handle, as the
 *    DDNS command does), then the day's 288 checks per monitored domain through the uptime
 *    worker's check sink, in the worker's order (every domain once per 300 s interval), an
 *    hour of them per commit. Driving the same days through the running service (HTTP, one
 *    fsync'd commit per check interval) took ~3 min per simulated day on the loaded machine;
 *  - both services are (re)started as `npm start` would start them on their DATA_DIR, let
 *    catch up (projections over the whole history), then answer the same DDNS rounds, 16 in
 *    flight as in the soak, alternating between the services so both are measured under the
 *    same machine load. The first round of each runs on a cold command-side state cache.
 *
 * Prints per round: p50/p99 latency, the service's CPU time per update (all threads) and
 * read calls/bytes per update from /proc/<pid>/io; then the day-30 / day-1 ratios.
 *
 * Run: npm run build && node dist/bench/history-growth.bench.js
 * Env: FILL_DAYS (29), ROUNDS (3 per service), GROWTH_SCALE (1 = soak's SOAK_SCALE=1),
 *      GROWTH_PROFILE_DIR (write a CPU profile of each service's last round there),
 *      WITH_CHECKS=1 (append a day of checks right before each round without waiting for the
 *      read models, as the soak does: the round then overlaps their projection),
 *      GROWTH_DIR (keep the two installations in GROWTH_DIR/{empty,filled} and, when they are
 *      already there, reuse them without setup or fill: to compare builds on the same history).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreams } from '../libs/eventstore/event-streams';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { freePort } from './dns/processes';
import {
  ClockedService,
  ddnsDay,
  Host,
  request,
  setUpInstallation,
  startClockedService,
  stopService,
  untilIdle as settle,
  usage,
} from './soak/driver';
import { appendChecks, DAY_MS, fillDay } from './soak/history-fill';

const SCALE = Number(process.env.GROWTH_SCALE ?? 1);
const FILL_DAYS = Number(process.env.FILL_DAYS ?? 29);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PROFILE_DIR = process.env.GROWTH_PROFILE_DIR;
const KEEP_DIR = process.env.GROWTH_DIR;
/** WITH_CHECKS=1: append a day of checks right before each round, as the soak's days go. */
const WITH_CHECKS = process.env.WITH_CHECKS === '1';
const START = Date.parse('2026-01-01T00:00:00Z');
/** Written into a kept installation's DATA_DIR: what a later run needs to reuse it. */
const STATE_FILE = 'history-growth.json';
const HOSTS = Math.max(1, Math.round(10_000 * SCALE));
const MONITORED = Math.max(1, Math.round(1_000 * SCALE));
const ACCOUNTS = Math.max(1, Math.round(100 * SCALE));

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
  /** How long the service stayed busy after the round (the day's checks still being projected). */
  catchUpS: number;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const sizeOf = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)];
const median = (xs: number[]) => quantile(xs, 0.5);

/** A kept installation's hosts and simulated day, or null. */
function keptState(dataDir: string): { hosts: Host[]; day: number } | null {
  const file = join(dataDir, STATE_FILE);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

function keep(inst: Installation): void {
  if (KEEP_DIR) writeFileSync(join(inst.dataDir, STATE_FILE), JSON.stringify({ hosts: inst.hosts, day: inst.day }));
}

async function install(name: string, checkPort: number): Promise<Installation & { reused: boolean }> {
  const dataDir = KEEP_DIR ? join(KEEP_DIR, name) : mkdtempSync(join(tmpdir(), `growth-${name}-`));
  mkdirSync(dataDir, { recursive: true });
  const kept = keptState(dataDir);
  // The service's clock resumes where the kept installation's days ended.
  process.env.SOAK_START = new Date(START + (kept?.day ?? 0) * DAY_MS).toISOString();
  const svc = await startClockedService(dataDir, checkPort);
  process.on('exit', () => svc.child.kill('SIGKILL'));
  if (kept) return { ...svc, name, dataDir, ...kept, reused: true };
  const { hosts } = await setUpInstallation(svc.base, ACCOUNTS, HOSTS, MONITORED);
  return { ...svc, name, dataDir, hosts, day: 0, reused: false };
}

/** Starts the installation's service again, its clock at the installation's day, and waits until it has caught up. */
async function restart(inst: Installation, checkPort: number): Promise<void> {
  if (inst.child.exitCode === null && inst.child.signalCode === null) await stopService(inst);
  process.env.SOAK_START = new Date(START + inst.day * DAY_MS).toISOString();
  const svc = await startClockedService(inst.dataDir, checkPort);
  process.on('exit', () => svc.child.kill('SIGKILL'));
  Object.assign(inst, svc);
  const started = Date.now();
  await settle(inst);
  console.log(
    `  ${inst.name}: restarted on ${mb(sizeOf(inst.dataDir, 'events.db'))} MB of events, caught up in ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

async function measure(inst: Installation, profile: boolean): Promise<Round> {
  await settle(inst);
  inst.day++;
  if (WITH_CHECKS) {
    // As in the soak, where a day's checks are appended without waiting for the read models
    // and the next day's DDNS updates start while the projections still take them in.
    const clock = { now: START + (inst.day - 1) * DAY_MS };
    const store = new SqliteEventStore({ file: join(inst.dataDir, 'events.db'), now: () => clock.now });
    await appendChecks(inst, new EventStreams(store), clock, MONITORED);
    await store.close();
  }
  if (profile)
    await request(
      inst.child,
      { op: 'profile', file: join(PROFILE_DIR!, `${inst.name}-day${inst.day}.cpuprofile`) },
      'profile',
    );
  const before = await usage(inst);
  const latencies = await ddnsDay(inst.base, inst.hosts, inst.day, 16);
  const after = await usage(inst);
  if (profile) await request(inst.child, { op: 'profile', stop: true }, 'profile');
  const settling = Date.now();
  await settle(inst);
  const catchUpS = (Date.now() - settling) / 1000;
  const n = latencies.length;
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpuMsPerUpdate: (after.cpuMs - before.cpuMs) / n,
    readCallsPerUpdate: (after.syscr - before.syscr) / n,
    readKiBPerUpdate: (after.rchar - before.rchar) / n / 1024,
    catchUpS,
  };
}

const row = (inst: Installation, r: Round) =>
  `${inst.name.padEnd(6)} ${String(inst.day).padStart(4)}  ${mb(sizeOf(inst.dataDir, 'events.db')).padStart(9)}  ` +
  `${mb(sizeOf(inst.dataDir, 'readmodels')).padStart(13)}  ${r.p50.toFixed(1).padStart(6)}  ` +
  `${r.p99.toFixed(1).padStart(6)}  ${r.cpuMsPerUpdate.toFixed(3).padStart(10)}  ` +
  `${r.readCallsPerUpdate.toFixed(1).padStart(12)}  ${r.readKiBPerUpdate.toFixed(1).padStart(12)}  ` +
  `${r.catchUpS.toFixed(0).padStart(10)}`;

async function main(): Promise<void> {
  const listener = createServer((s) => s.destroy());
  const checkPort = await freePort();
  await new Promise<void>((r) => listener.listen({ host: '127.0.0.1', port: checkPort }, r));
  const installs: Installation[] = [];
  try {
    console.log(
      `history-growth: ${HOSTS} DDNS hosts, ${MONITORED} monitored, ${ACCOUNTS} accounts; filled store gets ${FILL_DAYS} days`,
    );
    const empty = await install('empty', checkPort);
    installs.push(empty);
    const filled = await install('filled', checkPort);
    installs.push(filled);
    if (!filled.reused) {
      await stopService(filled);
      const fillStarted = Date.now();
      const clock = { now: START };
      const store = new SqliteEventStore({ file: join(filled.dataDir, 'events.db'), now: () => clock.now });
      const streams = new EventStreams(store);
      for (let d = 0; d < FILL_DAYS; d++) {
        await fillDay(filled, streams, clock, MONITORED);
        if ((d + 1) % 5 === 0 || d + 1 === FILL_DAYS)
          console.log(
            `  filled day ${d + 1}: events ${mb(sizeOf(filled.dataDir, 'events.db'))} MB, ${((Date.now() - fillStarted) / 1000).toFixed(0)} s`,
          );
      }
      await store.close();
      keep(filled);
    }
    keep(empty);
    if (filled.reused || empty.reused) console.log(`reused the installations kept in ${KEEP_DIR}`);
    for (const inst of installs) await restart(inst, checkPort);
    console.log(
      'store   day  events MB  readmodels MB  p50 ms  p99 ms  cpu ms/upd  read calls/upd  read KiB/upd  busy after s',
    );
    const results = new Map<Installation, Round[]>(installs.map((i) => [i, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const inst of installs) {
        const round = await measure(inst, PROFILE_DIR !== undefined && r === ROUNDS - 1);
        results.get(inst)!.push(round);
        keep(inst);
        console.log(row(inst, round));
      }
    }
    const med = (inst: Installation, k: keyof Round) => median(results.get(inst)!.map((x) => x[k]));
    for (const k of ['p99', 'cpuMsPerUpdate', 'readCallsPerUpdate', 'catchUpS'] as const) {
      console.log(
        `median ${k}: empty ${med(empty, k).toFixed(3)}, filled ${med(filled, k).toFixed(3)}, ratio ${(med(filled, k) / med(empty, k)).toFixed(2)}`,
      );
    }
  } finally {
    for (const inst of installs) {
      inst.child.kill('SIGKILL');
      if (!KEEP_DIR) rmSync(inst.dataDir, { recursive: true, force: true });
    }
    listener.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
