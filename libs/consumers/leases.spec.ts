import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardedUpdate } from '../../projections/guard';
import { Position } from '../eventstore/event-store.port';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { ProjectionDefinition } from '../projection-engine/projection';
import { ProjectionEngine } from '../projection-engine/projection-engine';
import { EmbeddedReadStore } from '../readstore/embedded/embedded-read-store';
import { Coordination } from './coordination';
import { ReadStoreCoordination } from './read-store-coordination';
import { SqliteCoordination } from './sqlite-coordination';

describe.each([
  ['SQLite file, two connections (as two processes open it)', 'sqlite'],
  ['read-store collections (as on MongoDB)', 'readstore'],
] as const)('leases in %s', (_, kind) => {
  let dir: string;
  let a: Coordination;
  let b: Coordination;
  let reads: EmbeddedReadStore | null = null;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'leases-'));
    if (kind === 'sqlite') {
      a = new SqliteCoordination(join(dir, 'coordination.db'));
      b = new SqliteCoordination(join(dir, 'coordination.db'));
    } else {
      reads = new EmbeddedReadStore({ file: join(dir, 'read.db') });
      a = b = new ReadStoreCoordination(reads);
    }
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await reads?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one holder at a time; renewal by the holder; takeover only after expiry; release frees it at once', async () => {
    expect(await a.tryLease('projection:x', 'A', 1000, 0)).toBe(true);
    expect(await b.tryLease('projection:x', 'B', 1000, 10)).toBe(false);
    expect(await a.tryLease('projection:x', 'A', 1000, 900)).toBe(true); // renewed until 1900
    expect(await b.tryLease('projection:x', 'B', 1000, 1500)).toBe(false);
    expect(await b.leaseHolder('projection:x', 1500)).toBe('A');
    expect(await b.tryLease('projection:x', 'B', 1000, 1900)).toBe(true); // A stopped renewing: taken over
    expect(await a.tryLease('projection:x', 'A', 1000, 1950)).toBe(false); // and A cannot renew
    await b.releaseLease('projection:x', 'B');
    expect(await a.tryLease('projection:x', 'A', 1000, 1960)).toBe(true);
    // Leases are per name.
    expect(await b.tryLease('projection:y', 'B', 1000, 1960)).toBe(true);
  });

  it('a lease held by a holder known to be dead is taken before it expires, and only from that holder', async () => {
    expect(await a.tryLease('projection:x', 'A', 1000, 0)).toBe(true);
    expect(await b.tryLease('projection:x', 'B', 1000, 10, 'C')).toBe(false); // C does not hold it
    expect(await b.tryLease('projection:x', 'B', 1000, 10, 'A')).toBe(true);
    expect(await a.leaseHolder('projection:x', 20)).toBe('B');
    expect(await a.tryLease('projection:x', 'A', 1000, 30)).toBe(false);
  });

  it('rebuild requests: taken once, only by a process holding the projection, none when none is asked', async () => {
    expect(await a.takeRebuildRequests(['x', 'y'])).toEqual([]);
    await b.requestRebuild('y');
    await b.requestRebuild('z');
    expect(await a.takeRebuildRequests(['x', 'y'])).toEqual(['y']);
    expect(await a.takeRebuildRequests(['x', 'y'])).toEqual([]);
    expect(await b.takeRebuildRequests(['z'])).toEqual(['z']);
  });

  it('timers: scheduled once per stream and id, due in order, cancelled per stream', async () => {
    await a.scheduleTimer({ owner: 'pm', id: 't', stream: 's1', dueAt: 200 });
    await a.scheduleTimer({ owner: 'pm', id: 't', stream: 's1', dueAt: 999 });
    await a.scheduleTimer({ owner: 'pm', id: 't', stream: 's2', dueAt: 100 });
    expect((await b.dueTimers('pm', 300, 10)).map((t) => [t.stream, t.dueAt])).toEqual([
      ['s2', 100],
      ['s1', 200],
    ]);
    await b.cancelTimer('pm', 's2', 't');
    expect((await a.dueTimers('pm', 300, 10)).map((t) => t.stream)).toEqual(['s1']);
  });

  it('shared records: every change applies to the latest value, from either process, however they interleave; expired ones read as absent', async () => {
    const increment = (now: number) => (n: number | null) => ({
      next: (n ?? 0) + 1,
      expiresAt: now + 1000,
      result: (n ?? 0) + 1,
    });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).updateRecord('counter', 100, increment(100))),
    );
    expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await a.updateRecord('counter', 200, (n: number | null) => ({ next: n, expiresAt: 1100, result: n }))).toBe(
      40,
    );
    // Past its expiry a record is gone; a change to null deletes it.
    expect(
      await b.updateRecord('counter', 1100, (n: number | null) => ({ next: null, expiresAt: 0, result: n })),
    ).toBeNull();
    await a.updateRecord('other', 0, () => ({ next: 'x', expiresAt: 5000, result: null }));
    await b.updateRecord('other', 10, () => ({ next: null, expiresAt: 0, result: null }));
    expect(
      await a.updateRecord('other', 20, (v: string | null) => ({ next: v, expiresAt: 5000, result: v })),
    ).toBeNull();
  });
});

/**
 * Several engines over one event store, one read store and one coordination file stand
 * in for several worker and API processes on one DATA_DIR (the read store is shared in
 * memory here, as the on-disk store shares it between processes).
 */
