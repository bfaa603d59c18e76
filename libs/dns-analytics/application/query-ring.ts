/**
 * A single-producer, single-consumer ring in shared memory, one per answering thread, from
 * that thread to the query-log thread. The answering thread appends compact records and
 * publishes them with one atomic store per UDP batch; the log thread drains every ring on a
 * timer of its own. No message per batch (no port lock, no wake-up of the log thread, no
 * structured clone) and no string table on the answering thread: strings travel as bytes
 * and are interned on the log thread. A full ring drops the record and counts it; the
 * answering thread never waits.
 *
 * Record (8-byte aligned, never across the ring's end):
 *   u32  size / 8 (bits 0-15) | flags (16-18: TCP, DO, EDNS) | answer by number (19) |
 *        answer numbered (20) | timed (21) | batch mark (22) | strings present (24-29)
 *   u32  the answer's number (bits 19 and 20), else unused
 *   f64  time (ms since the epoch, with the fraction)  } timed records and batch marks only
 *   f64  answer time (ms)                              }
 *   per string column present, in column order: u16 length (bit 15: UTF-8, else ASCII), bytes
 * A column absent from a record repeats the previous record's string (account, domain, type,
 * rcode and the client address mostly do). A size of 0 marks the rest of the ring as unused:
 * the next record starts at offset 0.
 *
 * The queries of a UDP batch share their time (the batch's receipt) and their answer time
 * (known once the batch is sent): a batch mark, a record of its own holding only those two,
 * comes before the batch's first query, whose records then hold neither (8 bytes and
 * strings, not 24 and strings: half the ring's bytes per query, to write and to read), and
 * the answer time is set once, in the mark, when the batch is sent. TCP and object records
 * carry their own times (timed).
 *
 * Cached responses are numbered per ring: everything a cached answer logs but the client and
 * the times (account, domain, name, type and response code) is the same every time it is
 * served. The first record of such an answer carries those five strings and the number it
 * gets (bit 20), later ones only the number (bit 19) and the client if it changed, so neither
 * thread compares, copies or hashes a string of an answer served again (the response cache
 * entry keeps the number, see LoggedNameSlot; types and codes changed every other query of
 * the bench's mix and were written and hashed each time before). Numbers go up to
 * NAME_NUMBERS, then start again in a new epoch: every answer is then sent and numbered once
 * more.
 */
import type { LoggedNameSlot } from '../../dns-server';
import {
  chunkBuffers,
  CLIENT,
  columnsOf,
  DeferredColumns,
  FLAGS,
  MAX_TABLE_SIZE,
  STRING_COLUMNS,
  U32_COLUMNS,
} from './query-batch';

/** Slots of a ring's control block (Int32Array); head and tail on cache lines of their own. */
export const HEAD = 0;
/** Queries published so far (producer). */
const PUBLISHED = 1;
/** Set by the producer (or the main thread once the producing thread is gone): drain, then forget the ring. */
const CLOSED = 2;
export const TAIL = 16;
/** Queries drained so far (consumer). */
const CONSUMED = 17;
const CONTROL_INTS = 32;

/** A record's fixed part: the header word and the name's number; timed records and marks add TIMES. */
const RECORD_HEADER = 8;
const TIMES = 16;
/** A batch mark: the header, then the times (see the file comment). */
const MARK_BYTES = RECORD_HEADER + TIMES;
const UTF8 = 0x8000;
/**
 * Header bits: the answer's columns (account to rcode) are absent and word 1 holds the answer's
 * number; or all present and numbered by word 1.
 */
