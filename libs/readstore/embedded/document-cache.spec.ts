import { DocumentCache } from './document-cache';

describe('DocumentCache', () => {
  it('keeps the same key of two spaces apart', () => {
    const cache = new DocumentCache<string>(1000);
    cache.set(1, 'j:7', 'one', 10);
    cache.set(2, 'j:7', 'two', 10);
    expect([cache.get(1, 'j:7'), cache.get(2, 'j:7'), cache.get(3, 'j:7')]).toEqual(['one', 'two', undefined]);
    cache.delete(1, 'j:7');
    expect([cache.get(1, 'j:7'), cache.get(2, 'j:7')]).toEqual([undefined, 'two']);
    expect(cache.size).toEqual({ entries: 1, bytes: 10 });
  });

  it('stays within its byte budget, ages out the least recently used generation, and keeps what was read', () => {
    const cache = new DocumentCache<number>(100);
    for (let i = 0; i < 5; i++) cache.set(1, `k${i}`, i, 10);
    // The young generation is full (half the budget): the next entry ages those five.
    cache.set(1, 'k5', 5, 10);
    expect(cache.get(1, 'k0')).toBe(0); // an old hit moves it back to the young generation
    for (let i = 6; i < 10; i++) cache.set(2, `k${i}`, i, 10);
    // k9 found the young generation full again (k5, k0, k6-k8): it aged, and k1-k4 were dropped whole.
    cache.set(2, 'k10', 10, 10);
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    expect(cache.get(1, 'k1')).toBeUndefined();
    expect(cache.get(1, 'k0')).toBe(0);
    expect(cache.get(2, 'k10')).toBe(10);
  });

  it('does not keep an entry larger than half the budget, and drops what it replaces', () => {
    const cache = new DocumentCache<string>(100);
    cache.set(1, 'a', 'small', 10);
    cache.set(1, 'a', 'huge', 60);
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
    cache.set(1, 'b', 'x', 10);
    cache.clear();
    expect([cache.get(1, 'b'), cache.size]).toEqual([undefined, { entries: 0, bytes: 0 }]);
  });
});
