import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardedUpdate } from '../../projections/guard';
import { Position, positionToString } from '../eventstore/event-store.port';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { EmbeddedReadStore } from '../readstore/embedded/embedded-read-store';
import { ProjectionDefinition } from './projection';
import { ProjectionEngine } from './projection-engine';

/**
 * A per-stream tick counter. The document guard (`_pos`) makes redelivery harmless;
 * `applied` counts every call so the tests can tell a resumed run from a replay.
 */
function counter(version = 1) {
  const applied: number[] = [];
  const definition: ProjectionDefinition = {
    name: 'ticks',
    version,
    collections: ['tick_counts'],
    handles: ['Ticked'],
    async setup(ctx) {
      await ctx.collection('tick_counts').createIndex({ parity: 1 });
    },
    async apply(event, ctx) {
      applied.push(ctx.position);
      await guardedUpdate(ctx.collection('tick_counts'), event.streamId, ctx.position, {
        $inc: { count: 1 },
        $set: { last: event.data.n, parity: event.data.n % 2 },
      });
    },
  };
  return { definition, applied };
}

describe('ProjectionEngine on the embedded stores', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: EmbeddedReadStore;
  const engines: ProjectionEngine[] = [];

  const open = () => {
    events = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20 });
    reads = new EmbeddedReadStore({ file: join(dir, 'read.db'), flushIntervalMs: 10 });
  };
  const engineFor = (definition: ProjectionDefinition) => {
    const engine = new ProjectionEngine(events, reads, [definition]);
    engines.push(engine);
    return engine;
  };
  const stopAll = async () => {
    for (const e of engines.splice(0)) await e.stop();
  };
  const restart = async () => {
    await stopAll();
    await reads.close();
    await events.close();
    open();
  };
  const tick = async (stream: string, from: number, count: number): Promise<Position> => {
    let last: Position | null = null;
    for (let i = 0; i < count; i++) {
      const n = from + i;
      const r = await events.appendToStream(
        stream,
        [{ id: randomUUID(), type: 'Ticked', data: { n } }],
        n === 0 ? 'no_stream' : n - 1,
      );
      last = r.position;
    }
    return last!;
  };
  const counts = async (engine: ProjectionEngine) =>
    Object.fromEntries(
      (await engine.collection('ticks', 'tick_counts').find({}, { sort: { _id: 1 } })).map((d) => [d._id, d.count]),
    );

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'projections-'));
    open();
  });
  afterEach(async () => {
    await stopAll();
    await reads.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('catches up with existing events, then follows live ones; waitFor gives read-your-writes', async () => {
    await tick('clock-a', 0, 30);
    await events.appendToStream('other-1', [{ type: 'Ignored', data: {} }], 'no_stream');
    await tick('clock-b', 0, 20);
    const { definition, applied } = counter();
    const engine = engineFor(definition);
    await engine.start();
    expect(await engine.waitFor(await events.headPosition())).toBe(true);
    expect(await counts(engine)).toEqual({ 'clock-a': 30, 'clock-b': 20 });
    expect(applied).toHaveLength(50);

    const position = await tick('clock-a', 30, 1);
    expect(await engine.waitFor(position)).toBe(true);
    // No waiting beyond waitFor: the write is visible the moment it resolves.
    expect((await engine.collection('ticks', 'tick_counts').findOne({ _id: 'clock-a' }))!.count).toBe(31);

    const beyond: Position = { commit: position.commit + 1000n, prepare: position.commit + 1000n };
    expect(await engine.waitFor(beyond, 100)).toBe(false);
  });

  it('marks as first deliveries only the events appended after the run started, after a restart too', async () => {
    const seen: Array<[number, boolean]> = [];
    const definition: ProjectionDefinition = {
      name: 'deliveries',
      version: 1,
      collections: ['delivery_docs'],
      handles: ['Ticked'],
      async apply(_event, ctx) {
        seen.push([ctx.position, ctx.firstDelivery]);
      },
    };
    const before = await tick('clock-a', 0, 3);
    const engine = engineFor(definition);
    await engine.start();
    const after = await tick('clock-a', 3, 2);
    await engine.waitFor(after);
    expect(seen.map(([, first]) => first)).toEqual([false, false, false, true, true]);
    expect(seen[2][0]).toBe(Number(before.commit));
    // A new run (here a restart that resumes from an older checkpoint) doubts everything up to its start.
    await restart();
    seen.length = 0;
    await reads.collection('_checkpoints').deleteMany({});
    const again = engineFor(definition);
    await again.start();
    await again.waitFor(await events.headPosition());
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen.every(([, first]) => !first)).toBe(true);
  });

  it('waitFor on some projections does not wait for another that lags; many waiters resolve together', async () => {
    const { definition } = counter();
    // Holds every event until released: a projection that lags behind.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const lagging: ProjectionDefinition = {
      name: 'lagging',
      version: 1,
      collections: ['lagging_docs'],
      handles: ['Ticked'],
      apply: () => gate,
    };
    const engine = new ProjectionEngine(events, reads, [definition, lagging]);
    engines.push(engine);
    await engine.start();
    const positions = await Promise.all(Array.from({ length: 20 }, (_, i) => tick(`clock-${i}`, 0, 1)));
    const onTicks = await Promise.all(positions.map((p) => engine.waitFor(p, 5000, ['ticks'])));
    expect(onTicks.every(Boolean)).toBe(true);
    const onAll = engine.waitFor(positions[positions.length - 1], 5000);
    let settled = false;
    void onAll.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    release();
    expect(await onAll).toBe(true);
  });

  it('resumes from its checkpoint after a restart without applying any event twice', async () => {
    await tick('clock-a', 0, 40);
    const first = counter();
    const engine = engineFor(first.definition);
    await engine.start();
    await engine.waitFor(await events.headPosition());
    expect(first.applied).toHaveLength(40);

    await restart();
    await tick('clock-a', 40, 5);
    const second = counter();
    const again = engineFor(second.definition);
    await again.start();
    await again.waitFor(await events.headPosition());
    expect(second.applied).toHaveLength(5);
    expect(Math.min(...second.applied)).toBeGreaterThan(Math.max(...first.applied));
    expect(await counts(again)).toEqual({ 'clock-a': 45 });
    expect((await again.status())[0]).toMatchObject({ name: 'ticks', lag: 0, state: 'live' });
  });

  it('a checkpoint left behind (a crash before saving) redelivers events that the guard ignores', async () => {
    const head = await tick('clock-a', 0, 10);
    const first = counter();
    const engine = engineFor(first.definition);
    await engine.start();
    await engine.waitFor(head);
    await restart();
    // Wind the checkpoint back as if the process died before persisting it.
    const [fifth] = await events.readStream('clock-a', { fromRevision: 4, maxCount: 1 });
    await reads
      .collection('_checkpoints')
      .updateOne({ _id: 'ticks__g1' }, { $set: { position: positionToString(fifth.position) } });
    const second = counter();
    const again = engineFor(second.definition);
    await again.start();
    await again.waitFor(head);
    expect(second.applied).toHaveLength(5);
    expect(await counts(again)).toEqual({ 'clock-a': 10 });
  });

  it('rebuilds into a new generation with the same documents and switches readers to it', async () => {
    await tick('clock-a', 0, 25);
    await tick('clock-b', 0, 16);
    const { definition } = counter();
    const engine = engineFor(definition);
    await engine.start();
    await engine.waitFor(await events.headPosition());
    const before = await engine.collection('ticks', 'tick_counts').find({}, { sort: { _id: 1 } });
    expect(engine.collection('ticks', 'tick_counts').name).toBe('tick_counts__g1');

    const { generation } = await engine.rebuild('ticks', { wait: true });
    expect(generation).toBe(2);
    const readers = engine.collection('ticks', 'tick_counts');
    expect(readers.name).toBe('tick_counts__g2');
    expect(await readers.find({}, { sort: { _id: 1 } })).toEqual(before);
    expect((await readers.find({ parity: 0 })).map((d) => d._id)).toEqual(['clock-a']);
    expect(await reads.listCollections()).not.toContain('tick_counts__g1');

    // The new generation is the live one from now on.
    const position = await tick('clock-b', 16, 1);
    await engine.waitFor(position);
    expect((await readers.findOne({ _id: 'clock-b' }))!.count).toBe(17);
  });

  it('a version bump rebuilds the projection on start', async () => {
    await tick('clock-a', 0, 12);
    const v1 = counter(1);
    const engine = engineFor(v1.definition);
    await engine.start();
    await engine.waitFor(await events.headPosition());
    await restart();

    const v2 = counter(2);
    const upgraded = engineFor(v2.definition);
    await upgraded.start();
    expect(upgraded.collection('ticks', 'tick_counts').name).toBe('tick_counts__g2');
    expect(await counts(upgraded)).toEqual({ 'clock-a': 12 });
    expect(v2.applied).toHaveLength(12);
    expect(await reads.collection('_projections').findOne({ _id: 'ticks' })).toMatchObject({
      generation: 2,
      version: 2,
    });

    // The switch is durable: a further restart at the same version does not rebuild again.
    await restart();
    const v2again = counter(2);
    const third = engineFor(v2again.definition);
    await third.start();
    await third.waitFor(await events.headPosition());
    expect(third.collection('ticks', 'tick_counts').name).toBe('tick_counts__g2');
    expect(v2again.applied).toHaveLength(0);
  });
});
