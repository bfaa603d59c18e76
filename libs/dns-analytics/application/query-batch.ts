/**
 * The compact form in which answered queries travel from the thread that answered them to
 * the query-log thread: a batch is one transferable ArrayBuffer holding the queries as
 * columns (struct of arrays), with every string (names, addresses, types, accounts)
 * replaced by its number in a table both ends keep per channel. Posting a batch moves the
 * buffer (no copy) plus the few strings first seen since the last batch, instead of
 * structured-cloning an object per query.
 *
 * Only what the log keeps is encoded: queries no account owns are left out here, on the
 * answering thread, rather than carried over to be dropped (toRow would drop them).
 */
import type { AnsweredQuery, Transport } from '../../dns-server';

/** What the query log reads of an answered query (see toRow). */
export type LoggedQuery = Pick<AnsweredQuery, 'timestamp' | 'durationMs' | 'accountId' | 'domain' | 'name' | 'type' | 'rcode' | 'clientIp' | 'transport' | 'dnssecOk' | 'edns'>;

export interface QueryBatch {
  /** Columns, see columnsOf(); ownership moves with the message. */
  buffer: ArrayBuffer;
  count: number;
  /** The receiver forgets its string table before reading `strings`. */
  reset: boolean;
  /** Strings first used in this batch, numbered on from the receiver's table. */
  strings: string[];
}

/** String columns, in this order, then one column of flags. */
const ACCOUNT = 0;
const DOMAIN = 1;
const NAME = 2;
const TYPE = 3;
const RCODE = 4;
const CLIENT = 5;
const FLAGS = 6;
const U32_COLUMNS = 7;

const TCP = 1;
const DO = 2;
const EDNS = 4;

/** Bytes one query takes in a batch: timestamp and duration as float64, then the u32 columns. */
const BYTES_PER_QUERY = 16 + 4 * U32_COLUMNS;

/** Distinct strings a channel's table holds before both ends start afresh (client addresses keep coming). */
export const MAX_TABLE_SIZE = 100_000;

function columnsOf(buffer: ArrayBuffer, capacity: number) {
  return {
    ts: new Float64Array(buffer, 0, capacity),
    duration: new Float64Array(buffer, 8 * capacity, capacity),
    u32: new Uint32Array(buffer, 16 * capacity, U32_COLUMNS * capacity),
  };
}

/**
 * Encodes answered queries into batches of up to `capacity`. Runs on the answering
 * thread, so record() does a few map lookups and typed-array stores and allocates nothing
 * but new table entries.
 */
export class QueryBatchEncoder {
  /** Room beyond `capacity`: a UDP batch recorded as fields is never cut in two, so its answer time can still be set. */
  static readonly SLACK = 1024;
  private table = new Map<string, number>();
  /** Per string column, the last string and its id: account, domain, type, rcode (and a resolver's address) repeat from query to query. */
  private readonly lastString: Array<string | null> = new Array(FLAGS).fill(null);
  private readonly lastId = new Uint32Array(FLAGS);
  private newStrings: string[] = [];
  private reset = false;
  private buffer: ArrayBuffer;
  private columns: ReturnType<typeof columnsOf>;
  private count = 0;

  constructor(private readonly capacity = 1024) {
    this.buffer = new ArrayBuffer(BYTES_PER_QUERY * this.room);
    this.columns = columnsOf(this.buffer, this.room);
  }

  /** Queries a batch can hold: full() from `capacity` on, record() refuses only beyond the slack. */
  private get room(): number {
    return this.capacity + QueryBatchEncoder.SLACK;
  }

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  /** Adds the query unless there is no room (callers take() once full) or no account owns it; true when added. */
  record(q: LoggedQuery): boolean {
    if (q.accountId === null || q.domain === null) return false;
    return this.recordFields(q.timestamp, q.durationMs, q.accountId, q.domain, q.name, q.type, q.rcode, q.clientIp, q.transport === 'tcp', q.dnssecOk, q.edns);
  }

