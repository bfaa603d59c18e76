/**
 * What one DDNS update costs a DNS thread: the thread folding the event log into its zone
 * index (read the new events, decode, set the host's RRset, the IXFR journal, the serial),
 * apart from answering. A DNS thread (libs/dns-role/threaded-dns.ts, as the service runs it)
 * follows an event store that this process fills: HOSTS hosts created in a dynamic-DNS zone,
 * then UPDATES address changes appended BATCH at a time at RATE updates/s (the group commits of
 * a loaded service), until the thread serves the last one. Prints the thread's CPU (from /proc, robust
 * on a shared machine) per update, and per round the median.
 *
 * DNS_FEED_OTHER_DIST=<another build's dist> runs that build's thread in alternate rounds on
 * the same events (before/after on the same machine state). DNS_FEED_THREADS=<n> runs n DNS
 * threads on one port as the service does (DNS_THREADS), all of them counted: a build that
 * shares one fold (shareFold, decision 0112) runs a leader and followers, an older one n threads
 * that each fold the events. DNS_FEED_SECONDARIES=<ip> gives the
 * zones an operator secondary (every zone transferable: the journal records them).
 *
 * Run: npm run bench:dns-feed (npm run build && node dist/bench/dns-feed.bench.js)
 *   env: DNS_FEED_HOSTS (10000), DNS_FEED_UPDATES (15000), DNS_FEED_RATE (3000),
 *        DNS_FEED_BATCH (32), DNS_FEED_ROUNDS (3)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { freePort } from './dns/processes';
import { appendHostChange, benchHostName, createBenchHosts, startDnsThreads } from './support/dns-threads';

const HOSTS = Number(process.env.DNS_FEED_HOSTS ?? 10_000);
const UPDATES = Number(process.env.DNS_FEED_UPDATES ?? 15_000);
/** Updates per second appended (the pace of a loaded service: the thread's per-batch work counts as it does there). */
const RATE = Number(process.env.DNS_FEED_RATE ?? 3000);
const BATCH = Number(process.env.DNS_FEED_BATCH ?? 32);
const ROUNDS = Number(process.env.DNS_FEED_ROUNDS ?? 3);
const THREADS = Number(process.env.DNS_FEED_THREADS ?? 1);
const ZONE = 'dyn.bench.test';
const TICKS = 100; // USER_HZ

/* eslint-disable @typescript-eslint/no-require-imports */
interface Build {
  name: string;
  store: any;
  threadedDns: any;
  /** Links a leader and its followers; absent from builds where every thread folds the events. */
  shareFold?: (leader: unknown, followers: unknown[]) => void;
  script: string;
}

function loadBuild(name: string, dist: string): Build {
  const { SqliteEventStore } = require(join(dist, 'libs/eventstore/sqlite/sqlite-event-store'));
  const { ThreadedDns, shareFold } = require(join(dist, 'libs/dns-role/threaded-dns'));
  const script = join(dist, 'libs/dns-role/dns-thread.js');
  return { name, store: SqliteEventStore, threadedDns: ThreadedDns, shareFold, script };
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** CPU seconds of this process's threads named `dns` (the DNS threads name themselves). */
function dnsThreadSeconds(): number {
  let ticks = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'dns') continue;
      const s = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  }
  return ticks / TICKS;
}

const fqdn = (i: number) => benchHostName(i, ZONE);
const addressOf = (host: number, change: number) => `198.51.${(change >> 8) & 255}.${change & 255}`;

/** The A record the server gives for `name` now. */
async function answer(port: number, name: string): Promise<string | null> {
  const socket = createSocket('udp4');
  try {
    return await new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 500);
      socket.on('message', (msg) => {
        clearTimeout(timer);
        const a = dnsPacket.decode(msg).answers?.find((r) => r.type === 'A') as { data: string } | undefined;
        resolve(a ? a.data : null);
      });
      socket.send(dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name }] }), port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

async function main(): Promise<void> {
  const builds = [loadBuild('this build', join(__dirname, '..'))];
  if (process.env.DNS_FEED_OTHER_DIST) builds.push(loadBuild('other build', process.env.DNS_FEED_OTHER_DIST));
  const dir = mkdtempSync(join(tmpdir(), 'dns-feed-'));
  const store = new builds[0].store({ file: join(dir, 'events.db'), synchronous: 'NORMAL' });
  await createBenchHosts(store, HOSTS, ZONE);
  const secondaries = process.env.DNS_FEED_SECONDARIES ? [process.env.DNS_FEED_SECONDARIES] : [];
  let change = 0;
  const perRound = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const build of builds) {
      const port = await freePort();
      const { all } = await startDnsThreads(build, store, { port, zone: ZONE, threads: THREADS, secondaries });
      await new Promise((r) => setTimeout(r, 500));
      const before = dnsThreadSeconds();
      const started = performance.now();
      let last = 0;
      for (let n = 0; n < UPDATES; n += BATCH) {
        const appends = [];
        for (let k = 0; k < BATCH && n + k < UPDATES; k++) {
          const host = (change * 7919) % HOSTS;
          last = host;
          appends.push(appendHostChange(store, host, ZONE, addressOf(host, ++change)));
        }
        await Promise.all(appends);
        const due = started + ((n + BATCH) / RATE) * 1000;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      }
      const expected = addressOf(last, change);
      // Each query from a new socket: with several threads, every one of them must serve it.
      for (let served = 0; served < 8 * THREADS;) {
        if ((await answer(port, fqdn(last))) === expected) served++;
        else await new Promise((r) => setTimeout(r, 5));
      }
      const seconds = dnsThreadSeconds() - before;
      const wall = (performance.now() - started) / 1000;
      await Promise.all(all.map((d) => d.stop()));
      const us = (seconds * 1e6) / UPDATES;
      perRound.get(build.name)!.push(us);
      console.log(
        `round ${round} ${build.name}: ${UPDATES} updates in ${wall.toFixed(1)} s, DNS thread ${seconds.toFixed(2)} s ` +
          `CPU = ${us.toFixed(1)} µs per update`,
      );
    }
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `\nDNS threads' CPU per update (${THREADS} thread(s), median of ${ROUNDS} rounds, ${HOSTS} hosts, ${RATE}/s in batches of ${BATCH}` +
      `${secondaries.length ? ', an operator secondary' : ''}):`,
  );
  for (const [name, xs] of perRound) console.log(`  ${name}: ${median(xs).toFixed(1)} µs`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
