/**
 * Where the deployed service's CPU goes under dnsperf, per class of thread: the DNS threads
 * (user and kernel apart), the query-log thread, the main thread and the rest (V8's GC and
 * compiler helpers, libuv, the read-model writer). The service with the query log on and off
 * (and another build as "before" with DNS_BENCH_BASELINE_MAIN), Knot and NSD, all started once,
 * dnsperf rounds (DNS_BENCH_FLOWS UDP flows, 32) alternating between them; ms of CPU per 1,000 answered queries from
 * /proc/<pid>/task/<tid>/stat, the median over the rounds. DNS and query-log threads are told
 * apart by the names they give themselves (libs/shared/thread-name.ts). Beside CPU, wake-ups
 * (voluntary context switches of all threads) per 1,000 queries: how many queries a server
 * handles per wake-up, the per-batch cost that dominates on a quiet machine.
 *
 * Run: npm run build && node dist/bench/dns-thread-cpu.bench.js
 *   (env: DNS_BENCH_SECONDS (8), DNS_BENCH_ROUNDS (3), DNS_BENCH_BASELINE_MAIN, DNS_BENCH_NSD=off,
 *   DNS_BENCH_KNOT=off, DNS_BENCH_FLOWS,
 *   DNS_BENCH_VARIANTS="name:KEY=value,KEY2=value;name2:KEY=value" for this build with other settings)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { FLOWS, maxThroughput } from './dns/dnsperf';
import { startDeployedService } from './dns/deployed-service';
import { nsdInstalled, startNsd } from './dns/nsd';
import { knotInstalled, startKnot } from './dns/knot';
import { median } from './dns/stats';
import { freePort, stopAllOnExit, stopProcess, waitForAnswer } from './dns/processes';
import { BENCH_ZONE, dnsperfQueries } from './dns/zone';
import { treeCpuTicks, treeWakeups, waitForQuiet } from './dns/cpu';

const SECONDS = Number(process.env.DNS_BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.DNS_BENCH_ROUNDS ?? 3);
const TICKS = 100; // USER_HZ

const CLASSES = ['dns user', 'dns kernel', 'query-log', 'main', 'other'] as const;
type ThreadClass = (typeof CLASSES)[number];

/** CPU ticks per thread class of one process, from its tasks' stat files. */
function threadTicks(pid: number): Record<ThreadClass, number> {
  const out = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<ThreadClass, number>;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const user = Number(f[11]);
      const kernel = Number(f[12]);
      if (comm === 'dns') {
        out['dns user'] += user;
        out['dns kernel'] += kernel;
      } else if (comm === 'query-log') out['query-log'] += user + kernel;
      else if (Number(tid) === pid) out.main += user + kernel;
      else out.other += user + kernel;
    } catch {
      // the thread ended
    }
  }
  return out;
}

interface Contender {
  name: string;
  start(port: number): Promise<ChildProcess>;
  /** Per-class ticks (for NSD and Knot: user and kernel of the whole process tree). */
  ticks(child: ChildProcess): Record<string, number>;
}

const ourBuild = (name: string, mainJs: string, env: NodeJS.ProcessEnv = {}): Contender => ({
  name,
  start: (port) => startDeployedService(mainJs, port, env),
  ticks: (child) => threadTicks(child.pid!),
});

