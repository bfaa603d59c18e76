import type { StoredRow } from '../application/query-log.store';
import { decodeBlock, type BlockMeta } from './query-blocks';

/**
 * The few most recently decoded blocks, for the next page of an export (each block is read
 * by one or two pages). Few: a block decodes to up to 8,192 row objects (MAX_BLOCK_ROWS). Keyed by the
 * store's block id with its first row id and count, so a block retention rewrote (fewer
 * rows, same store id) is not served from the cache.
 */
export class DecodedBlocks {
  private readonly rows = new Map<string, StoredRow[]>();

  constructor(private readonly capacity = 4) {}

  /** The block's rows; `data` is called (a fetch, when the scan left the bytes out) only on a miss. */
  rowsOf(blockId: string, meta: BlockMeta, data: () => Uint8Array | undefined): StoredRow[] {
    const key = `${blockId}/${meta.firstId}/${meta.count}`;
    let rows = this.rows.get(key);
    if (!rows) {
      const bytes = data();
      // Gone meanwhile (pruned by another connection): nothing left to read.
      rows = bytes ? decodeBlock(meta, bytes) : [];
      if (this.rows.size >= this.capacity) this.rows.delete(this.rows.keys().next().value!);
      this.rows.set(key, rows);
    }
    return rows;
  }

  clear(): void {
    this.rows.clear();
  }
}
