import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from './sqlite-event-store';

const DAY_MS = 86_400_000;
const STREAMS = 20;
const CHECKS_PER_STREAM_PER_DAY = 50;

/**
 * What the conformance suite cannot see: the embedded store's files once retention
 * applies. Telemetry streams with a 3-day maxAge get a day of events each simulated day
 * (the maxAge read back from disk after each restart); once the pass starts deleting, the
 * pages of deleted events are reused, so the database file stops growing.
 */
describe('SqliteEventStore retention on disk', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'es-retention-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stops growing on disk once pruning keeps pace with appends', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const file = join(dir, 'events.db');
    let store = new SqliteEventStore({ file, now: () => now });
    const streams = Array.from({ length: STREAMS }, (_, i) => `uptime-${i}`);
    for (const s of streams) await store.setStreamMetadata(s, { maxAgeSeconds: 3 * 86_400 });

    const sizes: number[] = [];
    const pruned: number[] = [];
    for (let day = 1; day <= 10; day++) {
      for (let i = 0; i < CHECKS_PER_STREAM_PER_DAY; i++) {
        now += DAY_MS / CHECKS_PER_STREAM_PER_DAY;
        await Promise.all(
          streams.map((s) =>
            store.appendToStream(
              s,
              [{ type: 'CheckRecorded', data: { at: now, is_up: true, pad: 'x'.repeat(300) } }],
              'any',
            ),
          ),
        );
      }
      pruned.push(await store.pruneExpired(new Date(now)));
      // A restart checkpoints the WAL into the database file, whose size then says it all.
      await store.close();
      sizes.push(statSync(file).size);
      store = new SqliteEventStore({ file, now: () => now });
    }
    // Nothing is pruned until events are older than the maxAge (day 4 prunes day 1 but its
    // last check, stamped at the cutoff itself), then a day's worth each day.
    expect(pruned.slice(0, 3)).toEqual([0, 0, 0]);
    expect(pruned[3]).toBe(STREAMS * (CHECKS_PER_STREAM_PER_DAY - 1));
    for (const n of pruned.slice(4)) expect(n).toBe(STREAMS * CHECKS_PER_STREAM_PER_DAY);
    // The pages freed by a pass hold the next day's events: no growth over the last days.
    expect(sizes[3]).toBeGreaterThan(sizes[1]);
    expect(sizes[9]).toBeLessThanOrEqual(sizes[4] * 1.05);
    // Every stream still carries on from its revision, with only the retained days readable.
    const events = await store.readStream('uptime-0');
    expect(events.length).toBeLessThanOrEqual(3 * CHECKS_PER_STREAM_PER_DAY + 1);
    expect(events[events.length - 1].revision).toBe(10 * CHECKS_PER_STREAM_PER_DAY - 1);
    await store.close();
  });
});
