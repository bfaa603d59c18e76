/**
 * The service for the soak benchmark: the same app `npm start` runs (every role, the
 * stores under DATA_DIR), with a manual clock the benchmark moves over IPC instead of the
 * system clock, so 30 days pass in minutes. Bench-only: production's main.ts is untouched.
 *
 * IPC in:  {op:'advance', ms} moves the clock and runs the uptime checks now due, once per
 *          UPTIME_INTERVAL step; {op:'stats'} asks for memory figures; {op:'snapshot', file}
 *          writes a heap snapshot of the main thread (SOAK_SNAPSHOT_DAYS in the bench).
 *          {op:'clock', ms} only moves the clock (the history-growth bench appends the checks).
 *          {op:'usage'} asks for CPU time and I/O counters; {op:'profile', file} starts a CPU
 *          profile of the main thread, {op:'profile', stop: true} writes it.
 * IPC out: {op:'ready', port}, {op:'done', checks}, {op:'stats', rss, heapUsed, heapTotal, external, rssAnon},
 *          {op:'clock', now}, {op:'usage', cpu, io}, {op:'profile'}.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { createApp } from '../../apps/server/app';
import { ManualClock } from '../../libs/shared/clock';
import { loadConfig } from '../../libs/shared/config';
import { jsonLogger } from '../../libs/shared/logger';
import { UptimeWorker } from '../../libs/uptime/application/uptime.worker';

/** A `kB` figure of /proc/self/status (Linux; 0 elsewhere): RssAnon is the heap-like part of RSS. */
function statusKb(field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** /proc/self/io (Linux): bytes and calls of reads and writes, page-cache hits included (rchar). */
function ioCounters(): Record<string, number> {
  try {
    return Object.fromEntries(
      readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(': '))
        .map(([k, v]) => [k, Number(v)]),
    );
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const clock = new ManualClock(new Date(process.env.SOAK_START ?? '2026-01-01T00:00:00Z'));
  const running = await createApp(config, { clock, logger: jsonLogger(process.stderr, false) });
  await running.app.listen({ port: config.port, host: config.host });
  const worker = running.app.get(UptimeWorker);
  worker.stopTimer();
  const stepMs = config.uptimeIntervalSeconds * 1000;
  let profiler: Session | null = null;
  let profileFile = '';
  process.on('message', (m: { op: string; ms?: number }) => {
    void (async () => {
      if (m.op === 'advance') {
        let checks = 0;
        for (let left = m.ms!; left > 0; left -= stepMs) {
          clock.advance(Math.min(stepMs, left));
          checks += await worker.scheduler.runDue();
        }
        process.send!({ op: 'done', checks });
      } else if (m.op === 'clock') {
        clock.advance(m.ms!);
        process.send!({ op: 'clock', now: clock.now().getTime() });
      } else if (m.op === 'usage') {
        process.send!({ op: 'usage', cpu: process.cpuUsage(), io: ioCounters() });
      } else if (m.op === 'profile') {
        const { file, stop } = m as unknown as { file?: string; stop?: boolean };
        if (!stop) {
          profiler = new Session();
          profiler.connect();
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
          profileFile = file!;
        } else if (profiler) {
          const { profile } = await profiler.post('Profiler.stop');
          writeFileSync(profileFile, JSON.stringify(profile));
          profiler.disconnect();
          profiler = null;
        }
        process.send!({ op: 'profile' });
      } else if (m.op === 'stats') {
        if (global.gc) global.gc();
        const mem = process.memoryUsage();
        if (process.env.SOAK_HEAP_SPACES) {
          const spaces = getHeapSpaceStatistics().map(
            (s) => `${s.space_name} ${(s.space_size / 1048576).toFixed(1)}/${(s.space_used_size / 1048576).toFixed(1)}`,
          );
          process.stderr.write(`heap spaces (MB size/used): ${spaces.join(', ')}\n`);
        }
        process.send!({
          op: 'stats',
          rss: mem.rss,
          heapUsed: mem.heapUsed,
          heapTotal: mem.heapTotal,
          external: mem.external,
          rssAnon: statusKb('RssAnon') * 1024,
        });
      } else if (m.op === 'snapshot') {
        process.send!({ op: 'snapshot', file: writeHeapSnapshot((m as { file?: string }).file) });
      } else if (m.op === 'stop') {
        await running.close();
        process.exit(0);
      }
    })();
  });
  process.send!({ op: 'ready', port: config.port });
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
