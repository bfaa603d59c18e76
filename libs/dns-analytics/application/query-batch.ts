/**
 * The compact form in which answered queries wait on the query-log thread until they are
 * written: a chunk is one ArrayBuffer holding the queries as columns (struct of arrays),
 * with every string (names, addresses, types, accounts) replaced by its number in a table
 * of the log thread's (query-ring.ts fills both). The writer turns chunks into QueryRows
 * columns keeping those numbers (delivered-rows.ts), so a second of queries waits as a few
 * buffers, and is written, without an object per query.
 */
import type { AnsweredQuery, Transport } from '../../dns-server';
import { DO, EDNS, TCP } from '../domain/query-rows';

/** What the query log reads of an answered query (see toRow). */
export type LoggedQuery = Pick<
  AnsweredQuery,
  | 'timestamp'
  | 'durationMs'
  | 'accountId'
  | 'domain'
  | 'name'
  | 'type'
  | 'rcode'
  | 'clientIp'
  | 'transport'
  | 'dnssecOk'
  | 'edns'
>;

/** String columns, in this order, then one column of flags. */
export const ACCOUNT = 0;
export const DOMAIN = 1;
export const NAME = 2;
export const TYPE = 3;
export const RCODE = 4;
export const CLIENT = 5;
export const STRING_COLUMNS = 6;
export const FLAGS = 6;
export const U32_COLUMNS = 7;

/** Bytes one query takes: timestamp and duration as float64, then the u32 columns. */
const BYTES_PER_QUERY = 16 + 4 * U32_COLUMNS;

/** Distinct strings the log thread's table holds before it starts afresh (client addresses keep coming). */
export const MAX_TABLE_SIZE = 100_000;

/** Columns for `capacity` queries. */
export const newColumns = (capacity: number): ArrayBuffer => new ArrayBuffer(BYTES_PER_QUERY * capacity);

/** The columns of a chunk buffer, laid out for as many queries as the buffer holds (it may hold more than are filled). */
export function columnsOf(buffer: ArrayBuffer) {
  const capacity = buffer.byteLength / BYTES_PER_QUERY;
  return {
    ts: new Float64Array(buffer, 0, capacity),
    duration: new Float64Array(buffer, 8 * capacity, capacity),
    u32: new Uint32Array(buffer, 16 * capacity, U32_COLUMNS * capacity),
  };
}

/** The smallest chunk buffer, in queries: a drain of a quiet ring takes one of these. */
const MIN_POOLED_QUERIES = 1024;
/** Free chunk buffers kept at most, in bytes: a few drains' worth at full speed; beyond that they go to the collector. */
const MAX_POOLED_BYTES = 8 * 1024 * 1024;

/**
 * Chunk buffers for the log thread's drains, handed back once the writer has copied a chunk
 * (delivered-rows.ts): 20 drains a second per ring took a fresh, zeroed ArrayBuffer each
 * (a few hundred KB), and the kernel mapped and zeroed its pages anew every time. Sizes are
 * powers of two (in queries), so a returned buffer serves any later drain of its size class.
 * A chunk that is dropped (the writer's queue full) or never handed back is simply collected.
 */
export class ChunkBuffers {
  private readonly free = new Map<number, ArrayBuffer[]>();
  private bytes = 0;

  /** A buffer for at least `count` queries, reused when one of its size is free; its contents are stale. */
  take(count: number): ArrayBuffer {
    let capacity = MIN_POOLED_QUERIES;
    while (capacity < count) capacity *= 2;
    const reused = this.free.get(capacity)?.pop();
    if (!reused) return newColumns(capacity);
    this.bytes -= reused.byteLength;
    return reused;
  }

  /** Takes back a buffer whose chunk is no longer read. */
  give(buffer: ArrayBuffer): void {
    const capacity = buffer.byteLength / BYTES_PER_QUERY;
    // Only the sizes take() makes (a power of two from the minimum); never beyond the bound.
    if (capacity < MIN_POOLED_QUERIES || (capacity & (capacity - 1)) !== 0) return;
    if (this.bytes + buffer.byteLength > MAX_POOLED_BYTES) return;
    let list = this.free.get(capacity);
    if (!list) this.free.set(capacity, (list = []));
    list.push(buffer);
    this.bytes += buffer.byteLength;
  }

  /** Bytes held free (for tests). */
  get pooledBytes(): number {
    return this.bytes;
  }
}

/** The log thread's chunk buffers (one per thread: modules are per thread). */
export const chunkBuffers = new ChunkBuffers();

/** A chunk of columns (its first `count` queries filled) and the string table its numbers point into. */
export class DeferredColumns {
  constructor(
    readonly buffer: ArrayBuffer,
    readonly count: number,
    readonly table: readonly string[],
    /** The ring it was drained from (its queries follow those of its earlier chunks); 0 when unknown. */
    readonly source = 0,
  ) {}

  /** Hands the buffer back for another drain (chunkBuffers); the chunk must not be read after. */
  release(): void {
    chunkBuffers.give(this.buffer);
  }

  /** The queries as objects (the writer never needs them so: it reads the columns). */
  decode(): LoggedQuery[] {
    const { ts, duration, u32 } = columnsOf(this.buffer);
    const t = this.table;
    const out: LoggedQuery[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const at = i * U32_COLUMNS;
      const flags = u32[at + FLAGS];
      out[i] = {
        timestamp: ts[i],
        durationMs: duration[i],
        accountId: t[u32[at + ACCOUNT]],
        domain: t[u32[at + DOMAIN]],
        name: t[u32[at + NAME]],
        type: t[u32[at + TYPE]],
        rcode: t[u32[at + RCODE]] as AnsweredQuery['rcode'],
        clientIp: t[u32[at + CLIENT]],
        transport: (flags & TCP ? 'tcp' : 'udp') satisfies Transport,
        dnssecOk: (flags & DO) !== 0,
        edns: (flags & EDNS) !== 0,
      };
    }
    return out;
  }
}
