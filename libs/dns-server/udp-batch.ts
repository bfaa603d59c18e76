/**
 * Typed access to the udp-batch addon (native/udp-batch): a UDP socket that reads and writes
 * whole batches of datagrams per system call through buffers shared with C. Linux only; where
 * the addon is not built or not wanted (DNS_UDP_BATCH=off) loadUdpBatch() says why and the
 * caller uses node:dgram.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { getSystemErrorName } from 'node:util';

interface NativeSocket {
  localPort(): number;
  attach(inBuf: Buffer, inMeta: Buffer, out: Buffer, outMeta: Buffer, slotSize: number, maxBatch: number): void;
  recv(max: number, indexVersion?: number): number;
  send(count: number, storeCount?: number): number;
  enableHitCache(hits: Buffer, stores: Buffer, maxResponse: number): void;
  peerAddress(slot: number): string;
  peerBytes(slot: number): Buffer;
  sendTo(data: Buffer, peer: Buffer): number;
  start(onReadable: () => void): void;
  close(): void;
  isClosed(): boolean;
  steerByCpu(groupSize: number): number;
}

export interface UdpBatchAddon {
  UdpBatchSocket: new (
    host: string,
    port: number,
    reusePort: boolean,
    receiveBufferBytes: number,
    sendBufferBytes: number,
  ) => NativeSocket;
  RECV_META_BYTES: number;
  SEND_META_BYTES: number;
  /** Binds the calling thread to these CPUs (one to pin it, all to let it go): 0, or -errno. */
  pinThread(cpus: number[]): number;
  /** The CPUs the calling thread may run on, ascending. */
  allowedCpus(): number[];
  /** Entry numbers of the addon's hit cache are 0..HIT_CACHE_SLOTS-1. */
  HIT_CACHE_SLOTS: number;
}

// Receive metadata layout, as native/udp-batch/src/udp_batch.c writes it.
const META_LENGTH = 0;
const META_FLAGS = 4;
const META_FAMILY = 5;
const META_PORT = 6;
const META_ADDRESS = 8;
const FLAG_TRUNCATED = 1;
/** Set by the addon on a slot it answered from its hit cache. */
const FLAG_ANSWERED = 2;
// Hit cache lists, as the addon reads and writes them (32-bit words, host order).
/** Words the responder keeps with an answer and gets back with each hit (see UdpHitCache). */
export const HIT_TAGS = 3;
const HIT_LIST_HEADER_WORDS = 1;
const HIT_LIST_ENTRY_WORDS = 2 + HIT_TAGS;
const STORE_ENTRY_WORDS = 4 + HIT_TAGS;
/** A store entry's slot that asks for new tags only. */
const RETAG = 0xffffffff;

/**
 * The hit cache's entry number for a response-cache hash (ResponseCache.lastHash), as the addon
 * computes it (hit_entry_of): high bits folded in, since FNV's last multiply leaves the low bits
 * blind to the variant's EDNS and DO bits. `mask`: HIT_CACHE_SLOTS - 1.
 */
export const hitEntryOf = (hash: number, mask: number): number => (hash ^ (hash >>> 15)) & mask;

const ADDON_FILE = join('native', 'udp-batch', 'build', 'Release', 'udp_batch.node');
/** Spoofed sources could otherwise grow the address cache without bound. */
const MAX_CACHED_ADDRESSES = 4096;

export type UdpBatchAvailability = { ok: true; addon: UdpBatchAddon } | { ok: false; reason: string };

let loaded: UdpBatchAvailability | null = null;

/** The addon, looked for from both the sources (ts-jest) and the compiled tree (dist/). */
export function loadUdpBatch(env: NodeJS.ProcessEnv = process.env): UdpBatchAvailability {
  if (env.DNS_UDP_BATCH === 'off') return { ok: false, reason: 'DNS_UDP_BATCH=off' };
  if (loaded) return loaded;
  if (process.platform !== 'linux') return (loaded = { ok: false, reason: `no recvmmsg on ${process.platform}` });
  const candidates = [join(__dirname, '..', '..', ADDON_FILE), join(__dirname, '..', '..', '..', ADDON_FILE)];
  const file = candidates.find((c) => existsSync(c));
  if (!file) return (loaded = { ok: false, reason: `${ADDON_FILE} not built (npm run build)` });
  try {
    // A native addon is loaded by path at run time; `import` cannot name a file found at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (loaded = { ok: true, addon: require(file) as UdpBatchAddon });
  } catch (err) {
    return (loaded = { ok: false, reason: `${file}: ${(err as Error).message}` });
  }
}