describe('projection engines sharing one DATA_DIR', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: EmbeddedReadStore;
  const coordinations: Coordination[] = [];
  const engines: ProjectionEngine[] = [];
  /** Engines currently applying an event, by name: must never exceed one. */
  let applying = 0;
  let maxApplying = 0;
  const applied: number[] = [];

  const ticks: ProjectionDefinition = {
    name: 'ticks',
    version: 1,
    collections: ['tick_counts'],
    handles: ['Ticked'],
    async apply(event, ctx) {
      applying += 1;
      maxApplying = Math.max(maxApplying, applying);
      applied.push(ctx.position);
      await guardedUpdate(ctx.collection('tick_counts'), event.streamId, ctx.position, { $inc: { count: 1 } });
      applying -= 1;
    },
  };

  const engine = (leaseTtlMs = 300) => {
    const coordination = new SqliteCoordination(join(dir, 'coordination.db'));
    coordinations.push(coordination);
    const e = new ProjectionEngine(events, reads, [ticks], () => undefined, {
      coordination,
      leaseTtlMs,
      followIntervalMs: 20,
    });
    engines.push(e);
    return e;
  };
  const tick = async (stream: string, count: number): Promise<Position> => {
    let last: Position | null = null;
    for (let i = 0; i < count; i++)
      last = (await events.appendToStream(stream, [{ id: randomUUID(), type: 'Ticked', data: {} }], 'any')).position;
    return last!;
  };
  const until = async (condition: () => boolean | Promise<boolean>, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engines-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 10 });
    reads = new EmbeddedReadStore({ file: join(dir, 'read.db'), flushIntervalMs: 10 });
    applying = 0;
    maxApplying = 0;
    applied.length = 0;
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop();
    for (const c of coordinations.splice(0)) await c.close();
    await reads.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two workers: one runs the projection, the other stands by and takes over, resuming with nothing applied twice', async () => {
    await tick('clock', 50);
    // A handover by stop, not by expiry: a 300 ms lease can expire on a starved machine while
    // the holder still applies, and the events it applied since its checkpoint come again (the
    // position guards keep the documents right; this test counts deliveries).
    const first = engine(3000);
    const second = engine(3000);
    await first.start();
    await second.start();
    expect([first.runsHere('ticks'), second.runsHere('ticks')]).toEqual([true, false]);
    await first.waitFor(await events.headPosition());

    const writing = tick('clock', 200); // the stream goes on while the holder stops mid-way
    await until(() => applied.length > 80);
    await first.stop();
    await writing;
    await until(() => second.runsHere('ticks'));
    expect(await second.waitFor(await events.headPosition())).toBe(true);

    expect(maxApplying).toBe(1);
    expect(new Set(applied).size).toBe(applied.length); // no event applied twice
    expect(applied).toHaveLength(250);
    expect((await second.collection('ticks', 'tick_counts').findOne({ _id: 'clock' }))!.count).toBe(250);
  });

  it('a holder that stops renewing (a crashed process) is taken over after the TTL', async () => {
    const first = engine(200);
    const second = engine(200);
    await first.start();
    await second.start();
    // Freeze the first engine's lease renewals, as a crash would.
    for (const lease of (first as any).leases.leases.values()) clearInterval(lease.timer);
    await until(() => second.runsHere('ticks'), 3000);
    expect(second.runsHere('ticks')).toBe(true);
  });

  it('an engine without the lease (an API process): waitFor waits on the published position; a rebuild it asks for switches it too', async () => {
    const worker = engine();
    await worker.start();
    const api = engine();
    await api.loadGenerations(); // what ROLES=api does: no runners
    expect(api.runsHere('ticks')).toBe(false);

    const position = await tick('clock', 10);
    expect(await api.waitFor(position, 5000)).toBe(true);
    const status = (await api.status())[0];
    expect(BigInt(status.position!.split('/')[0])).toBeGreaterThanOrEqual(position.commit);
    expect(status.holder).toBe(worker.holder);
    expect(status.state).toBe('live');
    // Beyond the head: nobody will publish it, so waitFor gives up.
    expect(await api.waitFor({ commit: position.commit + 100n, prepare: position.commit + 100n }, 100)).toBe(false);

    const { generation } = await api.rebuild('ticks', { wait: true });
    expect(generation).toBe(2);
    expect((await worker.status())[0].generation).toBe(2);
    expect((await api.status())[0].generation).toBe(2);
    expect((await api.collection('ticks', 'tick_counts').findOne({ _id: 'clock' }))!.count).toBe(10);
  });
  it("an API process with its own read store on the file: once waitFor resolves it reads the worker's documents, cached or not, and follows its rebuild", async () => {
    const worker = engine();
    await worker.start();
    // What another process has: its own connections, document cache and catalogue.
    const apiReads = new EmbeddedReadStore({ file: join(dir, 'read.db'), flushIntervalMs: 10 });
    const coordination = new SqliteCoordination(join(dir, 'coordination.db'));
    coordinations.push(coordination);
    const api = new ProjectionEngine(events, apiReads, [ticks], () => undefined, {
      coordination,
      followIntervalMs: 20,
    });
    engines.push(api);
    await api.loadGenerations();
    const count = async () => (await api.collection('ticks', 'tick_counts').findOne({ _id: 'clock' }))?.count;
    try {
      expect(await count()).toBeUndefined();
      expect(await api.waitFor(await tick('clock', 5), 5000)).toBe(true);
      expect(await count()).toBe(5); // a collection the worker created after this process started
      expect(await api.waitFor(await tick('clock', 3), 5000)).toBe(true);
      expect(await count()).toBe(8); // the document this process had cached, changed by the worker

      await worker.rebuild('ticks', { wait: true });
      expect(api.collection('ticks', 'tick_counts').name).toBe('tick_counts__g2');
      expect(await count()).toBe(8);
      expect(await apiReads.listCollections()).not.toContain('tick_counts__g1');
    } finally {
      await api.stop();
      await apiReads.close();
    }
  });
});
