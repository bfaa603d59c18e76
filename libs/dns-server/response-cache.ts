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
import type { LoggedAnswer } from './query-sink';

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
 * What one cached response was, for the tally and the query log. A class, so every entry has
 * one shape and the hot path's property loads stay monomorphic. The response's bytes are not
 * here but in the cache's slabs, found from its table (see ResponseCache).
 */
export class CachedResponse implements ResponseFacts, LoggedAnswer {
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

  constructor(facts: ResponseFacts) {
    this.name = facts.name;
    this.type = facts.type;
    this.rcode = facts.rcode;
    this.truncated = facts.truncated;
    this.zone = facts.zone;
    this.domain = facts.domain;
    this.accountId = facts.accountId;
  }
}

// A stored response in a slab, at an 8-byte aligned offset: a header of three 32-bit words,
// then the response (ID 0, RD and CD clear, the question name folded to lowercase).
const RECORD_VARIANT = 0;
/** nameEnd (end of the question name, the offset of its qtype) | length << 16. */
const RECORD_SHAPE = 1;
/** The entry's index in its generation's `entries`. */
const RECORD_ENTRY = 2;
const RECORD_HEADER_BYTES = 12;
/** Slab ids are taken round-robin from this many: far more than the bounds let live at once. */
const SLAB_IDS = 1024;
const OFFSET_BITS = 16;
const OFFSET_MASK = (1 << OFFSET_BITS) - 1;

interface Slab {
  bytes: Buffer;
  words: Uint32Array;
}

/**
 * One generation: an open-addressing table of (hash + 1, where the record is) in an
 * Int32Array, and the entries its records name. A lookup reads one slot of the table and
 * then the record (header, question and response side by side): two or three cache lines,
 * where a Map, an entry object, a Buffer view and its bytes were five or six, and each was
 * a miss once the kernel's work between batches had evicted them.
 */
class Generation {
  readonly table: Int32Array;
  readonly mask: number;
  entries: CachedResponse[] = [];
  /** Slots taken (distinct hashes); a hash seen again takes its slot over. */
  size = 0;
  bytes = 0;
  /** Slab ids this generation's records are in. */
  slabs: number[] = [];

  constructor(maxEntries: number) {
    // At most maxEntries / 2 per generation (see keep): the table stays at most half full.
    let slots = 16;
    while (slots < maxEntries) slots *= 2;
    this.table = new Int32Array(slots * 2);
    this.mask = slots - 1;
  }

  /** Where the record of `hash` is, or -1. */
  find(hash: number): number {
    const table = this.table;
    const key = hash + 1;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const k = table[i << 1];
      if (k === key) return table[(i << 1) + 1];
      if (k === 0) return -1;
    }
  }

  put(hash: number, location: number): void {
    const table = this.table;
    const key = hash + 1;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const k = table[i << 1];
      if (k === 0) this.size++;
      if (k === 0 || k === key) {
        table[i << 1] = key;
        table[(i << 1) + 1] = location;
        return;
      }
    }
  }

  reset(): void {
    this.table.fill(0);
    this.entries = [];
    this.size = 0;
    this.bytes = 0;
    this.slabs = [];
  }
}

/**
 * Two generations by hash, so the bound costs little: new entries go to `recent`; when it
 * holds half the bound it becomes `older` (the previous `older` is dropped), and a hit in
 * `older` moves back to `recent`. Hot questions stay, a flood of random names (NXDOMAIN
 * queries) passes through without flushing them all at once. Two questions with the same
 * 30-bit hash take turns in one slot: a rare extra miss, never a wrong answer, since a hit
 * compares the whole question.
 */
export class ResponseCache {
  private recent: Generation;
  private older: Generation;
  private version = -1;
  /** Slabs by id (round-robin ids; undefined once no generation uses the slab). */
  private readonly slabs: Array<Slab | undefined> = new Array<Slab | undefined>(SLAB_IDS).fill(undefined);
  private slabId = -1;
  private slab!: Slab;
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
  /** The record of the last hit (what write() copies). */
  private hitSlab!: Slab;
  private hitOffset = 0;
  /** `out` as 32-bit words, for the last out buffer write() was given (null: not 4-byte aligned). */
  private outBuffer: Buffer | null = null;
  private outWords: Uint32Array | null = null;

  constructor(
    private readonly maxEntries = MAX_CACHED_RESPONSES,
    private readonly maxBytes = MAX_CACHED_BYTES,
  ) {
    this.recent = new Generation(maxEntries);
    this.older = new Generation(maxEntries);
    this.newSlab();
  }

