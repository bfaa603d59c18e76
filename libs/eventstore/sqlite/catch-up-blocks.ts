/**
 * Complete blocks of `$all` kept for subscriptions catching up, so that consumers reading
 * the same stretch of history (the ~21 projections and process managers of a service
 * restarted after a long stop) read and decode each event once between them rather than
 * once each. A block is the events with positions in `(start, start + BLOCK_SIZE]`, with
 * `start` a multiple of BLOCK_SIZE: consumers resuming from different checkpoints still
 * meet on the same blocks. A block is complete once the store's head has passed its end;
 * positions only grow, so it never changes after that, except that retention may delete
 * events in it (the store clears the cache when it prunes).
 *
 * Bounded two ways: a block every open cursor is already past is dropped (when a block is
 * kept, a cursor misses the cache or a subscription closes), and the blocks together stay
 * under `maxBytes` of stored JSON text (oldest dropped first; the cursor that needed it
 * reads it again from SQLite, as every cursor did before). The decoded events take about
 * 1.5× their text in the heap.
 */
export const BLOCK_SIZE = 1000;

export interface BlockEvent {
  readonly positionNumber: number;
}

interface Block<E> {
  events: E[];
  bytes: number;
}

/** The start of the block holding the first position after `cursor`. */
export const blockStart = (cursor: number): number => Math.floor(cursor / BLOCK_SIZE) * BLOCK_SIZE;

/** Where a cursor stands (the last position it has read); the cache drops blocks all cursors are past. */
export interface BlockCursor {
  position: number;
}

export class CatchUpBlocks<E extends BlockEvent> {
  private readonly blocks = new Map<number, Block<E>>();
  private bytes = 0;
  private readonly cursors = new Set<BlockCursor>();

  constructor(private readonly maxBytes: number) {}

  /** A subscription's cursor, for as long as it is open. */
  track(cursor: BlockCursor): () => void {
    this.cursors.add(cursor);
    return () => {
      this.cursors.delete(cursor);
      this.dropPassed();
    };
  }

  /** The events after `cursor` in its block, when that block is cached. */
  after(cursor: number): E[] | null {
    const block = this.blocks.get(blockStart(cursor));
    // Not cached: mostly a cursor at the head, whose passed blocks nothing else would drop.
    if (!block) {
      if (this.blocks.size > 0) this.dropPassed();
      return null;
    }
    if (cursor % BLOCK_SIZE === 0) return block.events;
    return block.events.slice(firstAfter(block.events, cursor));
  }

  /** Keeps a complete block (its events in order, `bytes` their stored size). */
  keep(start: number, events: E[], bytes: number): void {
    if (bytes > this.maxBytes || this.blocks.has(start)) return;
    this.dropPassed();
    while (this.bytes + bytes > this.maxBytes && this.blocks.size > 0) this.drop(this.blocks.keys().next().value!);
    this.blocks.set(start, { events, bytes });
    this.bytes += bytes;
  }

  /** Retention deleted events: cached blocks may hold some of them. */
  clear(): void {
    this.blocks.clear();
    this.bytes = 0;
  }

  /** How many blocks and bytes are held (specs, figures). */
  size(): { blocks: number; bytes: number } {
    return { blocks: this.blocks.size, bytes: this.bytes };
  }

  private dropPassed(): void {
    let lowest = Infinity;
    for (const c of this.cursors) if (c.position < lowest) lowest = c.position;
    for (const start of [...this.blocks.keys()]) if (start + BLOCK_SIZE <= lowest) this.drop(start);
  }

  private drop(start: number): void {
    const block = this.blocks.get(start);
    if (!block) return;
    this.blocks.delete(start);
    this.bytes -= block.bytes;
  }
}

/** Index of the first event positioned after `cursor` (events in position order). */
function firstAfter(events: BlockEvent[], cursor: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid].positionNumber <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
