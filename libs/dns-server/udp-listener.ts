/**
 * The UDP side of the DNS server, behind one interface with two implementations: batched
 * recvmmsg/sendmmsg through the udp-batch addon where it loads (Linux), node:dgram elsewhere
 * or when DNS_UDP_BATCH=off.
 */
import cluster from 'node:cluster';
import { isIP } from 'node:net';
import { listenBatchUdp } from './batch-udp-listener';
import { listenDgramUdp } from './dgram-udp-listener';
import { loadUdpBatch } from './udp-batch';

/** The sender of the query being answered; asked only when someone wants it (the query log). */
export type PeerAddress = () => string;

/**
 * Answers UDP queries a batch at a time. `answer` writes the answer to the query in `buf`
 * (`length` bytes from `start`) into `out` at `at`, where MAX_UDP_PAYLOAD bytes are free,
 * and returns its length; 0 drops the query. It must not throw. `started` is
 * performance.now() at receipt of the batch. `buf`, `out` and `peer` are reused once it
 * returns: keep none. `sent` follows once the batch's answers are handed to the socket,
 * with how many there were.
 */
export interface UdpResponder {
  answer(
    buf: Buffer,
    start: number,
    length: number,
    peer: PeerAddress,
    started: number,
    out: Buffer,
    at: number,
  ): number;
  sent(started: number, answered: number): void;
  /**
   * Given once: how to get, during `answer`, a sender to the query's sender for an answer
   * that is not ready now (an UPDATE waits for an append). Costs nothing unless called.
   */
  replyLater?(make: () => (answer: Buffer) => void): void;
  /** Where the listener can answer repeated questions below JS (the batch listener: the addon's hit cache). */
  hitCache?: UdpHitCache;
}

/**
 * The responder's side of a listener's hit cache: a cache of whole responses the listener
 * keeps and answers from itself, before `answer` is asked. The responder says which answers it
 * gave may be kept, under which entry number and with which tags (three 32-bit words it gets
 * back with every hit, so a hit needs none of its objects), and is told of every answer the
 * listener gave from them, to count and log it as its own.
 */
export interface UdpHitCache {
  /** Given once: entry numbers are 0..slots-1 (a power of two). */
  enable(slots: number): void;
  /** Before each batch: answers kept at another version are not given any more. */
  version(): number;
  /** Right after `answer`: the entry number its answer may be kept under (with `tags`), or -1. */
  keepAs(): number;
  /** The tags of the answer keepAs() named, or after hit() returned true the entry's new ones. */
  readonly tags: Uint32Array;
  /**
   * An answer the listener gave from entry `entry`, kept with tags `tag0`..`tag2`; `flags`: 1
   * EDNS, 2 DO. True: the entry's tags are now `tags`. Must not throw.
   */
  hit(
    entry: number,
    flags: number,
    tag0: number,
    tag1: number,
    tag2: number,
    peer: PeerAddress,
    started: number,
  ): boolean;
}

export interface UdpListenOptions {
  host: string;
  port: number;
  receiveBufferBytes: number;
  /**
   * SO_REUSEPORT, so sibling sockets (threads or processes) share the port and the kernel
   * spreads queries over them. Defaults to on for a fixed port, off for port 0 (a private
   * test server), where the first of several replicas must ask for it.
   */
  reusePort?: boolean;
  /**
   * Attach the CPU-steering program (cpu-locality.ts) to the port's SO_REUSEPORT group, for
   * this many sockets; batched I/O only (node:dgram has no way to), where a failure is
   * reported through onError once and the group keeps the flow hash.
   */
  steerByCpu?: number;
  /** The batch listener's hit cache (UdpHitCache); unset: on unless DNS_UDP_HIT_CACHE=off. */
  hitCache?: boolean;
  /**
   * Called before each batch of queries is read (and the hit cache's version taken): a DNS
   * thread that installs its index from another's batches (index-replica.ts) takes those
   * already sent, so no query it reads is answered from a state older than one its leader
   * shipped before. Runs per batch: it must be cheap when there is nothing to take.
   */
  catchUp?: () => void;
  onError: (err: Error) => void;
}

export type UdpIo = 'batch' | 'dgram';

export interface UdpListener {
  readonly io: UdpIo;
  readonly port: number;
  close(): Promise<void>;
}

export function listenUdp(opts: UdpListenOptions, respond: UdpResponder): Promise<UdpListener> {
  // Cluster workers binding port 0 must all end up on one port, which only cluster's shared
  // dgram handle gives; the addon's sockets are each worker's own.
  const sharedEphemeral = cluster.isWorker && opts.port === 0;
  const batch = isIP(opts.host) && !sharedEphemeral ? loadUdpBatch() : null;
  return batch?.ok ? listenBatchUdp(batch.addon, opts, respond) : listenDgramUdp(opts, respond);
}
