/**
 * One answering thread's channel to the query-log thread: a shared-memory ring of its own
 * (query-ring.ts) and the log's shared counter block. Bounded: when the log thread falls
 * behind and the ring is full, queries are dropped and counted here, on the answering side,
 * so answers never wait and memory never grows.
 */
import type { FieldQuerySink, LoggedAnswer, LoggedNameSlot } from '../../dns-server';
import { rcodeName, type RcodeName } from '../../dns-server/wire';
import { DO, EDNS, TCP } from '../domain/query-rows';
import type { LoggedQuery } from './query-batch';
import { closeRing, NOT_NUMBERED, QueryRingWriter, WRITTEN, type QueryRing } from './query-ring';

/** Slots of the shared counter block (Int32Array over a SharedArrayBuffer). */
export const DROPPED = 0;
const CONTROL_SLOTS = 1;

export const newControl = (): Int32Array => new Int32Array(new SharedArrayBuffer(4 * CONTROL_SLOTS));

/** What an answering thread needs to send its queries to the log thread itself (shared memory only: it goes in workerData). */
export interface QueryLogEndpoint {
  ring: QueryRing;
  control: Int32Array;
}

/**
 * The answering end: record() or recordUdp() per query. TCP and object records are
 * published at once; a UDP batch's records once the batch is sent (udpBatchSent), with its
 * answer time. Nothing but the ring's bytes is touched per query: no object, no map.
 */
export class QueryLogChannel implements FieldQuerySink {
  private readonly writer: QueryRingWriter;
  /** Records of a UDP batch under way are in the ring, waiting for their answer time. */
  private udpPending = false;
  /** The number recordCachedUdpByNumber() was given, as writeByNumber() takes it. */
  private readonly numbered: LoggedNameSlot = { logNameId: -1, logNameEpoch: 0 };

  constructor(private readonly endpoint: QueryLogEndpoint) {
    this.writer = new QueryRingWriter(endpoint.ring, endpoint.control, DROPPED);
  }

  record(q: LoggedQuery): void {
    // Only what an account owns is logged (toRow would drop the rest).
    if (q.accountId === null || q.domain === null) return;
    const flags = (q.transport === 'tcp' ? TCP : 0) | (q.dnssecOk ? DO : 0) | (q.edns ? EDNS : 0);
    this.writer.write(q.timestamp, q.durationMs, q.accountId, q.domain, q.name, q.type, q.rcode, q.clientIp, flags);
    // Never in the middle of a UDP batch in practice (the server answers one synchronously).
    if (!this.udpPending) this.writer.publish();
  }

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
  ): void {
    if (
      this.writer.writeBatched(
        timestamp,
        accountId,
        domain,
        name,
        type,
        rcode,
        clientIp,
        (dnssecOk ? DO : 0) | (edns ? EDNS : 0),
        nameSlot,
      )
    )
      this.udpPending = true;
  }

  recordCachedUdp(timestamp: number, answer: LoggedAnswer, clientIp: string, dnssecOk: boolean, edns: boolean): void {
    const flags = (dnssecOk ? DO : 0) | (edns ? EDNS : 0);
    const byNumber = this.writer.writeByNumber(timestamp, clientIp, flags, answer);
    if (byNumber === NOT_NUMBERED)
      this.recordUdp(
        timestamp,
        answer.accountId!,
        answer.domain!,
        answer.name,
        answer.type,
        rcodeName(answer.rcode),
        clientIp,
        dnssecOk,
        edns,
        answer,
      );
    else if (byNumber === WRITTEN) this.udpPending = true;
  }

  recordCachedUdpByNumber(
    timestamp: number,
    logNameId: number,
    logNameEpoch: number,
    clientIp: string,
    dnssecOk: boolean,
    edns: boolean,
  ): boolean {
    const slot = this.numbered;
    slot.logNameId = logNameId;
    slot.logNameEpoch = logNameEpoch;
    const byNumber = this.writer.writeByNumber(timestamp, clientIp, (dnssecOk ? DO : 0) | (edns ? EDNS : 0), slot);
    if (byNumber === NOT_NUMBERED) return false;
    if (byNumber === WRITTEN) this.udpPending = true;
    return true;
  }

  udpBatchSent(durationMs: number): void {
    if (this.udpPending) this.writer.setPendingDurations(durationMs);
    this.udpPending = false;
    this.writer.publish();
  }

  /** The log thread drains what was published, then forgets the ring. */
  close(): void {
    // Never mid-batch in practice (the server finishes a UDP batch synchronously); if so, its answers go without a time.
    this.udpBatchSent(0);
    closeRing(this.endpoint.ring);
  }
}
