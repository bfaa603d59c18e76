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

export const newColumns = (capacity: number): ArrayBuffer => new ArrayBuffer(BYTES_PER_QUERY * capacity);

export function columnsOf(buffer: ArrayBuffer, capacity: number) {
  return {
    ts: new Float64Array(buffer, 0, capacity),
    duration: new Float64Array(buffer, 8 * capacity, capacity),
    u32: new Uint32Array(buffer, 16 * capacity, U32_COLUMNS * capacity),
  };
}

/** A chunk of columns and the string table its numbers point into. */
export class DeferredColumns {
  constructor(
    readonly buffer: ArrayBuffer,
    readonly count: number,
    readonly table: readonly string[],
  ) {}

  /** The queries as objects (the writer never needs them so: it reads the columns). */
  decode(): LoggedQuery[] {
    const { ts, duration, u32 } = columnsOf(this.buffer, this.count);
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
