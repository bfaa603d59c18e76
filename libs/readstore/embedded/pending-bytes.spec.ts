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
      const ops = Array.from({ length: 10 }, (_, j) => block(call * 10 + j)).map((b) => ({
        replaceOne: { filter: { _id: b._id }, replacement: b, upsert: true },
      }));
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

  it('keeps a document pending, read as written last, while its newest write waits behind a split batch', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 60_000, writer: 'inline', maxPendingMiB: 64 });
    const rows = store.collection('rows');
    // 'hot' is written first, then ~2.4 MB of blocks (three batches), then written again:
    // its first version goes with the first batch, its newest with the last.
    await rows.insertOne({ _id: 'hot', v: 1 });
    await rows.bulkWrite(Array.from({ length: 60 }, (_, i) => ({ insertOne: { document: block(i) } })));
    await rows.replaceOne({ _id: 'hot' }, { _id: 'hot', v: 2 });
    const committed = commitsIn(file);
    // Each flush step hands over one batch; the first one carries v1 only.
    const flushing = store.flush();
    await new Promise((r) => setImmediate(r));
    expect((await rows.findOne({ _id: 'hot' }))!.v).toBe(2);
    await flushing;
    expect(commitsIn(file) - committed).toBeGreaterThanOrEqual(3);
    expect(store.pendingWrites()).toEqual({ count: 0, bytes: 0 });
    await store.close();
    const reopened = new EmbeddedReadStore({ file });
    expect((await reopened.collection('rows').findOne({ _id: 'hot' }))!.v).toBe(2);
    expect(await reopened.collection('rows').countDocuments({})).toBe(61);
    await reopened.close();
  });

  it('keeps the disk a prefix of the writes when a batch of large documents fails, and writes the rest once it can', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 5, writer: 'inline', maxPendingMiB: 64 });
    const rows = store.collection('rows');
    await rows.insertOne({ _id: 'first' });
    await store.flush();
    const other = new Database(file);
    const { id } = other.prepare("SELECT id FROM rs_collections WHERE name = 'rows'").get() as { id: number };
    // A disk that refuses one document of the third ~1 MiB batch.
    other.exec(
      `CREATE TRIGGER refuse BEFORE INSERT ON c${id} WHEN NEW.key = 's:r:b55' BEGIN SELECT RAISE(ABORT, 'disk refuses writes'); END`,
    );
    // 60 blocks (~2.4 MB, three batches), then a checkpoint-like document that must not land before them.
    await rows.bulkWrite(Array.from({ length: 60 }, (_, i) => ({ insertOne: { document: block(i) } })));
    await rows.insertOne({ _id: 'checkpoint', upTo: 59 });
    // The message is compared as text: SQLite's error class may come from another test file's realm.
    const failure = await store.flush().then(
      () => 'no failure',
      (e: unknown) => String((e as Error)?.message ?? e),
    );
    expect(failure).toMatch(/disk refuses writes/);
    const onDisk = () => (other.prepare(`SELECT key FROM c${id}`).all() as { key: string }[]).map((r) => r.key);
    const written = onDisk();
    // The batches before the failing one are on disk (and the failing one, retried in halves, up to b55).
    expect(written.length).toBeGreaterThanOrEqual(51);
    expect(written).not.toContain('s:r:b55');
    expect(written).not.toContain('s:checkpoint');
    // What is on disk is every write up to some point, none after it.
    const order = ['s:first', ...Array.from({ length: 60 }, (_, i) => `s:r:b${i}`), 's:checkpoint'];
    expect(order.slice(0, written.length).sort()).toEqual([...written].sort());
    // Readers still see every write; what waits is counted.
    expect(await rows.countDocuments({})).toBe(62);
    expect(store.pendingWrites().count).toBe(62 - written.length);
    expect(store.pendingWrites().bytes).toBeGreaterThan((60 - written.length) * 40_000);

    other.exec('DROP TRIGGER refuse');
    for (let i = 0; i < 50 && store.pendingWrites().count > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(store.pendingWrites()).toEqual({ count: 0, bytes: 0 });
    expect(onDisk()).toHaveLength(62);
    other.close();
    await store.close();
  });
  it('settles a write that first puts an array in an indexed field, and the collection can then be dropped', async () => {
    const store = new EmbeddedReadStore({ file });
    const rows = store.collection('rows');
    await rows.createIndex({ tags: 1 });
    // The first array in `tags` also enqueues a catalogue op (the field becomes multikey).
    await rows.insertOne({ _id: 'b', tags: ['x', 'y'] });
    await store.flush();
    expect(store.pendingWrites()).toEqual({ count: 0, bytes: 0 });
    expect(await rows.findOne({ tags: 'y' })).toMatchObject({ _id: 'b' });
    await store.dropCollection('rows');
    expect(await store.listCollections()).not.toContain('rows');
    await store.close();
  });
});
