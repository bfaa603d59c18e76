import type { StoredRow } from '../application/query-log.store';
import { queryRows } from './conformance/query-row.builder';
import {
  compareRowIds,
  isLegacyRowId,
  mergeNewest,
  mergePage,
  newestRows,
  newestRowsAsync,
  pageBlockRange,
  pageRows,
  pageRowsAsync,
  straddlingBlockRange,
  type BlockRef,
} from './block-reads';
import { blocksOf, decodeBlock, MAX_BLOCK_SPAN_MS } from './query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const DAY = 86_400_000;
const row = queryRows({ ts: T0 });

/** Blocks of ten rows, 100 ms apart, ts ascending (or reversed); counts the blocks decoded. */
function blocks(order: 'asc' | 'desc') {
  const rows = Array.from({ length: 100 }, (_, i) => row({ ts: T0 + i * 100, qname: `q${i}.a.test` }));
  const refs: BlockRef[] = [];
  let decoded = 0;
  for (let i = 0; i < rows.length; i += 10) {
    const [b] = blocksOf(rows.slice(i, i + 10), i + 1);
    refs.push({ minTs: b.minTs, maxTs: b.maxTs, rows: () => (decoded++, decodeBlock(b, b.data)) });
  }
  if (order === 'desc') refs.reverse();
  return { refs, decoded: () => decoded };
}

/** The blocks as a database cursor hands them over; records whether the reader closed it early. */
function cursorOf(refs: BlockRef[]) {
  const state = { handedOut: 0, closed: false };
  async function* cursor() {
    try {
      for (const r of refs) {
        state.handedOut++;
        await Promise.resolve();
        yield r;
      }
    } finally {
      state.closed = true;
    }
  }
  return { cursor: cursor(), state };
}

const stored = (id: string, ts: number, qname = `${id}.a.test`): StoredRow => ({ ...row({ ts, qname }), id });
const OBJECT_ID_A = '6566a0f0c2a1b2c3d4e5f601';
const OBJECT_ID_B = '6566a0f0c2a1b2c3d4e5f6ff';