const ANSWER_BY_NUMBER = 1 << 19;
const ANSWER_NUMBERED = 1 << 20;
/** The columns an answer's number stands for: every string column before the client's. */
const ANSWER_COLUMNS = CLIENT;
/** Words the log thread keeps per numbered answer: its table's number, its string numbers, padding to 32 bytes. */
const ANSWER_STRIDE = 8;
/** Header bits: the record carries its own times; the record is a batch mark, not a query. */
const TIMED = 1 << 21;
const MARK = 1 << 22;
/** The record flags proper (TCP, DO, EDNS) within the header's bits 16-23. */
const RECORD_FLAGS = 0x7;
/** Answers numbered per ring and epoch (the log thread keeps their string numbers and texts per number). */
export const NAME_NUMBERS = 1 << 16;
/** What writeByNumber() did: wrote the record; dropped it (ring full, client too long); or nothing (the answer has no number yet). */
export const WRITTEN = 1;
export const NOT_WRITTEN = 0;
export const NOT_NUMBERED = -1;
/** Epochs of this thread's rings: never one that a name slot of another ring or numbering holds. */
let epochs = 0;
/** Longer strings are not logged (a DNS name in presentation form, escaped, is far shorter). */
export const MAX_STRING_LENGTH = 4096;

/**
 * 4 MiB: about 300,000 queries of the bench's mix (13 bytes each with batch marks; 28.5
 * before them, when the ring was 8 MiB and held as many), so at 100,000 queries/s into one
 * ring the log thread may fall 3 s behind (a write burst, a collection, a lower priority)
 * before a query is dropped; the former channels allowed 200,000 in flight over all threads.
 * A ring of 4 MiB at 28.5 bytes a query with the log thread at niceness 10 dropped 1.4 % at
 * max qps. Half the memory the answering threads stream through (and the process keeps).
 */
export const DEFAULT_RING_BYTES = 4 * 1024 * 1024;

export interface QueryRing {
  data: SharedArrayBuffer;
  control: Int32Array;
}

export function newQueryRing(bytes = DEFAULT_RING_BYTES): QueryRing {
  if (bytes < 1024 || (bytes & (bytes - 1)) !== 0 || bytes > 2 ** 30)
    throw new Error('ring size must be a power of two between 1 KiB and 1 GiB');
  return { data: new SharedArrayBuffer(bytes), control: new Int32Array(new SharedArrayBuffer(4 * CONTROL_INTS)) };
}

/** Queries published to the ring and not drained yet. */
export const ringBacklog = (ring: QueryRing): number =>
  (Atomics.load(ring.control, PUBLISHED) - Atomics.load(ring.control, CONSUMED)) | 0;

export const closeRing = (ring: QueryRing): void => void Atomics.store(ring.control, CLOSED, 1);

export const ringClosed = (ring: QueryRing): boolean => Atomics.load(ring.control, CLOSED) === 1;

const align8 = (n: number): number => (n + 7) & ~7;

/** Views of a ring's bytes; records are 8-aligned, so the float and word views index them directly. */
class RingViews {
  readonly u8: Uint8Array;
  readonly u32: Uint32Array;
  readonly f64: Float64Array;
  readonly bytes: Buffer;
  readonly capacity: number;
  readonly mask: number;

  constructor(readonly ring: QueryRing) {
    this.u8 = new Uint8Array(ring.data);
    this.u32 = new Uint32Array(ring.data);
    this.f64 = new Float64Array(ring.data);
    this.bytes = Buffer.from(ring.data);
    this.capacity = ring.data.byteLength;
    this.mask = this.capacity - 1;
  }
}

/**
 * The answering thread's end. write() and writeBatched() append a record without publishing
 * it, so a UDP batch's answer time can still be set (setPendingDurations) before publish()
 * shows the batch to the log thread.
 */
export class QueryRingWriter {
  private readonly v: RingViews;
  /** Byte counters (int32, wrapping): written including unpublished records, and published. */
  private head: number;
  /** The consumer's tail as last read: re-read only when the ring looks full. */
  private tail: number;
  private pending = 0;
  private published = 0;
  private droppedSinceReport = 0;
  /** The strings of the last record written, per column; and the record's being written (the two swap). */
  private last: Array<string | null> = new Array<string | null>(STRING_COLUMNS).fill(null);
  private strings: Array<string | null> = new Array<string | null>(STRING_COLUMNS).fill(null);
  /** The current numbering of names (see the file comment) and the next number in it. */
  private epoch = ++epochs;
  private nextName = 0;
  /**
   * Where the batch marks written since the last publish() are (ring offsets; one per batch in
   * practice, more only if a batch's queries came with different times), how many, and the
   * time of the last. A typed array: emptying a JS array per batch gave its storage up.
   */
  private marks = new Int32Array(4);
  private markCount = 0;
  private markTime = NaN;

