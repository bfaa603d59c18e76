/**
 * What the ownership rules cost the DNS side: the DNS index feeder builds its index from the
 * event log at every start, and now decides for each imported zone whether it may be served
 * (libs/dns-role/dns-index-feeder.ts). This writes ZONES zone imports (two and three labels,
 * every tenth a delegation inside its account, CONFLICTS of them another account's zone under
 * an existing one, which are held out) and times the feeder's start until it has caught up,
 * ROUNDS times, printing the medians of wall and CPU time (the process's, all threads: the
 * steadier figure on a shared machine) and CPU µs per zone.
 *
 * OWNERSHIP_BASELINE_DIST=<dist dir of another build> runs that build's feeder on the same
 * events, alternating with this one's, so both see the same machine load.
 *
 * Run: npm run build && node dist/bench/zone-ownership.bench.js
 * Env: ZONES (50000), CONFLICTS (500), ROUNDS (5), OWNERSHIP_BASELINE_DIST
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ZoneIndex } from '../libs/dns-server';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import type { DnsIndexFeeder } from '../libs/dns-role/dns-index-feeder';

const ZONES = Number(process.env.ZONES ?? 50_000);
const CONFLICTS = Number(process.env.CONFLICTS ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BATCH = 1000;

type FeederClass = typeof DnsIndexFeeder;

async function fill(store: SqliteEventStore): Promise<void> {
  const rrsets = [
    { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.80'] },
    { subname: '', type: 'MX', ttl: 300, records: ['10 mail.example.net.'] },
  ];
  const imported = (i: number, name: string, account: number) => ({
    stream: `zone-z${i}`,
    event: {
      type: 'ZoneImported',
      data: {
        zone_id: `z${i}`,
        account_id: account,
        name,
        verification_token: 't',
        nameservers: ['ns1.example.net'],
        rrsets,
        created_at: new Date(0).toISOString(),
      },
    },
  });
  const all: Array<ReturnType<typeof imported>> = [];
  for (let i = 0; i < ZONES; i++) {
    const account = 1 + (i % 5000);
    // Every tenth zone is a child of the zone before it, in the same account (a delegation).
    all.push(
      i % 10 === 9 ? imported(i, `sub.zone${i - 1}.test`, 1 + ((i - 1) % 5000)) : imported(i, `zone${i}.test`, account),
    );
  }
  for (let c = 0; c < CONFLICTS; c++) all.push(imported(ZONES + c, `shadow.zone${c * 10}.test`, 999_999));
  for (let at = 0; at < all.length; at += BATCH) {
    await Promise.all(all.slice(at, at + BATCH).map((e) => store.appendToStream(e.stream, [e.event], 'no_stream')));
  }
}

async function timeFeeder(Feeder: FeederClass, file: string): Promise<{ ms: number; cpuMs: number; zones: number }> {
  const store = new SqliteEventStore({ file });
  const index = new ZoneIndex();
  const feeder = new Feeder(store, index, {
    ddnsZones: ['dyn.example.net'],
    nameservers: ['ns1.example.net', 'ns2.example.net'],
    log: () => undefined,
  });
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await feeder.start();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const zones = index.zoneNames().length;
  await feeder.stop();
  await store.close();
  return { ms, cpuMs, zones };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zone-ownership-bench-'));
  const file = join(dir, 'events.db');
  try {
    const store = new SqliteEventStore({ file, synchronous: 'NORMAL' });
    await fill(store);
    await store.close();
    const builds: Array<[string, FeederClass]> = [
      ['this build', (await import('../libs/dns-role/dns-index-feeder')).DnsIndexFeeder],
    ];
    const baseline = process.env.OWNERSHIP_BASELINE_DIST;
    if (baseline)
      builds.push([
        'baseline',
        ((await import(resolve(baseline, 'libs/dns-role/dns-index-feeder.js'))) as { DnsIndexFeeder: FeederClass })
          .DnsIndexFeeder,
      ]);
    const times = new Map<string, number[]>(builds.map(([name]) => [name, []]));
    const cpuTimes = new Map<string, number[]>(builds.map(([name]) => [name, []]));
    const served = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which build goes first, so neither always runs on a warmer process.
      for (const [name, Feeder] of round % 2 === 0 ? builds : [...builds].reverse()) {
        const { ms, cpuMs, zones } = await timeFeeder(Feeder, file);
        times.get(name)!.push(ms);
        cpuTimes.get(name)!.push(cpuMs);
        served.set(name, zones);
      }
    }
    const events = ZONES + CONFLICTS;
    console.log(
      `zone imports: ${events} (${CONFLICTS} another account's zone under an earlier one), rounds: ${ROUNDS}`,
    );
    for (const [name] of builds) {
      const [ms, cpuMs] = [median(times.get(name)!), median(cpuTimes.get(name)!)];
      console.log(
        `${name}: feeder start to caught up ${ms.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (medians; ` +
          `${((cpuMs * 1000) / events).toFixed(1)} µs CPU per zone), zones served ${served.get(name)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
