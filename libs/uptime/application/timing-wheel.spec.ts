import { BoundedPool } from './bounded-pool';
import { ownsDomain } from './hashing';
import { TimingWheel } from './timing-wheel';

describe('timing wheel', () => {
  const interval = 60_000;

  it('hands out every domain exactly once per interval, spread evenly over the slots', () => {
    const wheel = new TimingWheel(interval, 60);
    for (let id = 1; id <= 100_000; id++) wheel.add(id);
    const start = 1_700_000_000_000;
    wheel.due(start);
    const seen = new Map<number, number>();
    const perSlot: number[] = [];
    for (let t = start + 1000; t <= start + interval; t += 1000) {
      const due = wheel.due(t);
      perSlot.push(due.length);
      for (const id of due) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    // The first call handed out its own slot; the next 60 one-second steps hand out the other 59 and that one again.
    expect(seen.size).toBe(100_000);
    expect(Math.max(...perSlot)).toBeLessThanOrEqual((100_000 / 60) * 1.2);
    expect(Math.min(...perSlot)).toBeGreaterThanOrEqual((100_000 / 60) * 0.8);
  });

  it('hands out each slot once after a long gap, nothing when time stands still or goes back', () => {
    const wheel = new TimingWheel(interval, 60);
    for (let id = 1; id <= 500; id++) wheel.add(id);
    wheel.due(0);
    const after = wheel.due(10 * 86_400_000);
    expect(after).toHaveLength(500);
    expect(new Set(after).size).toBe(500);
    expect(wheel.due(10 * 86_400_000)).toEqual([]);
    expect(wheel.due(5)).toEqual([]);
  });

  it('keeps a domain in the same slot and forgets removed ones', () => {
    const wheel = new TimingWheel(interval, 60);
    wheel.add(42);
    const slot = wheel.slotFor(42);
    wheel.add(42);
    expect(wheel.occupancy()[slot]).toBe(1);
    wheel.remove(42);
    expect(wheel.size).toBe(0);
    expect(wheel.due(0).concat(wheel.due(interval))).toEqual([]);
  });
});

describe('worker partitions', () => {
  it('give each domain to exactly one of N workers, evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let id = 1; id <= 40_000; id++) {
      const owners = counts.map((_, index) => ownsDomain({ index, count: 4 }, id));
      expect(owners.filter(Boolean)).toHaveLength(1);
      counts[owners.indexOf(true)] += 1;
    }
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });
});

describe('bounded pool', () => {
  it('never runs more than its limit and reports idle when all are done', async () => {
    const pool = new BoundedPool(3);
    let running = 0;
    let peak = 0;
    const task = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
    };
    for (let i = 0; i < 20; i++) void pool.run(task);
    expect(pool.queued).toBe(17);
    await pool.idle();
    expect(peak).toBe(3);
    expect(running).toBe(0);
  });
});