  constructor(
    ring: QueryRing,
    /** Where drops are added up (the query log's shared counter) and its slot. */
    private readonly dropped: Int32Array,
    private readonly droppedSlot: number,
  ) {
    this.v = new RingViews(ring);
    this.head = Atomics.load(ring.control, HEAD);
    this.tail = Atomics.load(ring.control, TAIL);
    this.published = Atomics.load(ring.control, PUBLISHED);
  }

  /**
   * Appends one query with its own times (not yet published); false when the ring is full or
   * a string too long (the query is counted as dropped). `nameSlot`: the answer's note of its
   * number (see the file comment); whoever passes one slot passes the same account, domain,
   * name, type and rcode with it every time.
   */
  write(
    timestamp: number,
    durationMs: number,
    account: string,
    domain: string,
    name: string,
    type: string,
    rcode: string,
    client: string,
    flags: number,
    nameSlot?: LoggedNameSlot,
  ): boolean {
    return this.append(true, timestamp, durationMs, account, domain, name, type, rcode, client, flags, nameSlot);
  }

  /**
   * Appends one query of the UDP batch under way: its time is `timestamp`, its answer time
   * the batch's (setPendingDurations). The batch's first query brings a batch mark with it.
   */
  writeBatched(
    timestamp: number,
    account: string,
    domain: string,
    name: string,
    type: string,
    rcode: string,
    client: string,
    flags: number,
    nameSlot?: LoggedNameSlot,
  ): boolean {
    return this.append(false, timestamp, 0, account, domain, name, type, rcode, client, flags, nameSlot);
  }

  /**
   * writeBatched() for an answer numbered already in this ring (see the file comment), without
   * its strings: NOT_NUMBERED when it is not, and the caller writes it the full way. The
   * answer's columns are then unknown on this side: the next record that is not by number
   * carries them all.
   */
  writeByNumber(timestamp: number, client: string, flags: number, slot: LoggedNameSlot): number {
    if (slot.logNameEpoch !== this.epoch) return NOT_NUMBERED;
    const last = this.last;
    const newClient = client !== last[CLIENT];
    let room = RECORD_HEADER;
    if (newClient) {
      if (client.length > MAX_STRING_LENGTH) {
        this.drop();
        return NOT_WRITTEN;
      }
      room += 2 + 3 * client.length;
    }
    const marked = this.markCount === 0 || timestamp !== this.markTime;
    if (marked) room += MARK_BYTES;
    let pos = this.reserve(room);
    if (pos < 0) {
      this.drop();
      return NOT_WRITTEN;
    }
    if (marked) pos = this.mark(pos, timestamp);
    let at = pos + RECORD_HEADER;
    if (newClient) {
      at = this.writeString(this.v.u8, at, client);
      last[CLIENT] = client;
    }
    // The answer's strings are not at hand: none of them may stand for the next record's.
    if (last[0] !== null) for (let c = 0; c < ANSWER_COLUMNS; c++) last[c] = null;
    const u32 = this.v.u32;
    u32[(pos >> 2) + 1] = slot.logNameId;
    const size = align8(at - pos);
    u32[pos >> 2] = (size >> 3) | (flags << 16) | ANSWER_BY_NUMBER | (newClient ? 1 << (24 + CLIENT) : 0);
    this.head = (this.head + size) | 0;
    this.pending++;
    return WRITTEN;
  }

