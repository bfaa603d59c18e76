/**
 * The embedded read store decides MongoDB filters in three places: the fast evaluator
 * (filter-evaluation.ts), the SQL pushdown that picks candidate rows and may cut sorted
 * results short (sql-filter.ts, embedded-collection.ts), and mingo, the reference. These
 * properties generate documents and filters over the operators and value shapes the read
 * models send (equality, `$in`, ranges, `$ne`, `$exists`, `$and`/`$or`, dotted paths,
 * multikey arrays, null and missing, numbers beside strings and booleans, dates) and
 * require all three to agree on what matches and in which order.
 */
import * as fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { find as mingoFind, Query } from 'mingo';
import { Doc, Filter, Sort } from '../read-store.port';
import { EmbeddedCollection } from './embedded-collection';
import { EmbeddedReadStore } from './embedded-read-store';
import { fastVerdict, sortDocuments } from './filter-evaluation';
import { FieldInfo, sqlCondition } from './sql-filter';

// ---- values: a small universe, so that generated filters often hit generated documents ----

const str = fc.constantFrom(
  'a',
  'b',
  'B',
  '',
  '1',
  '10',
  '2',
  'd1',
  'd3',
  '2026-01-01',
  '2026-01-02',
  '2026-01-01T12:00:00.000Z',
  'issued',
  'standard',
);
const num = fc.oneof(fc.integer({ min: -2, max: 11 }), fc.constantFrom(0.5, -1.5, 2 ** 53, 1e21));
const scalar = fc.oneof(
  { weight: 3, arbitrary: str },
  { weight: 3, arbitrary: num },
  { weight: 1, arbitrary: fc.boolean() },
);
const leaf = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: fc.constant(null) });
const sub = fc.record({ tier: leaf, n: leaf }, { requiredKeys: [], noNullPrototype: true });

/** Fields the way read models fill them: mostly one type, now and then another, an array or nothing. */
const fieldValues = {
  a: fc.oneof(
    { weight: 12, arbitrary: num },
    { weight: 2, arbitrary: str },
    { weight: 2, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(num, { maxLength: 3 }) },
  ),
  s: fc.oneof(
    { weight: 12, arbitrary: str },
    { weight: 2, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(str, { maxLength: 3 }) },
  ),
  f: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom(0, 1, null, 'true') }),
  e: fc.oneof(
    { weight: 5, arbitrary: sub },
    { weight: 1, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(sub, { maxLength: 2 }) },
  ),
  t: fc.oneof({ weight: 3, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: leaf }),
};
const FIELDS = ['a', 's', 'f', 'e', 't'] as const;
const PATHS = [...FIELDS, 'e.tier', 'e.n', '_id'] as const;
const INDEXED = ['a', 's', 'f', 'e.tier'] as const;

/** Documents as stored (JSON values); `_id`s strings or numbers, as the read models' are. */
const docsArb = fc
  .tuple(fc.array(fc.record(fieldValues, { requiredKeys: [], noNullPrototype: true }), { maxLength: 12 }), fc.boolean())
  .map(([bodies, numericIds]) => bodies.map((body, i) => ({ _id: numericIds ? i : `d${i}`, ...body }) as Doc));

/** Retention compares dates, not only their ISO strings: documents evaluated in memory may hold them. */
const DATES = [new Date('2026-01-01T00:00:00.000Z'), new Date('2026-01-02T00:00:00.000Z')];
const withDates = (docs: Doc[], at: number[]): Doc[] =>
  docs.map((d, i) =>
    at.includes(i) ? { ...d, s: DATES[i % 2], ...(i % 3 === 0 ? { a: DATES[(i + 1) % 2] } : {}) } : d,
  );

// ---- filters ----

const operand = (dates: boolean) =>
  dates ? fc.oneof({ weight: 8, arbitrary: leaf }, { weight: 1, arbitrary: fc.constantFrom(...DATES) }) : leaf;
const rangeOps = ['$gt', '$gte', '$lt', '$lte'] as const;