  get count(): number {
    return this.recent.size + this.older.size;
  }

  /**
   * The last lookup()'s question hash (30 bits; valid when `plain`): the udp-batch addon's hit
   * cache hashes a question the same way, so its table slot is this hash's low bits.
   */
  get lastHash(): number {
    return this.hash;
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
    if (
      (msg[o + 2] & 0xf8) !== 0 ||
      msg[o + 4] !== 0 ||
      msg[o + 5] !== 1 ||
      msg[o + 6] !== 0 ||
      msg[o + 7] !== 0 ||
      msg[o + 8] !== 0 ||
      msg[o + 9] !== 0 ||
      msg[o + 10] !== 0
    )
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
    // Kept to 30 bits, so hash + 1 (0 marks a free slot) is a positive int32.
    hash = Math.imul(hash ^ variant, FNV_PRIME) & SMI_HASH_MASK;

    this.plain = true;
    this.edns = edns;
    this.dnssecOk = dnssecOk;
    this.udpSize = udpSize;
    this.hash = hash;
    this.variant = variant;
    this.nameEnd = nameEnd;
    const recent = this.recent;
    const location = recent.find(hash);
    if (location >= 0) {
      const entry = this.match(location, recent, msg, o, nameEnd, variant);
      if (entry !== null) return entry;
    }
    const older = this.older;
    const oldLocation = older.find(hash);
    if (oldLocation < 0) return null;
    const old = this.match(oldLocation, older, msg, o, nameEnd, variant);
    if (old === null) return null;
    // Copied into the current slab, so the older generation's slabs go with it.
    const slab = this.hitSlab;
    const offset = this.hitOffset;
    const responseLength = slab.words[(offset >> 2) + RECORD_SHAPE] >>> 16;
    const moved = this.keep(hash, old, slab.bytes, offset + RECORD_HEADER_BYTES, responseLength, nameEnd, variant);
    if (moved >= 0) {
      this.hitSlab = this.slab;
      this.hitOffset = moved - RECORD_HEADER_BYTES;
    }
    return old;
  }

  /** The entry of the record at `location` of `generation` when it answers this question, else null; notes the record for write(). */
  private match(
    location: number,
    generation: Generation,
    msg: Buffer,
    o: number,
    nameEnd: number,
    variant: number,
  ): CachedResponse | null {
    const slab = this.slabs[location >>> OFFSET_BITS]!;
    const offset = (location & OFFSET_MASK) << 3;
    const words = slab.words;
    const w = offset >> 2;
    if (words[w + RECORD_VARIANT] !== variant || (words[w + RECORD_SHAPE] & 0xffff) !== nameEnd) return null;
    const stored = slab.bytes;
    const r = offset + RECORD_HEADER_BYTES;
    // The name's letters without case, then qtype and qclass exactly.
    for (let i = HEADER; i < nameEnd; i++) if (stored[r + i] !== FOLD[msg[o + i]]) return null;
    for (let i = nameEnd; i < nameEnd + 4; i++) if (stored[r + i] !== msg[o + i]) return null;
    this.hitSlab = slab;
    this.hitOffset = offset;
    return generation.entries[words[w + RECORD_ENTRY]];
  }

  /**
   * The response to the query at `start` of `buf` into `out` at `at` (room for
   * MAX_UDP_PAYLOAD); returns its length. `entry` is what the last lookup() returned: its
   * bytes are the ones that lookup found.
   */
  write(entry: CachedResponse, buf: Buffer, start: number, out: Buffer, at: number): number {
    void entry;
    const slab = this.hitSlab;
    const offset = this.hitOffset;
    const shape = slab.words[(offset >> 2) + RECORD_SHAPE];
    const length = shape >>> 16;
    const nameEnd = shape & 0xffff;
    const from = offset + RECORD_HEADER_BYTES;
    if (out !== this.outBuffer) this.outFor(out);
    const outWords = this.outWords;
    if (outWords !== null && (at & 3) === 0) {
      // Whole words: the record is 4-byte aligned and `out` has room for MAX_UDP_PAYLOAD
      // (a multiple of 4) at `at`, so rounding the length up stays within this response's room.
      const words = slab.words;
      const src = from >> 2;
      const dst = at >> 2;
      const count = (length + 3) >> 2;
      for (let i = 0; i < count; i++) outWords[dst + i] = words[src + i];
    } else {
      const bytes = slab.bytes;
      for (let i = 0; i < length; i++) out[at + i] = bytes[from + i];
    }
    out[at] = buf[start];
    out[at + 1] = buf[start + 1];
    out[at + 2] |= buf[start + 2] & 0x01; // RD
    out[at + 3] |= buf[start + 3] & 0x10; // CD
    // The name as sent; a short loop beats a Buffer.copy call for a few dozen bytes.
    for (let i = HEADER; i < nameEnd; i++) out[at + i] = buf[start + i];
    return length;
  }