  /**
   * Where a record of `room` bytes goes (the offset in the ring, after skipping to its start
   * if it would cross the end), or -1 when the ring is full.
   */
  private reserve(room: number): number {
    const { u32, capacity, mask } = this.v;
    const pos = this.head & mask;
    const skip = pos + room > capacity ? capacity - pos : 0;
    if (!this.fits(skip + room)) return -1;
    if (skip === 0) return pos;
    u32[pos >> 2] = 0;
    this.head = (this.head + skip) | 0;
    return 0;
  }

  /** Writes a batch mark at `pos` (see the file comment); returns where the query's record goes. */
  private mark(pos: number, timestamp: number): number {
    const { u32, f64 } = this.v;
    u32[pos >> 2] = (MARK_BYTES >> 3) | MARK;
    f64[(pos + RECORD_HEADER) >> 3] = timestamp;
    f64[(pos + RECORD_HEADER + 8) >> 3] = 0;
    this.noteMark(pos);
    this.markTime = timestamp;
    this.head = (this.head + MARK_BYTES) | 0;
    return pos + MARK_BYTES;
  }

  private append(
    timed: boolean,
    timestamp: number,
    durationMs: number,
    account: string,
    domain: string,
    name: string,
    type: string,
    rcode: string,
    client: string,
    flags: number,
    nameSlot: LoggedNameSlot | undefined,
  ): boolean {
    const s = this.strings as string[];
    s[0] = account;
    s[1] = domain;
    s[2] = name;
    s[3] = type;
    s[4] = rcode;
    s[5] = client;
    // Numbered already: the answer's columns stay out. To be numbered: they go in, whatever came before.
    const byNumber = nameSlot !== undefined && nameSlot.logNameEpoch === this.epoch;
    const numbering = nameSlot !== undefined && !byNumber;
    let present = 0;
    let room = timed ? RECORD_HEADER + TIMES : RECORD_HEADER;
    for (let c = byNumber ? ANSWER_COLUMNS : 0; c < STRING_COLUMNS; c++) {
      if (s[c] === this.last[c] && (c >= ANSWER_COLUMNS || !numbering)) continue;
      const length = s[c].length;
      if (length > MAX_STRING_LENGTH) return this.drop();
      present |= 1 << c;
      // Room for the worst case (3 UTF-8 bytes per UTF-16 unit); the record takes what it uses.
      room += 2 + 3 * length;
    }
    // The batch's first query (or one of another time): a mark first, in the same room, so both go or neither.
    const marked = !timed && (this.markCount === 0 || timestamp !== this.markTime);
    if (marked) room += MARK_BYTES;
    const { u8, u32, f64 } = this.v;
    let pos = this.reserve(room);
    if (pos < 0) return this.drop();
    if (marked) pos = this.mark(pos, timestamp);
    let at = pos + RECORD_HEADER;
    let timedBit = 0;
    if (timed) {
      f64[at >> 3] = timestamp;
      f64[(at + 8) >> 3] = durationMs;
      at += TIMES;
      timedBit = TIMED;
    }
    for (let c = 0; c < STRING_COLUMNS; c++) {
      if ((present & (1 << c)) === 0) continue;
      at = this.writeString(u8, at, s[c]);
    }
    this.strings = this.last;
    this.last = s;
    let numberBits = 0;
    if (byNumber) {
      numberBits = ANSWER_BY_NUMBER;
      u32[(pos >> 2) + 1] = nameSlot.logNameId;
    } else if (numbering) {
      numberBits = ANSWER_NUMBERED;
      u32[(pos >> 2) + 1] = this.number(nameSlot);
    }
    const size = align8(at - pos);
    u32[pos >> 2] = (size >> 3) | (flags << 16) | numberBits | timedBit | (present << 24);
    this.head = (this.head + size) | 0;
    this.pending++;
    return true;
  }

  private noteMark(pos: number): void {
    if (this.markCount === this.marks.length) {
      const more = new Int32Array(2 * this.marks.length);
      more.set(this.marks);
      this.marks = more;
    }
    this.marks[this.markCount++] = pos;
  }

