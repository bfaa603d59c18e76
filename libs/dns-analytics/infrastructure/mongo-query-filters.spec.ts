/**
 * The MongoDB query log's filters and sorts, evaluated by mingo (MongoDB's query language
 * implemented in JavaScript, already a dependency of the embedded read store) over the
 * documents the store writes: no MongoDB server can run here, so this checks that the
 * documents each read selects, walked as the store walks them, give exactly the rows a
 * brute-force scan of every row gives. The conformance suite runs against a server when
 * MONGODB_URL is set.
 */
import { find } from 'mingo';
import { BSON } from 'mongodb';
import type { LogCursor, RawFilter, StoredRow } from '../application/query-log.store';
import type { QueryRow } from '../domain/query-row';
import {
  compareRowIds,
  mergeNewest,
  mergePage,
  newestRows,
  pageBlockRange,
  pageRows,
  straddlingBlockRange,
  type BlockRef,
} from './block-reads';
import { trimBlock } from './block-retention';
import { legacyRowDoc } from './conformance/legacy-row-doc';
import { queryRows } from './conformance/query-row.builder';
import {
  blockBytes,
  blockDoc,
  blockFields,
  blockMeta,
  expiredBlocksFilter,
  inRange,
  legacyPageFilter,
  legacyRecentFilter,
  legacyRow,
  pageBlocksFilter,
  recentBlocksFilter,
  type BlockDoc,
  type LegacyRowDoc,
} from './mongo-query-blocks';
import { blocksOf, decodeBlock } from './query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const select = <T>(docs: T[], filter: object, sort: Record<string, 1 | -1>): T[] =>
  find(docs, filter as never)
    .sort(sort)
    .all() as T[];
const asRef = (d: BlockDoc): BlockRef => ({
  minTs: d.min_ts,
  maxTs: d.max_ts,
  rows: () => decodeBlock(blockMeta(d), blockBytes(d)),
});
const ascending = (a: StoredRow, b: StoredRow) => a.ts - b.ts || compareRowIds(a.id, b.id);
const owns = (f: RawFilter) => (r: StoredRow) =>
  r.accountId === f.accountId && (f.domain === null || r.domain === f.domain);
const after = (c: LogCursor | null) => (r: StoredRow) =>
  !c || r.ts > c.ts || (r.ts === c.ts && compareRowIds(r.id, c.id) > 0);

/**
 * Writer batches as the store appends them: 40 batches of 1 to 60 rows over two accounts
 * and three domains, times clumped to the millisecond, some batches spread over minutes
 * (imports) so blocks are split by their span; ids numbered across batches.
 */
function writtenBlocks(seed: number) {
  const rnd = random(seed);
  const docs: BlockDoc[] = [];
  let nextId = 1;
  for (let batch = 0; batch < 40; batch++) {
    const spread = rnd() < 0.2 ? 300_000 : 1000;
    const start = T0 + Math.floor(rnd() * 600_000);
    const rows: QueryRow[] = Array.from({ length: 1 + Math.floor(rnd() * 60) }, (_, i) =>
      row({
        // Coarse times: many rows share a millisecond, so the id tie-break matters.
        ts: start + Math.floor((rnd() * spread) / 50) * 50,
        accountId: 1 + Math.floor(rnd() * 2),
        domain: ['a.test', 'b.test', 'c.test'][Math.floor(rnd() * 3)],
        qname: `b${batch}r${i}.test`,
      }),
    );
    // Through BSON, as the driver writes and reads them back.
    for (const b of blocksOf(rows, nextId)) docs.push(BSON.deserialize(BSON.serialize(blockDoc(b))) as BlockDoc);
    nextId += rows.length;
  }
  const all = docs.flatMap((d) => asRef(d).rows());
  return { docs, all };
}

const FILTERS: RawFilter[] = [
  { accountId: 1, domain: null },
  { accountId: 2, domain: 'b.test' },
  { accountId: 3, domain: null },
];