  private outFor(out: Buffer): void {
    this.outBuffer = out;
    this.outWords = (out.byteOffset & 3) === 0 ? new Uint32Array(out.buffer, out.byteOffset, out.length >> 2) : null;
  }

  /**
   * Keeps the response just written for the query of the last lookup(), which must have
   * been plain and answered the full way: `response` is that answer.
   */
  store(response: Buffer, facts: ResponseFacts): void {
    if (!this.plain) return;
    const record = this.keep(
      this.hash,
      new CachedResponse(facts),
      response,
      0,
      response.length,
      this.nameEnd,
      this.variant,
    );
    if (record >= 0) {
      const bytes = this.slab.bytes;
      bytes[record] = 0;
      bytes[record + 1] = 0;
      bytes[record + 2] &= ~0x01;
      bytes[record + 3] &= ~0x10;
      for (let i = record + HEADER; i < record + this.nameEnd; i++) bytes[i] = FOLD[bytes[i]];
    }
    this.plain = false;
  }

  clear(version: number): void {
    this.version = version;
    if (this.recent.size + this.older.size === 0) return;
    this.recent.reset();
    this.older.reset();
    // Nothing refers to any slab's bytes any more: the next entries overwrite the current one.
    for (let id = 0; id < SLAB_IDS; id++) if (id !== this.slabId) this.slabs[id] = undefined;
    this.recent.slabs.push(this.slabId);
    this.slabUsed = 0;
  }

  /**
   * Copies `length` bytes of `from` at `fromOffset` into the current slab as the record of
   * `entry`, in `recent`, which first becomes `older` when it holds half of either bound.
   * Returns where the response's bytes start in the current slab (-1: too large to keep).
   */
  private keep(
    hash: number,
    entry: CachedResponse,
    from: Buffer,
    fromOffset: number,
    length: number,
    nameEnd: number,
    variant: number,
  ): number {
    if (length > MAX_UDP_PAYLOAD || nameEnd > 0xffff) return -1;
    if (this.recent.size >= this.maxEntries >> 1 || this.recent.bytes >= this.maxBytes >> 1) this.turnOver();
    const room = (RECORD_HEADER_BYTES + length + 7) & ~7;
    if (this.slabUsed + room > SLAB_BYTES) this.newSlab();
    const slab = this.slab;
    const offset = this.slabUsed;
    this.slabUsed += room;
    const recent = this.recent;
    const w = offset >> 2;
    slab.words[w + RECORD_VARIANT] = variant;
    slab.words[w + RECORD_SHAPE] = nameEnd | (length << 16);
    slab.words[w + RECORD_ENTRY] = recent.entries.length;
    recent.entries.push(entry);
    from.copy(slab.bytes, offset + RECORD_HEADER_BYTES, fromOffset, fromOffset + length);
    recent.put(hash, (this.slabId << OFFSET_BITS) | (offset >> 3));
    recent.bytes += length;
    return offset + RECORD_HEADER_BYTES;
  }

  /** `recent` becomes `older`; the slabs only the dropped `older` used go with it. */
  private turnOver(): void {
    const dropped = this.older;
    for (const id of dropped.slabs) if (!this.recent.slabs.includes(id)) this.slabs[id] = undefined;
    dropped.reset();
    this.older = this.recent;
    this.recent = dropped;
    // The slab being filled now holds records of both generations.
    this.recent.slabs.push(this.slabId);
  }

  /**
   * A new slab for the records that follow. Records of `recent` live in slabs filled since it
   * last became empty, so a dropped generation frees its slabs (all but the one in use at the
   * switch): memory stays within the bounds, not pinned by a few hot entries.
   */
  private newSlab(): void {
    let id = this.slabId;
    do id = (id + 1) % SLAB_IDS;
    while (this.slabs[id] !== undefined);
    const bytes = Buffer.allocUnsafeSlow(SLAB_BYTES);
    const slab = { bytes, words: new Uint32Array(bytes.buffer, bytes.byteOffset, SLAB_BYTES >> 2) };
    this.slabs[id] = slab;
    this.slabId = id;
    this.slab = slab;
    this.slabUsed = 0;
    this.recent.slabs.push(id);
  }
}