export interface BatchUdpSocketOptions {
  /** An IPv4 or IPv6 literal. */
  host: string;
  port: number;
  reusePort: boolean;
  receiveBufferBytes: number;
  sendBufferBytes: number;
  /** Datagrams per recv/send call. */
  maxBatch: number;
  /** Longest datagram read whole; a longer one arrives flagged truncated(). */
  maxDatagram: number;
  /** Room for each response in `out`: response i of a batch goes at i * maxResponse. */
  maxResponse: number;
}

/**
 * One batch at a time: recv() fills slots 0..n-1, the caller reads them, writes responses
 * into `out` and queue()s them, then send() sends the queue to the peers of the slots named.
 * The next recv() reuses the slots, so send() comes first.
 */
export class BatchUdpSocket {
  readonly out: Buffer;
  private readonly in: Buffer;
  private readonly inMeta: Buffer;
  private readonly outMeta: Buffer;
  private readonly recvMetaBytes: number;
  private readonly sendMetaBytes: number;
  private readonly v4Names = new Map<number, string>();
  private readonly v6Names = new Map<string, string>();
  private lastV4Key = 0;
  private lastV4Name: string | null = null;
  private queued = 0;
  private readonly boundPort: number;
  private readonly hitCacheSlots: number;
  /** The addon's hit list (count, then slot | flags << 16, entry number and tags per hit); null until enableHitCache. */
  private hitWords: Uint32Array | null = null;
  private storeWords: Uint32Array | null = null;
  private stored = 0;

  private constructor(
    private readonly native: NativeSocket,
    addon: UdpBatchAddon,
    private readonly opts: BatchUdpSocketOptions,
  ) {
    this.recvMetaBytes = addon.RECV_META_BYTES;
    this.sendMetaBytes = addon.SEND_META_BYTES;
    this.hitCacheSlots = addon.HIT_CACHE_SLOTS;
    this.in = Buffer.alloc(opts.maxBatch * opts.maxDatagram);
    this.inMeta = Buffer.alloc(opts.maxBatch * this.recvMetaBytes);
    this.out = Buffer.alloc(opts.maxBatch * opts.maxResponse);
    this.outMeta = Buffer.alloc(opts.maxBatch * this.sendMetaBytes);
    native.attach(this.in, this.inMeta, this.out, this.outMeta, opts.maxDatagram, opts.maxBatch);
    this.boundPort = native.localPort();
  }

  /** Binds now; throws the bind error with its errno code (EADDRINUSE, ...). */
  static open(addon: UdpBatchAddon, opts: BatchUdpSocketOptions): BatchUdpSocket {
    const native = new addon.UdpBatchSocket(
      opts.host,
      opts.port,
      opts.reusePort,
      opts.receiveBufferBytes,
      opts.sendBufferBytes,
    );
    try {
      return new BatchUdpSocket(native, addon, opts);
    } catch (err) {
      native.close();
      throw err;
    }
  }

  /** The bound port (the kernel's pick for port 0). */
  get port(): number {
    return this.boundPort;
  }

  get maxBatch(): number {
    return this.opts.maxBatch;
  }

  get closed(): boolean {
    return this.native.isClosed();
  }

  /** onReadable runs with datagrams waiting, and again on the next loop turn while any are left. */
  start(onReadable: () => void): void {
    this.native.start(onReadable);
  }

  /**
   * Reads up to maxBatch datagrams; the count, 0 when none wait. A socket error throws with its errno code.
   * With the hit cache on, `indexVersion` is the zone index's version now (another one empties the
   * cache first) and the cached answers come queued (hitCount, answered(slot)).
   */
  recv(indexVersion?: number): number {
    const n = this.native.recv(this.opts.maxBatch, indexVersion);
    if (n < 0) throw socketError(-n);
    this.queued = this.hitWords === null ? 0 : this.hitWords[0];
    return n;
  }

