/**
 * HTTP load generator for the email-auth API bench, run as its own process so its CPU is
 * not the server's. Input (a JSON file named by argv[2]): origin, paths to cycle through, headers,
 * seconds, and either `concurrency` (closed loop: as fast as the server answers) or `rate`
 * (open loop: requests started at a fixed rate whatever the answers, latency measured from
 * each request's scheduled start, so a stall counts against every request it delays).
 * Prints one JSON line: requests, errors, req/s, latency percentiles, own CPU.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

interface Spec {
  origin: string;
  paths: string[];
  headers: Record<string, string>;
  seconds: number;
  concurrency?: number;
  rate?: number;
}

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Spec;
const pool = new Pool(spec.origin, { connections: spec.concurrency ?? 64, pipelining: 1 });
const latencies: number[] = [];
let errors = 0;
let next = 0;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function one(startedAt: number): Promise<void> {
  const path = spec.paths[next++ % spec.paths.length];
  try {
    const res = await pool.request({ method: 'GET', path, headers: spec.headers });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) errors++;
  } catch {
    errors++;
  }
  latencies.push(nowMs() - startedAt);
}

async function closedLoop(concurrency: number, until: number): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < until) await one(nowMs());
    }),
  );
}

async function openLoop(rate: number, start: number, until: number): Promise<void> {
  const interval = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  while (nowMs() < until) {
    const due = Math.floor((nowMs() - start) / interval) + 1;
    for (; sent < due; sent++) {
      const p = one(start + sent * interval);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const cpu0 = process.cpuUsage();
  const start = nowMs();
  const until = start + spec.seconds * 1000;
  if (spec.rate) await openLoop(spec.rate, start, until);
  else await closedLoop(spec.concurrency ?? 64, until);
  const elapsed = (nowMs() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const sorted = latencies.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      requests: latencies.length,
      errors,
      rps: latencies.length / elapsed,
      p50: pct(sorted, 50),
      p90: pct(sorted, 90),
      p99: pct(sorted, 99),
      max: sorted[sorted.length - 1] ?? NaN,
      loadCpuSeconds: (cpu.user + cpu.system) / 1e6,
    }) + '\n',
  );
  await pool.close();
}

void main();
