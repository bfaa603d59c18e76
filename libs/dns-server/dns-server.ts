/**
 * The authoritative DNS server: UDP and TCP on one host:port, answering from a ZoneIndex.
 * Every answered query goes to the optional QuerySink. Nothing a client sends can throw
 * out of a handler: malformed input is dropped or answered FORMERR, and an internal error
 * becomes SERVFAIL.
 *
 * In a `cluster` worker running one DnsServer per worker on the same port spreads queries over
 * the cores: each worker's batched UDP socket shares the port through SO_REUSEPORT (with
 * node:dgram and TCP, Node hands the listening handles over through the primary).
 *
 * Answers are written into caller-provided buffers (see UdpResponder) so the UDP hot path
 * allocates nothing per packet but what the query sink keeps. A repeated UDP question is
 * answered from the response cache (response-cache.ts) by a copy and a few patched bytes;
 * metrics are counted without objects (AnswerTally) and timed once per UDP batch.
 */
import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AnswerTally } from './answer-tally';
import { wireKeyToName } from './names';
import {
  isFieldQuerySink,
  type AnsweredQuery,
  type FieldQuerySink,
  type QuerySink,
  type Transport,
} from './query-sink';
import { CachedResponse, ResponseCache, type ResponseFacts } from './response-cache';
import type { Prepared, ZoneIndex } from './zone-index';
import {
  EMPTY_BODY,
  MAX_UDP_PAYLOAD,
  QTYPE,
  RCODE,
  isInClass,
  parseQuery,
  rcodeName,
  udpLimit,
  writeErrorResponse,
  writeResponse,
  type ParseResult,
  type Query,
} from './wire';
import { HIT_TAGS, hitEntryOf } from './udp-batch';
import { listenUdp, type PeerAddress, type UdpIo, type UdpListener, type UdpResponder } from './udp-listener';
import { DEFAULT_TCP_LIMITS, TcpConnections, type TcpClaim } from './tcp-listener';

export { supportsReusePort } from './dgram-udp-listener';

/**
 * Messages the query path does not serve (zone transfers, TSIG-signed queries, UPDATE,
 * NOTIFY): libs/dns-transfer answers them. A TCP message it claims gets the connection
 * until its answer (a whole transfer) is written; the next message waits.
 */
export interface SpecialMessages {
  claims(msg: Buffer, parsed: ParseResult): boolean;
  /** The answer now, or null for none (then maybe later through `reply`, where the listener can send later). */
  answerUdp(msg: Buffer, client: string, reply?: (answer: Buffer) => void): Buffer | null;
  answerTcp(msg: Buffer, client: string, socket: net.Socket): Promise<void>;
}

export interface DnsServerOptions {
  host: string;
  /** 0 picks a free port, the same for UDP and TCP. */
  port: number;
  index: ZoneIndex;
  /** Gets every answered query as an object (the query log). */
  sink?: QuerySink;
  /** Counts answers and their times for the metrics, without an object per query. */
  tally?: AnswerTally;
  /** Transfers, signed queries, UPDATE (see SpecialMessages). */
  special?: SpecialMessages;
  /** A TCP connection without a partial query is closed after this long without traffic. */
  tcpIdleTimeoutMs?: number;
  /** A TCP query must be whole this long after its first byte, however slowly bytes come. */
  tcpMessageDeadlineMs?: number;
  /** TCP connections at once; past it the oldest is closed to take a new one. */
  maxTcpConnections?: number;
  /** TCP connections at once from one client address; past it that address's oldest is closed. */
  maxTcpConnectionsPerAddress?: number;
  /** Socket receive buffer for UDP bursts; the kernel may cap it. */
  udpReceiveBufferBytes?: number;
  /** Bind UDP with SO_REUSEPORT even on port 0 (the first of several replicas sharing a port). */
  reusePort?: boolean;
  /** See UdpListenOptions.steerByCpu: the CPU-steering program for this many sibling sockets. */
  steerByCpu?: number;
  /**
   * Let the batch listener answer response-cache hits itself (UdpHitCache, decision 0116);
   * unset: on unless DNS_UDP_HIT_CACHE=off. Only with no sink or a field sink.
   */
  udpHitCache?: boolean;
  /**
   * Serve UDP only: an extra replica on a port whose TCP side another replica serves (Node's
   * TCP servers cannot share a port across threads).
   */
  udpOnly?: boolean;
  /** See UdpListenOptions.catchUp: a replica installs what its leader shipped before UDP queries are read. */
  catchUp?: () => void;
  onError?: (err: Error) => void;
}