  /** Gives the slot's answer the next number (its record is written: a dropped one never numbers an answer). */
  private number(slot: LoggedNameSlot): number {
    const n = this.nextName++;
    slot.logNameId = n;
    slot.logNameEpoch = this.epoch;
    if (this.nextName === NAME_NUMBERS) {
      this.epoch = ++epochs;
      this.nextName = 0;
    }
    return n;
  }

  /** Whether `bytes` more fit beside what the consumer has not drained. */
  private fits(bytes: number): boolean {
    const cap = this.v.capacity;
    if (((this.head - this.tail) | 0) + bytes <= cap) return true;
    this.tail = Atomics.load(this.v.ring.control, TAIL);
    return ((this.head - this.tail) | 0) + bytes <= cap;
  }

  private drop(): false {
    this.droppedSinceReport++;
    return false;
  }

  /** ASCII byte by byte (names, addresses and ids are); anything else as UTF-8. */
  private writeString(u8: Uint8Array, at: number, str: string): number {
    const start = at + 2;
    const n = str.length;
    let i = 0;
    for (; i < n; i++) {
      const c = str.charCodeAt(i);
      if (c > 0x7f) break;
      u8[start + i] = c;
    }
    let length = n;
    if (i < n) length = this.v.bytes.write(str, start, 'utf8') | UTF8;
    u8[at] = length & 0xff;
    u8[at + 1] = length >> 8;
    return start + (length & ~UTF8);
  }

  /** Sets the answer time of the batch written since the last publish() (its marks'). */
  setPendingDurations(durationMs: number): void {
    const f64 = this.v.f64;
    for (let m = 0; m < this.markCount; m++) f64[(this.marks[m] + RECORD_HEADER + 8) >> 3] = durationMs;
  }

  /** Shows the records written so far to the consumer, and adds up drops. */
  publish(): void {
    if (this.pending > 0) {
      const control = this.v.ring.control;
      this.published = (this.published + this.pending) | 0;
      this.pending = 0;
      Atomics.store(control, PUBLISHED, this.published);
      // Last: the consumer reads up to the head it sees, and the records' bytes before it.
      Atomics.store(control, HEAD, this.head);
    }
    // The next batch brings a mark of its own.
    this.markCount = 0;
    if (this.droppedSinceReport > 0) {
      Atomics.add(this.dropped, this.droppedSlot, this.droppedSinceReport);
      this.droppedSinceReport = 0;
    }
  }
}

/**
 * Strings by their bytes, on the log thread: a record's bytes are hashed and compared with
 * the string seen before, so a name repeated thousands of times is decoded once. Numbered in
 * a table that starts afresh after MAX_TABLE_SIZE strings (random names and client addresses
 * keep coming); a drained chunk keeps the table it was numbered in.
 */
export class WireStrings {
  table: string[] = [];
  /** By a 30-bit hash (small-integer keys); strings whose hash another holds go by their text. */
  private byHash = new Map<number, number>();
  private byText = new Map<string, number>();
  /** Ahead of the maps: the last string seen per 16 bits of hash (-1: none), a typed-array load instead of a map lookup for hot names. */
  private readonly recent = new Int32Array(1 << 16).fill(-1);

  /** Starts a fresh table when this one is full; called between drains only. */
  renewIfFull(): void {
    if (this.table.length < MAX_TABLE_SIZE) return;
    this.table = [];
    this.byHash = new Map();
    this.byText = new Map();
    this.recent.fill(-1);
  }

