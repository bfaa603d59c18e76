import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedReadStore } from './embedded-read-store';

/**
 * The embedded store bounds what waits for its writer by the documents' JSON size, not
 * only their number: large documents (a report's row blocks, ~33 KB each) go to disk in
 * batches of about 1 MiB, and writers wait while more than `maxPendingMiB` is pending.
 */
describe('EmbeddedReadStore: pending writes bounded by size', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rs-pending-'));
    file = join(dir, 'readmodels.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A row-block-sized document: ~40 KB of JSON. */
  const block = (i: number) => ({ _id: `r:b${i}`, report_key: 'r', block: i, tails: `${i}`.padEnd(40_000, 'x') });
  const commitsIn = (path: string): number => {
    const db = new Database(path, { readonly: true });
    try {
      return (db.prepare('SELECT SUM(commits) AS n FROM rs_writers').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('makes writers wait while more than maxPendingMiB is pending, and still reads every write at once', async () => {
    const store = new EmbeddedReadStore({ file, maxPendingMiB: 0.5 });
    const rows = store.collection('rows');
    let mostPending = 0;
    // 10 calls of 10 blocks (~400 KB each call): 4 MB in all.
    for (let call = 0; call < 10; call++) {
      const ops = Array.from({ length: 10 }, (_, j) => block(call * 10 + j)).map((b) => ({ replaceOne: { filter: { _id: b._id }, replacement: b, upsert: true } }));
      await rows.bulkWrite(ops);
      mostPending = Math.max(mostPending, store.pendingWrites().bytes);
      // Read-your-writes: this call's blocks are seen at once, committed or not.
      expect(await rows.countDocuments({})).toBe((call + 1) * 10);
      expect((await rows.findOne({ _id: `r:b${call * 10 + 9}` }))!.tails).toHaveLength(40_000);
    }
    // Never more than the bound plus the one call that crossed it (a call's writes are not split).
    expect(mostPending).toBeLessThanOrEqual(0.5 * 2 ** 20 + 10 * 41_000);
    await store.flush();
    expect(store.pendingWrites()).toEqual({ count: 0, bytes: 0 });
    await store.close();
    // Everything reached the disk.
    const reopened = new EmbeddedReadStore({ file });
    expect(await reopened.collection('rows').countDocuments({})).toBe(100);
    await reopened.close();
  });

  it('hands large documents to the writer in batches of about 1 MiB (several commits), small ones together (one)', async () => {
    const store = new EmbeddedReadStore({ file, maxPendingMiB: 64 });
    const rows = store.collection('rows');
    await rows.insertOne({ _id: 'first' });
    await store.flush();
    const before = commitsIn(file);
    // 100 blocks (~4 MB) written in one call, with nothing awaited in between: one batch by count.
    await rows.bulkWrite(Array.from({ length: 100 }, (_, i) => ({ insertOne: { document: block(i) } })));
    expect(store.pendingWrites().count).toBe(100);
    await store.flush();
    const large = commitsIn(file) - before;
    expect(large).toBeGreaterThanOrEqual(4);
    expect(large).toBeLessThanOrEqual(6);

    const small = commitsIn(file);
    await rows.bulkWrite(Array.from({ length: 100 }, (_, i) => ({ insertOne: { document: { _id: `s${i}`, n: i } } })));
    await store.flush();
    expect(commitsIn(file) - small).toBe(1);
    expect(await rows.countDocuments({})).toBe(201);
    await store.close();
  });

  it('keeps the count of pending bytes right when a pending document is written again or deleted', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 60_000 });
    const rows = store.collection('rows');
    await rows.insertOne(block(1));
    const one = store.pendingWrites().bytes;
    expect(one).toBeGreaterThan(40_000);
    await rows.replaceOne({ _id: 'r:b1' }, { ...block(1), tails: 'short' });
    expect(store.pendingWrites()).toEqual({ count: 1, bytes: expect.any(Number) });
    expect(store.pendingWrites().bytes).toBeLessThan(200);
    await rows.deleteOne({ _id: 'r:b1' });
    expect(store.pendingWrites().bytes).toBe('s:r:b1'.length);
    await store.flush();
    expect(store.pendingWrites()).toEqual({ count: 0, bytes: 0 });
    expect(await rows.findOne({ _id: 'r:b1' })).toBeNull();
    await store.close();
  });
});
