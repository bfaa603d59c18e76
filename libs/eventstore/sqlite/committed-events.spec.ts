import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordedEvent, Subscription } from '../event-store.port';
import { RecentEvents } from './recent-events';
import { SqliteEventStore } from './sqlite-event-store';

/**
 * Decision 0114: the events a store has just committed go to its own subscriptions as they
 * were appended, not read back from SQLite; positions, order and every field stay those of
 * the stored rows, and what another connection commits in between is still read.
 */
describe('SqliteEventStore: its own commits handed to its subscriptions', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'es-committed-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Takes events from a subscription until `count` have come. */
  const take = async (sub: Subscription, count: number): Promise<RecordedEvent[]> => {
    const got: RecordedEvent[] = [];
    for await (const batch of sub.batches!()) {
      got.push(...batch);
      if (got.length >= count) break;
    }
    await sub.close();
    return got;
  };
  /** Every field a consumer can read, in plain values. */
  const asStored = (events: RecordedEvent[]) =>
    events.map((e) => ({
      id: e.id,
      streamId: e.streamId,
      revision: e.revision,
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      position: [e.position.commit, e.position.prepare],
      created: e.created.getTime(),
    }));

  for (const commits of ['inline', 'thread'] as const) {
    it(`delivers appends made through the store without reading them back, as stored (${commits} commits)`, async () => {
      let now = Date.parse('2026-03-01T10:00:00Z');
      const store = new SqliteEventStore({ file: join(dir, 'events.db'), commits, now: () => now++ });
      await store.appendToStream('before', [{ type: 'Old', data: { n: 0 } }], 'no_stream');
      const sub = store.subscribeToAll(null);
      const received = take(sub, 9);
      await new Promise((r) => setTimeout(r, 20));
      const reads = jest.spyOn((store as any).stmts.readRange, 'all');
      // Appends of one event-loop turn commit together; one of several events, one with caller ids.
      await Promise.all([
        store.appendToStream('a', [{ type: 'A', data: { n: 1, s: 'é' }, metadata: { actor: 'x' } }], 'no_stream'),
        store.appendToStream(
          'b',
          [
            { type: 'B', data: { n: 2 } },
            { type: 'B', data: { n: 3, list: [1, { k: null }] } },
          ],
          'no_stream',
        ),
        store.appendToStream('c', [{ id: '0190a3f0-0000-7000-8000-000000000001', type: 'C', data: {} }], 'no_stream'),
      ]);
      await store.appendToStream('a', [{ type: 'A', data: { n: 4 } }], 0);
      // A refused append stores nothing and delivers nothing.
      await expect(store.appendToStream('a', [{ type: 'A', data: { n: -1 } }], 0)).rejects.toThrow();
      // A replay of stored ids writes nothing again: nothing new is delivered for it.
      await store.appendToStream('c', [{ id: '0190a3f0-0000-7000-8000-000000000001', type: 'C', data: {} }], 'any');
      await store.appendToStream('d', [{ type: 'D', data: { n: 5 } }], 'no_stream');
      await store.appendToStream(
        'd',
        [
          { type: 'D', data: { n: 6 } },
          { type: 'D', data: { n: 7 } },
        ],
        0,
      );
      const got = await received;
      expect(reads).not.toHaveBeenCalled();
      const stored = await store.readAll({ maxCount: 100 });
      expect(stored).toHaveLength(9);
      expect(asStored(got)).toEqual(asStored(stored));
      expect(got.map((e) => Number(e.position.commit))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      await store.close();
    });
  }

  it('hands over decoded events that share nothing with the appender’s objects and read as stored JSON', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    const received = take(store.subscribeToAll(null), 3);
    const data = { addresses: { ipv4: '192.0.2.1' }, gone: undefined };
    const metadata = { actor: 'ddns:1', account_id: 3 };
    const appended = store.appendToStream('h', [{ type: 'Changed', data, metadata }], 'no_stream');
    // Changed by its appender after the append, before the commit: the event is what was appended.
    data.addresses.ipv4 = '192.0.2.99';
    metadata.account_id = 4;
    await appended;
    // JSON writes a date as its ISO text, and a large event is decoded only when read.
    await store.appendToStream('h', [{ type: 'Dated', data: { at: new Date(0) } }], 0);
    await store.appendToStream('h', [{ type: 'Large', data: { text: 'x'.repeat(5000) } }], 1);
    const got = await received;
    expect(got[0].data).toEqual({ addresses: { ipv4: '192.0.2.1' } });
    expect(got[0].data).not.toBe(data);
    expect(got[0].metadata).toEqual({ actor: 'ddns:1', account_id: 3 });
    expect(got[1].data).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    expect(got[2].data.text).toHaveLength(5000);
    expect(asStored(got)).toEqual(asStored(await store.readAll({ maxCount: 10 })));
    await store.close();
  });

  it('reads back an append whose caller ids it cannot hand over as they are (one holds the separator)', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    const received = take(store.subscribeToAll(null), 2);
    const reads = jest.spyOn((store as any).stmts.readRange, 'all');
    await store.appendToStream('odd', [{ id: 'a,b', type: 'Odd', data: { n: 1 } }], 'no_stream');
    await store.appendToStream('odd', [{ type: 'Odd', data: { n: 2 } }], 0);
    const got = await received;
    expect(got.map((e) => [e.id, e.data.n])).toEqual([
      ['a,b', 1],
      [got[1].id, 2],
    ]);
    expect(reads).toHaveBeenCalled();
    expect(asStored(got)).toEqual(asStored(await store.readAll({ maxCount: 10 })));
    await store.close();
  });

  it('keeps nothing of its commits while no subscription is open (a process that only appends)', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await store.appendToStream('s', [{ type: 'A', data: { n: 1 } }], 'no_stream');
    expect((store as any).recent.size()).toEqual({ events: 0, bytes: 0 });
    const sub = store.subscribeToAll(null);
    await store.appendToStream('s', [{ type: 'A', data: { n: 2 } }], 0);
    expect((store as any).recent.size().events).toBe(1);
    expect((await take(sub, 2)).map((e) => e.data.n)).toEqual([1, 2]);
    await store.appendToStream('s', [{ type: 'A', data: { n: 3 } }], 1);
    expect((store as any).recent.size().events).toBe(2);
    await store.close();
  });

  it('reads what another connection committed between its own commits, in position order, each once', async () => {
    const file = join(dir, 'events.db');
    const store = new SqliteEventStore({ file, pollIntervalMs: 20 });
    const other = new SqliteEventStore({ file });
    const sub = store.subscribeToAll(null);
    const received = take(sub, 7);
    await store.appendToStream('mine', [{ type: 'Mine', data: { n: 1 } }], 'no_stream');
    await other.appendToStream('theirs', [{ type: 'Theirs', data: { n: 2 } }], 'no_stream');
    await other.appendToStream('theirs', [{ type: 'Theirs', data: { n: 3 } }], 0);
    await store.appendToStream(
      'mine',
      [
        { type: 'Mine', data: { n: 4 } },
        { type: 'Mine', data: { n: 5 } },
      ],
      0,
    );
    await other.appendToStream('theirs', [{ type: 'Theirs', data: { n: 6 } }], 1);
    await store.appendToStream('mine', [{ type: 'Mine', data: { n: 7 } }], 2);
    const got = await received;
    expect(got.map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(asStored(got)).toEqual(asStored(await store.readAll({ maxCount: 100 })));
    await other.close();
    await store.close();
  });
});