const conditionArb = (dates: boolean): fc.Arbitrary<unknown> => {
  const v = operand(dates);
  const range = fc
    .uniqueArray(fc.constantFrom(...rangeOps), { minLength: 1, maxLength: 2 })
    .chain((ops) => fc.tuple(...ops.map(() => v)).map((args) => Object.fromEntries(ops.map((op, i) => [op, args[i]]))));
  return fc.oneof(
    { weight: 4, arbitrary: v },
    { weight: 2, arbitrary: v.map(($eq) => ({ $eq })) },
    { weight: 2, arbitrary: v.map(($ne) => ({ $ne })) },
    { weight: 3, arbitrary: fc.array(v, { maxLength: 4 }).map(($in) => ({ $in })) },
    { weight: 4, arbitrary: range },
    { weight: 2, arbitrary: fc.boolean().map(($exists) => ({ $exists })) },
    { weight: 1, arbitrary: fc.tuple(range, v).map(([r, $ne]) => ({ ...r, $ne })) },
    { weight: 1, arbitrary: fc.tuple(v, fc.array(v, { maxLength: 3 })).map(([$eq, $in]) => ({ $eq, $in })) },
  );
};

const filterArb = (dates: boolean): fc.Arbitrary<Filter> => {
  const fields = fc.dictionary(fc.constantFrom(...PATHS), conditionArb(dates), {
    minKeys: 0,
    maxKeys: 3,
    noNullPrototype: true,
  }) as fc.Arbitrary<Filter>;
  const logical = (inner: fc.Arbitrary<Filter>) =>
    fc
      .tuple(fc.constantFrom('$or', '$and'), fc.array(inner, { minLength: 1, maxLength: 3 }), fields)
      .map(([op, subs, rest]) => ({ ...rest, [op]: subs }) as Filter);
  // The read models' usual lookups: value tests on indexed fields, which SQL answers exactly.
  const v = operand(dates);
  const pushable = fc.oneof(
    v,
    v.map(($eq) => ({ $eq })),
    fc.array(v, { maxLength: 4 }).map(($in) => ({ $in })),
    fc.tuple(fc.constantFrom(...rangeOps), v).map(([op, arg]) => ({ [op]: arg })),
  );
  const indexed = fc.dictionary(fc.constantFrom(...INDEXED, '_id'), pushable, {
    minKeys: 1,
    maxKeys: 2,
    noNullPrototype: true,
  }) as fc.Arbitrary<Filter>;
  return fc.oneof(
    { weight: 3, arbitrary: indexed },
    { weight: 3, arbitrary: fields },
    { weight: 2, arbitrary: logical(fields) },
    { weight: 1, arbitrary: logical(fc.oneof(fields, logical(fields))) },
  );
};

/** Sorts the read models ask for, always ending on `_id` so the order is total. */
const sortArb: fc.Arbitrary<Sort> = fc
  .uniqueArray(fc.constantFrom('a', 's', 'f', 'e.tier', 'e', 't'), { minLength: 0, maxLength: 2 })
  .chain((keys) =>
    fc
      .tuple(...[...keys, '_id'].map(() => fc.constantFrom(1 as const, -1 as const)))
      .map((dirs) => Object.fromEntries([...keys, '_id'].map((k, i) => [k, dirs[i]])) as Sort),
  );

// ---- the reference ----

const ids = (docs: readonly Doc[]) => docs.map((d) => d._id);
const sortedIds = (docs: readonly Doc[]) => ids(docs).sort((x, y) => String(x).localeCompare(String(y)));
const stored = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const mingoMatches = (docs: Doc[], filter: Filter) => mingoFind<Doc>(docs, filter).all();
const mingoSorted = (docs: Doc[], filter: Filter, sort: Sort, skip: number, limit: number) =>
  mingoFind<Doc>(docs, filter).sort(sort).skip(skip).limit(limit).all();

const RUNS = { fast: 6000, sort: 3000, store: 1000 };
const SEED = Number(process.env.AGREEMENT_SEED ?? 20261126);

