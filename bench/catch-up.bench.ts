/**
 * Catch-up after a long stop, and the cost of an idle service: the service as `npm start`
 * runs it (bench/soak/clocked-service.ts) is set up as the soak sets up, stopped, then
 * FILL_DAYS simulated days are written into its event store (bench/soak/history-fill.ts:
 * DDNS changes and uptime checks through the service's own generators), so every
 * projection and process manager (~21 consumers of `$all`) is that far behind when the
 * service starts again. Each round starts the service on a fresh copy of that
 * installation and waits until it is idle; then it measures the idle service for IDLE_S.
 *
 * CATCHUP_OTHER_BUILD=<dist dir of another build> runs that build's service on the same
 * copies, alternating with this one's, so both see the same machine load (the machine is
 * shared: CPU seconds are the steadier figure).
 *
 * Prints per run: events caught up, wall seconds to idle (minus the one idle second that
 * detects it), the service's CPU seconds (all threads, boot included) and events per
 * CPU-second; at idle, CPU ms and read calls per second (/proc/<pid>/io).
 *
 * Run: npm run build && node dist/bench/catch-up.bench.js
 * Env: CATCHUP_SCALE (0.1 = 1,000 hosts, 100 monitored), FILL_DAYS (10), ROUNDS (2), IDLE_S (5),
 *      CATCHUP_STRACE=1 (count the idle service's fcntl and pread64 calls per second, all
 *      threads, with strace -c: SQLite's locks and page reads).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreams } from '../libs/eventstore/event-streams';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { freePort } from './dns/processes';
import { setUpInstallation, startClockedService, stopService, untilIdle, usage } from './soak/driver';
import { DAY_MS, fillDay, FilledInstallation } from './soak/history-fill';

const SCALE = Number(process.env.CATCHUP_SCALE ?? 0.1);
const FILL_DAYS = Number(process.env.FILL_DAYS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const IDLE_S = Number(process.env.IDLE_S ?? 5);
const OTHER = process.env.CATCHUP_OTHER_BUILD;
const STRACE = process.env.CATCHUP_STRACE === '1';
const HOSTS = Math.max(1, Math.round(10_000 * SCALE));
const MONITORED = Math.max(1, Math.round(1_000 * SCALE));
const ACCOUNTS = Math.max(1, Math.round(100 * SCALE));
const START = Date.parse('2026-01-01T00:00:00Z');

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface Build {
  name: string;
  script: string;
}

/** System calls of `pid` (all threads) per second over `seconds`, from strace's summary: "fcntl 12.0/s, ...". */
function syscallsPerSecond(pid: number, seconds: number): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'timeout',
      ['-s', 'INT', String(seconds), 'strace', '-f', '-c', '-e', 'trace=fcntl,pread64', '-p', String(pid)],
      (_err, _out, stderr) => {
        const counts = [
          ...String(stderr).matchAll(/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fcntl|pread64)$/gm),
        ].map((m) => `${m[2]} ${(Number(m[1]) / seconds).toFixed(1)}/s`);
        resolve(counts.length ? counts.join(', ') : 'no fcntl/pread64');
      },
    );
  });
}

async function headOf(file: string): Promise<number> {
  const store = new SqliteEventStore({ file });
  const head = await store.headPosition();
  await store.close();
  return head ? Number(head.commit) : 0;
}

/** The installation every run starts from: set up by the service, then filled while it is stopped. */
async function prepare(dir: string, checkPort: number): Promise<{ behind: number; day: number }> {
  process.env.SOAK_START = new Date(START).toISOString();
  const svc = await startClockedService(dir, checkPort);
  const { hosts } = await setUpInstallation(svc.base, ACCOUNTS, HOSTS, MONITORED);
  await untilIdle(svc);
  await stopService(svc);
  const file = join(dir, 'events.db');
  const before = await headOf(file);
  const clock = { now: START };
  const store = new SqliteEventStore({ file, now: () => clock.now });
  const streams = new EventStreams(store);
  const inst: FilledInstallation = { hosts, day: 0 };
  for (let d = 0; d < FILL_DAYS; d++) await fillDay(inst, streams, clock, MONITORED);
  await store.close();
  return { behind: (await headOf(file)) - before, day: inst.day };
}

async function run(build: Build, template: string, day: number, behind: number, checkPort: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `catchup-${build.name}-`));
  try {
    cpSync(template, dir, { recursive: true });
    process.env.SOAK_START = new Date(START + day * DAY_MS).toISOString();
    const loadBefore = load();
    const started = performance.now();
    const svc = await startClockedService(dir, checkPort, [], 'ignore', build.script);
    try {
      await untilIdle(svc);
      const wallS = (performance.now() - started) / 1000 - 1;
      const busy = await usage(svc);
      const traced = STRACE ? syscallsPerSecond(svc.child.pid!, IDLE_S) : null;
      await new Promise((r) => setTimeout(r, IDLE_S * 1000));
      const idle = await usage(svc);
      const calls = traced ? `, ${await traced}` : '';
      const cpuS = busy.cpuMs / 1000;
      console.log(
        `${build.name.padEnd(6)} caught up ${behind.toLocaleString('en-US')} events in ${wallS.toFixed(1)} s ` +
          `(${Math.round(behind / wallS).toLocaleString('en-US')} events/s), ` +
          `CPU ${cpuS.toFixed(1)} s (${Math.round(behind / cpuS).toLocaleString('en-US')} events per CPU-second); ` +
          `idle: ${((idle.cpuMs - busy.cpuMs) / IDLE_S).toFixed(1)} CPU ms/s, ` +
          `${((idle.syscr - busy.syscr) / IDLE_S).toFixed(0)} read calls/s${calls}  [load ${loadBefore} → ` +
          `${load()}]`,
      );
    } finally {
      await stopService(svc);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const listener = createServer((s) => s.destroy());
  const checkPort = await freePort();
  await new Promise<void>((r) => listener.listen({ host: '127.0.0.1', port: checkPort }, r));
  const template = mkdtempSync(join(tmpdir(), 'catchup-template-'));
  try {
    const { behind, day } = await prepare(template, checkPort);
    console.log(
      `catch-up: ${HOSTS} DDNS hosts, ${MONITORED} monitored, ${FILL_DAYS} days ` +
        `(${behind.toLocaleString('en-US')} events) written while stopped; load ${load()}`,
    );
    const builds: Build[] = [{ name: 'this', script: join(__dirname, 'soak', 'clocked-service.js') }];
    if (OTHER) builds.push({ name: 'other', script: join(OTHER, 'bench', 'soak', 'clocked-service.js') });
    for (let r = 0; r < ROUNDS; r++)
      for (const b of r % 2 ? [...builds].reverse() : builds) await run(b, template, day, behind, checkPort);
  } finally {
    rmSync(template, { recursive: true, force: true });
    listener.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
