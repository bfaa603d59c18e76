/**
 * DNS benchmark: the service as deployed (`dist/apps/server/main.js`, every role as
 * `npm start` runs them, the 10k-name zone imported through the API) against NSD on the
 * same zone over loopback, both measured with dnsperf: maximum qps, their ratio, and
 * latency at a fixed 5k qps. Beside them, as a micro-benchmark, `lib`: the DNS library
 * alone (cluster, one worker per core, index filled directly). Runs alternate between the
 * servers and the best round of each counts, so a noisy neighbour hurts all alike.
 *
 * Run: npm run build && node dist/bench/dns.bench.js
 * Every server is measured once its start-up work is done (waitForQuiet: the query log's IP
 * data loaded, the read models built), as a running service is.
 * Beside qps, CPU per 1,000 answered queries of each server's whole process tree (from
 * /proc; robust on a busy machine) and, for the service, of its main thread alone: the
 * median over the rounds, and the median of each round's service/NSD ratio (servers
 * measured back to back share the machine's load of the moment).
 * Then p50/p99 at a fixed 5k qps, in rounds alternating between the servers (all started
 * once): the service with the query log on, with it off (QUERY_LOG=off) and NSD.
 *   (env: DNS_BENCH_SECONDS, DNS_BENCH_ROUNDS, DNS_BENCH_SERVERS=service,nolog,lib,nsd,
 *   DNS_BENCH_LATENCY_ROUNDS, DNS_BENCH_LATENCY_SECONDS, DNS_BENCH_BASELINE_MAIN=<another
 *   build's dist/apps/server/main.js>, measured as "before" in the same run)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { latencyAt, maxThroughput, type LatencyResult, type ThroughputResult } from './dns/dnsperf';
import { nsdInstalled, startNsd } from './dns/nsd';
import { startDeployedService } from './dns/deployed-service';
import { mainThreadCpuSeconds, treeCpuSeconds, waitForQuiet } from './dns/cpu';
import { freePort, startProcess, stopAllOnExit, stopProcess, waitForAnswer } from './dns/processes';
import { BENCH_NAMES, BENCH_ZONE, dnsperfQueries } from './dns/zone';

const SECONDS = Number(process.env.DNS_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.DNS_BENCH_ROUNDS ?? 3);
const FIXED_QPS = 5000;
/** Latency at FIXED_QPS: rounds alternate between the servers, all started once, so a burst of load elsewhere hits one round of each, not one server. */
const LATENCY_SECONDS = Number(process.env.DNS_BENCH_LATENCY_SECONDS ?? 5);
const LATENCY_ROUNDS = Number(process.env.DNS_BENCH_LATENCY_ROUNDS ?? 5);
const cores = availableParallelism();

interface Contender {
  name: string;
  start(port: number): Promise<ChildProcess>;
}

const service: Contender = {
  name: 'service',
  start: (port) => startDeployedService(join(__dirname, '..', 'apps', 'server', 'main.js'), port),
};

/**
 * Another build of the service (DNS_BENCH_BASELINE_MAIN: its dist/apps/server/main.js), log on,
 * measured in the same run: before/after figures of a change come from one machine state.
 */
const baseline = (mainJs: string): Contender => ({
  name: 'before',
  start: (port) => startDeployedService(mainJs, port),
});

/** The same service with its query log switched off: what issue 12's p99 target compares against. */
const serviceNoLog: Contender = {
  name: 'nolog',
  start: (port) => startDeployedService(join(__dirname, '..', 'apps', 'server', 'main.js'), port, { QUERY_LOG: 'off' }),
};

/** Micro-benchmark: the DNS library without the service around it. */
const lib: Contender = {
  name: 'lib',
  async start(port) {
    const child = startProcess(process.execPath, [join(__dirname, 'dns', 'our-server.js'), String(port), String(cores)], 'ours');
    child.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.startsWith('SINK')) sinkLines.push(line);
    });
    return child;
  },
};

