/** Runs dnsperf (Debian package dnsperf) and reads its figures. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ThroughputResult {
  qps: number;
  lost: number;
  sent: number;
}

export interface LatencyResult extends ThroughputResult {
  p50Ms: number;
  p99Ms: number;
}

/**
 * UDP flows (dnsperf clients, each its own source port). SO_REUSEPORT spreads flows, not
 * packets, over a server's sockets: with 4 flows two sockets got one or two threads' worth of
 * traffic by chance; with 32 each gets close to half (issue 31).
 */
export const FLOWS = Number(process.env.DNS_BENCH_FLOWS ?? 32);
const LOAD_ARGS = ['-c', String(FLOWS), '-T', '2', '-q', '500', '-t', '1', '-b', '4096'];

async function dnsperf(port: number, queryFile: string, seconds: number, extra: string[]): Promise<string> {
  const { stdout } = await run(
    'dnsperf',
    ['-s', '127.0.0.1', '-p', String(port), '-d', queryFile, '-l', String(seconds), ...extra],
    {
      maxBuffer: 512 * 1024 * 1024,
      timeout: (seconds + 30) * 1000,
    },
  );
  return stdout;
}

function figures(out: string): ThroughputResult {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  return {
    qps: num(/Queries per second:\s+([\d.]+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    sent: num(/Queries sent:\s+(\d+)/),
  };
}

/** As many queries as the server takes. */
export async function maxThroughput(
  port: number,
  queryFile: string,
  seconds: number,
  extra: string[] = [],
): Promise<ThroughputResult> {
  return figures(await dnsperf(port, queryFile, seconds, [...LOAD_ARGS, ...extra]));
}

/** Latency percentiles at a fixed rate, from dnsperf's per-query verbose lines. */
export async function latencyAt(port: number, queryFile: string, seconds: number, qps: number): Promise<LatencyResult> {
  const out = await dnsperf(port, queryFile, seconds, [
    '-Q',
    String(qps),
    '-c',
    String(FLOWS),
    '-T',
    '2',
    '-t',
    '1',
    '-v',
  ]);
  const latencies: number[] = [];
  for (const m of out.matchAll(/^> [A-Z]+ \S+ \S+ ([\d.]+)$/gm)) latencies.push(Number(m[1]) * 1000);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { ...figures(out), p50Ms: at(0.5), p99Ms: at(0.99) };
}
