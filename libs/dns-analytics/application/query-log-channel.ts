/**
 * One answering thread's channel to the query-log thread: a MessagePort carrying encoded
 * batches (query-batch.ts), and a small shared counter block the log thread owns. Bounded:
 * when the log thread falls behind, whole batches are dropped and counted here, on the
 * answering side, so answers never wait and memory never grows.
 */
import type { MessagePort } from 'node:worker_threads';
import type { FieldQuerySink } from '../../dns-server';
import type { RcodeName } from '../../dns-server/wire';
import { QueryBatchEncoder, type LoggedQuery, type QueryBatch } from './query-batch';

/** Slots of the shared counter block (Int32Array over a SharedArrayBuffer). */
export const BACKLOG = 0;
export const DROPPED = 1;
export const CONTROL_SLOTS = 2;

export const newControl = (): Int32Array => new Int32Array(new SharedArrayBuffer(4 * CONTROL_SLOTS));

/** What an answering thread needs to send its queries to the log thread itself. */
export interface QueryLogEndpoint {
  port: MessagePort;
  control: Int32Array;
}

/** Messages on a channel's port, answering thread to log thread. */
export type ChannelMessage = { type: 'batch'; batch: QueryBatch };

export interface QueryLogChannelOptions {
  /** Queries per batch. */
  batchSize?: number;
  /** A batch that has not filled goes out after this long, so the log stays close behind. */
  flushIntervalMs?: number;
  /** Queries posted but not yet taken by the log thread, across all channels, beyond which batches are dropped. */
  maxBacklog?: number;
}

export const DEFAULT_MAX_BACKLOG = 200_000;

/** The answering end: record() or recordUdp() per query, batches posted when full or on the timer. */
export class QueryLogChannel implements FieldQuerySink {
  private readonly encoder: QueryBatchEncoder;
  private readonly maxBacklog: number;
  private readonly timer: NodeJS.Timeout;
  /** Where the UDP answers waiting for their batch's answer time start in the encoder; -1 when none wait. */
  private udpFrom = -1;

  constructor(
    private readonly port: MessagePort,
    private readonly control: Int32Array,
    opts: QueryLogChannelOptions = {},
  ) {
    this.encoder = new QueryBatchEncoder(opts.batchSize ?? 1024);
    this.maxBacklog = opts.maxBacklog ?? DEFAULT_MAX_BACKLOG;
    this.timer = setInterval(() => this.flush(), opts.flushIntervalMs ?? 50);
    this.timer.unref();
  }

  record(q: LoggedQuery): void {
    if (this.encoder.record(q) && this.encoder.full && this.udpFrom < 0) this.flush();
  }

  recordUdp(timestamp: number, accountId: string, domain: string, name: string, type: string, rcode: RcodeName, clientIp: string, dnssecOk: boolean, edns: boolean): void {
    const at = this.encoder.size;
    // The batch is posted only once the UDP batch's answer time is in (udpBatchSent); the encoder's slack holds a UDP batch past `full`.
    if (this.encoder.recordFields(timestamp, 0, accountId, domain, name, type, rcode, clientIp, false, dnssecOk, edns) && this.udpFrom < 0) this.udpFrom = at;
  }

  udpBatchSent(durationMs: number): void {
    if (this.udpFrom < 0) return;
    this.encoder.setDurations(this.udpFrom, durationMs);
    this.udpFrom = -1;
    if (this.encoder.full) this.flush();
  }

  /** Posts what is waiting, or drops and counts it when the log thread is that far behind. */
  flush(): void {
    // UDP answers still waiting for their answer time go with the next batch (the timer never
    // fires in the middle of a UDP batch: both run on this thread's loop).
    if (this.udpFrom >= 0) return;
    const batch = this.encoder.take();
    if (!batch) return;
    if (Atomics.load(this.control, BACKLOG) + batch.count > this.maxBacklog) {
      Atomics.add(this.control, DROPPED, batch.count);
      // The log thread never sees this batch's new strings: both ends start a new table.
      this.encoder.forget();
      return;
    }
    Atomics.add(this.control, BACKLOG, batch.count);
    this.port.postMessage({ type: 'batch', batch } satisfies ChannelMessage, [batch.buffer]);
  }

  close(): void {
    clearInterval(this.timer);
    // Never mid-batch in practice (the server finishes a UDP batch synchronously); if so, its answers go without a time.
    this.udpBatchSent(0);
    this.flush();
    this.port.close();
  }
}
