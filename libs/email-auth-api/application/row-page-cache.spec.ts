import { CachedRowPage, RowPageCache } from './row-page-cache';

/** A page whose cached cost is about `bytes` (body plus etag plus the fixed overhead). */
// Cost of pageOf(1000): 1,000 bytes + 5 of etag + 200 of overhead = 1,205.
const pageOf = (bytes: number, tag = 'W/"t"'): CachedRowPage => ({ etag: tag, gzip: Buffer.alloc(bytes), jsonBytes: bytes * 6 });

describe('RowPageCache', () => {
  it('returns what was stored under generation, report, position and limit only', () => {
    const cache = new RowPageCache(1_000_000);
    const page = pageOf(100);
    cache.set(1, 'r1', -1, 100, page);
    expect(cache.get(1, 'r1', -1, 100)).toBe(page);
    expect(cache.get(2, 'r1', -1, 100)).toBeUndefined();
    expect(cache.get(1, 'r2', -1, 100)).toBeUndefined();
    expect(cache.get(1, 'r1', 99, 100)).toBeUndefined();
    expect(cache.get(1, 'r1', -1, 50)).toBeUndefined();
  });

  it('keeps report keys apart whatever they hold', () => {
    const cache = new RowPageCache(1_000_000);
    cache.set(1, 'a 1', 2, 3, pageOf(10, 'W/"a"'));
    expect(cache.get(1, 'a', 12, 3)).toBeUndefined();
    expect(cache.get(1, 'a 1', 2, 3)?.etag).toBe('W/"a"');
  });

  it('evicts the least recently used pages past its byte budget', () => {
    const cache = new RowPageCache(3 * 1205);
    for (const after of [0, 1, 2]) cache.set(1, 'r', after, 100, pageOf(1000));
    expect(cache.get(1, 'r', 0, 100)).toBeDefined(); // now the most recently used
    cache.set(1, 'r', 3, 100, pageOf(1000));
    expect(cache.get(1, 'r', 1, 100)).toBeUndefined();
    expect(cache.get(1, 'r', 0, 100)).toBeDefined();
    expect(cache.get(1, 'r', 2, 100)).toBeDefined();
    expect(cache.get(1, 'r', 3, 100)).toBeDefined();
    expect(cache.size).toBeLessThanOrEqual(3 * 1205);
  });

  it('does not hold a page larger than its budget, and holds nothing with a budget of 0', () => {
    const small = new RowPageCache(500);
    small.set(1, 'r', 0, 100, pageOf(1000));
    expect(small.get(1, 'r', 0, 100)).toBeUndefined();
    const off = new RowPageCache(0);
    expect(off.enabled).toBe(false);
    off.set(1, 'r', 0, 100, pageOf(1));
    expect(off.get(1, 'r', 0, 100)).toBeUndefined();
    expect(off.size).toBe(0);
  });

  it('drops every page of a report, and only that report', () => {
    const cache = new RowPageCache(1_000_000);
    cache.set(1, 'gone', -1, 100, pageOf(10));
    cache.set(1, 'gone', 99, 100, pageOf(10));
    cache.set(2, 'gone', -1, 100, pageOf(10));
    cache.set(1, 'kept', -1, 100, pageOf(10));
    cache.dropReport('gone');
    expect(cache.get(1, 'gone', -1, 100)).toBeUndefined();
    expect(cache.get(1, 'gone', 99, 100)).toBeUndefined();
    expect(cache.get(2, 'gone', -1, 100)).toBeUndefined();
    expect(cache.get(1, 'kept', -1, 100)).toBeDefined();
    cache.dropReport('kept');
    expect(cache.size).toBe(0);
  });

  it('counts a replaced page once', () => {
    const cache = new RowPageCache(1_000_000);
    cache.set(1, 'r', 0, 100, pageOf(100));
    const once = cache.size;
    cache.set(1, 'r', 0, 100, pageOf(100));
    expect(cache.size).toBe(once);
  });
});