describe('MongoDB query-log reads, their filters evaluated by mingo', () => {
  const { docs, all } = writtenBlocks(12);

  it('page the whole log of an account or domain in (ts, id) order, every row once', () => {
    for (const f of FILTERS) {
      for (const [from, to] of [
        [T0, T0 + 3_600_000],
        [T0 + 123_456, T0 + 400_000],
      ]) {
        const seen: StoredRow[] = [];
        let cursor: LogCursor | null = null;
        for (;;) {
          const blocks = select(docs, pageBlocksFilter(f, pageBlockRange(from, to, cursor)), { min_ts: 1 });
          const page = pageRows(blocks.map(asRef), from, to, cursor, 37);
          seen.push(...page);
          if (page.length < 37) break;
          cursor = { ts: page[36].ts, id: page[36].id };
        }
        const expected = all.filter((r) => owns(f)(r) && r.ts >= from && r.ts < to).sort(ascending);
        expect(seen.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      }
    }
  });

  it('find the newest rows since a time', () => {
    for (const f of FILTERS) {
      for (const [since, limit] of [
        [T0, 10],
        [T0 + 500_000, 100],
        [T0 + 200_000, 50],
      ]) {
        const blocks = select(docs, recentBlocksFilter(f, since), { max_ts: -1 });
        const expected = all.filter((r) => owns(f)(r) && r.ts >= since).sort((a, b) => -ascending(a, b));
        expect(newestRows(blocks.map(asRef), since, limit).map((r) => r.id)).toEqual(
          expected.slice(0, limit).map((r) => r.id),
        );
      }
    }
  });

  it('prune exactly the rows before a cutoff: expired blocks deleted, straddling ones rewritten', () => {
    for (const cutoff of [T0 + 100_000, T0 + 333_333, T0 + 590_001]) {
      const expired = new Set(select(docs, expiredBlocksFilter(cutoff), { _id: 1 }).map((d) => d._id.toHexString()));
      const straddling = new Set(
        select(docs, inRange(straddlingBlockRange(cutoff)), { _id: 1 }).map((d) => d._id.toHexString()),
      );
      let removed = 0;
      const kept = docs.flatMap((d) => {
        const id = d._id.toHexString();
        if (expired.has(id)) return ((removed += d.count), []);
        if (!straddling.has(id)) return [d];
        const t = trimBlock(asRef(d).rows(), cutoff);
        removed += t.removed;
        return [{ _id: d._id, ...blockFields(t.block!) }];
      });
      const before = all.filter((r) => r.ts < cutoff);
      expect(removed).toBe(before.length);
      expect(
        kept
          .flatMap((d) => asRef(d).rows())
          .sort(ascending)
          .map((r) => r.id),
      ).toEqual(
        all
          .filter((r) => r.ts >= cutoff)
          .sort(ascending)
          .map((r) => r.id),
      );
    }
  });
});

describe('MongoDB former per-query documents read beside blocks, filters evaluated by mingo', () => {
  const { docs, all } = writtenBlocks(34);
  // Written by the former adapter before any block: same times, so some share a millisecond with block rows.
  // Pairs of one millisecond, so pages also end between two former rows of the same instant.
  const legacy: LegacyRowDoc[] = all
    .filter((_, i) => i % 3 === 0)
    .flatMap((r) => [r, r])
    .map((r) => legacyRowDoc({ ...r, qname: `old-${r.qname}` }));
  const everything = [...all, ...legacy.map(legacyRow)];

  it('page both in one (ts, id) order, former rows first within a millisecond, every row once', () => {
    for (const f of FILTERS) {
      const [from, to] = [T0 + 50_000, T0 + 3_600_000];
      const seen: StoredRow[] = [];
      let cursor: LogCursor | null = null;
      for (;;) {
        const fromBlocks = pageRows(
          select(docs, pageBlocksFilter(f, pageBlockRange(from, to, cursor)), { min_ts: 1 }).map(asRef),
          from,
          to,
          cursor,
          23,
        );
        const old = select(legacy, legacyPageFilter(f, from, to, cursor), { ts: 1, _id: 1 })
          .slice(0, 23)
          .map(legacyRow);
        const page = mergePage(old, fromBlocks, from, to, cursor, 23);
        seen.push(...page);
        if (page.length < 23) break;
        cursor = { ts: page[22].ts, id: page[22].id };
      }
      const expected = everything
        .filter((r) => owns(f)(r) && r.ts >= from && r.ts < to && after(null)(r))
        .sort(ascending);
      expect(seen.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      if (f.accountId === 1)
        expect(seen.some((r) => r.qname.startsWith('old-')) && seen.some((r) => !r.qname.startsWith('old-'))).toBe(
          true,
        );
    }
  });

  it('find the newest of both', () => {
    const f = FILTERS[0];
    const since = T0 + 300_000;
    const fromBlocks = newestRows(select(docs, recentBlocksFilter(f, since), { max_ts: -1 }).map(asRef), since, 40);
    const old = select(legacy, legacyRecentFilter(f, since), { ts: -1, _id: -1 }).slice(0, 40).map(legacyRow);
    const expected = everything.filter((r) => owns(f)(r) && r.ts >= since).sort((a, b) => -ascending(a, b));
    expect(mergeNewest(fromBlocks, old, since, 40).map((r) => r.id)).toEqual(expected.slice(0, 40).map((r) => r.id));
  });
});
