import { Collection, Doc, isDuplicateKeyError, ReadStore } from '../read-store.port';

export interface ReadStoreHarness {
  store: ReadStore;
  /** Closes the store and opens it again on the same data; absent where that is meaningless. */
  reopen?(): Promise<ReadStore>;
  /** Closes whatever store is current and deletes its data. */
  dispose(): Promise<void>;
}

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected the operation to fail');
    },
    (e: unknown) => e,
  );

/** The behaviour every read-store adapter must share, expressed with MongoDB's semantics. */
export function describeReadStoreConformance(name: string, factory: () => Promise<ReadStoreHarness>): void {
  describe(`ReadStore conformance: ${name}`, () => {
    let harness: ReadStoreHarness;
    let store: ReadStore;
    let seq = 0;
    const fresh = <T extends Doc = Doc>(): Collection<T> => store.collection<T>(`conf_${++seq}`);
    const ids = (docs: Doc[]) => docs.map((d) => d._id);

    beforeAll(async () => {
      harness = await factory();
      store = harness.store;
    });
    afterAll(async () => {
      await harness?.dispose();
    });

    it('inserts and finds one document by _id, keeping _id', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'a', name: 'alpha', nested: { n: 1 } });
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', name: 'alpha', nested: { n: 1 } });
      expect(await c.findOne({ _id: 'missing' })).toBeNull();
    });

    it('returns copies: mutating a result does not change the stored document', async () => {
      const c = fresh();
      const doc = { _id: 1, list: [1] };
      await c.insertOne(doc);
      doc.list.push(2);
      const found = (await c.findOne({ _id: 1 }))!;
      found.list.push(3);
      expect((await c.findOne({ _id: 1 }))!.list).toEqual([1]);
    });

    it('rejects a second document with the same _id with code 11000', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'x' });
      const e = await rejection(c.insertOne({ _id: 'x' }));
      expect(isDuplicateKeyError(e)).toBe(true);
    });

    describe('filters', () => {
      let c: Collection;
      beforeAll(async () => {
        c = fresh();
        await c.bulkWrite([
          { insertOne: { document: { _id: 1, kind: 'a', n: 5, tags: ['x', 'y'], owner: { id: 7, name: 'ann' } } } },
          { insertOne: { document: { _id: 2, kind: 'b', n: 10, tags: ['y'], owner: { id: 8, name: 'bob' } } } },
          { insertOne: { document: { _id: 3, kind: 'a', n: 15, tags: [], deleted: true } } },
          {
            insertOne: {
              document: {
                _id: 4,
                kind: 'c',
                n: 20,
                items: [
                  { k: 'p', v: 1 },
                  { k: 'q', v: 2 },
                ],
              },
            },
          },
        ]);
      });
      const match = async (filter: Record<string, unknown>) => ids(await c.find(filter, { sort: { _id: 1 } }));

      it('$in', async () => expect(await match({ kind: { $in: ['a', 'c'] } })).toEqual([1, 3, 4]));
      it('$exists', async () => {
        expect(await match({ deleted: { $exists: true } })).toEqual([3]);
        expect(await match({ deleted: { $exists: false } })).toEqual([1, 2, 4]);
      });
      it('$or', async () => expect(await match({ $or: [{ kind: 'b' }, { n: { $gte: 20 } }] })).toEqual([2, 4]));
      it('$lt / $gt', async () => expect(await match({ n: { $gt: 5, $lt: 20 } })).toEqual([2, 3]));
      it('nested fields', async () => {
        expect(await match({ 'owner.id': 8 })).toEqual([2]);
        expect(await match({ 'owner.name': { $in: ['ann', 'zed'] } })).toEqual([1]);
      });
      it('array element match', async () => {
        expect(await match({ tags: 'y' })).toEqual([1, 2]);
        expect(await match({ tags: { $all: ['x', 'y'] } })).toEqual([1]);
        expect(await match({ items: { $elemMatch: { k: 'q', v: { $gte: 2 } } } })).toEqual([4]);
        expect(await match({ 'items.k': 'p' })).toEqual([4]);
      });
      it('guards combined with an _id', async () => {
        expect(await match({ _id: 2, $or: [{ n: { $lt: 11 } }, { n: { $exists: false } }] })).toEqual([2]);
        expect(await match({ _id: 2, $or: [{ n: { $lt: 10 } }, { n: { $exists: false } }] })).toEqual([]);
        expect(await match({ _id: { $in: [1, 4] }, kind: 'a' })).toEqual([1]);
      });
      it('type brackets, null and missing fields', async () => {
        const t = fresh();
        await t.bulkWrite(
          [
            { _id: 1, v: 5 },
            { _id: 2, v: '5' },
            { _id: 3, v: null },
            { _id: 4 },
            { _id: 5, v: [1, 20] },
            { _id: 6, v: true },
          ].map((document) => ({ insertOne: { document } })),
        );
        const m = async (filter: Record<string, unknown>) => ids(await t.find(filter, { sort: { _id: 1 } }));
        expect(await m({ v: { $lt: 10 } })).toEqual([1, 5]);
        expect(await m({ v: { $gt: 10 } })).toEqual([5]);
        expect(await m({ v: 5 })).toEqual([1]);
        expect(await m({ v: '5' })).toEqual([2]);
        expect(await m({ v: 20 })).toEqual([5]);
        expect(await m({ v: null })).toEqual([3, 4]);
        expect(await m({ v: { $exists: true } })).toEqual([1, 2, 3, 5, 6]);
        expect(await m({ v: { $in: [5, true] } })).toEqual([1, 6]);
        expect(await m({ $or: [{ v: { $lt: 2 } }, { v: { $exists: false } }] })).toEqual([4, 5]);
        expect(await m({ $and: [{ v: { $gte: 1 } }, { v: { $lte: 1 } }] })).toEqual([5]);
      });
      it('projection', async () => {
        expect(await c.findOne({ _id: 1 }, { projection: { kind: 1 } })).toEqual({ _id: 1, kind: 'a' });
        // Without _id, a field the document lacks left out, a sub-document the caller may change without changing the store's.
        const owner = await c.findOne({ _id: 1 }, { projection: { _id: 0, owner: 1, deleted: 1 } });
        expect(owner).toEqual({ owner: { id: 7, name: 'ann' } });
        (owner as unknown as { owner: { id: number } }).owner.id = 99;
        expect((await c.findOne({ _id: 1 }))!.owner).toEqual({ id: 7, name: 'ann' });
        expect(await c.find({ kind: 'a' }, { projection: { n: 1 }, sort: { _id: 1 } })).toEqual([
          { _id: 1, n: 5 },
          { _id: 3, n: 15 },
        ]);
        // Exclusions and `{}` keep the rest.
        expect(await c.findOne({ _id: 2 }, { projection: { _id: 0 } })).toEqual({
          kind: 'b',
          n: 10,
          tags: ['y'],
          owner: { id: 8, name: 'bob' },
        });
        expect(await c.findOne({ _id: 2 }, { projection: {} })).toMatchObject({ _id: 2, kind: 'b' });
      });
    });

    describe('updates', () => {
      it('$set, $inc, $unset, $push, $max on a matched document', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'd', n: 1, hi: 5, gone: true, log: ['a'], sub: { x: 1 } });
        const r = await c.updateOne(
          { _id: 'd' },
          {
            $set: { name: 'dee', 'sub.y': 2 },
            $inc: { n: 2 },
            $unset: { gone: '' },
            $push: { log: 'b' },
            $max: { hi: 3 },
          },
        );
        expect(r).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect(await c.findOne({ _id: 'd' })).toEqual({
          _id: 'd',
          n: 3,
          hi: 5,
          log: ['a', 'b'],
          sub: { x: 1, y: 2 },
          name: 'dee',
        });
        await c.updateOne({ _id: 'd' }, { $max: { hi: 9 } });
        expect((await c.findOne({ _id: 'd' }))!.hi).toBe(9);
      });

      it('matches nothing without upsert', async () => {
        const c = fresh();
        const r = await c.updateOne({ _id: 'none' }, { $set: { a: 1 } });
        expect(r).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedCount: 0 });
        expect(await c.countDocuments()).toBe(0);
      });

      it('upserts a document seeded from the equality filter, with $setOnInsert only on insert', async () => {
        const c = fresh();
        const first = await c.updateOne(
          { _id: 'u', kind: 'k' },
          { $set: { n: 1 }, $setOnInsert: { created: 'first' } },
          { upsert: true },
        );
        expect(first.upsertedCount).toBe(1);
        expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', kind: 'k', n: 1, created: 'first' });
        const second = await c.updateOne(
          { _id: 'u', kind: 'k' },
          { $set: { n: 2 }, $setOnInsert: { created: 'second' } },
          { upsert: true },
        );
        expect(second).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', kind: 'k', n: 2, created: 'first' });
      });

      it('an upsert whose guard fails on an existing _id raises 11000 and changes nothing', async () => {
        // Projections rely on this: a redelivered event's guarded upsert collides instead of applying twice.
        const c = fresh();
        await c.insertOne({ _id: 'g', _pos: 10, n: 1 });
        const e = await rejection(
          c.updateOne(
            { _id: 'g', $or: [{ _pos: { $lt: 10 } }, { _pos: { $exists: false } }] },
            { $inc: { n: 1 } },
            { upsert: true },
          ),
        );
        expect(isDuplicateKeyError(e)).toBe(true);
        expect(await c.findOne({ _id: 'g' })).toEqual({ _id: 'g', _pos: 10, n: 1 });
      });

      it('updateMany changes every match', async () => {
        const c = fresh();
        await c.bulkWrite(
          [1, 2, 3].map((i) => ({ insertOne: { document: { _id: i, odd: i % 2 === 1, seen: false } } })),
        );
        const r = await c.updateMany({ odd: true }, { $set: { seen: true } });
        expect(r.matchedCount).toBe(2);
        expect(ids(await c.find({ seen: true }, { sort: { _id: 1 } }))).toEqual([1, 3]);
      });

      it('replaceOne replaces the whole document and upserts', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'r', a: 1, b: 2 });
        await c.replaceOne({ _id: 'r' }, { _id: 'r', c: 3 });
        expect(await c.findOne({ _id: 'r' })).toEqual({ _id: 'r', c: 3 });
        const r = await c.replaceOne({ _id: 'new' }, { _id: 'new', d: 4 }, { upsert: true });
        expect(r.upsertedCount).toBe(1);
        expect(await c.findOne({ _id: 'new' })).toEqual({ _id: 'new', d: 4 });
      });

      it('replaceOne keeps its own copy of the replacement: replacing, upserting and upserting unseen', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'r', a: 1 });
        const replacement = { _id: 'r', tags: ['x'], inner: { n: 1 } };
        const upserted = { _id: 'u', inner: { n: 2 } };
        const unseen = { _id: 'v', inner: { n: 3 } };
        await c.replaceOne({ _id: 'r' }, replacement);
        await c.replaceOne({ _id: 'u' }, upserted, { upsert: true });
        await c.replaceOne({ _id: 'v' }, unseen, { upsert: true, unseen: true });
        replacement.tags.push('y');
        replacement.inner.n = upserted.inner.n = unseen.inner.n = 9;
        expect(await c.findOne({ _id: 'r' })).toEqual({ _id: 'r', tags: ['x'], inner: { n: 1 } });
        expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', inner: { n: 2 } });
        expect(await c.findOne({ _id: 'v' })).toEqual({ _id: 'v', inner: { n: 3 } });
      });
    });

    describe('sort, limit, skip and paging', () => {
      let c: Collection;
      beforeAll(async () => {
        c = fresh();
        await c.bulkWrite(
          [5, 3, 9, 1, 7, 2, 8, 4, 6, 10].map((n) => ({ insertOne: { document: { _id: `d${n}`, n, group: n % 2 } } })),
        );
      });

      it('sorts, skips and limits', async () => {
        const page = await c.find({}, { sort: { n: -1 }, skip: 2, limit: 3 });
        expect(page.map((d) => d.n)).toEqual([8, 7, 6]);
        expect((await c.findOne({ group: 1 }, { sort: { n: -1 } }))!.n).toBe(9);
      });

      it('sorts by several keys', async () => {
        const docs = await c.find({}, { sort: { group: 1, n: -1 }, limit: 3 });
        expect(docs.map((d) => d.n)).toEqual([10, 8, 6]);
      });

      it('pages by a range on the sort key, stable while documents are inserted', async () => {
        const p = fresh();
        await p.bulkWrite([10, 20, 30, 40, 50, 60, 70].map((seq) => ({ insertOne: { document: { _id: seq, seq } } })));
        const seen: number[] = [];
        let last = -Infinity;
        let inserted = false;
        for (;;) {
          const page = await p.find({ seq: { $gt: last } }, { sort: { seq: 1 }, limit: 3 });
          if (page.length === 0) break;
          seen.push(...page.map((d) => d.seq));
          last = page[page.length - 1].seq;
          if (!inserted) {
            // Inserts behind the cursor must not shift later pages; ones ahead must appear once.
            await p.bulkWrite([5, 15, 25, 65].map((seq) => ({ insertOne: { document: { _id: seq, seq } } })));
            inserted = true;
          }
        }
        expect(seen).toEqual([10, 20, 30, 40, 50, 60, 65, 70]);
      });

      it('counts documents with and without a filter', async () => {
        expect(await c.countDocuments()).toBe(10);
        expect(await c.countDocuments({ n: { $lte: 4 } })).toBe(4);
      });
    });

    it('deleteOne and deleteMany report what they removed', async () => {
      const c = fresh();
      await c.bulkWrite([1, 2, 3, 4].map((i) => ({ insertOne: { document: { _id: i, big: i > 2 } } })));
      expect(await c.deleteOne({ big: true })).toBe(1);
      expect(await c.deleteMany({ big: { $in: [true, false] } })).toBe(3);
      expect(await c.deleteMany({})).toBe(0);
      expect(await c.countDocuments()).toBe(0);
    });

    it('bulkWrite applies every kind of operation in order', async () => {
      const c = fresh();
      await c.bulkWrite([
        { insertOne: { document: { _id: 1, n: 1 } } },
        { insertOne: { document: { _id: 2, n: 2 } } },
        { insertOne: { document: { _id: 3, n: 3 } } },
        { updateOne: { filter: { _id: 1 }, update: { $inc: { n: 10 } } } },
        { updateOne: { filter: { _id: 9 }, update: { $set: { n: 9 } }, upsert: true } },
        { updateMany: { filter: { n: { $lt: 5 } }, update: { $set: { small: true } } } },
        { replaceOne: { filter: { _id: 3 }, replacement: { _id: 3, replaced: true } } },
        { deleteOne: { filter: { _id: 2 } } },
        { deleteMany: { filter: { small: true } } },
      ]);
      expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
        { _id: 1, n: 11 },
        { _id: 3, replaced: true },
        { _id: 9, n: 9 },
      ]);
    });

    describe('indexes', () => {
      it('a unique index rejects duplicates on insert and on update with 11000', async () => {
        const c = fresh();
        await c.createIndex({ email: 1 }, { unique: true });
        await c.insertOne({ _id: 1, email: 'a@x' });
        await c.insertOne({ _id: 2, email: 'b@x' });
        expect(isDuplicateKeyError(await rejection(c.insertOne({ _id: 3, email: 'a@x' })))).toBe(true);
        expect(isDuplicateKeyError(await rejection(c.updateOne({ _id: 2 }, { $set: { email: 'a@x' } })))).toBe(true);
        expect((await c.findOne({ _id: 2 }))!.email).toBe('b@x');
        // A refused update changes nothing, neither its other fields nor its lookups.
        const refused = c.updateOne({ _id: 2 }, { $set: { email: 'a@x', name: 'bee' }, $inc: { n: 1 } });
        expect(isDuplicateKeyError(await rejection(refused))).toBe(true);
        expect(await c.findOne({ _id: 2 })).toEqual({ _id: 2, email: 'b@x' });
        expect(ids(await c.find({ email: 'b@x' }))).toEqual([2]);
        // Freeing a value lets another document take it.
        await c.updateOne({ _id: 1 }, { $set: { email: 'c@x' } });
        await c.updateOne({ _id: 2 }, { $set: { email: 'a@x' } });
        expect(ids(await c.find({ email: 'a@x' }))).toEqual([2]);
      });

      it('a multikey index finds documents by any element of an array field', async () => {
        const c = fresh();
        await c.createIndex({ tags: 1 });
        await c.bulkWrite([
          { insertOne: { document: { _id: 1, tags: ['dns', 'web'] } } },
          { insertOne: { document: { _id: 2, tags: ['web'] } } },
          { insertOne: { document: { _id: 3, tags: 'dns' } } },
        ]);
        expect(ids(await c.find({ tags: 'dns' }, { sort: { _id: 1 } }))).toEqual([1, 3]);
        await c.updateOne({ _id: 1 }, { $pull: { tags: 'dns' } });
        expect(ids(await c.find({ tags: 'dns' }))).toEqual([3]);
        expect(ids(await c.find({ tags: { $in: ['web', 'none'] } }, { sort: { _id: 1 } }))).toEqual([1, 2]);
      });

      it('indexed fields keep MongoDB semantics: type brackets, null, arrays, ranges, sort and limit', async () => {
        // An adapter may answer these from its indexes; the answers must not change.
        const t = fresh();
        await t.createIndex({ v: 1 });
        await t.createIndex({ 'owner.id': 1, at: -1 });
        await t.bulkWrite(
          [
            { _id: 1, v: 5, owner: { id: 1 }, at: 3 },
            { _id: 2, v: '5', owner: { id: 1 }, at: 1 },
            { _id: 3, v: null, owner: { id: 2 }, at: 2 },
            { _id: 4, owner: { id: 1 }, at: 2 },
            { _id: 6, v: true, owner: { id: 2 }, at: 5 },
            { _id: 7, v: 12.5, owner: { id: 1 }, at: 4 },
          ].map((document) => ({ insertOne: { document } })),
        );
        const m = async (filter: Record<string, unknown>, sort: Record<string, 1 | -1> = { _id: 1 }, limit?: number) =>
          ids(await t.find(filter, { sort, limit }));
        expect(await m({ v: 5 })).toEqual([1]);
        expect(await m({ v: '5' })).toEqual([2]);
        expect(await m({ v: true })).toEqual([6]);
        expect(await m({ v: 1 })).toEqual([]);
        expect(await m({ v: null })).toEqual([3, 4]);
        expect(await m({ v: { $gte: 5 } })).toEqual([1, 7]);
        expect(await m({ v: { $gt: '' } })).toEqual([2]);
        expect(await m({ v: { $in: [12.5, '5'] } })).toEqual([2, 7]);
        expect(await m({ 'owner.id': 1 }, { at: -1 }, 2)).toEqual([7, 1]);
        expect(await m({ 'owner.id': 1 }, { at: 1 }, 3)).toEqual([2, 4, 1]);
        expect(await m({ 'owner.id': { $in: [1, 2] } }, { at: -1 }, 1)).toEqual([6]);
        expect(await m({}, { v: 1, _id: 1 }, 3)).toEqual([3, 4, 1]);
        expect(await t.countDocuments({ 'owner.id': 1 })).toBe(4);
        // An array arriving in an indexed field is matched element by element from then on.
        await t.insertOne({ _id: 8, v: [5, 'x'], owner: [{ id: 3 }, { id: 1 }], at: 0 });
        expect(await m({ v: 5 })).toEqual([1, 8]);
        expect(await m({ v: { $lt: 6 } })).toEqual([1, 8]);
        expect(await m({ 'owner.id': 1 }, { at: 1 }, 2)).toEqual([8, 2]);
        expect(await t.countDocuments({ 'owner.id': 3 })).toBe(1);
      });

      it('repeated lookups by an indexed value follow every change of that value', async () => {
        // Hot paths (key hash, fqdn, username) ask the same question again and again.
        const c = fresh();
        await c.createIndex({ fqdn: 1 });
        const owner = async (fqdn: string) => (await c.findOne({ fqdn }))?._id ?? null;
        expect(await owner('a.example')).toBeNull();
        await c.insertOne({ _id: 1, fqdn: 'a.example', ip: '192.0.2.1' });
        expect(await owner('a.example')).toBe(1);
        await c.updateOne({ _id: 1 }, { $set: { ip: '192.0.2.2' } });
        expect((await c.findOne({ fqdn: 'a.example' }))!.ip).toBe('192.0.2.2');
        await c.updateOne({ _id: 1 }, { $set: { fqdn: 'b.example' } });
        expect(await owner('a.example')).toBeNull();
        expect(await owner('b.example')).toBe(1);
        await c.replaceOne({ _id: 1 }, { _id: 1, fqdn: 'c.example' });
        expect(await owner('b.example')).toBeNull();
        await c.insertOne({ _id: 2, fqdn: 'b.example' });
        expect(await owner('b.example')).toBe(2);
        await c.deleteOne({ _id: 2 });
        expect(await owner('b.example')).toBeNull();
        await c.updateMany({ fqdn: 'c.example' }, { $unset: { fqdn: '' } });
        expect(await owner('c.example')).toBeNull();
        await c.updateOne({ _id: 3, fqdn: 'd.example' }, { $set: { ip: '192.0.2.3' } }, { upsert: true });
        expect(await owner('d.example')).toBe(3);
      });

      it('an index created on existing documents is used for later lookups', async () => {
        const c = fresh();
        await c.bulkWrite([1, 2, 3].map((i) => ({ insertOne: { document: { _id: i, zone: `z${i % 2}` } } })));
        await c.createIndex({ zone: 1 });
        expect(ids(await c.find({ zone: 'z1' }, { sort: { _id: 1 } }))).toEqual([1, 3]);
        await c.deleteOne({ _id: 3 });
        expect(ids(await c.find({ zone: 'z1' }))).toEqual([1]);
      });
    });

    it('lists and drops collections', async () => {
      const c = fresh();
      await c.insertOne({ _id: 1 });
      expect(await store.listCollections()).toContain(c.name);
      await store.dropCollection(c.name);
      expect(await store.listCollections()).not.toContain(c.name);
      expect(await store.collection(c.name).countDocuments()).toBe(0);
      await expect(store.dropCollection('never_created')).resolves.toBeUndefined();
    });

    it('keeps acknowledged writes across close and reopen', async () => {
      if (!harness.reopen) return;
      const name = `conf_persist_${++seq}`;
      const c = store.collection(name);
      await c.insertOne({ _id: 'p1', n: 1, when: 'now', nested: { list: [1, 2] } });
      await c.insertOne({ _id: 'p2', n: 2 });
      await c.updateOne({ _id: 'p1' }, { $inc: { n: 10 } });
      await c.deleteOne({ _id: 'p2' });
      await store.flush();
      store = await harness.reopen();
      const again = store.collection(name);
      expect(await again.find({})).toEqual([{ _id: 'p1', n: 11, when: 'now', nested: { list: [1, 2] } }]);
      await again.insertOne({ _id: 'p3' });
      expect(await again.countDocuments()).toBe(2);
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
