/**
 * Uptime benchmark: one worker's scheduler checking DOMAINS monitored domains over one
 * interval compressed to SECONDS, against real TCP listeners on loopback addresses
 * (127.0.1.1 … 127.0.1.LISTENERS, in a child process so their CPU is not counted), each
 * check appended as a `CheckRecorded` event to the embedded SQLite event store (as the
 * worker does; RECORD=none measures the checks alone). The scheduler, wheel, pool, probe
 * and sink are the production ones; only the target list is in memory instead of the
 * read model.
 *
 * Prints checks/s, the spread (checks started per wall-clock second: max vs mean), the
 * worker's CPU (user+system over the run) and that CPU scaled to the production rate
 * (DOMAINS per UPTIME_INTERVAL_SECONDS=300).
 *
 * Run: npm run build && node dist/bench/uptime.bench.js
 *   env: UPTIME_BENCH_DOMAINS (100000), UPTIME_BENCH_SECONDS (60), UPTIME_BENCH_LISTENERS (16),
 *        UPTIME_BENCH_RECORD (events|none), UPTIME_CONCURRENCY (256), UPTIME_TIMEOUT_MS (2000)
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreams } from '../libs/eventstore/event-streams';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { CheckSink, EventStoreCheckSink } from '../libs/uptime/application/check-recorder';
import { TargetChange, TargetSource } from '../libs/uptime/application/targets';
import { UptimeScheduler } from '../libs/uptime/application/uptime-scheduler';
import { loadConfig } from '../libs/shared/config';

const DOMAINS = Number(process.env.UPTIME_BENCH_DOMAINS ?? 100_000);
const SECONDS = Number(process.env.UPTIME_BENCH_SECONDS ?? 60);
const LISTENERS = Math.min(250, Number(process.env.UPTIME_BENCH_LISTENERS ?? 16));
const RECORD = process.env.UPTIME_BENCH_RECORD ?? 'events';
const CONCURRENCY = loadConfig().uptimeConcurrency;
const TIMEOUT_MS = Number(process.env.UPTIME_TIMEOUT_MS ?? 2000);
const PRODUCTION_INTERVAL_S = 300;
/** The whole run stops by this, whatever happens. */
const DEADLINE_MS = (SECONDS + 60) * 1000 + TIMEOUT_MS;

const addressOf = (i: number) => `127.0.1.${(i % LISTENERS) + 1}`;

/**
 * The targets: listeners that accept and then wait for the checker's reset (they never
 * close first, so no TIME_WAIT piles up on either side). Prints the port once all listen.
 */