const TCP_MAX_MESSAGE = 0xffff;
/** The room a UDP answer has in the listener's buffer (MAX_UDP_PAYLOAD). */
const MAX_UDP_ANSWER = MAX_UDP_PAYLOAD;
const NOT_IN_CLASS: Prepared = {
  body: EMPTY_BODY(RCODE.REFUSED),
  zone: null,
  domain: null,
  accountId: null,
  name: null,
};
const SERVFAIL = RCODE.SERVFAIL;
/** First tag of a kept answer: its rcode (5 bits, BADVERS included), and whether the log keeps it. */
const TAG_RCODE = 0x1f;
const TAG_LOGGED = 0x20;
/** What an entry number of the listener's hit cache answers before anything was kept there. */
const NO_FACTS: ResponseFacts = {
  name: '',
  type: '',
  rcode: SERVFAIL,
  truncated: false,
  zone: null,
  domain: null,
  accountId: null,
};
const TYPE_NAMES = new Map<number, string>(Object.entries(QTYPE).map(([name, n]) => [n, name]));
const typeName = (t: number): string => TYPE_NAMES.get(t) ?? `TYPE${t}`;
const BADVERS = RCODE.BADVERS;
/** Fixed for the thread's life; the getter behind performance.timeOrigin showed in profiles. */
const TIME_ORIGIN = performance.timeOrigin;

export class DnsServer {
  private udp: UdpListener | null = null;
  private tcp: net.Server | null = null;
  private readonly connections: TcpConnections;
  private boundPort = 0;
  private readonly onError: (err: Error) => void;
  /** TCP answers are written here, then framed; handle() is synchronous, so one serves all. */
  private readonly tcpScratch = Buffer.allocUnsafe(TCP_MAX_MESSAGE);
  /** Whole UDP responses by question, valid for one version of the index. */
  private readonly responses = new ResponseCache();
  /** The last answer handle() wrote from the index, for the response cache; null after anything else. */
  private lastFacts: ResponseFacts | null = null;
  /** Sink records of the UDP batch being answered: their answer time is known once it is sent. */
  private readonly batchRecords: AnsweredQuery[] = [];
  /** The sink, when it takes UDP answers as fields (no object per query). */
  private readonly fieldSink: FieldQuerySink | null;

  constructor(private readonly opts: DnsServerOptions) {
    this.onError = opts.onError ?? (() => undefined);
    this.fieldSink = isFieldQuerySink(opts.sink) ? opts.sink : null;
    // Hits answered below JS are logged by number (recordCachedUdp): an object sink wants more.
    if (opts.sink !== undefined && this.fieldSink === null) this.udpResponder.hitCache = undefined;
    this.connections = new TcpConnections(
      {
        messageDeadlineMs: opts.tcpMessageDeadlineMs ?? DEFAULT_TCP_LIMITS.messageDeadlineMs,
        idleTimeoutMs: opts.tcpIdleTimeoutMs ?? DEFAULT_TCP_LIMITS.idleTimeoutMs,
        maxConnections: opts.maxTcpConnections ?? DEFAULT_TCP_LIMITS.maxConnections,
        maxPerAddress: opts.maxTcpConnectionsPerAddress ?? DEFAULT_TCP_LIMITS.maxPerAddress,
      },
      (msg, peer) => this.answerTcp(msg, peer),
    );
  }

