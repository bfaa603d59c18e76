/**
 * The hook every answered query passes through, so query logging and analytics plug in
 * without touching the server. record() runs on the hot path: it must only hand the
 * object over, never do I/O or wait.
 */
import type { RcodeName } from './wire';

export type Transport = 'udp' | 'tcp';

export interface AnsweredQuery {
  /** Query name, lowercased, no trailing dot; "" for the root or when no question was readable. */
  name: string;
  /** Query type mnemonic ("A", "TXT", "TYPE65"); "" when no question was readable. */
  type: string;
  rcode: RcodeName;
  clientIp: string;
  transport: Transport;
  /** DO bit of the query's OPT record. */
  dnssecOk: boolean;
  edns: boolean;
  /** The client's advertised UDP payload size, null without EDNS. */
  ednsUdpSize: number | null;
  truncated: boolean;
  responseBytes: number;
  /** From receiving the packet to handing the answer to the socket. */
  durationMs: number;
  /** Epoch milliseconds at receipt, with the fraction: orders queries answered by different threads within a millisecond. */
  timestamp: number;
  zone: string | null;
  /** The longest owned name above the query: a dynamic-DNS host fqdn or the zone. */
  domain: string | null;
  accountId: string | null;
}

/**
 * An answer's note of its own for a log: the number the log gave it and in which of its
 * numberings (epoch), so an answer served again travels as that number instead of its
 * account, domain, name, type and rcode. Cached responses carry one (those five never change
 * for an entry); the log sets both fields. Whoever passes a slot passes the same five with it.
 */
export interface LoggedNameSlot {
  logNameId: number;
  logNameEpoch: number;
}

/** A cached response as a log reads it: what it logs besides the client and the times, and its slot. */
export interface LoggedAnswer extends LoggedNameSlot {
  readonly accountId: string | null;
  readonly domain: string | null;
  readonly name: string;
  readonly type: string;
  readonly rcode: number;
}

/** Nest token of the optional QuerySink the dns role hands every answered query to (query logging / analytics). */
export const DNS_QUERY_SINK = Symbol('DNS_QUERY_SINK');

export interface QuerySink {
  record(q: AnsweredQuery): void;
}

/**
 * A sink that also takes UDP answers as fields, without an object per query: the query-log
 * channel, where those objects and their collection were half of a DNS thread's user time.
 * The server calls recordUdp() for each UDP answer an account owns (the only ones a log
 * keeps) as it answers, then udpBatchSent() once the batch is with the socket; TCP answers
 * and unowned ones still come through record().
 */
export interface FieldQuerySink extends QuerySink {
  /** `nameSlot`: where the sink may note that it has sent this answer before (a cached response's, served again and again). */
  recordUdp(
    timestamp: number,
    accountId: string,
    domain: string,
    name: string,
    type: string,
    rcode: RcodeName,
    clientIp: string,
    dnssecOk: boolean,
    edns: boolean,
    nameSlot?: LoggedNameSlot,
  ): void;
  /**
   * recordUdp() for a cached response the account owns: the sink reads the answer's fields
   * only when it has not sent that answer before (most queries are answered again and again).
   */
  recordCachedUdp(timestamp: number, answer: LoggedAnswer, clientIp: string, dnssecOk: boolean, edns: boolean): void;
  /**
   * recordCachedUdp() from an answer's log number alone (LoggedNameSlot's two fields, as they
   * were when it was kept: the UDP listener's hit cache hands them back without the answer).
   * False, and nothing recorded, when the number is not of the sink's current numbering: then
   * recordCachedUdp() with the answer.
   */
  recordCachedUdpByNumber(
    timestamp: number,
    logNameId: number,
    logNameEpoch: number,
    clientIp: string,
    dnssecOk: boolean,
    edns: boolean,
  ): boolean;
  /** The UDP answers recorded since the last call took this long from receipt to the socket. */
  udpBatchSent(durationMs: number): void;
}

export const isFieldQuerySink = (sink: QuerySink | undefined): sink is FieldQuerySink =>
  typeof (sink as FieldQuerySink | undefined)?.recordUdp === 'function';

export interface BufferedQuerySinkOptions {
  /** Delivered as soon as this many are waiting. */
  maxBatch?: number;
  /** Delivered at least this often when anything is waiting. */
  flushIntervalMs?: number;
  /** Beyond this many undelivered queries new ones are dropped (and counted) instead of growing memory. */
  maxPending?: number;
  onError?: (err: unknown) => void;
}

/** How many queries one recorded item stands for; 1 unless the items are batches. */
export type QueryCount<T> = (item: T) => number;

/**
 * Collects queries in memory and delivers them in batches off the hot path, one delivery at
 * a time, so a slow consumer (a database insert) costs the server nothing but memory, and
 * that memory is bounded.
 */
export class BufferedQuerySink<T = AnsweredQuery> {
  private waiting: T[] = [];
  /** Queries in `waiting` (items weighted by `countOf`). */
  private waitingCount = 0;
  private delivering: Promise<void> | null = null;
  private scheduled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly maxBatch: number;
  private readonly maxPending: number;
  private readonly onError: (err: unknown) => void;
  dropped = 0;
  delivered = 0;

  constructor(
    private readonly consumer: (batch: T[]) => void | Promise<void>,
    opts: BufferedQuerySinkOptions = {},
    /** Items may be batches of queries (see QueryLogWriter.recordBatch): bounds and batches count queries. */
    private readonly countOf: QueryCount<T> = () => 1,
  ) {
    this.maxBatch = opts.maxBatch ?? 1000;
    this.maxPending = opts.maxPending ?? 100_000;
    this.onError = opts.onError ?? (() => undefined);
    this.timer = setInterval(() => void this.flush(), opts.flushIntervalMs ?? 250);
    this.timer.unref();
  }

  /** Queries recorded and not yet handed to the consumer. */
  get pending(): number {
    return this.waitingCount;
  }

  /** Takes the item, or drops it whole (counting its queries) when it would pass maxPending. */
  record(q: T): void {
    const n = this.countOf(q);
    if (this.waitingCount + n > this.maxPending) {
      this.dropped += n;
      return;
    }
    this.waiting.push(q);
    this.waitingCount += n;
    if (this.waitingCount >= this.maxBatch && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    }
  }

  /** Delivers everything waiting; resolves once the consumer has taken it. */
  flush(): Promise<void> {
    if (!this.delivering) {
      this.delivering = this.deliver().finally(() => {
        this.delivering = null;
      });
    }
    return this.delivering;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    while (this.waiting.length > 0 || this.delivering) await this.flush();
  }

  private async deliver(): Promise<void> {
    while (this.waiting.length > 0) {
      const { batch, count } = this.takeBatch();
      try {
        await this.consumer(batch);
        this.delivered += count;
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /** The oldest items holding up to maxBatch queries (at least one item), and how many queries they hold. */
  private takeBatch(): { batch: T[]; count: number } {
    let items = 0;
    let count = 0;
    while (items < this.waiting.length && (items === 0 || count + this.countOf(this.waiting[items]) <= this.maxBatch))
      count += this.countOf(this.waiting[items++]);
    this.waitingCount -= count;
    return { batch: this.waiting.splice(0, items), count };
  }
}