  /** record() without the object (the DNS server's UDP path); the answer time may be set later by setDurations(). */
  recordFields(
    timestamp: number,
    durationMs: number,
    accountId: string,
    domain: string,
    name: string,
    type: string,
    rcode: string,
    clientIp: string,
    tcp: boolean,
    dnssecOk: boolean,
    edns: boolean,
  ): boolean {
    if (this.count >= this.room) return false;
    const i = this.count++;
    const { ts, duration, u32 } = this.columns;
    ts[i] = timestamp;
    duration[i] = durationMs;
    const at = i * U32_COLUMNS;
    u32[at + ACCOUNT] = this.idIn(ACCOUNT, accountId);
    u32[at + DOMAIN] = this.idIn(DOMAIN, domain);
    u32[at + NAME] = this.id(name);
    u32[at + TYPE] = this.idIn(TYPE, type);
    u32[at + RCODE] = this.idIn(RCODE, rcode);
    u32[at + CLIENT] = this.idIn(CLIENT, clientIp);
    u32[at + FLAGS] = (tcp ? TCP : 0) | (dnssecOk ? DO : 0) | (edns ? EDNS : 0);
    return true;
  }

  /** Sets the answer time of the queries recorded from index `from` on (see size). */
  setDurations(from: number, durationMs: number): void {
    this.columns.duration.fill(durationMs, from, this.count);
  }

  /** id(), skipping the table when the column's previous query had the same string. */
  private idIn(column: number, s: string): number {
    if (s === this.lastString[column]) return this.lastId[column];
    const id = this.id(s);
    this.lastString[column] = s;
    this.lastId[column] = id;
    return id;
  }

  private id(s: string): number {
    let id = this.table.get(s);
    if (id === undefined) {
      id = this.table.size;
      this.table.set(s, id);
      this.newStrings.push(s);
    }
    return id;
  }

  /** The batch so far (null when empty); the encoder starts a new one. */
  take(): QueryBatch | null {
    if (this.count === 0) return null;
    const batch: QueryBatch = { buffer: this.buffer, count: this.count, reset: this.reset, strings: this.newStrings };
    this.buffer = new ArrayBuffer(BYTES_PER_QUERY * this.room);
    this.columns = columnsOf(this.buffer, this.room);
    this.count = 0;
    this.newStrings = [];
    this.reset = false;
    if (this.table.size >= MAX_TABLE_SIZE) this.forget();
    return batch;
  }

  /**
   * Starts a fresh table, announced by the next batch. Also after a batch was taken but
   * never sent (dropped under backpressure): the receiver never learnt its strings.
   */
  forget(): void {
    // Queries in the current batch would point into the forgotten table.
    if (this.count > 0) throw new Error('forget() with queries waiting in the batch');
    this.table = new Map();
    this.lastString.fill(null);
    this.newStrings = [];
    this.reset = true;
  }
}

/**
 * A received batch not decoded yet: its columns and the string table they point into. The
 * query-log thread queues these and makes objects only when it writes them, so a second of
 * queries waits as a few buffers instead of thousands of objects that outlive the young
 * generation (their promotion and major collections cost more than the log's own work).
 */
export interface DeferredQueries {
  readonly count: number;
  decode(): LoggedQuery[];
}

/** The receiving end of one channel: its copy of the string table. */
export class QueryBatchDecoder {
  /** Only ever appended to; a reset starts a new array, so deferred batches keep the table they were sent with. */
  private table: string[] = [];

  decode(batch: QueryBatch): LoggedQuery[] {
    return this.defer(batch).decode();
  }

  /** Takes the batch's new strings now (batches of a channel must be read in order), its queries later. */
  defer(batch: QueryBatch): DeferredQueries {
    if (batch.reset) this.table = [];
    for (const s of batch.strings) this.table.push(s);
    const table = this.table;
    return { count: batch.count, decode: () => decodeColumns(batch, table) };
  }
}

function decodeColumns(batch: QueryBatch, t: readonly string[]): LoggedQuery[] {
  const { ts, duration, u32 } = columnsOf(batch.buffer, batch.buffer.byteLength / BYTES_PER_QUERY);
  const out: LoggedQuery[] = new Array(batch.count);
  for (let i = 0; i < batch.count; i++) {
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
