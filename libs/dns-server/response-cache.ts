/**
 * Whole UDP responses, kept by question, so a repeated question is answered by one copy and
 * three patches instead of a parse, a string key, two map lookups and an assembly.
 *
 * Only "plain" queries use it: standard query, one question with an uncompressed name, no
 * answer or authority records, at most one additional record which is an EDNS version 0 OPT
 * ending the message. Everything else (and every first sight of a question) goes the full
 * way through parseQuery/writeResponse, whose result is then stored here.
 *
 * The key is the question name with ASCII letters folded to lowercase, qtype, qclass and the
 * EDNS variant that shapes the response (EDNS or not, DO, and the UDP size limit, which
 * decides truncation). Two questions with the same key get byte-identical responses except
 * for the ID, the RD and CD bits (copied from the query) and the case of the name as sent
 * (echoed for 0x20 clients): `write` patches exactly those.
 *
 * Every entry is valid for one version of the zone index: `lookup` is given the index's
 * version and empties the cache when it moved, so a DDNS update is seen by the next query.
 */
import { MIN_UDP_PAYLOAD, MAX_UDP_PAYLOAD } from './wire';
import type { LoggedNameSlot } from './query-sink';

const HEADER = 12;
const QTYPE_OPT = 41;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SMI_HASH_MASK = 0x3fffffff;
/** Byte → byte with ASCII letters lowercased: a table load instead of two compares per byte. */
const FOLD = Uint8Array.from({ length: 256 }, (_, c) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c));
/** Bounds memory per answering thread (about 28 MB when full); a flood of random names cycles through it instead of growing it. */
export const MAX_CACHED_RESPONSES = 65_536;
/** And the bytes of the responses kept (large answers fill this before the count). */
export const MAX_CACHED_BYTES = 16 * 1024 * 1024;
/**
 * Responses are copied into slabs of this size: Buffer.from() would slice Node's shared
 * 8 KB pool, and each kept slice would pin whatever else was allocated in its chunk.
 */
const SLAB_BYTES = 256 * 1024;

/** What an answered query was, for the tally and the query sink. */
export interface ResponseFacts {
  /** The query name for the log (lowercase presentation form). */
  name: string;
  /** The query type mnemonic for the log. */
  type: string;
  /** Numeric rcode as logged. */
  rcode: number;
  truncated: boolean;
  zone: string | null;
  domain: string | null;
  accountId: string | null;
}

/**
 * One cached response. A class, so every entry has one shape and the hot path's property
 * loads stay monomorphic (object spreads gave entries many shapes and a miss per load).
 */
export class CachedResponse implements ResponseFacts, LoggedNameSlot {
  readonly name: string;
  readonly type: string;
  readonly rcode: number;
  readonly truncated: boolean;
  readonly zone: string | null;
  readonly domain: string | null;
  readonly accountId: string | null;
  /** Set by the query log (LoggedNameSlot): none yet. */
  logNameId = -1;
  logNameEpoch = 0;

  constructor(
    facts: ResponseFacts,
    /** The response with ID 0, RD and CD clear, and the question name folded to lowercase (in a slab; moved on promotion). */
    public bytes: Buffer,
    /** End of the question name (offset of its qtype). */
    readonly nameEnd: number,
    readonly variant: number,
  ) {
    this.name = facts.name;
    this.type = facts.type;
    this.rcode = facts.rcode;
    this.truncated = facts.truncated;
    this.zone = facts.zone;
    this.domain = facts.domain;
    this.accountId = facts.accountId;
  }
}

/**
 * Two generations by hash, so the bound costs little: new entries go to `recent`; when it
 * holds half the bound it becomes `older` (the previous `older` is dropped), and a hit in
 * `older` moves back to `recent`. Hot questions stay, a flood of random names (NXDOMAIN
 * queries) passes through without flushing them all at once. Two questions with the same
 * 32-bit hash take turns in one slot: a rare extra miss, never a wrong answer, since a hit
 * compares the whole question.
 */
export class ResponseCache {
  private recent = new Map<number, CachedResponse>();
  private older = new Map<number, CachedResponse>();
  /** Bytes of the responses stored or moved into `recent`. */
  private recentBytes = 0;
  private version = -1;
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private slabUsed = 0;

