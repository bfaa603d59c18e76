/**
 * How readers (recent queries, export pages) find rows in stored query-log blocks,
 * whatever holds the blocks (SQLite, MongoDB): which blocks a read must scan, the walk
 * over them in index order that stops as soon as no further block can change the answer,
 * the row order, and merging rows of a former one-row-per-query table into the answer.
 * Pure: the stores run the scans and hand the blocks over one by one.
 */
import type { LogCursor, StoredRow } from '../application/query-log.store';
import { MAX_BLOCK_SPAN_MS } from './query-blocks';

/** A stored block as readers see it: where it lies in time, and its rows on demand. */
export interface BlockRef {
  minTs: number;
  maxTs: number;
  rows(): StoredRow[];
}

/**
 * The blocks a scan must visit: `minTsFrom <= min_ts < minTsBelow` and `max_ts >= maxTsFrom`.
 * The lower bound on min_ts is what lets an index range start late: a block spans at most
 * MAX_BLOCK_SPAN_MS, so none starting earlier can reach `maxTsFrom`.
 */
export interface BlockRange {
  minTsFrom: number;
  minTsBelow: number;
  maxTsFrom: number;
}

/** Blocks that can hold an export page's rows: from the cursor (or `from`) to `to`, in ascending min_ts. */
export function pageBlockRange(from: number, to: number, after: LogCursor | null): BlockRange {
  const lower = after ? Math.max(from, after.ts) : from;
  return { minTsFrom: lower - MAX_BLOCK_SPAN_MS, minTsBelow: to, maxTsFrom: lower };
}

/** Blocks a retention cutoff falls within: rows older than it and rows not (rewritten with the newer ones). */
export function straddlingBlockRange(cutoff: number): BlockRange {
  return { minTsFrom: cutoff - MAX_BLOCK_SPAN_MS, minTsBelow: cutoff, maxTsFrom: cutoff };
}

/**
 * Row ids of blocks are decimal numbers (at most 16 digits: below 2^53). A MongoDB
 * collection of the former one-document-per-query layout has 24-hex-digit ObjectIds; those
 * rows were all written before any block, so within one millisecond they come first.
 */
const LEGACY_ID_LENGTH = 24;

/** Whether a row id is an ObjectId of the former MongoDB layout rather than a block row's number. */
export const isLegacyRowId = (id: string): boolean => id.length === LEGACY_ID_LENGTH && /^[0-9a-f]+$/.test(id);

/** Order of two row ids: numeric ids by value, ObjectIds (hex of one length) as strings, ObjectIds first. */
export function compareRowIds(a: string, b: string): number {
  // Length alone on this hot path (sorting pages): ids here come from the stores.
  const legacyA = a.length === LEGACY_ID_LENGTH;
  const legacyB = b.length === LEGACY_ID_LENGTH;
  if (!legacyA && !legacyB) return Number(a) - Number(b);
  if (legacyA && legacyB) return a < b ? -1 : a > b ? 1 : 0;
  return legacyA ? -1 : 1;
}

/** (ts, id) order: the export's keyset order. */
const ascending = (a: StoredRow, b: StoredRow): number => a.ts - b.ts || compareRowIds(a.id, b.id);
const descending = (a: StoredRow, b: StoredRow): number => -ascending(a, b);

/**
 * The first `limit` rows in `order` from blocks offered one after another, telling when
 * no further block can contribute (`beyond(bound, block)`: the block lies wholly after
 * the limit-th row found so far). Rows are sorted only when twice the limit have gathered;
 * between sorts the bound is the limit-th row of the last sort, which can only be later in
 * `order` than the true one: stopping on it is safe, at worst a block late.
 */
class FirstRows {
  private found: StoredRow[] = [];
  private bound: StoredRow | null = null;

  constructor(
    private readonly limit: number,
    private readonly wanted: (r: StoredRow) => boolean,
    private readonly order: (a: StoredRow, b: StoredRow) => number,
    private readonly beyond: (bound: StoredRow, block: BlockRef) => boolean,
  ) {}

