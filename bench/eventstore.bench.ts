/**
 * Event-store and projection figures on the embedded stores. Prints numbers, asserts
 * nothing. Run: `npm run bench:eventstore` (or `npx tsc -p tsconfig.build.json && node
 * dist/bench/eventstore.bench.js`). BENCH_EVENTS / BENCH_APPENDS scale it down.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardedUpdate } from '../projections/guard';
import { NewEvent } from '../libs/eventstore/event-store.port';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { ProjectionEngine } from '../libs/projection-engine/projection-engine';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';

const APPENDS = Number(process.env.BENCH_APPENDS ?? 200_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const STREAMS = 20_000;
const TARGETS = { concurrentAppend: 20_000, rebuild: 100_000, bootMs: 10_000 };

const dir = mkdtempSync(join(tmpdir(), 'es-bench-'));
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

/** No id: like the service's own appends, the store assigns a time-ordered one. */
const event = (stream: number, n: number): NewEvent => ({
  type: 'HostUpdated',
  data: { host: `h${stream}.example.net`, ip: `10.0.${stream % 256}.${n % 256}`, n },
  metadata: { actor: 'system', correlation_id: 'bench', version: 1 },
});

/** Wall-clock ms, plus this process's CPU ms: on a shared machine the second is the steadier figure. */
let lastCpuMs = 0;
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = await fn();
  const used = process.cpuUsage(cpu);
  lastCpuMs = (used.user + used.system) / 1000;
  return [result, performance.now() - start];
}
const perCpu = (n: number) => `${fmt(rate(n, lastCpuMs))} events per CPU-second`;

/** `writers` concurrent loops, each appending one event at a time to its own streams. */
async function appendThroughput(
  writers: number,
  total: number,
  synchronous: 'FULL' | 'NORMAL' = 'FULL',
): Promise<number> {
  const file = join(dir, `append-${writers}.db`);
  const store = new SqliteEventStore({ file, synchronous });
  const perWriter = Math.floor(total / writers);
  const [, ms] = await timed(() =>
    Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const revisions = new Map<string, number>();
        for (let i = 0; i < perWriter; i++) {
          const stream = `host-${w}-${i % 100}`;
          const expected = revisions.get(stream) ?? 'no_stream';
          const r = await store.appendToStream(stream, [event(w, i)], expected);
          revisions.set(stream, r.nextExpectedRevision);
        }
      }),
    ),
  );
  await store.close();
  rmSync(file, { force: true });
  return rate(perWriter * writers, ms);
}

/** Fills a store quickly (multi-event appends); seeding is not what is measured. */
async function seed(store: SqliteEventStore, total: number): Promise<void> {
  const perStream = Math.ceil(total / STREAMS);
  const chunk = 25;
  let written = 0;
  for (let offset = 0; offset < perStream && written < total; offset += chunk) {
    const writes: Promise<unknown>[] = [];
    for (let s = 0; s < STREAMS && written < total; s++) {
      const count = Math.min(chunk, perStream - offset, total - written);
      const events = Array.from({ length: count }, (_, k) => event(s, offset + k));
      writes.push(store.appendToStream(`host-${s}`, events, offset === 0 ? 'no_stream' : offset - 1));
      written += count;
      if (writes.length === 256) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
  }
}

async function readAllThroughput(store: SqliteEventStore): Promise<number> {
  let count = 0;
  const [, ms] = await timed(async () => {
    let after = null;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      count += page.length;
      after = page[page.length - 1].position;
    }
  });
  return rate(count, ms);
}

/** A typical read model: one document per stream, guarded by position. */
const hosts: ProjectionDefinition = {
  name: 'bench_hosts',
  version: 1,
  collections: ['hosts'],
  handles: ['HostUpdated'],
  async setup(ctx) {
    await ctx.collection('hosts').createIndex({ ip: 1 });
  },
  async apply(e, ctx) {
    await guardedUpdate(ctx.collection('hosts'), e.streamId, ctx.position, {
      $set: { host: e.data.host, ip: e.data.ip, updated: e.data.n },
      $inc: { updates: 1 },
    });
  },
};