function startListeners(): Promise<{ child: ChildProcess; port: number }> {
  const script = `
    const net = require('net');
    const hosts = ${JSON.stringify(Array.from({ length: LISTENERS }, (_, i) => addressOf(i)))};
    const first = net.createServer(onConn);
    function onConn(s) { s.on('error', () => {}); s.resume(); }
    first.listen({ host: hosts[0], port: 0, backlog: 4096 }, () => {
      const port = first.address().port;
      let open = 1;
      for (const host of hosts.slice(1)) net.createServer(onConn).listen({ host, port, backlog: 4096 }, () => {
        if (++open === hosts.length) process.stdout.write(port + '\\n');
      });
      if (hosts.length === 1) process.stdout.write(port + '\\n');
    });
    process.on('SIGTERM', () => {
      const u = process.cpuUsage();
      process.stderr.write('listeners cpu ' + ((u.user + u.system) / 1e6).toFixed(2) + ' s\\n');
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Whatever way the bench ends (deadline, error), the listeners go with it.
  process.on('exit', () => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, port: Number(String(d).trim()) }));
    child.once('exit', (code) => reject(new Error(`listeners exited with ${code}`)));
  });
}

/** Every domain monitored from the start, as the read model would list them. */
const allTargets: TargetSource = {
  async changesSince(cursor) {
    if (cursor > 0) return { changes: [], cursor };
    const changes: TargetChange[] = Array.from({ length: DOMAINS }, (_, i) => ({
      domainId: i + 1,
      accountId: 1 + (i % 1000),
      monitored: true,
      ip: addressOf(i),
    }));
    return { changes, cursor: 1 };
  },
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function main(): Promise<void> {
  const hardStop = setTimeout(() => {
    console.error(`uptime bench: deadline of ${DEADLINE_MS} ms passed; stopping`);
    process.exit(2);
  }, DEADLINE_MS);
  hardStop.unref();

  const { child, port } = await startListeners();
  const dataDir = mkdtempSync(join(tmpdir(), 'uptime-bench-'));
  const store = RECORD === 'events' ? new SqliteEventStore({ file: join(dataDir, 'events.db') }) : null;
  const events = store ? new EventStreams(store) : null;
  const events$ = events ? new EventStoreCheckSink(events, 'worker:0') : null;

  const perSecond = new Map<number, number>();
  const seen = new Set<number>();
  const responseTimes: number[] = [];
  let up = 0;
  let down = 0;
  const errors = new Map<string, number>();
  const sink: CheckSink = {
    async record(target, at, result) {
      const second = Math.floor(at.getTime() / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      seen.add(target.domainId);
      if (result.up) {
        up += 1;
        responseTimes.push(result.responseTimeMs ?? 0);
      } else {
        down += 1;
        errors.set(result.error ?? '?', (errors.get(result.error ?? '?') ?? 0) + 1);
      }
      await events$?.record(target, at, result);
    },
  };
  // Real time, held just short of the end of the one interval measured: a late last tick must not start the next revolution.
  let endOfInterval = Infinity;
  const clock = { now: () => new Date(Math.min(Date.now(), endOfInterval)) };
  const scheduler = new UptimeScheduler(
    {
      intervalMs: SECONDS * 1000,
      ports: [port],
      timeoutMs: TIMEOUT_MS,
      concurrency: CONCURRENCY,
      partition: { index: 0, count: 1 },
      allowPrivateTargets: true,
    },
    allTargets,
    sink,
    clock,
  );
  await scheduler.sync(Date.now());
  const occupancy = scheduler.wheel.occupancy();
  console.log(
    `uptime bench: ${DOMAINS} domains on ${LISTENERS} loopback listeners, interval ${SECONDS} s in ${occupancy.length} slots ` +
      `(wheel: ${Math.min(...occupancy)}–${Math.max(...occupancy)} per slot), concurrency ${CONCURRENCY}, record=${RECORD}`,
  );

  // One revolution: a tick at the start of each slot, as the worker's timer does, then wait for the last checks.
  const slotMs = scheduler.wheel.slotMs;
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  endOfInterval = t0 + SECONDS * 1000 - 1;
  for (let k = 0; k < occupancy.length; k++) {
    const wait = t0 + k * slotMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await scheduler.tick();
  }
  await scheduler.idle();
  const wallS = (Date.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;

  // Seconds fully inside the run (the first and last are partial).
  const seconds = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  const inner = seconds.length > 2 ? seconds.slice(1, -1) : seconds;
  const mean = DOMAINS / SECONDS;
  const maxSlot = Math.max(...inner);
  responseTimes.sort((a, b) => a - b);
  const checks = up + down;
  const productionCores = (cpuS / checks) * (DOMAINS / PRODUCTION_INTERVAL_S);

  console.log(
    `checks: ${checks} (${seen.size} distinct domains), up ${up}, down ${down}${errors.size ? ` ${JSON.stringify(Object.fromEntries(errors))}` : ''}`,
  );
  console.log(
    `wall: ${wallS.toFixed(1)} s, checks/s: ${(checks / wallS).toFixed(0)} (target rate ${mean.toFixed(0)}/s)`,
  );
  console.log(
    `spread: max ${maxSlot} checks in a 1-s slot vs mean ${mean.toFixed(0)} → ${(maxSlot / mean).toFixed(2)}× (min ${Math.min(...inner)})`,
  );
  console.log(
    `connect time: p50 ${percentile(responseTimes, 0.5)} ms, p99 ${percentile(responseTimes, 0.99)} ms, max ` +
      `${responseTimes[responseTimes.length - 1]} ms`,
  );
  console.log(
    `cpu (worker process): ${cpuS.toFixed(2)} s over ${wallS.toFixed(1)} s = ${(cpuS / wallS).toFixed(2)} cores; ` +
      `${((cpuS / checks) * 1e6).toFixed(0)} µs per check`,
  );
  console.log(
    `at the production rate (${DOMAINS} per ${PRODUCTION_INTERVAL_S} s): ${productionCores.toFixed(2)} cores`,
  );
  console.log(`peak rss: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);

  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
  clearTimeout(hardStop);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