  /** Whether the block can change the answer; once one cannot, no later one can either. */
  needs(block: BlockRef): boolean {
    return this.limit > 0 && !(this.bound && this.beyond(this.bound, block));
  }

  add(rows: readonly StoredRow[]): void {
    for (const r of rows) if (this.wanted(r)) this.found.push(r);
    if (this.found.length >= 2 * this.limit || (!this.bound && this.found.length >= this.limit)) this.trim();
  }

  result(): StoredRow[] {
    this.trim();
    return this.found;
  }

  private trim(): void {
    this.found.sort(this.order);
    if (this.found.length > this.limit) this.found = this.found.slice(0, this.limit);
    if (this.limit > 0 && this.found.length === this.limit) this.bound = this.found[this.limit - 1];
  }
}

function walk(blocks: Iterable<BlockRef>, rows: FirstRows): StoredRow[] {
  for (const block of blocks) {
    if (!rows.needs(block)) break;
    rows.add(block.rows());
  }
  return rows.result();
}

/** The same walk over blocks arriving from a database cursor; leaving the loop early closes it. */
async function walkAsync(blocks: AsyncIterable<BlockRef>, rows: FirstRows): Promise<StoredRow[]> {
  for await (const block of blocks) {
    if (!rows.needs(block)) break;
    rows.add(block.rows());
  }
  return rows.result();
}

/** Newest first, at or after `since`; blocks come in descending max_ts. */
const newest = (since: number, limit: number) =>
  new FirstRows(
    limit,
    (r) => r.ts >= since,
    descending,
    (bound, block) => bound.ts > block.maxTs,
  );

/** Oldest first, from <= ts < to, strictly after `after` in (ts, id) order; blocks come in ascending min_ts. */
function oldest(from: number, to: number, after: LogCursor | null, limit: number): FirstRows {
  const wanted = (r: StoredRow) =>
    r.ts >= from &&
    r.ts < to &&
    (!after || r.ts > after.ts || (r.ts === after.ts && compareRowIds(r.id, after.id) > 0));
  return new FirstRows(limit, wanted, ascending, (bound, block) => bound.ts < block.minTs);
}

/** Newest `limit` rows at or after `since`, from blocks given in descending maxTs. */
export function newestRows(blocks: Iterable<BlockRef>, since: number, limit: number): StoredRow[] {
  return walk(blocks, newest(since, limit));
}

export function newestRowsAsync(blocks: AsyncIterable<BlockRef>, since: number, limit: number): Promise<StoredRow[]> {
  return walkAsync(blocks, newest(since, limit));
}

/**
 * Oldest `limit` rows with from <= ts < to, strictly after `after` in (ts, id) order, from
 * blocks given in ascending minTs.
 */
export function pageRows(
  blocks: Iterable<BlockRef>,
  from: number,
  to: number,
  after: LogCursor | null,
  limit: number,
): StoredRow[] {
  return walk(blocks, oldest(from, to, after, limit));
}

export function pageRowsAsync(
  blocks: AsyncIterable<BlockRef>,
  from: number,
  to: number,
  after: LogCursor | null,
  limit: number,
): Promise<StoredRow[]> {
  return walkAsync(blocks, oldest(from, to, after, limit));
}

/** Rows in no block (a former table's), read by their own query, as one block without bounds. */
const unbounded = (rows: StoredRow[]): BlockRef => ({ minTs: -Infinity, maxTs: Infinity, rows: () => rows });

/** The newest `limit` of two answers to the same recent-queries read (blocks' and a former table's). */
export function mergeNewest(a: StoredRow[], b: StoredRow[], since: number, limit: number): StoredRow[] {
  return newestRows([unbounded([...a, ...b])], since, limit);
}

/** The first `limit` of two answers to the same export-page read (blocks' and a former table's). */
export function mergePage(
  a: StoredRow[],
  b: StoredRow[],
  from: number,
  to: number,
  after: LogCursor | null,
  limit: number,
): StoredRow[] {
  return pageRows([unbounded([...a, ...b])], from, to, after, limit);
}