describe('RecentEvents: the stretch of local commits it holds whole', () => {
  const held = (positions: number[]) => positions.map((position) => ({ position, event: `e${position}`, bytes: 10 }));

  it('serves a range only within the stretch its commits filled, joining commits that follow one another', () => {
    const recent = new RecentEvents<string>(1000);
    recent.committed(10, held([11, 12]));
    recent.committed(12, held([13]));
    expect(recent.range(10, 13)).toEqual(['e11', 'e12', 'e13']);
    expect(recent.range(12, 13)).toEqual(['e13']);
    expect(recent.range(13, 13)).toEqual([]);
    // Before the stretch, or past it: unknown here.
    expect(recent.range(9, 12)).toBeNull();
    expect(recent.range(12, 14)).toBeNull();
    // Another connection committed 14–15: the next local commit starts a new stretch.
    recent.committed(15, held([16]));
    expect(recent.range(13, 16)).toBeNull();
    expect(recent.range(15, 16)).toEqual(['e16']);
  });

  it('forgets the stretch below an event it drops, and all of it when cleared', () => {
    const recent = new RecentEvents<string>(30);
    recent.committed(0, held([1, 2, 3]));
    expect(recent.range(0, 3)).toEqual(['e1', 'e2', 'e3']);
    recent.committed(3, held([4]));
    // 40 bytes held over a bound of 30: position 1 dropped.
    expect(recent.range(0, 4)).toBeNull();
    expect(recent.range(1, 4)).toEqual(['e2', 'e3', 'e4']);
    recent.clear();
    expect(recent.range(1, 4)).toBeNull();
  });
});