  /**
   * Lets the addon answer repeated questions itself (native/udp-batch, "Cache hits answered in C"):
   * responses keep()t after an answer are given again by recv() to the same question, until the
   * index version passed to recv() moves. Returns how many entry numbers there are.
   */
  enableHitCache(): number {
    const hits = Buffer.alloc(4 * (HIT_LIST_HEADER_WORDS + HIT_LIST_ENTRY_WORDS * this.opts.maxBatch));
    const stores = Buffer.alloc(4 * STORE_ENTRY_WORDS * this.opts.maxBatch);
    this.native.enableHitCache(hits, stores, this.opts.maxResponse);
    // Buffer.alloc of these sizes is not pooled: the views start at offset 0, 4-byte aligned.
    this.hitWords = new Uint32Array(hits.buffer, hits.byteOffset, hits.length >> 2);
    this.storeWords = new Uint32Array(stores.buffer, stores.byteOffset, stores.length >> 2);
    return this.hitCacheSlots;
  }

  /** Answers of the last recv() given by the hit cache: they take the first places of the send queue. */
  get hitCount(): number {
    return this.hitWords === null ? 0 : this.hitWords[0];
  }

  /** The slot the `h`-th cached answer went to. */
  hitSlot(h: number): number {
    return this.hitWords![HIT_LIST_HEADER_WORDS + h * HIT_LIST_ENTRY_WORDS] & 0xffff;
  }

  /** 1: the query had EDNS, 2: DO was set. */
  hitFlags(h: number): number {
    return this.hitWords![HIT_LIST_HEADER_WORDS + h * HIT_LIST_ENTRY_WORDS] >>> 16;
  }

  /** The entry number the answer was kept under (keep()). */
  hitEntry(h: number): number {
    return this.hitWords![HIT_LIST_HEADER_WORDS + h * HIT_LIST_ENTRY_WORDS + 1];
  }

  /** Tag `t` (0..HIT_TAGS-1) the `h`-th answer was kept with. */
  hitTag(h: number, t: number): number {
    return this.hitWords![HIT_LIST_HEADER_WORDS + h * HIT_LIST_ENTRY_WORDS + 2 + t];
  }

  /** Nothing for the caller to do with this slot: truncated, or already answered from the hit cache. */
  skipped(slot: number): boolean {
    return this.inMeta[slot * this.recvMetaBytes + META_FLAGS] !== 0;
  }

  /** Whether the hit cache answered the datagram in `slot`. */
  answered(slot: number): boolean {
    return (this.inMeta[slot * this.recvMetaBytes + META_FLAGS] & FLAG_ANSWERED) !== 0;
  }

  /**
   * Asks the hit cache to keep the response of `length` bytes at `offset` of `out`, the answer
   * to the query in `slot`, as entry `entry` with `tags` (done at send()); whatever was that entry goes.
   */
  keep(slot: number, offset: number, length: number, entry: number, tags: Uint32Array): void {
    const words = this.storeWords!;
    const w = this.stored * STORE_ENTRY_WORDS;
    words[w] = slot;
    words[w + 1] = offset;
    words[w + 2] = length;
    words[w + 3] = entry;
    for (let t = 0; t < HIT_TAGS; t++) words[w + 4 + t] = tags[t];
    this.stored++;
  }

  /** New tags for what entry `entry` holds (at send(), in order with keep()). */
  retag(entry: number, tags: Uint32Array): void {
    const words = this.storeWords!;
    const w = this.stored * STORE_ENTRY_WORDS;
    words[w] = RETAG;
    words[w + 3] = entry;
    for (let t = 0; t < HIT_TAGS; t++) words[w + 4 + t] = tags[t];
    this.stored++;
  }

  datagram(slot: number): Buffer {
    const start = this.datagramStart(slot);
    return this.in.subarray(start, start + this.datagramLength(slot));
  }

  /** The buffer every datagram is read into: slot i's bytes start at datagramStart(i). */
  get input(): Buffer {
    return this.in;
  }

