import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDuplicateKeyError } from '../read-store.port';
import { EmbeddedReadStore } from './embedded-read-store';

/** What the conformance suite cannot see: the embedded engine's file, cache and upgrade path. */
describe('EmbeddedReadStore on disk', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rs-embedded-'));
    file = join(dir, 'readmodels.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps at most its cache budget of parsed documents, however many it stores', async () => {
    const store = new EmbeddedReadStore({ file, cacheMiB: 0.25 });
    const c = store.collection('audit');
    await c.createIndex({ account_id: 1 });
    for (let i = 0; i < 5000; i++) {
      await c.insertOne({ _id: `e${i}`, account_id: i % 10, payload: 'x'.repeat(200), seq: i });
    }
    await store.flush();
    expect(store.cache.size.bytes).toBeLessThanOrEqual(0.25 * 2 ** 20);
    expect(store.cache.size.entries).toBeLessThan(5000);
    // Evicted documents are read back from disk, and every one is still there.
    expect((await c.findOne({ _id: 'e0' }))!.seq).toBe(0);
    expect(await c.countDocuments({ account_id: 3 })).toBe(500);
    const page = await c.find({ account_id: 3 }, { sort: { seq: -1 }, limit: 2 });
    expect(page.map((d) => d.seq)).toEqual([4993, 4983]);
    await store.close();
  });

  it('finds documents by an indexed value without SQL once seen, for 6,000 values taking turns (decision 0130)', async () => {
    const store = new EmbeddedReadStore({ file });
    const c = store.collection<{ _id: number; fqdn: string }>('domains');
    await c.createIndex({ fqdn: 1 });
    const hosts = 6000;
    for (let i = 0; i < hosts; i++) await c.insertOne({ _id: i, fqdn: `h${i}.example.net` });
    await store.flush();
    // Reads of documents run a statement's `iterate`, `all` or `get`: counted on their prototype (the store's
    // look at other processes' commits aside).
    const probe = store.db.prepare('SELECT 1');
    const proto = Object.getPrototypeOf(probe) as Record<'iterate' | 'all' | 'get', (...args: unknown[]) => unknown>;
    const originals = { iterate: proto.iterate, all: proto.all, get: proto.get };
    let reads = 0;
    for (const name of ['iterate', 'all', 'get'] as const)
      proto[name] = function (this: { source: string }, ...args: unknown[]) {
        if (this.source.includes('json(doc)')) reads++;
        return originals[name].apply(this, args);
      };
    try {
      // As bench:ddns's clients: each host in turn, round after round (each round's first pass reads each once).
      for (let round = 0; round < 2; round++)
        for (let i = 0; i < hosts; i++) expect((await c.findOne({ fqdn: `h${i}.example.net` }))?._id).toBe(i);
      expect(reads).toBe(hosts);
    } finally {
      Object.assign(proto, originals);
    }
    await store.close();
  });

  it('counts by an index in SQL with pending writes folded in: moved in, moved out, deleted, inserted', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 10_000 });
    const c = store.collection<{ _id: string; account_id: number }>('domains');
    await c.createIndex({ account_id: 1 });
    for (let i = 0; i < 40; i++) await c.insertOne({ _id: `h${i}`, account_id: i % 2 });
    await store.flush();
    expect(await c.countDocuments({ account_id: 1 })).toBe(20);
    // Pending (not yet on disk: the writer's interval is long): each kind of change to a counted row.
    await c.updateOne({ _id: 'h0' }, { $set: { account_id: 1 } });
    await c.updateOne({ _id: 'h1' }, { $set: { account_id: 0 } });
    await c.deleteOne({ _id: 'h3' });
    await c.updateOne({ _id: 'h5' }, { $set: { account_id: 1 } });
    await c.insertOne({ _id: 'new', account_id: 1 });
    expect(await c.countDocuments({ account_id: 1 })).toBe(20 + 1 - 1 - 1 + 1);
    expect(await c.countDocuments({ account_id: 0 })).toBe(20 - 1 + 1);
    expect(await c.countDocuments({ account_id: 1 })).toBe((await c.find({ account_id: 1 })).length);
    await store.flush();
    expect(await c.countDocuments({ account_id: 1 })).toBe(20);
    await store.close();
  });

  it('caches the documents it updates, not those only inserted (write-once entries would push them out)', async () => {
    const store = new EmbeddedReadStore({ file, cacheMiB: 1 });
    const audit = store.collection('audit');
    const hosts = store.collection('hosts');
    await hosts.insertOne({ _id: 'h', ip: '192.0.2.1' });
    for (let i = 0; i < 1000; i++) await audit.insertOne({ _id: `e${i}`, payload: 'x'.repeat(200) });
    await store.flush();
    expect(store.cache.size.entries).toBe(0);
    await hosts.updateOne({ _id: 'h' }, { $set: { ip: '192.0.2.2' } });
    await store.flush();
    // The updated document only (the update's read of it from disk cached it, the write replaced it).
    expect(store.cache.size.entries).toBe(1);
    expect(await hosts.findOne({ _id: 'h' })).toEqual({ _id: 'h', ip: '192.0.2.2' });
    expect((await audit.findOne({ _id: 'e999' }))!.payload).toHaveLength(200);
    // A document read once is cached like before.
    expect(store.cache.size.entries).toBe(2);
    await store.close();
  });

  it('caches a document found by an indexed value, so the read by its _id that follows takes no SQL read', async () => {
    const store = new EmbeddedReadStore({ file, cacheMiB: 1 });
    const domains = store.collection<{ _id: number; fqdn: string; ip: string }>('domains');
    await domains.createIndex({ fqdn: 1 });
    for (let i = 0; i < 10; i++) await domains.insertOne({ _id: i, fqdn: `h${i}.example.net`, ip: '192.0.2.1' });
    await store.flush();
    expect(store.cache.size.entries).toBe(0);
    const found = await domains.findOne({ fqdn: 'h3.example.net' });
    expect(found).toEqual({ _id: 3, fqdn: 'h3.example.net', ip: '192.0.2.1' });
    expect(store.cache.size.entries).toBe(1);
    // The caller's copy is its own: changing it changes neither the cache nor the next answer.
    found!.ip = 'changed';
    expect(await domains.findOne({ _id: 3 })).toEqual({ _id: 3, fqdn: 'h3.example.net', ip: '192.0.2.1' });
    expect(await domains.findOne({ fqdn: 'h3.example.net' })).toEqual({
      _id: 3,
      fqdn: 'h3.example.net',
      ip: '192.0.2.1',
    });
    expect(store.cache.size.entries).toBe(1);
    await store.close();
  });

  it('writes an unseen upsert by _id as an upsert: new, over a stored document, and the usual way when it is in memory or an index is unique', async () => {
    let store = new EmbeddedReadStore({ file, cacheMiB: 1 });
    let log = store.collection('log');
    expect(await log.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true, unseen: true })).toEqual({
      matchedCount: 0,
      modifiedCount: 0,
      upsertedCount: 1,
    });
    expect(await log.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
    // Pending (in memory): the usual path, which finds it.
    expect((await log.replaceOne({ _id: 'a' }, { _id: 'a', n: 2 }, { upsert: true, unseen: true })).matchedCount).toBe(
      1,
    );
    await store.close();
    // Stored but neither pending nor cached: written blind, and the disk holds one document, the new content.
    store = new EmbeddedReadStore({ file, cacheMiB: 1 });
    log = store.collection('log');
    await log.replaceOne({ _id: 'a' }, { _id: 'a', n: 3 }, { upsert: true, unseen: true });
    await store.close();
    store = new EmbeddedReadStore({ file, cacheMiB: 1 });
    log = store.collection('log');
    expect(await log.find({})).toEqual([{ _id: 'a', n: 3 }]);
    // A unique index still refuses a clash: the hint is not taken there.
    const unique = store.collection('unique_log');
    await unique.createIndex({ name: 1 }, { unique: true });
    await unique.insertOne({ _id: 'x', name: 'taken' });
    const clash = await unique
      .replaceOne({ _id: 'y' }, { _id: 'y', name: 'taken' }, { upsert: true, unseen: true })
      .catch((e: unknown) => e);
    expect(isDuplicateKeyError(clash)).toBe(true);
    await store.close();
  });

  it('drops the SQLite index of a field once it holds an array (nothing reads it), new or found at open', async () => {
    const indexNames = () => {
      const other = new Database(file, { readonly: true });
      const names = (
        other
          .prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
          .pluck()
          .all() as string[]
      )
        // The first field of each index: on its value column, or (a file written before decision 0117) an expression.
        .map((sql) => sql.replace(/^.*\((?:"\$\.([a-z_]+)"|json_extract\(doc, '\$\.([a-z_]+)'\)).*$/, '$1$2'));
      other.close();
      return names.sort();
    };
    let store = new EmbeddedReadStore({ file });
    let subjects = store.collection('subjects');
    await subjects.createIndex({ account_id: 1, name: 1 });
    await subjects.createIndex({ ancestors: 1 });
    await subjects.insertOne({ _id: 'a', account_id: 1, name: 'a.example', ancestors: 'example' });
    await store.flush();
    expect(indexNames()).toEqual(['account_id', 'ancestors']);
    await subjects.insertOne({ _id: 'b', account_id: 1, name: 'b.example', ancestors: ['example', 'x.example'] });
    await store.flush();
    expect(indexNames()).toEqual(['account_id']);
    // Still found by any element, and declared again at the next start without coming back.
    expect((await subjects.find({ ancestors: 'example' })).map((d) => d._id).sort()).toEqual(['a', 'b']);
    await store.close();
    store = new EmbeddedReadStore({ file });
    subjects = store.collection('subjects');
    await subjects.createIndex({ ancestors: 1 });
    expect(indexNames()).toEqual(['account_id']);
    expect((await subjects.find({ ancestors: 'x.example' })).map((d) => d._id)).toEqual(['b']);
    await store.close();
    // A database written before: the index is still there; the store drops it when it opens.
    const writer = new Database(file);
    writer.exec(`CREATE INDEX c1_i2 ON c1 (json_extract(doc, '$.ancestors'))`);
    writer.close();
    expect(indexNames()).toEqual(['account_id', 'ancestors']);
    store = new EmbeddedReadStore({ file });
    expect(indexNames()).toEqual(['account_id']);
    expect(await store.collection('subjects').countDocuments({ ancestors: 'example' })).toBe(2);
    await store.close();
  });

  /** Rows of `table` whose value column for `path` differs from the document's value (decision 0117). */
  const staleColumn = (table: string, path: string): number => {
    const other = new Database(file, { readonly: true });
    try {
      return other
        .prepare(`SELECT count(*) FROM ${table} WHERE "${path}" IS NOT json_extract(doc, '${path}')`)
        .pluck()
        .get() as number;
    } finally {
      other.close();
    }
  };

  for (const writer of ['thread', 'inline'] as const) {
    it(`keeps indexed values in their columns through every kind of write, index entries unchanged where they stay (${writer} writer)`, async () => {
      const store = new EmbeddedReadStore({ file, writer, flushIntervalMs: 10_000 });
      const c = store.collection<{ _id: number; fqdn: string; account_id: number; ip?: string; seq?: number }>('hosts');
      await c.createIndex({ fqdn: 1 });
      await c.createIndex({ account_id: 1, fqdn: 1 });
      for (let i = 0; i < 30; i++) await c.insertOne({ _id: i, fqdn: `h${i}.example`, account_id: i % 3 });
      await store.flush();
      const indexPages = () => {
        const other = new Database(file, { readonly: true });
        try {
          // The index's entries, in its own order: what upkeep would rewrite.
          return other.prepare(`SELECT key, "$.fqdn" FROM c1 INDEXED BY c1_i1 ORDER BY "$.fqdn"`).all();
        } finally {
          other.close();
        }
      };
      const before = indexPages();
      // Values kept (an address changes), values moved, both to one document in one batch, a deletion and a new key.
      for (let i = 0; i < 10; i++) await c.updateOne({ _id: i }, { $set: { ip: `192.0.2.${i}` } });
      await c.updateOne({ _id: 10 }, { $set: { fqdn: 'moved.example' } });
      await c.updateOne({ _id: 11 }, { $set: { account_id: 7 } });
      await c.updateOne({ _id: 12 }, { $set: { fqdn: 'twice.example' } });
      await c.updateOne({ _id: 12 }, { $set: { ip: '192.0.2.12' } });
      await c.deleteOne({ _id: 13 });
      await c.insertOne({ _id: 13, fqdn: 'again.example', account_id: 1 });
      await c.replaceOne({ _id: 14 }, { _id: 14, fqdn: 'h14.example', account_id: 2, seq: 1 });
      await store.flush();
      for (const path of ['$.fqdn', '$.account_id']) expect(staleColumn('c1', path)).toBe(0);
      expect(indexPages()).not.toEqual(before);
      expect(indexPages().filter((r: any) => Number(r.key.slice(2)) < 10)).toEqual(
        before.filter((r: any) => Number(r.key.slice(2)) < 10),
      );
      // Answered in SQL through the columns, as MongoDB would.
      expect((await c.findOne({ fqdn: 'moved.example' }))!._id).toBe(10);
      expect(await c.findOne({ fqdn: 'h10.example' })).toBeNull();
      expect((await c.find({ account_id: 7 })).map((d) => d._id)).toEqual([11]);
      expect((await c.findOne({ fqdn: 'twice.example' }))!.ip).toBe('192.0.2.12');
      expect(await c.countDocuments({ account_id: 1 })).toBe(10);
      expect((await c.find({ account_id: 2 }, { sort: { fqdn: -1 }, limit: 2 })).map((d) => d.fqdn)).toEqual([
        'h8.example',
        'h5.example',
      ]);
      // A field indexed later gets its column, filled for the rows there and kept up by later writes.
      await c.createIndex({ seq: 1 });
      await c.updateOne({ _id: 15 }, { $set: { seq: 2 } });
      await store.flush();
      expect(staleColumn('c1', '$.seq')).toBe(0);
      expect((await c.find({ seq: { $gte: 1 } }, { sort: { seq: 1 } })).map((d) => d._id)).toEqual([14, 15]);
      await store.close();
    });
  }

  it('moves the expression indexes of a file written before to value columns at open, every document kept', async () => {
    const legacy = new Database(file);
    legacy.exec(`CREATE TABLE rs_collections (
        id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, multikey TEXT NOT NULL DEFAULT '[]');
      CREATE TABLE rs_indexes (
        collection_id INTEGER NOT NULL, name TEXT NOT NULL PRIMARY KEY, fields TEXT NOT NULL, is_unique INTEGER NOT NULL);
      INSERT INTO rs_collections (id, name, multikey) VALUES (1, 'users', '["tags"]');
      INSERT INTO rs_indexes VALUES (1, 'c1_i1', '["email"]', 1), (1, 'c1_i2', '["account_id","name"]', 0),
        (1, 'c1_i3', '["tags"]', 0);
      CREATE TABLE c1 (key TEXT PRIMARY KEY, doc BLOB NOT NULL);
      CREATE INDEX c1_i1 ON c1 (json_extract(doc, '$.email'));
      CREATE INDEX c1_i2 ON c1 (json_extract(doc, '$.account_id'), json_extract(doc, '$.name'));`);
    const insert = legacy.prepare('INSERT INTO c1 (key, doc) VALUES (?, jsonb(?))');
    for (let i = 0; i < 50; i++)
      insert.run(`j:${i}`, JSON.stringify({ _id: i, email: `u${i}@x`, account_id: i % 5, name: `n${i}`, tags: ['a'] }));
    legacy.close();

    let store = new EmbeddedReadStore({ file });
    const indexSql = () => {
      const other = new Database(file, { readonly: true });
      try {
        return other
          .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c1' AND sql IS NOT NULL`)
          .all();
      } finally {
        other.close();
      }
    };
    expect(indexSql()).toEqual([
      { name: 'c1_i1', sql: 'CREATE INDEX c1_i1 ON c1 ("$.email")' },
      { name: 'c1_i2', sql: 'CREATE INDEX c1_i2 ON c1 ("$.account_id", "$.name")' },
    ]);
    for (const path of ['$.email', '$.account_id', '$.name']) expect(staleColumn('c1', path)).toBe(0);
    const users = store.collection<{ _id: number; email: string; account_id: number; name: string }>('users');
    expect(await users.countDocuments({})).toBe(50);
    expect(await users.countDocuments({ account_id: 3 })).toBe(10);
    expect((await users.findOne({ email: 'u7@x' }))!.name).toBe('n7');
    // The unique index still refuses a second holder, through its column.
    expect(isDuplicateKeyError(await users.insertOne({ _id: 99, email: 'u7@x' } as any).catch((e: unknown) => e))).toBe(
      true,
    );
    await users.updateOne({ _id: 7 }, { $set: { account_id: 9 } });
    await store.close();
    expect(staleColumn('c1', '$.account_id')).toBe(0);

    // A second open has nothing to move.
    store = new EmbeddedReadStore({ file });
    expect(indexSql()).toHaveLength(2);
    expect((await store.collection('users').find({ account_id: 9 })).map((d) => d._id)).toEqual([7]);
    await store.close();
  });

  it('keeps indexes and what they learned across a restart', async () => {
    let store = new EmbeddedReadStore({ file });
    const c = store.collection('accounts');
    await c.createIndex({ email: 1 }, { unique: true });
    await c.createIndex({ tags: 1 });
    await c.insertOne({ _id: 1, email: 'a@x', tags: ['p', 'q'] });
    await store.close();

    store = new EmbeddedReadStore({ file });
    const again = store.collection('accounts');
    // No createIndex after the restart: the unique index is on disk.
    expect(isDuplicateKeyError(await again.insertOne({ _id: 2, email: 'a@x' }).catch((e: unknown) => e))).toBe(true);
    // The field is known to hold arrays, so element matches still find the document.
    expect((await again.find({ tags: 'q' })).map((d) => d._id)).toEqual([1]);
    await store.close();
  });

  it('imports the documents of the former single-table format once, checkpoints included', async () => {
    const legacy = new Database(file);
    legacy.exec(
      'CREATE TABLE documents (collection TEXT NOT NULL, key TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, key)) WITHOUT ROWID',
    );
    const put = legacy.prepare('INSERT INTO documents VALUES (?, ?, ?)');
    put.run('domains__g2', 's:d1', JSON.stringify({ _id: 'd1', fqdn: 'a.example.net', _pos: 7 }));
    put.run('domains__g2', 'j:2', JSON.stringify({ _id: 2, fqdn: 'b.example.net', _pos: 9 }));
    put.run('_checkpoints', 's:domains__g2', JSON.stringify({ _id: 'domains__g2', position: '9' }));
    legacy.close();

    let store = new EmbeddedReadStore({ file });
    expect((await store.listCollections()).sort()).toEqual(['_checkpoints', 'domains__g2']);
    const domains = store.collection('domains__g2');
    await domains.createIndex({ fqdn: 1 });
    expect(await domains.findOne({ fqdn: 'b.example.net' })).toEqual({ _id: 2, fqdn: 'b.example.net', _pos: 9 });
    expect(await domains.findOne({ _id: 'd1' })).toEqual({ _id: 'd1', fqdn: 'a.example.net', _pos: 7 });
    expect((await store.collection('_checkpoints').findOne({ _id: 'domains__g2' }))!.position).toBe('9');
    await domains.updateOne({ _id: 'd1' }, { $set: { fqdn: 'c.example.net' } });
    await store.close();

    // The former table is gone: opening again neither imports twice nor undoes later writes.
    store = new EmbeddedReadStore({ file });
    expect(await store.collection('domains__g2').findOne({ _id: 'd1' })).toMatchObject({ fqdn: 'c.example.net' });
    expect(await store.collection('domains__g2').countDocuments()).toBe(2);
    await store.close();
  });

  it('keeps failed writes readable, reports them, and writes them once the disk takes them again', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 5, writer: 'inline' });
    const hosts = store.collection('hosts');
    await hosts.insertOne({ _id: 'h1', ip: '192.0.2.1' });
    await store.flush();
    // A stand-in for a disk that refuses writes: triggers that fail every write to the table.
    const other = new Database(file);
    for (const op of ['INSERT', 'UPDATE']) {
      other.exec(
        `CREATE TRIGGER refuse_${op} BEFORE ${op} ON c1 BEGIN SELECT RAISE(ABORT, 'disk refuses writes'); END`,
      );
    }
    await hosts.updateOne({ _id: 'h1' }, { $set: { ip: '192.0.2.2' } });
    await hosts.insertOne({ _id: 'h2', ip: '192.0.2.3' });
    // The message is compared as text: SQLite's error class may come from another test file's realm.
    const failure = async (p: Promise<unknown>) =>
      p.then(
        () => 'no failure',
        (e: unknown) => String((e as Error)?.message ?? e),
      );
    expect(await failure(store.flush())).toMatch(/disk refuses writes/);
    expect(await failure(store.ping())).toMatch(/disk refuses writes/);
    expect((await hosts.findOne({ _id: 'h1' }))!.ip).toBe('192.0.2.2');
    expect((await hosts.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['h1', 'h2']);

    other.exec('DROP TRIGGER refuse_INSERT; DROP TRIGGER refuse_UPDATE');
    other.close();
    // Tried again after a pause, in the order the writes were made.
    for (let i = 0; i < 50; i++) {
      if (
        await store.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    const reopened = new EmbeddedReadStore({ file });
    expect(await reopened.collection('hosts').find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'h1', ip: '192.0.2.2' },
      { _id: 'h2', ip: '192.0.2.3' },
    ]);
    await reopened.close();
  });

  for (const writer of ['thread', 'inline'] as const) {
    it(`leaves each document of one batch as its last write, whatever came before in the batch (${writer} writer)`, async () => {
      const store = new EmbeddedReadStore({ file, flushIntervalMs: 60_000, writer });
      const c = store.collection<{ _id: string; n: number; text?: string }>('rows');
      // More rows than one multi-row statement takes, with every sequence of writes to one row in one batch.
      for (let i = 0; i < 40; i++) await c.insertOne({ _id: `r${i}`, n: i });
      await c.updateOne({ _id: 'r1' }, { $set: { n: 100 } });
      await c.deleteOne({ _id: 'r2' });
      await c.deleteOne({ _id: 'r3' });
      await c.insertOne({ _id: 'r3', n: 300 });
      await c.updateOne({ _id: 'r4' }, { $set: { n: 400 } });
      await c.deleteOne({ _id: 'r4' });
      // JSON beyond one byte a character: the encoding grows its buffer.
      const text = 'é€😀'.repeat(2000);
      await c.updateOne({ _id: 'r5' }, { $set: { text } });
      await store.flush();
      await store.close();
      const reader = new Database(file, { readonly: true });
      const rows = new Map(
        (reader.prepare('SELECT key, json(doc) AS doc FROM c1').all() as { key: string; doc: string }[]).map((r) => [
          r.key,
          JSON.parse(r.doc),
        ]),
      );
      reader.close();
      expect(rows.size).toBe(38);
      const doc = (id: string) => [...rows.values()].find((d) => d._id === id);
      expect(doc('r1')).toEqual({ _id: 'r1', n: 100 });
      expect(doc('r2')).toBeUndefined();
      expect(doc('r3')).toEqual({ _id: 'r3', n: 300 });
      expect(doc('r4')).toBeUndefined();
      expect(doc('r5')).toEqual({ _id: 'r5', n: 5, text });
      expect(doc('r39')).toEqual({ _id: 'r39', n: 39 });
    });
  }

  for (const writer of ['thread', 'inline'] as const) {
    it(`stores row keys as text, whatever their characters, so that reads by key find what the writer wrote (${writer} writer)`, async () => {
      const ids = ['plain', 'ü-€', '😀-key', 'x'.repeat(300)];
      const store = new EmbeddedReadStore({ file, writer });
      const c = store.collection<{ _id: string; n: number }>('rows');
      for (const [n, _id] of ids.entries()) await c.insertOne({ _id, n });
      await store.flush();
      await c.updateOne({ _id: 'ü-€' }, { $set: { n: 10 } });
      await c.deleteOne({ _id: '😀-key' });
      await store.close();
      const reader = new Database(file, { readonly: true });
      expect(reader.prepare(`SELECT DISTINCT typeof(key) FROM c1`).pluck().all()).toEqual(['text']);
      reader.close();
      // A new store: nothing cached, every read goes to the rows.
      const reopened = new EmbeddedReadStore({ file, writer });
      const again = reopened.collection<{ _id: string; n: number }>('rows');
      expect(await again.findOne({ _id: 'ü-€' })).toEqual({ _id: 'ü-€', n: 10 });
      expect(await again.findOne({ _id: '😀-key' })).toBeNull();
      expect(await again.findOne({ _id: 'x'.repeat(300) })).toEqual({ _id: 'x'.repeat(300), n: 3 });
      expect(await again.countDocuments()).toBe(3);
      await reopened.close();
    });
  }

  it('commits writes together and a flush makes them visible to another connection', async () => {
    const store = new EmbeddedReadStore({ file, flushIntervalMs: 60_000 });
    await store.collection('hosts').insertOne({ _id: 'h', ip: '192.0.2.1' });
    const reader = new Database(file, { readonly: true });
    const count = () => reader.prepare('SELECT count(*) FROM c1').pluck().get();
    expect(count()).toBe(0);
    await store.flush();
    expect(count()).toBe(1);
    expect(JSON.parse(reader.prepare('SELECT json(doc) FROM c1').pluck().get() as string)).toEqual({
      _id: 'h',
      ip: '192.0.2.1',
    });
    reader.close();
    await store.close();
  });
});