const nsd = (dir: string): Contender => ({
  name: 'nsd',
  start: async (port) => startNsd(dir, port, cores),
});

const sinkLines: string[] = [];

async function measure(contender: Contender, queryFile: string) {
  const port = await freePort();
  const child = await contender.start(port);
  try {
    await waitForAnswer(port, `host1.${BENCH_ZONE}`);
    await waitForQuiet(child.pid!);
    await maxThroughput(port, queryFile, 2); // warm-up: JIT, caches, socket buffers
    const [cpu0, main0] = [treeCpuSeconds(child.pid!), mainThreadCpuSeconds(child.pid!)];
    const throughput = await maxThroughput(port, queryFile, SECONDS);
    // The query log may still be writing what was answered: its CPU counts too.
    await new Promise((r) => setTimeout(r, 1000));
    const answered = Math.max(1, throughput.sent - throughput.lost);
    const cpu = { perThousandMs: ((treeCpuSeconds(child.pid!) - cpu0) * 1e6) / answered, mainPerThousandMs: ((mainThreadCpuSeconds(child.pid!) - main0) * 1e6) / answered };
    return { throughput, cpu };
  } finally {
    await stopProcess(child);
  }
}

/**
 * p50/p99 at FIXED_QPS, LATENCY_ROUNDS rounds; every server is started once and each round
 * measures each in turn. p99 of a few seconds swings with whatever else the machine runs,
 * so the comparison that counts is per round (servers measured back to back).
 */
