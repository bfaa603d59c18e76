/**
 * Resident memory of the idle service as `npm start` runs it (every role, embedded stores
 * under a throw-away DATA_DIR), in the variants that matter for the footprint: as
 * deployed (npm start's node flags and environment, bench/support/start-command.ts),
 * the same without the query-log thread, and as a plain `node main.js`. Each
 * variant starts its own process, waits until /health answers and the start-up work has
 * settled, then reads the kernel's figures: VmRSS / VmHWM from /proc/<pid>/status, the
 * anonymous and file-backed parts from /proc/<pid>/smaps_rollup, and the thread count.
 *
 * Run: npm run build && node dist/bench/idle-memory.bench.js
 * Env: IDLE_SETTLE_S (20): seconds to wait after /health before sampling;
 *      IDLE_VARIANTS: comma list of variant names to run (all by default).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './dns/processes';
import { localServiceEnv, startCommand } from './support/start-command';

const SERVER_MAIN = join(__dirname, '..', 'apps', 'server', 'main.js');
const SETTLE_MS = Number(process.env.IDLE_SETTLE_S ?? 20) * 1000;

/** `npm start`'s node flags and environment (package.json): "as deployed". */
const deployed = startCommand();
const VARIANTS: { name: string; env: Record<string, string>; nodeArgs: string[] }[] = [
  { name: 'as deployed', env: deployed.env, nodeArgs: deployed.nodeArgs },
  { name: 'QUERY_LOG_THREAD=off', env: { ...deployed.env, QUERY_LOG_THREAD: 'off' }, nodeArgs: deployed.nodeArgs },
  // What the start settings themselves save: plain `node main.js`.
  { name: 'plain node', env: {}, nodeArgs: [] },
];

/** `Key:   1234 kB` lines of a /proc file (kB there means KiB), in MiB. */
function procFields(file: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) fields[m[1]] = Number(m[2]) / 1024;
  }
  return fields;
}

async function measure(env: Record<string, string>, nodeArgs: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'idle-mem-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN], {
    env: {
      ...process.env,
      ...localServiceEnv(dataDir, port, await freePort()),
      ADMIN_TOKEN: 'idle-admin-token-0123456789',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
      const up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const status = procFields(`/proc/${child.pid}/status`);
    const rollup = procFields(`/proc/${child.pid}/smaps_rollup`);
    const threads = Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
    return { rss: status.VmRSS, hwm: status.VmHWM, anon: rollup.Anonymous, file: status.RssFile, threads };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.env.IDLE_VARIANTS?.split(',');
  console.log(`idle service memory, ${SETTLE_MS / 1000} s after /health; load average ${loadavg()[0].toFixed(1)}`);
  console.log('variant                rss MiB peak MiB anon MiB file MiB  threads');
  for (const v of VARIANTS) {
    if (only && !only.includes(v.name)) continue;
    const m = await measure(v.env, v.nodeArgs);
    const f = (x: number) => x.toFixed(1).padStart(7);
    console.log(
      `${v.name.padEnd(22)} ${f(m.rss)}  ${f(m.hwm)}  ${f(m.anon)}  ${f(m.file)}  ${String(m.threads).padStart(7)}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