describe('block readers', () => {
  it('find the newest rows reading only the blocks that can hold them', () => {
    const { refs, decoded } = blocks('desc');
    expect(newestRows(refs, T0, 12).map((r) => r.qname)).toEqual(
      Array.from({ length: 12 }, (_, i) => `q${99 - i}.a.test`),
    );
    expect(decoded()).toBe(2);
  });

  it('page oldest first after a cursor, and stop at the first block past the page', () => {
    const { refs, decoded } = blocks('asc');
    const page = pageRows(refs, T0 + 500, T0 + 10_000, { ts: T0 + 1200, id: '13' }, 5);
    expect(page.map((r) => r.qname)).toEqual(['q13.a.test', 'q14.a.test', 'q15.a.test', 'q16.a.test', 'q17.a.test']);
    expect(decoded()).toBe(2);
  });

  it('read nothing for a limit of 0 and everything wanted when the limit exceeds it', () => {
    const { refs, decoded } = blocks('desc');
    expect(newestRows(refs, T0, 0)).toEqual([]);
    expect(decoded()).toBe(0);
    expect(newestRows(refs, T0 + 9_500, 100).map((r) => r.qname)).toEqual([
      'q99.a.test',
      'q98.a.test',
      'q97.a.test',
      'q96.a.test',
      'q95.a.test',
    ]);
  });

  it('walk blocks from a cursor the same way, and close it when they stop early', async () => {
    const desc = blocks('desc');
    const recent = cursorOf(desc.refs);
    expect((await newestRowsAsync(recent.cursor, T0, 12)).map((r) => r.qname)).toEqual(
      newestRows(blocks('desc').refs, T0, 12).map((r) => r.qname),
    );
    expect(desc.decoded()).toBe(2);
    expect(recent.state).toEqual({ handedOut: 3, closed: true });

    const asc = blocks('asc');
    const pages = cursorOf(asc.refs);
    const page = await pageRowsAsync(pages.cursor, T0, T0 + 10_000, { ts: T0 + 1200, id: '13' }, 5);
    expect(page.map((r) => r.id)).toEqual(['14', '15', '16', '17', '18']);
    expect(pages.state.closed).toBe(true);
    expect(pages.state.handedOut).toBeLessThan(asc.refs.length);
  });

  it('order ids by number, rows of a former ObjectId-keyed collection first', () => {
    expect(compareRowIds('9', '10')).toBeLessThan(0);
    expect(compareRowIds('10', '9')).toBeGreaterThan(0);
    expect(compareRowIds('7', '7')).toBe(0);
    expect(compareRowIds(OBJECT_ID_A, OBJECT_ID_B)).toBeLessThan(0);
    expect(compareRowIds(OBJECT_ID_B, '1')).toBeLessThan(0);
    expect(compareRowIds('1', OBJECT_ID_A)).toBeGreaterThan(0);
    // An ObjectId that happens to be all decimal digits is still one.
    expect(compareRowIds('123456789012345678901234', '2')).toBeLessThan(0);
    expect(
      [OBJECT_ID_A, '123456789012345678901234', '42', '9007199254740991', 'zz'.repeat(12)].map(isLegacyRowId),
    ).toEqual([true, true, false, false, false]);
  });

  it('merge a former table’s rows with the blocks’ into one answer, keyset paging across both', () => {
    const old = [stored(OBJECT_ID_A, T0), stored(OBJECT_ID_B, T0 + 1000)];
    const fresh = [stored('1', T0 + 1000), stored('2', T0 + 2000)];
    expect(mergeNewest(fresh, old, T0 + 1, 3).map((r) => r.id)).toEqual(['2', '1', OBJECT_ID_B]);
    expect(mergePage(old, fresh, T0, T0 + 5000, null, 2).map((r) => r.id)).toEqual([OBJECT_ID_A, OBJECT_ID_B]);
    expect(mergePage(old, fresh, T0, T0 + 5000, { ts: T0 + 1000, id: OBJECT_ID_B }, 5).map((r) => r.id)).toEqual([
      '1',
      '2',
    ]);
    expect(mergePage(old, fresh, T0, T0 + 2000, { ts: T0 + 1000, id: '1' }, 5)).toEqual([]);
  });

  it('scan from the cursor (or the start) back by the longest block span, up to the end', () => {
    expect(pageBlockRange(T0, T0 + 10_000, null)).toEqual({
      minTsFrom: T0 - MAX_BLOCK_SPAN_MS,
      minTsBelow: T0 + 10_000,
      maxTsFrom: T0,
    });
    expect(pageBlockRange(T0, T0 + 10_000, { ts: T0 + 5000, id: '3' })).toEqual({
      minTsFrom: T0 + 5000 - MAX_BLOCK_SPAN_MS,
      minTsBelow: T0 + 10_000,
      maxTsFrom: T0 + 5000,
    });
    // A cursor before the window (a caller's odd input) does not widen the scan.
    expect(pageBlockRange(T0, T0 + 10_000, { ts: T0 - 99_000, id: '3' }).maxTsFrom).toBe(T0);
    expect(straddlingBlockRange(T0)).toEqual({ minTsFrom: T0 - MAX_BLOCK_SPAN_MS, minTsBelow: T0, maxTsFrom: T0 });
  });

  it('find every block a page can need within its range', () => {
    // Blocks of one domain spanning at most the longest span, 40 s apart: a page starting anywhere is served.
    const rows = Array.from({ length: 40 }, (_, i) => row({ ts: T0 + i * 20_000, qname: `q${i}.a.test` }));
    const all = blocksOf(rows, 1);
    for (const start of [T0 + 1, T0 + 59_999, T0 + 400_000]) {
      const range = pageBlockRange(start, T0 + DAY, null);
      const scanned = all.filter(
        (b) => b.minTs >= range.minTsFrom && b.minTs < range.minTsBelow && b.maxTs >= range.maxTsFrom,
      );
      const refs = scanned.map((b) => ({ minTs: b.minTs, maxTs: b.maxTs, rows: () => decodeBlock(b, b.data) }));
      expect(pageRows(refs, start, T0 + DAY, null, 3).map((r) => r.ts)).toEqual(
        rows
          .filter((r) => r.ts >= start)
          .slice(0, 3)
          .map((r) => r.ts),
      );
    }
  });
});