async function latencyRounds(contenders: Contender[], queryFile: string): Promise<Map<string, LatencyResult[]>> {
  const running: Array<{ c: Contender; port: number; child: ChildProcess }> = [];
  const results = new Map<string, LatencyResult[]>();
  try {
    for (const c of contenders) {
      const port = await freePort();
      const child = await c.start(port);
      running.push({ c, port, child });
      await waitForAnswer(port, `host1.${BENCH_ZONE}`);
      await waitForQuiet(child.pid!);
      await latencyAt(port, queryFile, 2, FIXED_QPS); // warm-up
    }
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const { c, port } of running) {
        const l = await latencyAt(port, queryFile, LATENCY_SECONDS, FIXED_QPS);
        results.set(c.name, [...(results.get(c.name) ?? []), l]);
        console.log(`latency round ${round + 1} ${c.name.padEnd(7)} p50 ${fmt(l.p50Ms, 3)} ms  p99 ${fmt(l.p99Ms, 3)} ms  (lost ${l.lost} of ${l.sent})`);
      }
    }
  } finally {
    for (const { child } of running) await stopProcess(child);
  }
  return results;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  stopAllOnExit();
  const dir = mkdtempSync(join(tmpdir(), 'dns-bench-'));
  try {
    const queryFile = join(dir, 'queries.txt');
    writeFileSync(queryFile, dnsperfQueries());
    const wanted = (process.env.DNS_BENCH_SERVERS ?? 'service,nolog,lib,nsd').split(',');
    if (!nsdInstalled()) console.log('nsd is not installed (bash scripts/test-setup.sh); measuring ours only');
    const baselineMain = process.env.DNS_BENCH_BASELINE_MAIN;
    const contenders = [service, ...(baselineMain ? [baseline(baselineMain)] : []), serviceNoLog, lib, ...(nsdInstalled() ? [nsd(dir)] : [])].filter(
      (c) => c.name === 'before' || wanted.includes(c.name),
    );
    console.log(
      `zone ${BENCH_ZONE}: ${BENCH_NAMES} names; ${cores} cores; ${ROUNDS} rounds of ${SECONDS}s per server, then ${LATENCY_ROUNDS} alternating rounds of ${LATENCY_SECONDS}s at ${FIXED_QPS} qps`,
    );

    const best = new Map<string, ThroughputResult>();
    const cpuRounds = new Map<string, Array<{ perThousandMs: number; mainPerThousandMs: number }>>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of contenders) {
        const r = await measure(c, queryFile);
        console.log(
          `round ${round + 1} ${c.name.padEnd(7)} ${fmt(r.throughput.qps)} qps (lost ${r.throughput.lost} of ${r.throughput.sent}), ${fmt(r.cpu.perThousandMs, 2)} ms CPU/1k q`,
        );
        if (!best.has(c.name) || best.get(c.name)!.qps < r.throughput.qps) best.set(c.name, r.throughput);
        cpuRounds.set(c.name, [...(cpuRounds.get(c.name) ?? []), r.cpu]);
      }
    }
    // The library harness is a micro-benchmark of throughput; latency compares what users run.
    const latencyRuns = await latencyRounds(
      contenders.filter((c) => c.name !== 'lib'),
      queryFile,
    );
    const latency = new Map(
      [...latencyRuns].map(([name, runs]) => [
        name,
        { p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)), lost: runs.reduce((n, r) => n + r.lost, 0) },
      ]),
    );

    console.log('\nserver  max qps     CPU ms/1k q  main thread  p50 @5k qps  p99 @5k qps  lost @5k');
    for (const c of contenders) {
      const l = latency.get(c.name);
      const rounds = cpuRounds.get(c.name)!;
      const cpu = { perThousandMs: median(rounds.map((r) => r.perThousandMs)), mainPerThousandMs: median(rounds.map((r) => r.mainPerThousandMs)) };
      // NSD and the library harness fork processes: only the whole tree is meaningful there.
      const main = ['service', 'before', 'nolog'].includes(c.name) ? fmt(cpu.mainPerThousandMs, 2) : '';
      console.log(
        `${c.name.padEnd(7)} ${fmt(best.get(c.name)!.qps).padStart(9)}   ${fmt(cpu.perThousandMs, 2).padStart(9)}   ${main.padStart(10)}   ${fmt(l?.p50Ms ?? NaN, 3).padStart(8)} ms  ${fmt(l?.p99Ms ?? NaN, 3).padStart(8)} ms  ${l?.lost ?? 'n/a'}`,
      );
    }
    console.log('(CPU columns: median over the rounds; max qps: the best round; p50/p99: median over the latency rounds)');
    for (const name of ['service', 'before', 'nolog', 'lib']) {
      if (best.has('nsd') && best.has(name)) {
        const note = {
          service: 'the service as deployed, query log on; issue 10: >= 0.8x, issue 12: >= 1.0x',
          before: 'baseline build, query log on',
          nolog: 'query log off',
          lib: 'library micro-benchmark',
        }[name];
        console.log(`ratio ${name}/nsd: ${(best.get(name)!.qps / best.get('nsd')!.qps).toFixed(2)}x (${note})`);
      }
    }
    for (const [a, b] of [
      ['service', 'nsd'],
      ['nolog', 'nsd'],
      ['service', 'nolog'],
      ['service', 'before'],
      ['before', 'nsd'],
    ]) {
      if (!cpuRounds.has(a) || !cpuRounds.has(b)) continue;
      const other = cpuRounds.get(b)!;
      const ratios = cpuRounds.get(a)!.map((r, i) => r.perThousandMs / other[i].perThousandMs);
      console.log(`CPU per query ${a}/${b}: ${median(ratios).toFixed(2)}x (median of ${ratios.length} rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
    }
    const perRound = (a: string, b: string) => latencyRuns.get(a)!.map((r, i) => r.p99Ms - latencyRuns.get(b)![i].p99Ms);
    for (const [a, b, note] of [
      ['service', 'nolog', 'issue 12: within 0.1 ms'],
      ['service', 'nsd', ''],
    ]) {
      if (!latencyRuns.has(a) || !latencyRuns.has(b)) continue;
      const diffs = perRound(a, b);
      console.log(
        `p99 @${FIXED_QPS} qps ${a} - ${b}: ${fmt(median(diffs), 3)} ms (median of per-round differences: ${diffs.map((d) => fmt(d, 3)).join(', ')})${note ? `; ${note}` : ''}`,
      );
    }
    for (const line of sinkLines) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