async function main(): Promise<void> {
  console.log(
    `event store benchmark (SQLite, synchronous=FULL unless noted) in ${dir}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} CPUs`,
  );
  const oneTotal = Math.min(APPENDS, 20_000);
  const one = await appendThroughput(1, oneTotal);
  console.log(
    `append, 1 writer:               ${fmt(one)} events/s (one event per append, awaited; ${perCpu(oneTotal)})`,
  );
  const many = await appendThroughput(64, APPENDS);
  console.log(
    `append, 64 concurrent writers:  ${fmt(many)} events/s (${perCpu(APPENDS)})  ` +
      `[${verdict(many >= TARGETS.concurrentAppend)} ≥ ${fmt(TARGETS.concurrentAppend)}]`,
  );
  const relaxed = await appendThroughput(64, APPENDS, 'NORMAL');
  console.log(
    `append, 64 writers, synchronous=NORMAL (no fsync per commit): ${fmt(relaxed)} events/s (${perCpu(APPENDS)})`,
  );

  const eventsFile = join(dir, 'events.db');
  const readFile = join(dir, 'read.db');
  let store = new SqliteEventStore({ file: eventsFile, synchronous: 'NORMAL' });
  const [, seedMs] = await timed(() => seed(store, EVENTS));
  console.log(
    `seeded ${fmt(EVENTS)} events in ${(seedMs / 1000).toFixed(1)} s (${fmt(rate(EVENTS, seedMs))} events/s in ` +
      `25-event appends); file ${(statSync(eventsFile).size / 2 ** 20).toFixed(0)} MiB`,
  );

  console.log(`readAll, pages of 1000:         ${fmt(await readAllThroughput(store))} events/s (${perCpu(EVENTS)})`);

  let reads = new EmbeddedReadStore({ file: readFile });
  let engine = new ProjectionEngine(store, reads, [hosts]);
  const head = await store.headPosition();
  const [, catchUpMs] = await timed(async () => {
    await engine.start();
    if (!(await engine.waitFor(head, 3_600_000))) throw new Error('projection did not catch up');
  });
  const catchUp = rate(EVENTS, catchUpMs);
  console.log(
    `projection catch-up from zero:  ${fmt(catchUp)} events/s (${(catchUpMs / 1000).toFixed(1)} s; ${perCpu(EVENTS)})`,
  );

  const [, rebuildMs] = await timed(() => engine.rebuild('bench_hosts', { wait: true }));
  const rebuild = rate(EVENTS, rebuildMs);
  console.log(
    `projection rebuild (new generation beside the live one): ${fmt(rebuild)} events/s ` +
      `(${(rebuildMs / 1000).toFixed(1)} s; ${perCpu(EVENTS)})  [${verdict(rebuild >= TARGETS.rebuild)} ≥ ` +
      `${fmt(TARGETS.rebuild)}]`,
  );
  const docs = await engine.collection('bench_hosts', 'hosts').countDocuments();
  if (docs !== Math.min(STREAMS, EVENTS)) throw new Error(`expected ${STREAMS} documents, found ${docs}`);

  await engine.stop();
  await reads.close();
  await store.close();

  const [, bootMs] = await timed(async () => {
    store = new SqliteEventStore({ file: eventsFile });
    reads = new EmbeddedReadStore({ file: readFile });
    engine = new ProjectionEngine(store, reads, [hosts]);
    await engine.start();
    if (!(await engine.waitFor(await store.headPosition(), 60_000))) throw new Error('projection did not resume');
  });
  console.log(
    `boot with ${fmt(EVENTS)} events (open stores, start engine at its checkpoint): ${fmt(Math.round(bootMs))} ` +
      `ms  [${verdict(bootMs <= TARGETS.bootMs)} ≤ ${fmt(TARGETS.bootMs)} ms]`,
  );
  await engine.stop();
  await reads.close();
  await store.close();
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
