/**
 * What the DNS threads add to the process's resident memory: a store of HOSTS dynamic-DNS hosts and
 * CHANGES address changes, then two DNS threads started on it as the service starts them
 * (libs/dns-role/threaded-dns.ts; sharing one fold where the build has `shareFold`, decision 0112),
 * each build in a process of its own; VmRSS after SETTLE seconds minus VmRSS before the threads.
 *
 * DNS_MEMORY_OTHER_DIST=<another build's dist> measures that build too, in alternate rounds.
 *
 * Run: npm run build && node dist/bench/dns-threads-memory.bench.js
 *   env: DNS_MEMORY_HOSTS (20000), DNS_MEMORY_CHANGES (40000), DNS_MEMORY_ROUNDS (2), DNS_MEMORY_SETTLE (8),
 *        DNS_MEMORY_THREADS (2)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './dns/processes';
import { appendHostChange, createBenchHosts, startDnsThreads } from './support/dns-threads';

const HOSTS = Number(process.env.DNS_MEMORY_HOSTS ?? 20_000);
const CHANGES = Number(process.env.DNS_MEMORY_CHANGES ?? 40_000);
const ROUNDS = Number(process.env.DNS_MEMORY_ROUNDS ?? 2);
const SETTLE_MS = Number(process.env.DNS_MEMORY_SETTLE ?? 8) * 1000;
const THREADS = Number(process.env.DNS_MEMORY_THREADS ?? 2);
const ZONE = 'dyn.bench.test';

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

/* eslint-disable @typescript-eslint/no-require-imports */
async function fill(file: string): Promise<void> {
  const { SqliteEventStore } = require('../libs/eventstore/sqlite/sqlite-event-store');
  const store = new SqliteEventStore({ file });
  await createBenchHosts(store, HOSTS, ZONE);
  for (let from = 0; from < CHANGES; from += 100) {
    const appends = [];
    for (let c = from; c < Math.min(CHANGES, from + 100); c++) {
      const h = (c * 7919) % HOSTS;
      appends.push(appendHostChange(store, h, ZONE, `198.51.${(c >> 8) & 255}.${c & 255}`));
    }
    await Promise.all(appends);
  }
  await store.close();
}

/** In a process of its own: starts the threads of `dist` on `file` and prints the RSS they added (MiB). */
async function measure(dist: string, file: string): Promise<void> {
  const { SqliteEventStore } = require(join(dist, 'libs/eventstore/sqlite/sqlite-event-store'));
  const { ThreadedDns, shareFold } = require(join(dist, 'libs/dns-role/threaded-dns'));
  const store = new SqliteEventStore({ file });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = rssMiB();
  const port = await freePort();
  const script = join(dist, 'libs/dns-role/dns-thread.js');
  const { all } = await startDnsThreads({ threadedDns: ThreadedDns, shareFold, script }, store, {
    port,
    zone: ZONE,
    threads: THREADS,
  });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  console.log(JSON.stringify({ added: rssMiB() - before, process: rssMiB() }));
  await Promise.all(all.map((t) => t.stop()));
  await store.close();
}
/* eslint-enable @typescript-eslint/no-require-imports */

async function main(): Promise<void> {
  const builds = [{ name: 'this build', dist: join(__dirname, '..') }];
  if (process.env.DNS_MEMORY_OTHER_DIST) builds.push({ name: 'other build', dist: process.env.DNS_MEMORY_OTHER_DIST });
  const dir = mkdtempSync(join(tmpdir(), 'dns-memory-'));
  const file = join(dir, 'events.db');
  await fill(file);
  const added = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const build of builds) {
      const out = execFileSync(process.execPath, [__filename, 'measure', build.dist, file], { encoding: 'utf8' });
      const figures = JSON.parse(out.trim().split('\n').pop()!) as { added: number; process: number };
      added.get(build.name)!.push(figures.added);
      console.log(
        `round ${round} ${build.name}: ${THREADS} DNS threads add ${figures.added.toFixed(1)} MiB ` +
          `(process ${figures.process.toFixed(1)} MiB)`,
      );
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `\nRSS added by ${THREADS} DNS threads (${HOSTS} hosts, ${CHANGES} changes, median of ${ROUNDS} rounds):`,
  );
  for (const [name, xs] of added)
    console.log(`  ${name}: ${[...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(1)} MiB`);
}

if (process.argv[2] === 'measure') void measure(process.argv[3], process.argv[4]);
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
