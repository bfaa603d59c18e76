/**
 * DNSSEC benchmark (issue 29): the service as deployed with the 10k-name benchmark zone
 * signed through the API, against Knot DNS signing online (mod-onlinesign) and NSD serving
 * the zone pre-signed by ldns-signzone, all answering DO=1 queries (dnsperf -D) over
 * loopback; and the service's DO=0 queries to the same zone unsigned, against the same
 * service build with the zone unsigned, to show unsigned answers pay nothing. Max qps (best
 * round) and CPU per 1,000 answered queries of each server's process tree (median), rounds
 * alternating between the servers.
 *
 * Targets: service >= 1.0x Knot's qps; CPU per query <= 1.2x NSD pre-signed; unsigned
 * queries no slower than before.
 *
 * Run: npm run bench:dnssec   (env: DNS_BENCH_SECONDS, DNS_BENCH_ROUNDS, DNSSEC_BENCH_SERVERS=signed,signed-do0,unsigned,knot,nsd)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { maxThroughput } from './dns/dnsperf';
import { startDeployedService } from './dns/deployed-service';
import { treeCpuSeconds, waitForQuiet } from './dns/cpu';
import { freePort, stopAllOnExit, stopProcess, waitForAnswer } from './dns/processes';
import { knotInstalled, startKnot } from './dns/knot';
import { ldnsInstalled, startNsdPresigned } from './dns/signed-peers';
import { BENCH_NAMES, BENCH_ZONE, dnsperfQueries } from './dns/zone';

const SECONDS = Number(process.env.DNS_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.DNS_BENCH_ROUNDS ?? 3);
const cores = availableParallelism();
const run = promisify(execFile);
const MAIN = join(__dirname, '..', 'apps', 'server', 'main.js');

interface Contender {
  name: string;
  /** dnsperf flags: -D for DO=1. */
  flags: string[];
  signed: boolean;
  start(port: number, dir: string): Promise<ChildProcess>;
}

const contenders: Contender[] = [
  {
    name: 'signed',
    flags: ['-D'],
    signed: true,
    start: (port) => startDeployedService(MAIN, port, {}, { dnssec: true }),
  },
  {
    name: 'signed-do0',
    flags: [],
    signed: true,
    start: (port) => startDeployedService(MAIN, port, {}, { dnssec: true }),
  },
  { name: 'unsigned', flags: [], signed: false, start: (port) => startDeployedService(MAIN, port) },
  {
    name: 'knot',
    flags: ['-D'],
    signed: true,
    start: async (port, dir) => startKnot(dir, port, cores, { onlineSign: true }),
  },
  { name: 'nsd', flags: ['-D'], signed: true, start: async (port, dir) => startNsdPresigned(dir, port, cores) },
];

/** Waits until DO=1 answers carry RRSIGs (the service signs in its DNS thread after the PUT). */
async function waitForSigned(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { stdout } = await run(
      'dig',
      ['@127.0.0.1', '-p', String(port), '+dnssec', '+norec', `host1.${BENCH_ZONE}`, 'A'],
      { encoding: 'utf8' },
    ).catch(() => ({ stdout: '' }));
    if (/RRSIG\s+A /.test(stdout)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no signed answer within 60 s');
}

async function measure(c: Contender, queryFile: string, dir: string) {
  const port = await freePort();
  const child = await c.start(port, mkdtempSync(join(dir, `${c.name}-`)));
  try {
    await waitForAnswer(port, `host1.${BENCH_ZONE}`);
    if (c.signed) await waitForSigned(port);
    await waitForQuiet(child.pid!);
    await maxThroughput(port, queryFile, 2, c.flags); // warm-up
    const cpu0 = treeCpuSeconds(child.pid!);
    const t = await maxThroughput(port, queryFile, SECONDS, c.flags);
    await new Promise((r) => setTimeout(r, 1000));
    const answered = Math.max(1, t.sent - t.lost);
    return { ...t, cpuPerThousandMs: ((treeCpuSeconds(child.pid!) - cpu0) * 1e6) / answered };
  } finally {
    await stopProcess(child);
  }
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  stopAllOnExit();
  const dir = mkdtempSync(join(tmpdir(), 'dnssec-bench-'));
  try {
    const queryFile = join(dir, 'queries.txt');
    writeFileSync(queryFile, dnsperfQueries());
    const wanted = (process.env.DNSSEC_BENCH_SERVERS ?? 'signed,signed-do0,unsigned,knot,nsd').split(',');
    const chosen = contenders.filter(
      (c) => wanted.includes(c.name) && (c.name !== 'knot' || knotInstalled()) && (c.name !== 'nsd' || ldnsInstalled()),
    );
    console.log(
      `zone ${BENCH_ZONE}: ${BENCH_NAMES} names; ${cores} cores; ${ROUNDS} rounds of ${SECONDS}s per server; signed servers get DO=1 queries`,
    );
    const rounds = new Map<string, Array<{ qps: number; cpu: number }>>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of chosen) {
        const r = await measure(c, queryFile, dir);
        console.log(
          `round ${round + 1} ${c.name.padEnd(10)} ${r.qps.toFixed(0)} qps (lost ${r.lost} of ${r.sent}), ` +
            `${r.cpuPerThousandMs.toFixed(2)} ms CPU/1k q`,
        );
        rounds.set(c.name, [...(rounds.get(c.name) ?? []), { qps: r.qps, cpu: r.cpuPerThousandMs }]);
      }
    }
    console.log('\nserver      max qps   CPU ms/1k q');
    for (const c of chosen) {
      const rs = rounds.get(c.name)!;
      console.log(
        `${c.name.padEnd(10)} ${Math.max(...rs.map((r) => r.qps))
          .toFixed(0)
          .padStart(8)}   ${median(rs.map((r) => r.cpu))
          .toFixed(2)
          .padStart(9)}`,
      );
    }
    const best = (n: string) => Math.max(...(rounds.get(n) ?? []).map((r) => r.qps));
    const cpuRatio = (a: string, b: string) => median(rounds.get(a)!.map((r, i) => r.cpu / rounds.get(b)![i].cpu));
    if (rounds.has('signed') && rounds.has('knot'))
      console.log(`qps signed/knot: ${(best('signed') / best('knot')).toFixed(2)}x (target >= 1.0x)`);
    if (rounds.has('signed') && rounds.has('nsd'))
      console.log(`CPU per query signed/nsd pre-signed: ${cpuRatio('signed', 'nsd').toFixed(2)}x (target <= 1.2x)`);
    if (rounds.has('signed-do0') && rounds.has('unsigned'))
      console.log(
        `DO=0 on the signed zone vs the unsigned zone: qps ` +
          `${(best('signed-do0') / best('unsigned')).toFixed(2)}x, CPU ` +
          `${cpuRatio('signed-do0', 'unsigned').toFixed(2)}x`,
      );
    if (rounds.has('signed') && rounds.has('unsigned'))
      console.log(`qps signed(DO=1)/unsigned(DO=0): ${(best('signed') / best('unsigned')).toFixed(2)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
