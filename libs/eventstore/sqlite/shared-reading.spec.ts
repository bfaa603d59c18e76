import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Position, RecordedEvent, Subscription } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

/**
 * How the SQLite store's subscriptions share their reading: behind the head they read
 * `$all` in aligned blocks of 1,000 positions kept for one another (catch-up-blocks.ts);
 * at the head they wait together on one poll of SQLite's data_version.
 */
describe('SqliteEventStore: shared reading of $all', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'es-shared-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const fill = async (store: SqliteEventStore, count: number) => {
    for (let i = 0; i < count; i += 250) {
      const n = Math.min(250, count - i);
      await store.appendToStream(
        `s-${i}`,
        Array.from({ length: n }, (_, k) => ({ type: 'Counted', data: { n: i + k } })),
        'no_stream',
      );
    }
  };

  /** Takes `count` events from a subscription, batch by batch, yielding to the event loop between batches as a consumer does. */
  const take = async (sub: Subscription, count: number): Promise<RecordedEvent[]> => {
    const got: RecordedEvent[] = [];
    for await (const batch of sub.batches!()) {
      got.push(...batch);
      await new Promise((r) => setImmediate(r));
      if (got.length >= count) break;
    }
    await sub.close();
    return got;
  };

  const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

  it('delivers the same events in the same order to subscriptions starting at different positions, reading each block once', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await fill(store, 5500);
    const all = await store.readAll({ maxCount: 10_000 });
    const starts = [0, 1, 999, 1000, 1234, 4000, 5499];
    const reads = jest.spyOn((store as any).stmts.readRange, 'all');
    const results = await Promise.all(
      starts.map((s) => take(store.subscribeToAll(s === 0 ? null : at(s)), all.length - s)),
    );
    results.forEach((got, i) => {
      const expected = all.filter((e) => Number(e.position.commit) > starts[i]);
      expect(got.map((e) => e.position.commit)).toEqual(expected.map((e) => e.position.commit));
      expect(got.map((e) => e.data.n)).toEqual(expected.map((e) => e.data.n));
    });
    // Five complete blocks read once between seven subscriptions, plus the head block's
    // reads (at most one per distinct cursor there); each on its own: 28 reads or more.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(5 + starts.length);
    // The same stored event, decoded once, reached every subscription that was behind it.
    const at2500 = results.map((got) => got.find((e) => e.position.commit === 2500n)).filter(Boolean);
    expect(at2500.length).toBe(5);
    for (const e of at2500) expect(e).toBe(at2500[0]);
    await store.close();
  });

  it('keeps blocks only while a subscription is behind them, within the byte bound', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await fill(store, 12_000);
    const blocks = () => (store as any).blocks.size() as { blocks: number; bytes: number };
    // One subscription alone: each block it has passed goes when the next one is kept.
    await take(store.subscribeToAll(null), 12_000);
    expect(blocks().blocks).toBeLessThanOrEqual(1);
    // Two far apart: the leader's blocks wait for the follower, up to the bound (4 MiB).
    // The follower reads its first batch before the leader starts, so its cursor is tracked.
    const follower = store.subscribeToAll(null);
    const followerBatches = follower.batches!()[Symbol.asyncIterator]();
    const first = await followerBatches.next();
    const leader = store.subscribeToAll(at(5000));
    await take(leader, 7000);
    expect(blocks().blocks).toBeGreaterThan(1);
    expect(blocks().bytes).toBeLessThanOrEqual(4 * 2 ** 20);
    let followed = (first.value as RecordedEvent[]).length;
    while (followed < 12_000) followed += ((await followerBatches.next()).value as RecordedEvent[]).length;
    expect(followed).toBe(12_000);
    await follower.close();
    // A closed subscription's loop ends at its next step (consumers take it; here by hand).
    expect((await followerBatches.next()).done).toBe(true);
    // Every subscription closed: nothing is kept for them.
    expect(blocks().blocks).toBe(0);
    await store.close();
  });

  it('hands subscriptions at different cursors near the head the same event objects, each decoded once (decision 0107)', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await fill(store, 10);
    const ahead = store.subscribeToAll(null);
    const behind = store.subscribeToAll(null);
    const aheadBatches = ahead.batches!()[Symbol.asyncIterator]();
    const behindBatches = behind.batches!()[Symbol.asyncIterator]();
    expect(((await aheadBatches.next()).value as RecordedEvent[]).length).toBe(10);
    // One more append: the leader reads from 10, the follower (still at 0) from the start; no shared page serves both.
    await store.appendToStream('late', [{ type: 'Counted', data: { n: 10 } }], 'no_stream');
    const leader = (await aheadBatches.next()).value as RecordedEvent[];
    const follower = (await behindBatches.next()).value as RecordedEvent[];
    expect(leader.map((e) => e.data.n)).toEqual([10]);
    expect(follower.map((e) => e.data.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const parse = jest.spyOn(JSON, 'parse');
    expect(follower[10]).toBe(leader[0]);
    expect(follower[10].data).toEqual({ n: 10 });
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    await ahead.close();
    await behind.close();
    await store.close();
  });

  it('keeps nothing for others where it is told there is one subscription (a DNS thread)', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db'), singleSubscription: true });
    await fill(store, 10);
    await take(store.subscribeToAll(null), 10);
    expect((store as any).recent.size()).toEqual({ events: 0, bytes: 0 });
    expect((store as any).pages.size).toBe(0);
    await store.close();
  });

  it('skips the gaps retention leaves in $all', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new SqliteEventStore({ file: join(dir, 'events.db'), now: () => now });
    await store.setStreamMetadata('old', { maxAgeSeconds: 60 });
    for (let i = 0; i < 12; i++)
      await store.appendToStream(
        'old',
        Array.from({ length: 1000 }, (_, k) => ({ type: 'Old', data: { n: i * 1000 + k } })),
        i === 0 ? 'no_stream' : i * 1000 - 1,
      );
    now += 3_600_000;
    await store.appendToStream('new', [{ type: 'New', data: {} }], 'no_stream');
    expect(store.scavenge()).toBe(11_999);
    const reads = jest.spyOn((store as any).stmts.readRange, 'all');
    const got = await take(store.subscribeToAll(null), 2);
    expect(got.map((e) => e.type)).toEqual(['Old', 'New']);
    expect(reads.mock.calls.length).toBeLessThanOrEqual(3);
    await store.close();
  });

  it('polls once per interval for all idle subscriptions, and wakes them for another connection’s commit within it', async () => {
    const file = join(dir, 'events.db');
    const reader = new SqliteEventStore({ file, pollIntervalMs: 50 });
    const writer = new SqliteEventStore({ file });
    await fill(writer, 10);
    const polls = jest.spyOn((reader as any).stmts.dataVersion, 'get');
    const reads = jest.spyOn((reader as any).stmts.readRange, 'all');
    const subs = Array.from({ length: 20 }, () => reader.subscribeToAll(null));
    const received = subs.map((sub) => take(sub, 11));
    await new Promise((r) => setTimeout(r, 520));
    const idleReads = reads.mock.calls.length;
    const idlePolls = polls.mock.calls.length;
    // About ten polls of data_version in 0.5 s for twenty subscriptions (each used to read on its own timer).
    expect(idlePolls).toBeLessThanOrEqual(20 + 12);
    expect(idleReads).toBeLessThanOrEqual(2);
    const appended = Date.now();
    await writer.appendToStream('late', [{ type: 'Late', data: {} }], 'no_stream');
    const all = await Promise.all(received);
    expect(Date.now() - appended).toBeLessThan(50 + 200);
    for (const got of all) expect(got.map((e) => e.type).slice(-1)).toEqual(['Late']);
    await writer.close();
    await reader.close();
  });

  it('wakes idle subscriptions at once for an append through the same store', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 60_000 });
    const received = take(store.subscribeToAll(null), 1);
    await new Promise((r) => setTimeout(r, 20));
    const appended = Date.now();
    await store.appendToStream('x', [{ type: 'X', data: {} }], 'no_stream');
    expect((await received).map((e) => e.type)).toEqual(['X']);
    expect(Date.now() - appended).toBeLessThan(1000);
    await store.close();
  });
});