  idOfBytes(bytes: Buffer, start: number, length: number, utf8: boolean): number {
    let h = utf8 ? 0x9dc5 : 0x811c9dc5;
    for (let i = start; i < start + length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    h &= 0x3fffffff;
    const slot = h & 0xffff;
    const seen = this.recent[slot];
    if (seen >= 0 && !utf8 && sameAscii(this.table[seen], bytes, start, length)) return seen;
    const id = this.lookup(bytes, start, length, utf8, h);
    this.recent[slot] = id;
    return id;
  }

  private lookup(bytes: Buffer, start: number, length: number, utf8: boolean, h: number): number {
    const id = this.byHash.get(h);
    if (id !== undefined && !utf8 && sameAscii(this.table[id], bytes, start, length)) return id;
    const s = bytes.toString(utf8 ? 'utf8' : 'latin1', start, start + length);
    if (id === undefined) return this.add(s, h);
    if (this.table[id] === s) return id;
    return this.byText.get(s) ?? this.add(s, -1);
  }

  /** A number for a string known as text (carried over into a fresh table). */
  idOf(s: string): number {
    // By its bytes as a ring carries them (ASCII, else UTF-8), so a string has one number whichever way it came.
    const bytes = Buffer.from(s, 'utf8');
    return this.idOfBytes(bytes, 0, bytes.length, bytes.length !== s.length);
  }

  private add(s: string, hash: number): number {
    const id = this.table.length;
    this.table.push(s);
    if (hash >= 0) this.byHash.set(hash, id);
    else this.byText.set(s, id);
    return id;
  }
}

const MAPPED_PREFIX = Buffer.from('::ffff:', 'latin1');

function isMappedIpv4(bytes: Buffer, start: number, length: number): boolean {
  if (length <= MAPPED_PREFIX.length || bytes[start] !== 0x3a) return false;
  for (let i = 1; i < MAPPED_PREFIX.length; i++) if (bytes[start + i] !== MAPPED_PREFIX[i]) return false;
  for (let i = start + MAPPED_PREFIX.length; i < start + length; i++) if (bytes[i] === 0x2e) return true;
  return false;
}

function sameAscii(s: string, bytes: Buffer, start: number, length: number): boolean {
  if (s.length !== length) return false;
  for (let i = 0; i < length; i++) if (s.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}

/** Readers made on this thread so far (their numbers). */
let readers = 0;

/**
 * The log thread's end of one ring: drain() takes everything published, as columns of string
 * numbers (the writer reads them as columns, see delivered-rows.ts).
 */
export class QueryRingReader {
  private readonly v: RingViews;
  private tail: number;
  private consumed: number;
  /** The previous record's string numbers per column (none before the first record), and the table they are in. */
  private readonly last = new Uint32Array(STRING_COLUMNS);
  private seen = false;
  /** The times of the last batch mark read (a batch's mark is published with its queries, so in the same drain). */
  private markTime = NaN;
  private markDuration = NaN;
  private table: string[];
  /**
   * Numbered answers (see the file comment), ANSWER_STRIDE words each: the table their
   * string numbers are of (renumbered by text when it is not the current one), then the
   * string numbers; one cache line per answer read (numbers come in no order, and 2 MB is
   * far beyond the caches). And their texts.
   */
  private readonly answers = new Uint32Array(NAME_NUMBERS * ANSWER_STRIDE);
  private readonly answerText: string[] = [];
  private tableNumber = 1;
  /** This reader's number, on its chunks: a delivery puts each ring's chunks together (delivered-rows.ts). */
  private readonly source = ++readers;

  constructor(
    readonly ring: QueryRing,
    private readonly strings: WireStrings,
  ) {
    this.v = new RingViews(ring);
    this.tail = Atomics.load(ring.control, TAIL);
    this.consumed = Atomics.load(ring.control, CONSUMED);
    this.table = strings.table;
  }

  /** Whether the producer is gone and everything it published has been drained. */
  get finished(): boolean {
    return Atomics.load(this.ring.control, CLOSED) === 1 && Atomics.load(this.ring.control, HEAD) === this.tail;
  }

  drain(): DeferredColumns | null {
    const control = this.ring.control;
    const head = Atomics.load(control, HEAD);
    if (head === this.tail) return null;
    if (this.table !== this.strings.table) this.renumberLast();
    const { u32: words, f64, bytes, capacity, mask } = this.v;
    // The producer counts what it publishes before it moves the head: the count read after the
    // head covers every record up to it (and maybe more, left for the next drain), so no pass
    // over the records is needed to size the chunk.
    const atMost = (Atomics.load(control, PUBLISHED) - this.consumed) | 0;
    const buffer = chunkBuffers.take(atMost);
    const { ts, duration, u32 } = columnsOf(buffer);
    const last = this.last;
    let i = 0;
    for (let c = this.tail; c !== head;) {
      const pos = c & mask;
      const word = words[pos >> 2];
      const size = (word & 0xffff) << 3;
      if (size === 0) {
        c = (c + capacity - pos) | 0;
        continue;
      }
      let at = pos + RECORD_HEADER;
      if (word & MARK) {
        // Not a query: the time and answer time of the untimed records after it.
        this.markTime = f64[at >> 3];
        this.markDuration = f64[(at + 8) >> 3];
        c = (c + size) | 0;
        continue;
      }
      if (word & TIMED) {
        ts[i] = f64[at >> 3];
        duration[i] = f64[(at + 8) >> 3];
        at += TIMES;
      } else {
        ts[i] = this.markTime;
        duration[i] = this.markDuration;
      }
      const present = word >>> 24;
      if (word & ANSWER_BY_NUMBER) this.numberedAnswer(words[(pos >> 2) + 1]);
      // Most records (answers by number, from the client before) hold no string.
      for (let col = 0; present !== 0 && col < STRING_COLUMNS; col++) {
        if ((present & (1 << col)) === 0) continue;
        const length = bytes[at] | (bytes[at + 1] << 8);
        const n = length & ~UTF8;
        // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d: they are logged as the IPv4 clients they are.
        const skip = col === CLIENT && isMappedIpv4(bytes, at + 2, n) ? MAPPED_PREFIX.length : 0;
        last[col] = this.strings.idOfBytes(bytes, at + 2 + skip, n - skip, (length & UTF8) !== 0);
        at += 2 + n;
      }
      if (word & ANSWER_NUMBERED) this.numberAnswer(words[(pos >> 2) + 1]);
      const row = i * U32_COLUMNS;
      for (let col = 0; col < STRING_COLUMNS; col++) u32[row + col] = last[col];
      u32[row + FLAGS] = (word >>> 16) & RECORD_FLAGS;
      i++;
      c = (c + size) | 0;
    }
    this.tail = head;
    this.consumed = (this.consumed + i) | 0;
    Atomics.store(control, TAIL, head);
    Atomics.store(control, CONSUMED, this.consumed);
    if (i === 0) {
      chunkBuffers.give(buffer);
      return null;
    }
    this.seen = true;
    return new DeferredColumns(buffer, i, this.strings.table, this.source);
  }

  /** Notes the answer columns of the record just read as answer `n`'s. */
  private numberAnswer(n: number): void {
    const at = n * ANSWER_STRIDE;
    const table = this.strings.table;
    this.answers[at] = this.tableNumber;
    for (let col = 0; col < ANSWER_COLUMNS; col++) {
      this.answers[at + 1 + col] = this.last[col];
      this.answerText[n * ANSWER_COLUMNS + col] = table[this.last[col]];
    }
  }

  /** Sets the answer columns to answer `n`'s. */
  private numberedAnswer(n: number): void {
    const at = n * ANSWER_STRIDE;
    const answers = this.answers;
    if (answers[at] !== this.tableNumber) {
      // Numbered in a table since started afresh: found again by their texts.
      for (let col = 0; col < ANSWER_COLUMNS; col++)
        answers[at + 1 + col] = this.strings.idOf(this.answerText[n * ANSWER_COLUMNS + col]);
      answers[at] = this.tableNumber;
    }
    const last = this.last;
    for (let col = 0; col < ANSWER_COLUMNS; col++) last[col] = answers[at + 1 + col];
  }

  /** The table started afresh: the strings the next record may repeat get numbers in the new one. */
  private renumberLast(): void {
    // The previous table lives on in the chunks drained before; the strings are read from it.
    if (this.seen)
      for (let col = 0; col < STRING_COLUMNS; col++) this.last[col] = this.strings.idOf(this.table[this.last[col]]);
    this.table = this.strings.table;
    this.tableNumber++;
  }
}
