import { RecentIds } from './recent-ids';

describe('RecentIds', () => {
  it('knows what was added, and earlier values stay as they were', () => {
    const a = RecentIds.empty(10).with('x');
    const b = a.with('y');
    expect([a.has('x'), a.has('y'), b.has('x'), b.has('y')]).toEqual([true, false, true, true]);
    expect(b.with('x')).toBe(b);
  });

  it('a fork from an older value does not see, nor disturb, what a newer one added', () => {
    const base = RecentIds.empty(10).with('a');
    const left = base.with('b');
    const right = base.with('c');
    expect([left.has('b'), left.has('c'), right.has('b'), right.has('c')]).toEqual([true, false, false, true]);
    expect([left.with('d').has('c'), right.with('e').has('b')]).toEqual([false, false]);
  });

  it('keeps at least the last `keep` ids and at most twice that', () => {
    let ids = RecentIds.empty(100);
    for (let i = 0; i < 1000; i++) ids = ids.with(`e${i}`);
    for (let i = 900; i < 1000; i++) expect(ids.has(`e${i}`)).toBe(true);
    expect(ids.has('e0')).toBe(false);
    expect(ids.size).toBeLessThanOrEqual(200);
    expect(ids.size).toBeGreaterThanOrEqual(100);
  });
});