  /** TCP connections open now, and those closed by the limits (diagnostics and benchmarks). */
  get tcpConnections(): { open: number; evicted: number; timedOut: number } {
    return { open: this.connections.size, evicted: this.connections.evicted, timedOut: this.connections.timedOut };
  }

  get port(): number {
    return this.boundPort;
  }

  /** Responses held in the UDP response cache (diagnostics and tests). */
  get cachedResponses(): number {
    return this.responses.count;
  }

  /** UDP answers the listener gave from its hit cache (diagnostics and tests). */
  get udpAnswersBelow(): number {
    return this.answersBelow;
  }

  /** How UDP is served while started: batched through the udp-batch addon, or node:dgram. */
  get udpIo(): UdpIo | null {
    return this.udp?.io ?? null;
  }

  async start(): Promise<{ host: string; port: number }> {
    if (this.udp) throw new Error('DNS server already started');
    // With port 0 the UDP port is chosen first; TCP may find it taken, so try again.
    for (let attempt = 0; ; attempt++) {
      const udp = await listenUdp(
        {
          host: this.opts.host,
          port: this.opts.port,
          receiveBufferBytes: this.opts.udpReceiveBufferBytes ?? 4 * 1024 * 1024,
          reusePort: this.opts.reusePort,
          steerByCpu: this.opts.steerByCpu,
          hitCache: this.opts.udpHitCache,
          catchUp: this.opts.catchUp,
          onError: this.onError,
        },
        this.udpResponder,
      );
      const port = udp.port;
      try {
        this.tcp = this.opts.udpOnly ? null : await this.listenTcp(port);
        this.udp = udp;
        this.boundPort = port;
        return { host: this.opts.host, port };
      } catch (err) {
        await udp.close();
        if (this.opts.port !== 0 || attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
  }

  async stop(): Promise<void> {
    const udp = this.udp;
    const tcp = this.tcp;
    this.udp = null;
    this.tcp = null;
    this.connections.closeAll();
    await Promise.all([udp?.close(), tcp && new Promise<void>((resolve) => tcp.close(() => resolve()))]);
  }

  /** The UDP answer path without a socket: what the listener calls per datagram and per sent batch (also for benchmarks). */
  readonly udpResponder: UdpResponder = {
    answer: (buf, start, length, peer, started, out, at) => this.answerUdp(buf, start, length, peer, started, out, at),
    sent: (started, answered) => this.udpBatchSent(started, answered),
    replyLater: (make) => {
      this.udpReplyLater = make;
    },
    hitCache: {
      enable: (slots) => {
        this.hitMask = slots - 1;
        // Filled by push: an array grown by stores at random indices would fall to dictionary mode.
        const none = new CachedResponse(NO_FACTS);
        for (let i = this.hitEntries.length; i < slots; i++) this.hitEntries.push(none);
      },
      version: () => this.opts.index.version,
      keepAs: () => this.keepAs,
      tags: new Uint32Array(HIT_TAGS),
      hit: (entry, flags, t0, t1, t2, peer, started) => this.answeredBelow(entry, flags, t0, t1, t2, peer, started),
    },
  };
  /** The listener's hit cache has entry numbers 0..hitMask (hitEntryOf a response-cache hash); -1: none. */
  private hitMask = -1;
  /** What each entry number of the listener's hit cache answers. */
  private readonly hitEntries: CachedResponse[] = [];
  /** Where the last answerUdp's answer may be kept in the listener's hit cache, or -1. */
  private keepAs = -1;
  private answersBelow = 0;
  /** Gives, while a UDP message is answered, a sender for its answer later (UPDATE). */
  private udpReplyLater: (() => (answer: Buffer) => void) | null = null;

  /** A cached response when the question was answered before at this index version, else the full way (then cached). */
  private answerUdp(
    buf: Buffer,
    start: number,
    queryLength: number,
    peer: PeerAddress,
    started: number,
    out: Buffer,
    at: number,
  ): number {
    const cache = this.responses;
    this.keepAs = -1;
    try {
      const hit = cache.lookup(buf, start, queryLength, this.opts.index.version);
      if (hit) {
        const length = cache.write(hit, buf, start, out, at);
        this.opts.tally?.count('udp', hit.rcode);
        if (this.fieldSink) {
          if (hit.accountId !== null && hit.domain !== null)
            this.fieldSink.recordCachedUdp(TIME_ORIGIN + started, hit, peer(), cache.dnssecOk, cache.edns);
        } else if (this.opts.sink) this.batchRecords.push(this.cachedRecord(hit, length, peer, started));
        // Seen twice: worth keeping below JS (a flood of random names never gets there).
        if (this.hitMask >= 0) this.keepBelow(hitEntryOf(cache.lastHash, this.hitMask), hit);
        return length;
      }
    } catch (err) {
      // Never expected; the full path below still answers (and never throws).
      this.onError(err instanceof Error ? err : new Error(String(err)));
      cache.plain = false;
    }
    const length = this.handle(buf.subarray(start, start + queryLength), 'udp', peer, started, out, at);
    if (cache.plain && length > 0 && this.lastFacts) cache.store(out.subarray(at, at + length), this.lastFacts);
    return length;
  }

  /** The answer just given from `hit` may be kept in the listener's hit cache as `entry`, with its tags. */
  private keepBelow(entry: number, hit: CachedResponse): void {
    this.keepAs = entry;
    this.hitEntries[entry] = hit;
    this.tagsOf(hit);
  }

  /**
   * The listener's tags of a kept answer: its rcode and whether it is logged, then its log
   * number as the log has it now, so a hit is counted and logged without reading `hit`,
   * whose cache lines the kernel's work between batches has evicted.
   */
  private tagsOf(hit: CachedResponse): void {
    const tags = this.udpResponder.hitCache!.tags;
    tags[0] = hit.rcode | (hit.accountId !== null && hit.domain !== null ? TAG_LOGGED : 0);
    tags[1] = hit.logNameId;
    tags[2] = hit.logNameEpoch;
  }

  /**
   * An answer the listener's hit cache gave from entry `entry` (tags: see tagsOf): counted and
   * logged as the cache hit it is. True when the log had numbered it anew: the entry's tags
   * are then replaced.
   */
  private answeredBelow(
    entry: number,
    flags: number,
    tag0: number,
    logNameId: number,
    logNameEpoch: number,
    peer: PeerAddress,
    started: number,
  ): boolean {
    this.answersBelow++;
    try {
      this.opts.tally?.count('udp', tag0 & TAG_RCODE);
      const sink = this.fieldSink;
      if (sink === null || (tag0 & TAG_LOGGED) === 0) return false;
      const timestamp = TIME_ORIGIN + started;
      const clientIp = peer();
      const dnssecOk = (flags & 2) !== 0;
      const edns = (flags & 1) !== 0;
      if (sink.recordCachedUdpByNumber(timestamp, logNameId, logNameEpoch, clientIp, dnssecOk, edns)) return false;
      // Not numbered in the log's current numbering: the answer's fields, and its new number for the next hits.
      const hit = this.hitEntries[entry];
      sink.recordCachedUdp(timestamp, hit, clientIp, dnssecOk, edns);
      this.tagsOf(hit);
      return true;
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
  }

  /** The batch is with the socket: its queries' answer time is known. */
  private udpBatchSent(started: number, answered: number): void {
    const records = this.batchRecords;
    if (answered === 0 && records.length === 0) return;
    const elapsedMs = performance.now() - started;
    if (answered > 0) this.opts.tally?.observe(elapsedMs / 1000, answered);
    this.fieldSink?.udpBatchSent(elapsedMs);
    if (records.length === 0) return;
    for (const q of records) {
      q.durationMs = elapsedMs;
      this.emit(q);
    }
    records.length = 0;
  }

  private cachedRecord(hit: CachedResponse, responseBytes: number, peer: PeerAddress, started: number): AnsweredQuery {
    const cache = this.responses;
    return {
      name: hit.name,
      type: hit.type,
      rcode: rcodeName(hit.rcode),
      clientIp: peer(),
      transport: 'udp',
      dnssecOk: cache.dnssecOk,
      edns: cache.edns,
      ednsUdpSize: cache.edns ? cache.udpSize : null,
      truncated: hit.truncated,
      responseBytes,
      durationMs: 0,
      timestamp: TIME_ORIGIN + started,
      zone: hit.zone,
      domain: hit.domain,
      accountId: hit.accountId,
    };
  }

  private listenTcp(port: number): Promise<net.Server> {
    // No server.maxConnections: past the cap the oldest connection gives way (tcp-listener.ts), new ones are never refused.
    const server = net.createServer((socket) => this.connections.accept(socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.opts.host, port }, () => {
        server.off('error', reject);
        server.on('error', (err) => this.onError(err));
        resolve(server);
      });
    });
  }

  /** One TCP message's framed answer, a claim on the connection (SpecialMessages), or null when it is not DNS (the connection is then closed). */
  private answerTcp(msg: Buffer, peer: PeerAddress): Buffer | TcpClaim | null {
    const special = this.opts.special;
    if (special && special.claims(msg, parseQuery(msg))) {
      // Copied: `msg` is a view of the connection's buffer, valid only during this call.
      const message = Buffer.from(msg);
      const clientIp = peer();
      return (socket) => special.answerTcp(message, clientIp, socket).catch((err: Error) => this.onError(err));
    }
    const started = performance.now();
    const responseLength = this.handle(msg, 'tcp', peer, started, this.tcpScratch, 0);
    if (responseLength === 0) return null;
    const framed = Buffer.allocUnsafe(responseLength + 2);
    framed.writeUInt16BE(responseLength, 0);
    this.tcpScratch.copy(framed, 2, 0, responseLength);
    this.opts.tally?.observe((performance.now() - started) / 1000, 1);
    return framed;
  }

  /**
   * Writes the response to one DNS message into `out` at `at` and returns its length, 0 to
   * drop the message. Never throws. `out` has room for the transport's largest message.
   * Leaves in lastFacts what an answer from the index was, for the response cache.
   */
  private handle(
    msg: Buffer,
    transport: Transport,
    peer: PeerAddress,
    started: number,
    out: Buffer,
    at: number,
  ): number {
    this.lastFacts = null;
    try {
      const parsed = parseQuery(msg);
      if (transport === 'udp' && this.opts.special?.claims(msg, parsed))
        return this.answerSpecialUdp(msg, peer, out, at);
      if (!parsed.ok) {
        if (parsed.action === 'drop') return 0;
        const length = writeErrorResponse(out, at, msg, parsed.id, parsed.flags, parsed.rcode, parsed.questionEnd);
        this.opts.tally?.count(transport, parsed.rcode);
        if (this.opts.sink)
          this.record(
            this.unanswerable(msg, parsed.questionEnd, parsed.rcode, transport, peer, started, length),
            started,
          );
        return length;
      }
      const q = parsed.query;
      const index = this.opts.index;
      const prepared = !isInClass(q)
        ? NOT_IN_CLASS
        : q.dnssecOk
          ? index.answerSigned(q.key, q.qtype)
          : index.answer(q.key, q.qtype);
      const length = writeResponse(out, at, msg, q, prepared.body, transport === 'udp' ? udpLimit(q) : TCP_MAX_MESSAGE);
      const facts: ResponseFacts = {
        name: prepared.name ?? wireKeyToName(q.key),
        type: typeName(q.qtype),
        rcode: q.edns && q.ednsVersion !== 0 ? BADVERS : prepared.body.rcode,
        truncated: (out[at + 2] & 0x02) !== 0,
        zone: prepared.zone,
        domain: prepared.domain,
        accountId: prepared.accountId,
      };
      this.opts.tally?.count(transport, facts.rcode);
      if (this.fieldSink && transport === 'udp' && facts.accountId !== null && facts.domain !== null)
        this.fieldSink.recordUdp(
          TIME_ORIGIN + started,
          facts.accountId,
          facts.domain,
          facts.name,
          facts.type,
          rcodeName(facts.rcode),
          peer(),
          q.dnssecOk,
          q.edns,
        );
      else if (this.opts.sink) this.record(this.answered(q, facts, length, transport, peer, started), started);
      this.lastFacts = facts;
      return length;
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
      if (msg.length < 12 || msg[2] & 0x80) return 0;
      // Counted like any answer, so the histogram (per answer sent) and the counts agree.
      this.opts.tally?.count(transport, SERVFAIL);
      return writeErrorResponse(out, at, msg, msg.readUInt16BE(0), msg.readUInt16BE(2), SERVFAIL, 0);
    }
  }

  private answerSpecialUdp(msg: Buffer, peer: PeerAddress, out: Buffer, at: number): number {
    // Copied: the listener reuses `msg`'s buffer once this returns.
    // An UPDATE is answered once applied; anything else now.
    const later = (msg[2] >> 3) & 0xf ? this.udpReplyLater?.() : undefined;
    const answer = this.opts.special!.answerUdp(Buffer.from(msg), peer(), later);
    if (!answer || answer.length > MAX_UDP_ANSWER) return 0;
    answer.copy(out, at);
    return answer.length;
  }

  /** UDP records wait for their batch to be sent (see udpBatchSent); TCP ones go now. */
  private record(q: AnsweredQuery, started: number): void {
    if (q.transport === 'udp') return void this.batchRecords.push(q);
    q.durationMs = performance.now() - started;
    this.emit(q);
  }

  private answered(
    q: Query,
    facts: ResponseFacts,
    responseBytes: number,
    transport: Transport,
    peer: PeerAddress,
    started: number,
  ): AnsweredQuery {
    return {
      name: facts.name,
      type: facts.type,
      rcode: rcodeName(facts.rcode),
      clientIp: peer(),
      transport,
      dnssecOk: q.dnssecOk,
      edns: q.edns,
      ednsUdpSize: q.edns ? q.udpSize : null,
      truncated: facts.truncated,
      responseBytes,
      durationMs: 0,
      timestamp: TIME_ORIGIN + started,
      zone: facts.zone,
      domain: facts.domain,
      accountId: facts.accountId,
    };
  }

  /** FORMERR/NOTIMP answers: only what the header and, if readable, the question tell. */
  private unanswerable(
    msg: Buffer,
    questionEnd: number,
    rcode: number,
    transport: Transport,
    peer: PeerAddress,
    started: number,
    responseBytes: number,
  ): AnsweredQuery {
    const readable = questionEnd > 0;
    return {
      name: readable ? wireKeyToName(msg.toString('latin1', 12, questionEnd - 4).toLowerCase()) : '',
      type: readable ? typeName(msg.readUInt16BE(questionEnd - 4)) : '',
      rcode: rcodeName(rcode),
      clientIp: peer(),
      transport,
      dnssecOk: false,
      edns: false,
      ednsUdpSize: null,
      truncated: false,
      responseBytes,
      durationMs: 0,
      timestamp: TIME_ORIGIN + started,
      zone: null,
      domain: null,
      accountId: null,
    };
  }

  /** A failing sink must not take answers down with it. */
  private emit(q: AnsweredQuery): void {
    try {
      this.opts.sink!.record(q);
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