async function main(): Promise<void> {
  stopAllOnExit();
  const mainJs = join(__dirname, '..', 'apps', 'server', 'main.js');
  const contenders: Contender[] = [ourBuild('service', mainJs), ourBuild('nolog', mainJs, { QUERY_LOG: 'off' })];
  if (process.env.DNS_BENCH_BASELINE_MAIN) contenders.push(ourBuild('before', process.env.DNS_BENCH_BASELINE_MAIN));
  // More of this build with other settings: DNS_BENCH_VARIANTS="name:KEY=value;name2:KEY=value,KEY2=value".
  for (const variant of (process.env.DNS_BENCH_VARIANTS ?? '').split(';').filter(Boolean)) {
    const [name, settings] = variant.split(':');
    contenders.push(ourBuild(name, mainJs, Object.fromEntries(settings.split(',').map((kv) => kv.split('=')))));
  }
  const dir = mkdtempSync(join(tmpdir(), 'dns-thread-cpu-'));
  if (process.env.DNS_BENCH_NSD !== 'off' && nsdInstalled())
    contenders.push({
      name: 'nsd',
      start: async (port) => startNsd(dir, port, availableParallelism()),
      ticks: (child) => treeCpuTicks(child.pid!),
    });
  // Knot's threads are all named knotd: user and kernel of the whole process, as for NSD's forked servers.
  if (process.env.DNS_BENCH_KNOT !== 'off' && knotInstalled())
    contenders.push({
      name: 'knot',
      start: async (port) => startKnot(dir, port, availableParallelism()),
      ticks: (child) => treeCpuTicks(child.pid!),
    });
  const queryFile = join(dir, 'queries.txt');
  writeFileSync(queryFile, dnsperfQueries());
  const running: Array<{ c: Contender; child: ChildProcess; port: number }> = [];
  try {
    for (const c of contenders) {
      const port = await freePort();
      const child = await c.start(port);
      await waitForAnswer(port, `host1.${BENCH_ZONE}`);
      await waitForQuiet(child.pid!);
      await maxThroughput(port, queryFile, 2); // warm-up: JIT, caches, socket buffers
      running.push({ c, child, port });
    }
    const perClass = new Map<string, Map<string, number[]>>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { c, child, port } of running) {
        const before = c.ticks(child);
        const wakeups0 = treeWakeups(child.pid!);
        const r = await maxThroughput(port, queryFile, SECONDS);
        const after = c.ticks(child);
        const wakeups = ((treeWakeups(child.pid!) - wakeups0) * 1000) / (r.sent - r.lost);
        const answered = r.sent - r.lost;
        const figures = perClass.get(c.name) ?? new Map<string, number[]>();
        perClass.set(c.name, figures);
        const parts: string[] = [];
        let total = 0;
        for (const k of Object.keys(after)) {
          const ms = (((after[k] - before[k]) / TICKS) * 1000 * 1000) / answered;
          total += ms;
          figures.set(k, [...(figures.get(k) ?? []), ms]);
          parts.push(`${k} ${ms.toFixed(2)}`);
        }
        figures.set('total', [...(figures.get('total') ?? []), total]);
        figures.set('wake-ups/1k q', [...(figures.get('wake-ups/1k q') ?? []), wakeups]);
        figures.set('qps', [...(figures.get('qps') ?? []), r.qps]);
        console.log(
          `round ${round} ${c.name.padEnd(7)} ${Math.round(r.qps)} qps, ms CPU/1k q: total ${total.toFixed(2)} ` +
            `(${parts.join(', ')}); ${wakeups.toFixed(1)} wake-ups/1k q`,
        );
      }
    }
    console.log(`\nms CPU per 1,000 answered queries (${FLOWS} flows), median over the rounds:`);
    for (const [name, figures] of perClass)
      console.log(
        `${name.padEnd(7)} ${[...figures].map(([k, xs]) => `${k} ${k === 'qps' ? Math.round(median(xs)) : median(xs).toFixed(2)}`).join(', ')}`,
      );
    // Servers measured back to back share the machine's load of the moment: compare per round.
    for (const [a, b] of [
      ['service', 'knot'],
      ['nolog', 'knot'],
      ['service', 'nsd'],
      ['service', 'nolog'],
      ['service', 'before'],
    ]) {
      const ta = perClass.get(a)?.get('total');
      const tb = perClass.get(b)?.get('total');
      if (!ta || !tb) continue;
      const ratios = ta.map((x, i) => x / tb[i]);
      console.log(
        `CPU per query ${a}/${b}: ${median(ratios).toFixed(2)}x (rounds ` +
          `${ratios.map((r) => r.toFixed(2)).join(', ')})${a === 'service' && b === 'knot' ? '; issue 31: <= 1.0x' : ''}`,
      );
    }
  } finally {
    for (const { child } of running) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main();
