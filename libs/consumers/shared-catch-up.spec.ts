import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Position, RecordedEvent } from '../eventstore/event-store.port';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { CheckpointedConsumer } from './checkpointed-consumer';

/**
 * Consumers on one SQLite store share their reading of `$all` (complete blocks kept for
 * one another, one poll at the head) but never wait for one another: each keeps its own
 * position, order and retries, so a consumer that fails stalls nobody else.
 */
describe('CheckpointedConsumer: consumers sharing one store', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'consumers-shared-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20 });
    for (let i = 0; i < 3500; i += 500) {
      await store.appendToStream(
        `s-${i}`,
        Array.from({ length: 500 }, (_, k) => ({ type: k % 2 ? 'Odd' : 'Even', data: { n: i + k } })),
        'no_stream',
      );
    }
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
  const until = async (condition: () => boolean, ms = 5000) => {
    for (const end = Date.now() + ms; !condition() && Date.now() < end;) await new Promise((r) => setTimeout(r, 5));
    return condition();
  };

  it('applies the same events in the same order to consumers resuming from different checkpoints, and follows the head', async () => {
    const all = await store.readAll({ maxCount: 10_000 });
    const starts = [null, 250, 1000, 2999];
    const seen = starts.map(() => [] as RecordedEvent[]);
    const consumers = starts.map(
      (from, i) =>
        new CheckpointedConsumer({
          name: `c${i}`,
          store,
          from: from === null ? null : at(from),
          handles: new Set(['Even']),
          apply: (e) => void seen[i].push(e),
        }),
    );
    consumers.forEach((c) => c.start());
    const head = () => consumers.every((c) => c.position?.commit === BigInt(all.length));
    expect(await until(head)).toBe(true);
    seen.forEach((events, i) => {
      const expected = all.filter((e) => e.type === 'Even' && Number(e.position.commit) > (starts[i] ?? 0));
      expect(events.map((e) => e.data.n)).toEqual(expected.map((e) => e.data.n));
    });
    // Live: one more append reaches all of them.
    await store.appendToStream('late', [{ type: 'Even', data: { n: -1 } }], 'no_stream');
    expect(await until(() => seen.every((events) => events[events.length - 1]?.data.n === -1))).toBe(true);
    await Promise.all(consumers.map((c) => c.stop()));
  });

  it('lets the other consumers reach the head while one fails on an event and retries', async () => {
    let failures = 0;
    const failing = new CheckpointedConsumer({
      name: 'failing',
      store,
      from: null,
      handles: null,
      apply: (e) => {
        if (e.data.n === 1500) {
          failures++;
          throw new Error('cannot apply');
        }
      },
    });
    const healthy = new CheckpointedConsumer({
      name: 'healthy',
      store,
      from: null,
      handles: null,
      apply: () => undefined,
    });
    failing.start();
    healthy.start();
    expect(await until(() => healthy.position?.commit === 3500n)).toBe(true);
    expect(await until(() => failures >= 2)).toBe(true);
    // The failing one stays before the event it cannot apply, retrying; nothing of it is skipped.
    expect(failing.state).toBe('failed');
    // n = 1500 sits at position 1501: every event before it is applied.
    expect(failing.position!.commit).toBe(1500n);
    await Promise.all([failing.stop(), healthy.stop()]);
  });
});