  // What the last lookup() read from its query; valid until the next lookup.
  /** The query had the plain shape: its response may be stored. */
  plain = false;
  edns = false;
  dnssecOk = false;
  /** The client's advertised UDP size (0 without EDNS). */
  udpSize = 0;
  private hash = 0;
  private variant = 0;
  private nameEnd = 0;

  constructor(
    private readonly maxEntries = MAX_CACHED_RESPONSES,
    private readonly maxBytes = MAX_CACHED_BYTES,
  ) {}

  get count(): number {
    return this.recent.size + this.older.size;
  }

  /**
   * The cached response to the query in `buf` from `start`, `length` bytes long, or null.
   * `indexVersion` is the zone index's version now: entries of another version are dropped
   * first. Sets the fields above either way. Offsets rather than a slice: a Buffer view per
   * query costs more than the lookup.
   */
  lookup(buf: Buffer, start: number, length: number, indexVersion: number): CachedResponse | null {
    if (indexVersion !== this.version) this.clear(indexVersion);
    this.plain = false;
    if (length < HEADER + 5) return null;
    // The query's bytes relative to its start: msg[i] is buf[start + i].
    const msg = buf;
    const o = start;
    // QR, opcode (4 bits) clear; QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1.
    if ((msg[o + 2] & 0xf8) !== 0 || msg[o + 4] !== 0 || msg[o + 5] !== 1 || msg[o + 6] !== 0 || msg[o + 7] !== 0 || msg[o + 8] !== 0 || msg[o + 9] !== 0 || msg[o + 10] !== 0)
      return null;
    const additional = msg[o + 11];
    if (additional > 1) return null;

    let hash = FNV_OFFSET;
    let at = HEADER;
    for (;;) {
      if (at >= length) return null;
      const labelLength = msg[o + at];
      if (labelLength === 0) break;
      if (labelLength > 63) return null;
      const end = at + 1 + labelLength;
      if (end > length) return null;
      hash = Math.imul(hash ^ labelLength, FNV_PRIME);
      for (let i = o + at + 1; i < o + end; i++) hash = Math.imul(hash ^ FOLD[msg[i]], FNV_PRIME);
      at = end;
    }
    const nameEnd = at + 1;
    if (nameEnd - HEADER > 255) return null;
    const questionEnd = nameEnd + 4;
    if (questionEnd > length) return null;
    const qtype = (msg[o + nameEnd] << 8) | msg[o + nameEnd + 1];
    if (qtype === QTYPE_OPT) return null;

    let edns = false;
    let dnssecOk = false;
    let udpSize = 0;
    if (additional === 1) {
      // The OPT record: root owner, type 41, class = UDP size, TTL = ext. rcode, version, flags.
      const opt = o + questionEnd;
      if (questionEnd + 11 > length || msg[opt] !== 0 || msg[opt + 1] !== 0 || msg[opt + 2] !== QTYPE_OPT) return null;
      if (msg[opt + 6] !== 0) return null; // EDNS version other than 0: BADVERS, the full way
      const rdLength = (msg[opt + 9] << 8) | msg[opt + 10];
      if (questionEnd + 11 + rdLength !== length) return null;
      edns = true;
      udpSize = (msg[opt + 3] << 8) | msg[opt + 4];
      dnssecOk = (msg[opt + 7] & 0x80) !== 0;
    } else if (questionEnd !== length) {
      return null;
    }
    const limit = edns ? Math.min(Math.max(udpSize, MIN_UDP_PAYLOAD), MAX_UDP_PAYLOAD) : MIN_UDP_PAYLOAD;
    const variant = limit | (edns ? 0x10000 : 0) | (dnssecOk ? 0x20000 : 0);
    // qtype and qclass as one 32-bit word, then the variant.
    hash = Math.imul(hash ^ msg.readUInt32BE(o + nameEnd), FNV_PRIME);
    // Kept to 30 bits: a small integer (Smi) key, where a full 32-bit one would often be a
    // heap number that the Map must box and hash as a double (8% of a DNS thread in profiles).
    hash = Math.imul(hash ^ variant, FNV_PRIME) & SMI_HASH_MASK;

    this.plain = true;
    this.edns = edns;
    this.dnssecOk = dnssecOk;
    this.udpSize = udpSize;
    this.hash = hash;
    this.variant = variant;
    this.nameEnd = nameEnd;
    const entry = this.recent.get(hash);
    if (entry !== undefined && entry.variant === variant && entry.nameEnd === nameEnd && sameQuestion(entry.bytes, msg, o, nameEnd)) return entry;
    const old = this.older.get(hash);
    if (old !== undefined && old.variant === variant && old.nameEnd === nameEnd && sameQuestion(old.bytes, msg, o, nameEnd)) {
      // Copied into the current slab, so the older generation's slabs go with it.
      old.bytes = this.copyIn(old.bytes);
      this.keep(hash, old);
      return old;
    }
    return null;
  }

