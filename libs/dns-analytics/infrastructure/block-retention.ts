/**
 * Retention of raw rows stored in blocks, whatever holds them: blocks wholly before the
 * cutoff are deleted by the store (their `count` is the rows removed); the few the cutoff
 * falls within (straddlingBlockRange) are rewritten here with their newer rows only, ids
 * kept, so retention stays exact to the millisecond and cursors stay valid.
 */
import type { StoredRow } from '../application/query-log.store';
import { blockOfStoredRows, type BlockDraft } from './query-blocks';

export interface TrimmedBlock {
  /** The block with the rows at or after the cutoff; null when none is left. */
  block: BlockDraft | null;
  removed: number;
}

/** A straddling block's rows (decoded) cut at `cutoff`. */
export function trimBlock(rows: readonly StoredRow[], cutoff: number): TrimmedBlock {
  const kept = rows.filter((r) => r.ts >= cutoff);
  return { block: kept.length ? blockOfStoredRows(kept) : null, removed: rows.length - kept.length };
}
