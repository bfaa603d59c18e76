import { randomUUID } from 'node:crypto';
import {
  comparePositions,
  EventStore,
  NewEvent,
  Position,
  RecordedEvent,
  Subscription,
  WrongExpectedVersionError,
} from '../event-store.port';

export interface EventStoreHarness {
  store: EventStore;
  /** Releases the store and whatever the factory created for it. */
  dispose(): Promise<void>;
}

/**
 * The behaviour every event-store adapter must share. Stream names are unique per test
 * because a server-backed store is shared between runs and is never emptied.
 */
export function describeEventStoreConformance(name: string, factory: () => Promise<EventStoreHarness>): void {
  describe(`EventStore conformance: ${name}`, () => {
    let harness: EventStoreHarness;
    let store: EventStore;
    const run = randomUUID().slice(0, 8);
    let seq = 0;
    const streamName = (category = 'conf') => `${category}${run}-${++seq}`;
    const ev = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
      id: randomUUID(),
      type,
      data,
      metadata: { actor: 'system', correlation_id: 'c-1' },
    });
    const ours = (events: RecordedEvent[]) => events.filter((e) => e.streamId.includes(run));

    beforeAll(async () => {
      harness = await factory();
      store = harness.store;
    });
    afterAll(async () => {
      await harness?.dispose();
    });

    const expectConflict = async (
      promise: Promise<unknown>,
      actual: number | 'no_stream',
    ): Promise<WrongExpectedVersionError> => {
      const error = await promise.then(
        () => {
          throw new Error('append succeeded; a WrongExpectedVersionError was expected');
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      expect((error as WrongExpectedVersionError).actual).toBe(actual);
      return error as WrongExpectedVersionError;
    };

    it('appends and reads back type, data, metadata, 0-based revisions and creation time', async () => {
      const s = streamName();
      const before = Date.now();
      const result = await store.appendToStream(
        s,
        [ev('A', { n: 1, nested: { ok: true } }), ev('B', { n: 2 })],
        'no_stream',
      );
      expect(result.nextExpectedRevision).toBe(1);
      const events = await store.readStream(s);
      expect(events.map((e) => [e.type, e.revision, e.data.n])).toEqual([
        ['A', 0, 1],
        ['B', 1, 2],
      ]);
      expect(events[0].data.nested).toEqual({ ok: true });
      expect(events[0].metadata).toMatchObject({ actor: 'system', correlation_id: 'c-1' });
      expect(events[0].streamId).toBe(s);
      expect(events[0].created).toBeInstanceOf(Date);
      // Server clocks may differ slightly from ours.
      expect(events[0].created.getTime()).toBeGreaterThan(before - 60_000);
      expect(comparePositions(events[1].position, result.position)).toBe(0);
      expect(comparePositions(events[0].position, events[1].position)).toBeLessThan(0);
    });

    it('keeps the event ids it was given', async () => {
      const s = streamName();
      const e = ev('A');
      await store.appendToStream(s, [e], 'no_stream');
      expect((await store.readStream(s))[0].id).toBe(e.id);
    });

    it('reads a stream that does not exist as empty', async () => {
      expect(await store.readStream(streamName('missing'))).toEqual([]);
      expect(await store.readStream(streamName('missing'), { direction: 'backwards', maxCount: 1 })).toEqual([]);
    });

    describe('expected revisions', () => {
      it('no_stream: creates a stream, then conflicts once it exists', async () => {
        const s = streamName();
        await store.appendToStream(s, [ev('A'), ev('B')], 'no_stream');
        await expectConflict(store.appendToStream(s, [ev('C')], 'no_stream'), 1);
      });

      it('stream_exists: conflicts on a missing stream, appends to an existing one', async () => {
        const s = streamName();
        await expectConflict(store.appendToStream(s, [ev('A')], 'stream_exists'), 'no_stream');
        await store.appendToStream(s, [ev('A')], 'no_stream');
        const r = await store.appendToStream(s, [ev('B')], 'stream_exists');
        expect(r.nextExpectedRevision).toBe(1);
      });

      it('a revision: appends when it is the last one, conflicts with the actual one otherwise', async () => {
        const s = streamName();
        await expectConflict(store.appendToStream(s, [ev('A')], 0), 'no_stream');
        await store.appendToStream(s, [ev('A'), ev('B'), ev('C')], 'no_stream');
        const error = await expectConflict(store.appendToStream(s, [ev('D')], 1), 2);
        expect(error.stream).toBe(s);
        expect(error.expected).toBe(1);
        const r = await store.appendToStream(s, [ev('D')], 2);
        expect(r.nextExpectedRevision).toBe(3);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
      });

      it('any: appends whether or not the stream exists', async () => {
        const s = streamName();
        expect((await store.appendToStream(s, [ev('A')], 'any')).nextExpectedRevision).toBe(0);
        expect((await store.appendToStream(s, [ev('B')], 'any')).nextExpectedRevision).toBe(1);
      });

      it('a conflicting append writes none of its events', async () => {
        const s = streamName();
        await store.appendToStream(s, [ev('A')], 'no_stream');
        await expectConflict(store.appendToStream(s, [ev('X'), ev('Y')], 'no_stream'), 0);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A']);
      });
    });

    it('treats a re-sent append with the same event ids as already done', async () => {
      const s = streamName();
      const batch = [ev('A'), ev('B')];
      const first = await store.appendToStream(s, batch, 'no_stream');
      const again = await store.appendToStream(s, batch, 'no_stream');
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect((await store.readStream(s)).map((e) => e.id)).toEqual(batch.map((e) => e.id));
    });

    it('lets exactly one of many concurrent appends with the same expected revision win', async () => {
      const s = streamName();
      await store.appendToStream(s, [ev('Created')], 'no_stream');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.appendToStream(s, [ev('Changed', { i })], 0)),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(7);
      for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1]);
    });

    describe('reading a stream', () => {
      let s: string;
      beforeAll(async () => {
        s = streamName();
        await store.appendToStream(
          s,
          [0, 1, 2, 3, 4].map((n) => ev('N', { n })),
          'no_stream',
        );
      });

      it('forwards from a revision, at most maxCount', async () => {
        const events = await store.readStream(s, { fromRevision: 1, maxCount: 2 });
        expect(events.map((e) => e.revision)).toEqual([1, 2]);
      });

      it('backwards from the end', async () => {
        const events = await store.readStream(s, { direction: 'backwards' });
        expect(events.map((e) => e.revision)).toEqual([4, 3, 2, 1, 0]);
      });

      it('backwards from a revision, at most maxCount', async () => {
        const events = await store.readStream(s, { direction: 'backwards', fromRevision: 3, maxCount: 2 });
        expect(events.map((e) => e.data.n)).toEqual([3, 2]);
      });

      it('the last event only', async () => {
        const [last] = await store.readStream(s, { direction: 'backwards', maxCount: 1 });
        expect(last.revision).toBe(4);
      });
    });

    describe('$all', () => {
      it('reads in global order strictly after the given position, at most maxCount', async () => {
        const head = await store.headPosition();
        const a = streamName();
        const b = streamName();
        await store.appendToStream(a, [ev('A0'), ev('A1')], 'no_stream');
        await store.appendToStream(b, [ev('B0')], 'no_stream');
        await store.appendToStream(a, [ev('A2')], 1);
        const all = ours(await store.readAll({ after: head, maxCount: 10_000 }));
        expect(all.map((e) => e.type)).toEqual(['A0', 'A1', 'B0', 'A2']);
        for (let i = 1; i < all.length; i++)
          expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);

        const afterSecond = await store.readAll({ after: all[1].position, maxCount: 10_000 });
        expect(ours(afterSecond).map((e) => e.type)).toEqual(['B0', 'A2']);
        expect(afterSecond.every((e) => comparePositions(e.position, all[1].position) > 0)).toBe(true);

        const two = await store.readAll({ after: head, maxCount: 2 });
        expect(two.map((e) => e.type)).toEqual(['A0', 'A1']);
      });

      it('events keep every field when serialised or copied field by field', async () => {
        const s = streamName();
        await store.appendToStream(s, [{ type: 'A', data: { n: 1 }, metadata: { actor: 'system' } }], 'no_stream');
        const [e] = await store.readStream(s);
        const copy = JSON.parse(JSON.stringify(e, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
        expect(copy).toMatchObject({
          id: e.id,
          streamId: s,
          revision: 0,
          type: 'A',
          data: { n: 1 },
          metadata: { actor: 'system' },
        });
        expect(new Date(copy.created).getTime()).toBe(e.created.getTime());
        expect(copy.position.commit).toBe(e.position.commit.toString());
        const { id, streamId, revision, type, data, metadata, position, created } = e;
        expect({ id, streamId, revision, type, data, metadata, position, created }).toEqual({
          id: e.id,
          streamId: s,
          revision: 0,
          type: 'A',
          data: { n: 1 },
          metadata: { actor: 'system' },
          position: e.position,
          created: e.created,
        });
      });

      it('reports the head as the position of the last event written', async () => {
        const s = streamName();
        await store.appendToStream(s, [ev('A'), ev('B')], 'no_stream');
        const [last] = await store.readStream(s, { direction: 'backwards', maxCount: 1 });
        const head = await store.headPosition();
        expect(head).not.toBeNull();
        expect(comparePositions(head!, last.position)).toBe(0);
      });
    });

    describe('subscriptions', () => {
      const collect = (sub: Subscription, into: RecordedEvent[], filter: (e: RecordedEvent) => boolean) =>
        (async () => {
          for await (const e of sub) if (filter(e)) into.push(e);
        })();
      const until = async (predicate: () => boolean, timeoutMs = 10_000) => {
        const deadline = Date.now() + timeoutMs;
        while (!predicate()) {
          if (Date.now() > deadline) throw new Error('timed out waiting for the subscription');
          await new Promise((r) => setTimeout(r, 10));
        }
      };

      it('delivers events appended while it runs, in order, exactly once', async () => {
        const prefix = streamName('sub');
        const head = await store.headPosition();
        const received: RecordedEvent[] = [];
        const sub = store.subscribeToAll(head);
        const done = collect(sub, received, (e) => e.streamId.startsWith(prefix));
        // Sequential appends, then a burst of concurrent ones to distinct streams.
        for (let i = 0; i < 10; i++)
          await store.appendToStream(`${prefix}-seq`, [ev('Seq', { i })], i === 0 ? 'no_stream' : i - 1);
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.appendToStream(`${prefix}-c${i}`, [ev('C', { i }), ev('C2', { i })], 'no_stream'),
          ),
        );
        await until(() => received.length >= 50);
        // Give duplicates a chance to show up before judging.
        await new Promise((r) => setTimeout(r, 300));
        await sub.close();
        await done;

        expect(received).toHaveLength(50);
        expect(new Set(received.map((e) => e.id)).size).toBe(50);
        expect(received.filter((e) => e.type === 'Seq').map((e) => e.data.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        const logged = (await store.readAll({ after: head, maxCount: 10_000 })).filter((e) =>
          e.streamId.startsWith(prefix),
        );
        expect(received.map((e) => e.id)).toEqual(logged.map((e) => e.id));
      });

      it('resumes after a checkpoint position without repeating it', async () => {
        const s = streamName('resume');
        await store.appendToStream(
          s,
          [0, 1, 2, 3, 4].map((n) => ev('N', { n })),
          'no_stream',
        );
        const events = await store.readStream(s);
        const checkpoint: Position = events[1].position;
        const received: RecordedEvent[] = [];
        const sub = store.subscribeToAll(checkpoint);
        const done = collect(sub, received, (e) => e.streamId === s);
        await until(() => received.length >= 3);
        await store.appendToStream(s, [ev('N', { n: 5 })], 4);
        await until(() => received.length >= 4);
        await sub.close();
        await done;
        expect(received.map((e) => e.data.n)).toEqual([2, 3, 4, 5]);
      });

      it('hands out the same events in order through batches(), in non-empty batches', async () => {
        const s = streamName('batches');
        const head = await store.headPosition();
        await store.appendToStream(
          s,
          [0, 1, 2, 3, 4].map((n) => ev('N', { n })),
          'no_stream',
        );
        const sub = store.subscribeToAll(head);
        if (!sub.batches) return void (await sub.close());
        const received: RecordedEvent[] = [];
        const done = (async () => {
          for await (const batch of sub.batches!()) {
            expect(batch.length).toBeGreaterThan(0);
            received.push(...batch.filter((e) => e.streamId === s));
          }
        })();
        await until(() => received.length >= 5);
        await store.appendToStream(s, [ev('N', { n: 5 })], 4);
        await until(() => received.length >= 6);
        await sub.close();
        await done;
        expect(received.map((e) => e.data.n)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(received.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
      });

      it('ends iteration when closed', async () => {
        const sub = store.subscribeToAll(await store.headPosition());
        const done = collect(sub, [], () => true);
        await new Promise((r) => setTimeout(r, 50));
        await sub.close();
        await expect(done).resolves.toBeUndefined();
      });
    });

    it('hides events older than the stream maxAge', async () => {
      const s = streamName('expiring');
      await store.setStreamMetadata(s, { maxAgeSeconds: 1 });
      await store.appendToStream(s, [ev('Old'), ev('Old')], 'no_stream');
      expect(await store.readStream(s)).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 2100));
      const r = await store.appendToStream(s, [ev('New')], 1);
      expect(r.nextExpectedRevision).toBe(2);
      const visible = await store.readStream(s);
      expect(visible.map((e) => [e.type, e.revision])).toEqual([['New', 2]]);
    });

    it('prunes events past the stream maxAge for good, and the stream carries on', async () => {
      const s = streamName('pruned');
      await store.setStreamMetadata(s, { maxAgeSeconds: 1 });
      await store.appendToStream(s, [ev('Old'), ev('Old'), ev('Last')], 'no_stream');
      await new Promise((r) => setTimeout(r, 2100));
      const removed = await store.pruneExpired(new Date());
      // null: the store reclaims the space in the background (EventStoreDB's scavenge).
      if (removed !== null) expect(removed).toBeGreaterThanOrEqual(2);
      expect((await store.appendToStream(s, [ev('New')], 2)).nextExpectedRevision).toBe(3);
      expect((await store.readStream(s)).map((e) => [e.type, e.revision])).toEqual([['New', 3]]);
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