  datagramStart(slot: number): number {
    return slot * this.opts.maxDatagram;
  }

  datagramLength(slot: number): number {
    return this.inMeta.readUInt32LE(slot * this.recvMetaBytes + META_LENGTH);
  }

  /** Longer than maxDatagram: only its head was read. */
  truncated(slot: number): boolean {
    return (this.inMeta[slot * this.recvMetaBytes + META_FLAGS] & FLAG_TRUNCATED) !== 0;
  }

  peerFamily(slot: number): 4 | 6 {
    return this.inMeta[slot * this.recvMetaBytes + META_FAMILY] === 6 ? 6 : 4;
  }

  peerPort(slot: number): number {
    return this.inMeta.readUInt16LE(slot * this.recvMetaBytes + META_PORT);
  }

  /** The sender's address as node:dgram would give it; repeat senders cost a map lookup, not a string. */
  peerAddress(slot: number): string {
    const at = slot * this.recvMetaBytes + META_ADDRESS;
    if (this.peerFamily(slot) === 4) {
      const key = this.inMeta.readUInt32BE(at);
      // Queries come in runs from one resolver: a compare instead of a Map lookup, whose keys
      // above 2^30 (127.0.0.1 and most public addresses) are heap numbers hashed as doubles.
      if (key === this.lastV4Key && this.lastV4Name !== null) return this.lastV4Name;
      const name = this.v4Names.get(key) ?? remember(this.v4Names, key, this.native.peerAddress(slot));
      this.lastV4Key = key;
      this.lastV4Name = name;
      return name;
    }
    const key = this.inMeta.toString('latin1', at, at + 16);
    return this.v6Names.get(key) ?? remember(this.v6Names, key, this.native.peerAddress(slot));
  }

  /** Where the next response is to be written in `out` (at most maxResponse bytes). */
  get nextResponseAt(): number {
    return this.queued * this.opts.maxResponse;
  }

  /** A sender to the peer of `slot` for later, outside any batch (an answer that waits for I/O). */
  laterTo(slot: number): (answer: Buffer) => void {
    const peer = this.native.peerBytes(slot);
    return (answer) => {
      if (!this.closed) this.native.sendTo(answer, peer);
    };
  }

  /** Queues the `length` bytes at nextResponseAt for the peer of `slot`. */
  queue(slot: number, length: number): void {
    const entry = this.queued * this.sendMetaBytes;
    this.outMeta.writeUInt32LE(slot, entry);
    this.outMeta.writeUInt32LE(this.queued * this.opts.maxResponse, entry + 4);
    this.outMeta.writeUInt32LE(length, entry + 8);
    this.queued++;
  }

  /** Sends the queue; returns how many went out (the rest were dropped: the socket buffer was full). */
  send(): number {
    const count = this.queued;
    const stored = this.stored;
    this.queued = 0;
    this.stored = 0;
    if (this.storeWords !== null) return count === 0 && stored === 0 ? 0 : this.native.send(count, stored);
    return count === 0 ? 0 : this.native.send(count);
  }

  /**
   * Steers each datagram of this socket's SO_REUSEPORT group to the socket whose index (bind
   * order) is the receiving CPU modulo groupSize (cpu-locality.ts). Null once attached, else
   * the errno code why not (the group keeps spreading by flow hash).
   */
  steerByCpu(groupSize: number): string | null {
    const rc = this.native.steerByCpu(groupSize);
    return rc === 0 ? null : getSystemErrorName(rc);
  }

  /** Idempotent; later recv/send throw EBADF. */
  close(): void {
    this.native.close();
  }
}

function remember<K>(cache: Map<K, string>, key: K, name: string): string {
  if (cache.size >= MAX_CACHED_ADDRESSES) cache.clear();
  cache.set(key, name);
  return name;
}

function socketError(errno: number): NodeJS.ErrnoException {
  const code = getSystemErrorName(-errno);
  const err: NodeJS.ErrnoException = new Error(`recvmmsg ${code}`);
  err.code = code;
  err.errno = -errno;
  err.syscall = 'recvmmsg';
  return err;
}