describe('MongoDB semantics: fast path, SQL pushdown and mingo agree', () => {
  it(`the fast evaluator decides every filter and document as mingo does (${RUNS.fast} cases)`, () => {
    let decided = 0;
    fc.assert(
      fc.property(docsArb, fc.array(fc.nat(11), { maxLength: 3 }), filterArb(true), (plain, dated, filter) => {
        for (const doc of withDates(plain, dated)) {
          const fast = fastVerdict(filter, doc);
          if (fast === null || fast === undefined) continue;
          decided++;
          expect({ doc, filter, fast }).toEqual({ doc, filter, fast: new Query(filter).test(doc) });
        }
      }),
      { numRuns: RUNS.fast, seed: SEED },
    );
    // The property is worth something only if the fast path decides a good share itself.
    expect(decided).toBeGreaterThan(RUNS.fast);
  });

  it(`the store's own sort orders documents as mingo does (${RUNS.sort} cases)`, () => {
    fc.assert(
      fc.property(docsArb, fc.array(fc.nat(11), { maxLength: 3 }), sortArb, (plain, dated, sort) => {
        const docs = withDates(plain, dated);
        expect({ sort, ids: ids(sortDocuments(docs, sort)) }).toEqual({
          sort,
          ids: ids(mingoFind<Doc>(docs, {}).sort(sort).all()),
        });
      }),
      { numRuns: RUNS.sort, seed: SEED },
    );
  });

  it('sorts on a dotted key through an array as mingo does (an empty array is not a missing value)', () => {
    const docs: Doc[] = [{ _id: 'd0', e: [] }, { _id: 'd1' }];
    const sort: Sort = { 'e.tier': -1, _id: -1 };
    expect(ids(sortDocuments(docs, sort))).toEqual(ids(mingoFind<Doc>(docs, {}).sort(sort).all()));
  });

  describe('through a real embedded collection', () => {
    let dir: string;
    let store: EmbeddedReadStore;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'rs-agreement-'));
      store = new EmbeddedReadStore({ file: join(dir, 'readmodels.db') });
    });
    afterAll(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    // Minimal examples of disagreements the properties found, kept as plain cases.
    it('sorts descending on an indexed field holding a boolean as MongoDB does: booleans above strings', async () => {
      const c = store.collection('regression_desc_boolean');
      await c.createIndex({ f: 1 });
      await c.bulkWrite([
        { insertOne: { document: { _id: 'd0', f: false } } },
        { insertOne: { document: { _id: 'd1', f: 'a' } } },
      ]);
      await store.flush();
      expect(ids(await c.find({}, { sort: { f: -1 }, limit: 1 }))).toEqual(['d0']);
      expect(ids(await c.find({}, { sort: { f: 1 }, limit: 1 }))).toEqual(['d1']);
    });

    it('counts {field: 0} without the documents holding false (SQLite reads false as 0)', async () => {
      const c = store.collection('regression_zero_false');
      await c.createIndex({ f: 1 });
      await c.bulkWrite([
        { insertOne: { document: { _id: 'd0', f: false } } },
        { insertOne: { document: { _id: 'd1', f: 1 } } },
        { insertOne: { document: { _id: 'd2', f: true } } },
      ]);
      await store.flush();
      expect(await c.countDocuments({ f: 0 })).toBe(0);
      expect(await c.countDocuments({ f: { $in: [1, 2] } })).toBe(1);
      expect(await c.countDocuments({ f: { $eq: 1 } })).toBe(1);
    });

    it('answers a sorted page of {field: 1} in SQL, without the documents holding true (account 1’s audit pages)', async () => {
      const c = store.collection('regression_one_sorted');
      await c.createIndex({ f: 1, p: -1 });
      await c.bulkWrite(
        Array.from({ length: 20 }, (_, i) => ({
          insertOne: { document: { _id: `d${i}`, f: i % 4 === 0 ? true : i % 2 === 0 ? 1 : 0, p: i } },
        })),
      );
      await store.flush();
      const proto = EmbeddedCollection.prototype as unknown as { sortedBySql: (...args: unknown[]) => unknown };
      const sortedBySql = jest.spyOn(proto, 'sortedBySql');
      try {
        expect(ids(await c.find({ f: 1 }, { sort: { p: 1 }, limit: 3 }))).toEqual(['d2', 'd6', 'd10']);
        expect(ids(await c.find({ f: { $eq: 0 }, p: { $gt: 10 } }, { sort: { p: 1 }, limit: 2 }))).toEqual([
          'd11',
          'd13',
        ]);
        // Both pages were cut short by ORDER BY … LIMIT in SQL rather than sorted from every match.
        expect(sortedBySql.mock.results.map((r) => r.value !== null)).toEqual([true, true]);
      } finally {
        sortedBySql.mockRestore();
      }
      expect(await c.countDocuments({ f: 1 })).toBe(5);
    });

    it(`finds, counts and sorts as mingo does, on disk and pending alike (${RUNS.store} cases)`, async () => {
      let run = 0;
      const pushedDown = { some: 0, exact: 0, sortedInSql: 0 };
      const proto = EmbeddedCollection.prototype as unknown as { sortedBySql: (...args: unknown[]) => unknown };
      const sortedBySql = jest.spyOn(proto, 'sortedBySql');
      await fc.assert(
        fc.asyncProperty(
          docsArb,
          fc.nat(3),
          fc.array(fc.tuple(filterArb(false), sortArb, fc.nat(2), fc.integer({ min: 1, max: 5 })), {
            minLength: 1,
            maxLength: 3,
          }),
          async (docs, pendingCount, queries) => {
            const name = `c${run++}`;
            const c = store.collection(name);
            for (const field of INDEXED) await c.createIndex({ [field]: 1 });
            await c.createIndex({ a: 1, s: 1 });
            // Most documents on disk (SQL finds them), the last few still pending (the overlay).
            const cut = Math.max(0, docs.length - pendingCount);
            await c.bulkWrite(docs.slice(0, cut).map((document) => ({ insertOne: { document } })));
            await store.flush();
            await c.bulkWrite(docs.slice(cut).map((document) => ({ insertOne: { document } })));
            const reference = stored(docs);
            const fields = (c as unknown as { fieldInfo: FieldInfo }).fieldInfo;
            for (const [filter, sort, skip, limit] of queries) {
              const condition = sqlCondition(filter, fields);
              if (condition) pushedDown.some++;
              if (condition?.exact) pushedDown.exact++;
              const expected = mingoMatches(reference, filter);
              const found = await c.find(filter);
              expect({ filter, found: sortedIds(found) }).toEqual({ filter, found: sortedIds(expected) });
              expect({ filter, count: await c.countDocuments(filter) }).toEqual({ filter, count: expected.length });
              const one = await c.findOne(filter);
              expect({ filter, one: one === null ? null : ids(expected).includes(one._id) }).toEqual({
                filter,
                one: expected.length === 0 ? null : true,
              });
              const page = await c.find(filter, { sort, skip, limit });
              expect({ filter, sort, skip, limit, page: ids(page) }).toEqual({
                filter,
                sort,
                skip,
                limit,
                page: ids(mingoSorted(reference, filter, sort, skip, limit)),
              });
            }
            await store.dropCollection(name);
          },
        ),
        { numRuns: RUNS.store, seed: SEED },
      );
      for (const r of sortedBySql.mock.results) if (r.type === 'return' && r.value !== null) pushedDown.sortedInSql++;
      sortedBySql.mockRestore();
      // The SQL path was really taken: candidates picked, counts and sorted pages answered in SQL.
      expect(pushedDown.some).toBeGreaterThan(RUNS.store / 2);
      expect(pushedDown.exact).toBeGreaterThan(RUNS.store / 10);
      expect(pushedDown.sortedInSql).toBeGreaterThan(RUNS.store / 20);
    });
  });
});
