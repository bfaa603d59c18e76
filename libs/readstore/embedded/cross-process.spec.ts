import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedReadStore } from './embedded-read-store';

/** The event loop's next turn: the store looks for other processes' commits at most once per turn. */
const nextTurn = () => new Promise((r) => setImmediate(r));

/**
 * Two stores on one file stand for two processes (each has its own connections and
 * writer id, exactly as another process would): what one commits, the other sees at once
 * from its next event-loop turn, though it had the old document cached and its own
 * catalogue of collections.
 */
for (const writer of ['thread', 'inline'] as const) {
  describe(`embedded read stores of several processes on one file (${writer} writer)`, () => {
    let dir: string;
    let file: string;
    let mine: EmbeddedReadStore;
    let theirs: EmbeddedReadStore;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'rs-xproc-'));
      file = join(dir, 'readmodels.db');
      mine = new EmbeddedReadStore({ file, writer, flushIntervalMs: 5 });
      theirs = new EmbeddedReadStore({ file, writer, flushIntervalMs: 5 });
    });
    afterEach(async () => {
      await mine.close();
      await theirs.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('sees a collection created elsewhere, and a cached document changed elsewhere', async () => {
      // Asked before the collection exists anywhere: the handle must pick up the table the other creates.
      const accounts = mine.collection('accounts');
      expect(await accounts.findOne({ _id: 'a1' })).toBeNull();

      await theirs.collection('accounts').insertOne({ _id: 'a1', username: 'ada', status: 'active' });
      await theirs.flush();
      await nextTurn();
      expect(await accounts.findOne({ _id: 'a1' })).toEqual({ _id: 'a1', username: 'ada', status: 'active' });
      expect(await mine.listCollections()).toContain('accounts');

      // Now cached here; changed there.
      await theirs.collection('accounts').updateOne({ _id: 'a1' }, { $set: { status: 'disabled' } });
      await theirs.flush();
      await nextTurn();
      expect((await accounts.findOne({ _id: 'a1' }))!.status).toBe('disabled');
      expect(await accounts.countDocuments({ status: 'disabled' })).toBe(1);
    });

    it('forgets a "not found" remembered for an indexed value once another process stores it', async () => {
      await theirs.collection('keys').createIndex({ hash: 1 }, { unique: true });
      await nextTurn();
      const keys = mine.collection('keys');
      expect(await keys.findOne({ hash: 'h1' })).toBeNull();
      await theirs.collection('keys').insertOne({ _id: 'k1', hash: 'h1' });
      await theirs.flush();
      await nextTurn();
      expect(await keys.findOne({ hash: 'h1' })).toMatchObject({ _id: 'k1' });
    });

    it('follows a drop and a re-creation under the same name (a rebuild switching generations)', async () => {
      await theirs.collection('hosts__g1').insertOne({ _id: 'h', address: '192.0.2.1' });
      await theirs.flush();
      await nextTurn();
      const hosts = mine.collection('hosts__g1');
      expect(await hosts.findOne({ _id: 'h' })).toMatchObject({ address: '192.0.2.1' });

      await theirs.dropCollection('hosts__g1');
      await nextTurn();
      expect(await hosts.findOne({ _id: 'h' })).toBeNull();
      expect(await mine.listCollections()).not.toContain('hosts__g1');

      await theirs.collection('hosts__g1').insertOne({ _id: 'h', address: '192.0.2.2' });
      await theirs.flush();
      await nextTurn();
      expect(await hosts.findOne({ _id: 'h' })).toMatchObject({ address: '192.0.2.2' });
      // Writing here after the other created the table goes into that table, not a second one.
      await hosts.insertOne({ _id: 'mine', address: '192.0.2.3' });
      await mine.flush();
      await nextTurn();
      expect(await theirs.collection('hosts__g1').countDocuments()).toBe(2);
    });

    it('keeps its cache through its own commits, and tells listeners only of foreign ones', async () => {
      let noticed = 0;
      mine.onCommitElsewhere(() => (noticed += 1));
      const c = mine.collection('zones');
      for (let i = 0; i < 50; i++) await c.insertOne({ _id: `z${i}`, n: i });
      await mine.flush();
      await nextTurn();
      // New documents enter the cache when first read (write-once documents must not crowd it).
      for (let i = 0; i < 50; i++) await c.findOne({ _id: `z${i}` });
      expect(mine.cache.size.entries).toBeGreaterThanOrEqual(50);
      // Another commit of this process's own writer: the cache stays.
      await c.insertOne({ _id: 'z50', n: 50 });
      await mine.flush();
      await nextTurn();
      await c.findOne({ _id: 'z1' });
      expect(noticed).toBe(0);
      expect(mine.cache.size.entries).toBeGreaterThanOrEqual(50);

      await theirs.collection('other').insertOne({ _id: 'x' });
      await theirs.flush();
      await nextTurn();
      await c.findOne({ _id: 'z1' });
      expect(noticed).toBe(1);
    });

    it('committed() resolves once the writes made so far are on disk, where the other store reads them', async () => {
      const c = mine.collection('positions');
      await c.insertOne({ _id: 'p', at: 1 });
      await mine.committed();
      await nextTurn();
      expect(await theirs.collection('positions').findOne({ _id: 'p' })).toEqual({ _id: 'p', at: 1 });
    });
  });
}
