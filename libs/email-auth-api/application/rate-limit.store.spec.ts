import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rateDecision, windowStart } from '../domain/rate-limit';
import { SqliteRateLimitStore } from './rate-limit.store';

describe('SqliteRateLimitStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rates-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts one key across every connection to the shared file (as separate API processes do)', async () => {
    const file = join(dir, 'rates.db');
    const a = new SqliteRateLimitStore(file);
    const b = new SqliteRateLimitStore(file);
    const start = windowStart(Date.parse('2026-06-01T10:00:30Z'));
    const counts = await Promise.all(Array.from({ length: 90 }, (_, i) => (i % 2 ? a : b).hit('key-1', start)));
    // Every hit got its own number: no two processes both saw the same count.
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
    expect(counts.filter((c) => rateDecision(c, start, start).allowed)).toHaveLength(60);
    // Other keys and the next window start from one.
    expect(await a.hit('key-2', start)).toBe(1);
    expect(await b.hit('key-1', start + 60_000)).toBe(1);
    await a.close();
    await b.close();
  });

  it('batches the hits of one turn into one increment per key and window, numbering them in arrival order', async () => {
    const file = join(dir, 'rates.db');
    const store = new SqliteRateLimitStore(file);
    const start = windowStart(Date.parse('2026-06-01T10:00:30Z'));
    const order: string[] = [];
    const hits = ['k1', 'k2', 'k1', 'k1', 'k2'].map((key, i) =>
      store.hit(key, start).then((n) => (order.push(`${i}`), n)),
    );
    expect(await Promise.all(hits)).toEqual([1, 1, 2, 3, 2]);
    expect(order).toHaveLength(5);
    // The batch left the shared table at the same totals as one hit at a time would.
    const other = new SqliteRateLimitStore(file);
    expect(await other.hit('k1', start)).toBe(4);
    expect(await other.hit('k2', start)).toBe(3);
    // Hits still pending when the store closes are counted, not dropped.
    const last = store.hit('k1', start);
    await store.close();
    expect(await last).toBe(5);
    await other.close();
  });
});

describe('rateDecision', () => {
  it('gives remaining, reset (epoch seconds) and Retry-After to the window end', () => {
    const start = Date.parse('2026-06-01T10:00:00Z');
    expect(rateDecision(1, start, start + 15_000)).toEqual({
      allowed: true,
      limit: 60,
      remaining: 59,
      reset: start / 1000 + 60,
      retryAfterSeconds: 45,
    });
    expect(rateDecision(61, start, start + 59_500)).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 1,
    });
  });
});

describe('ReadStoreRateLimitStore (the MongoDB-shaped port, here on the embedded engine)', () => {
  it('increments per key and window and prunes windows no request reads any more', async () => {
    const { EmbeddedReadStore } = await import('../../readstore/embedded/embedded-read-store');
    const { ReadStoreRateLimitStore } = await import('./rate-limit.store');
    const readStore = new EmbeddedReadStore({ file: ':memory:', writer: 'inline' });
    const store = new ReadStoreRateLimitStore(readStore);
    const start = windowStart(Date.parse('2026-06-01T10:00:30Z'));
    expect([await store.hit('k', start), await store.hit('k', start), await store.hit('other', start)]).toEqual([
      1, 2, 1,
    ]);
    expect(await store.hit('k', start + 11 * 60_000)).toBe(1);
    expect(await readStore.collection('email_auth_api_rate_windows').countDocuments()).toBe(1);
    await readStore.close();
  });
});
