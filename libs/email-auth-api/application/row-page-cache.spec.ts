import { CachedRowPage, RowPageCache } from './row-page-cache';

/** A page whose cached cost is about `bytes` (body plus etag plus the fixed overhead). */
// Cost of pageOf(1000): 1,000 bytes + 5 of etag + 200 of overhead = 1,205.
const pageOf = (bytes: number, tag = 'W/"t"'): CachedRowPage => ({
  etag: tag,
  gzip: Buffer.alloc(bytes),
  jsonBytes: bytes * 6,
});

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

  describe('JSON kept for identity clients', () => {
    const json = (bytes: number) => Buffer.alloc(bytes, 'x');

    it('keeps the JSON of a held page and hands it back, counting it in the budget', () => {
      const cache = new RowPageCache(1_000_000);
      const page = pageOf(100);
      cache.set(1, 'r', -1, 100, page);
      expect(cache.identityBody(page)).toBeUndefined();
      const body = json(600);
      cache.keepIdentityBody(page, body);
      expect(cache.identityBody(page)).toBe(body);
      expect(cache.identitySize).toBe(600);
      expect(cache.size).toBe(1 * 305 + 600);
      expect([cache.identityHits, cache.identityMisses]).toEqual([1, 1]);
    });

    it('keeps nothing for a page it does not hold, and forgets the JSON with its page', () => {
      const cache = new RowPageCache(1_000_000);
      const stranger = pageOf(100);
      cache.keepIdentityBody(stranger, json(600));
      expect(cache.identityBody(stranger)).toBeUndefined();
      const page = pageOf(100);
      cache.set(1, 'r', -1, 100, page);
      cache.keepIdentityBody(page, json(600));
      cache.dropReport('r');
      expect(cache.identityBody(page)).toBeUndefined();
      expect([cache.size, cache.identitySize]).toEqual([0, 0]);
    });

    it('lets JSON bodies take at most half of the budget, and lets one in when full only if read more than the oldest kept', () => {
      // Budget 10,000: pages of 1,205 each, JSON bodies of 2,000 (at most 5,000 of them).
      const cache = new RowPageCache(10_000);
      const pages = [0, 1, 2].map((after) => {
        const page = pageOf(1000);
        cache.set(1, 'r', after, 100, page);
        return page;
      });
      const readAndKeep = (page: CachedRowPage) => cache.identityBody(page) ?? cache.keepIdentityBody(page, json(2000));
      readAndKeep(pages[0]);
      readAndKeep(pages[1]);
      expect(cache.identitySize).toBe(4000);
      // Full: page 2, read once, is not read more than page 0 (the least recently used kept).
      readAndKeep(pages[2]);
      expect(cache.identitySize).toBe(4000);
      expect(cache.identityBody(pages[2])).toBeUndefined();
      // Now read twice: it pushes out page 0's JSON (read once) and comes in.
      readAndKeep(pages[2]);
      expect(cache.identitySize).toBe(4000);
      expect(cache.identityBody(pages[2])).toBeDefined();
      expect(cache.identityBody(pages[1])).toBeDefined();
      expect(cache.identityBody(pages[0])).toBeUndefined();
      // The compressed pages all stay: 3 x 1,205 + 4,000 is within the budget.
      for (const after of [0, 1, 2]) expect(cache.get(1, 'r', after, 100)).toBeDefined();
      expect(cache.size).toBeLessThanOrEqual(10_000);
    });

    it('keeps a stable set when identity reads cycle through more pages than fit', () => {
      const cache = new RowPageCache(20_000); // room for 5 JSON bodies of 2,000
      const pages = Array.from({ length: 20 }, (_, after) => {
        const page = pageOf(10);
        cache.set(1, 'r', after, 100, page);
        return page;
      });
      let hits = 0;
      for (let round = 0; round < 10; round++) {
        for (const page of pages) {
          if (cache.identityBody(page)) hits++;
          else cache.keepIdentityBody(page, json(2000));
        }
      }
      expect(cache.identitySize).toBe(5 * 2000);
      expect(hits).toBe(9 * 5); // the first five, from the second round on
    });

    it('pushes out compressed pages (and their JSON) once both forms exceed the budget', () => {
      const cache = new RowPageCache(6_000);
      const first = pageOf(1000);
      cache.set(1, 'r', 0, 100, first);
      cache.keepIdentityBody(first, json(2500));
      for (const after of [1, 2]) cache.set(1, 'r', after, 100, pageOf(1000));
      // 3 x 1,205 + 2,500 > 6,000: the oldest page goes, its JSON with it.
      expect(cache.get(1, 'r', 0, 100)).toBeUndefined();
      expect(cache.identitySize).toBe(0);
      expect(cache.size).toBe(2 * 1205);
    });

    it('does not keep a JSON body larger than its share', () => {
      const cache = new RowPageCache(4_000);
      const page = pageOf(100);
      cache.set(1, 'r', 0, 100, page);
      cache.keepIdentityBody(page, json(2001));
      expect(cache.identitySize).toBe(0);
    });
  });
});