  /** The response to the query at `start` of `buf` into `out` at `at` (room for MAX_UDP_PAYLOAD); returns its length. */
  write(entry: CachedResponse, buf: Buffer, start: number, out: Buffer, at: number): number {
    const bytes = entry.bytes;
    out.set(bytes, at);
    out[at] = buf[start];
    out[at + 1] = buf[start + 1];
    out[at + 2] |= buf[start + 2] & 0x01; // RD
    out[at + 3] |= buf[start + 3] & 0x10; // CD
    // The name as sent; a short loop beats a Buffer.copy call for a few dozen bytes.
    for (let i = HEADER; i < entry.nameEnd; i++) out[at + i] = buf[start + i];
    return bytes.length;
  }

  /**
   * Keeps the response just written for the query of the last lookup(), which must have
   * been plain and answered the full way: `response` is that answer.
   */
  store(response: Buffer, facts: ResponseFacts): void {
    if (!this.plain) return;
    const bytes = this.copyIn(response);
    bytes[0] = 0;
    bytes[1] = 0;
    bytes[2] &= ~0x01;
    bytes[3] &= ~0x10;
    for (let i = HEADER; i < this.nameEnd; i++) {
      const c = bytes[i];
      if (c >= 0x41 && c <= 0x5a) bytes[i] = c | 0x20;
    }
    this.keep(this.hash, new CachedResponse(facts, bytes, this.nameEnd, this.variant));
    this.plain = false;
  }

  clear(version: number): void {
    this.version = version;
    if (this.recent.size + this.older.size === 0) return;
    this.recent = new Map();
    this.older = new Map();
    this.recentBytes = 0;
    // Nothing refers to the slab's bytes any more: the next entries overwrite them.
    this.slabUsed = 0;
  }

  /** Into `recent`, which first becomes `older` when it holds half of either bound. */
  private keep(hash: number, entry: CachedResponse): void {
    if (this.recent.size >= this.maxEntries >> 1 || this.recentBytes >= this.maxBytes >> 1) {
      this.older = this.recent;
      this.recent = new Map();
      this.recentBytes = 0;
    }
    this.recent.set(hash, entry);
    this.recentBytes += entry.bytes.length;
  }

  /**
   * A copy of `bytes` in the current slab. Entries of `recent` live in slabs filled since
   * it last became empty, so a dropped generation frees its slabs (all but the one in use
   * at the switch): memory stays within the bounds, not pinned by a few hot entries.
   */
  private copyIn(bytes: Buffer): Buffer {
    if (this.slabUsed + bytes.length > SLAB_BYTES) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.slabUsed = 0;
    }
    const copy = this.slab.subarray(this.slabUsed, this.slabUsed + bytes.length);
    this.slabUsed += bytes.length;
    bytes.copy(copy);
    return copy;
  }
}

/** The stored question equals the query's: the name's letters without case, then qtype and qclass exactly. */
function sameQuestion(stored: Buffer, buf: Buffer, start: number, nameEnd: number): boolean {
  for (let i = HEADER; i < nameEnd; i++) if (stored[i] !== FOLD[buf[start + i]]) return false;
  return stored.readUInt32BE(nameEnd) === buf.readUInt32BE(start + nameEnd);
}
