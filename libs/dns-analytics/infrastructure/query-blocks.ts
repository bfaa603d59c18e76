/**
 * Raw query-log rows stored in blocks: one stored record per block of queries of one
 * account and domain, instead of one record (and its index entries) per query. A block is
 * a compact binary record: a table of the strings it uses (names, addresses, types,
 * countries, networks), a table of its clients (address, country, ASN, organisation as
 * string numbers), then one short run of varints per query (time and id as deltas, name,
 * type, rcode and client numbers, flags, response time in microseconds). Writing a query
 * costs a few map lookups and bytes; the B-trees see one entry per block.
 *
 * Readers (recent queries, export pages) decode the blocks that can hold what they look
 * for, in time order, and stop as soon as no further block can change the answer
 * (block-reads.ts). Both stores (SQLite, MongoDB) keep these same bytes.
 */
import type { StoredRow } from '../application/query-log.store';
import type { IpInfo, QueryRow } from '../domain/query-row';
import { asQueryRows, DO, EDNS, QueryRows, TCP } from '../domain/query-rows';

/** Format of the encoded block; the first byte. */
const VERSION = 1;

/**
 * Queries per block at most. Each block carries the text of every name it uses, so on a busy
 * domain a bigger block repeats fewer names: at 4,096 nearly every query of the bench's mix
 * brought its name into its block's table; at 8,192, 12.2 bytes of block per query instead of
 * 15.0 and a tenth less encoder time (decision 0111). Readers decode a block whole: twice
 * the rows of 4,096 per block read, a few ms at most.
 */
export const MAX_BLOCK_ROWS = 8192;
/**
 * A block spans at most this much time (max ts - min ts), so a reader looking for rows
 * from time t need only look at blocks that start after t minus this. Writer batches
 * span well under a second; only odd appends (imports, tests) are split by it.
 */
export const MAX_BLOCK_SPAN_MS = 60_000;

/** What the store keeps beside a block's bytes, to find it without decoding it. */
export interface BlockMeta {
  accountId: number;
  domain: string;
  minTs: number;
  maxTs: number;
  /** The id of the block's first row; each row stores its id as a delta from the previous one. */
  firstId: number;
  count: number;
}

export interface BlockDraft extends BlockMeta {
  data: Buffer;
}

/**
 * Writes a non-negative integer (up to 2^53) as a varint at `at`, seven bits a byte, low bits
 * first; returns where the next byte goes. The caller makes room (at most 8 bytes).
 */
function putVarint(buf: Uint8Array, at: number, v: number): number {
  // Most of a block's numbers are below 2^14: no loop for them.
  if (v < 0x80) {
    buf[at] = v;
    return at + 1;
  }
  if (v < 0x4000) {
    buf[at] = (v & 0x7f) | 0x80;
    buf[at + 1] = v >>> 7;
    return at + 2;
  }
  // Times within a block (up to 60,000 ms): integer arithmetic, not a double's modulo.
  if (v < 0x80000000) {
    while (v >= 0x80) {
      buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[at] = v;
    return at + 1;
  }
  while (v >= 0x80) {
    buf[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[at++] = v;
  return at;
}

/** A growable byte buffer written with varints and UTF-8 strings; reset() reuses it. */
class ByteWriter {
  buf: Buffer;
  length = 0;

  // Small by default: a block of a quiet domain holds a few rows; doubling is cheap.
  constructor(initialBytes = 256) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  reset(): this {
    this.length = 0;
    return this;
  }

  /** Makes room for `n` more bytes; returns the buffer (it may be a new one). */
  room(n: number): Buffer {
    if (this.length + n <= this.buf.length) return this.buf;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(bigger, 0, 0, this.length);
    return (this.buf = bigger);
  }

  varint(v: number): void {
    this.length = putVarint(this.room(8), this.length, v);
  }

  byte(v: number): void {
    this.room(1)[this.length++] = v;
  }

  string(s: string): void {
    const buf = this.room(5 + 3 * s.length);
    const at = this.length;
    // Length first: written after the bytes, as a varint of at most 3 bytes (block strings are short).
    // Names, addresses and types are ASCII: copied by char code, without Buffer.write's call.
    let bytes = s.length;
    for (let i = 0; i < bytes; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) {
        bytes = buf.write(s, at + 3, 'utf8');
        break;
      }
      buf[at + 3 + i] = c;
    }
    if (bytes >= 0x200000) throw new Error('string too long for a query-log block');
    buf[at] = (bytes & 0x7f) | 0x80;
    buf[at + 1] = ((bytes >> 7) & 0x7f) | 0x80;
    buf[at + 2] = bytes >> 14;
    this.length = at + 3 + bytes;
  }

  /** Copies what was written into `target` at `at`; returns where the next byte goes. */
  copyTo(target: Buffer, at: number): number {
    this.buf.copy(target, at, 0, this.length);
    return at + this.length;
  }
}

class ByteReader {
  at = 0;
  constructor(private readonly buf: Uint8Array) {}

  varint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.at++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  }

  byte(): number {
    return this.buf[this.at++];
  }

  string(): string {
    const bytes = this.varint();
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.at, bytes).toString('utf8');
    this.at += bytes;
    return s;
  }
}

/**
 * Numbers of the strings a block uses, in the order it first uses them, for strings given
 * by their number in a batch's table (a typed-array load per query, no hashing) and for
 * the few given as text (enrichment, once per client). A string may then be in a block's
 * table twice (as a name and as a country, say); readers only index the table.
 */
class BlockStrings {
  /**
   * Per table number, side by side (one cache line per lookup in a table of 100,000): the
   * generation of the block that numbered it, and that number (module scratch, reused).
   */
  private static slots = new Int32Array(2 * 1024);
  private static generation = 0;
  size = 0;
  private readonly byText = new Map<string, number>();
  private readonly generation: number;

  constructor(
    private readonly table: readonly string[],
    /** Where the strings' bytes go (module scratch, reused). */
    readonly out: ByteWriter,
  ) {
    BlockStrings.generation = (BlockStrings.generation + 1) | 0;
    if (BlockStrings.generation <= 0) {
      // Wrapped: generations of 2 billion blocks ago must not pass for this block's.
      BlockStrings.slots.fill(0);
      BlockStrings.generation = 1;
    }
    this.generation = BlockStrings.generation;
    if (BlockStrings.slots.length < 2 * table.length)
      BlockStrings.slots = new Int32Array(2 * Math.max(table.length, BlockStrings.slots.length));
  }

  ofNumber(n: number): number {
    const slots = BlockStrings.slots;
    if (slots[2 * n] === this.generation) return slots[2 * n + 1];
    slots[2 * n] = this.generation;
    return (slots[2 * n + 1] = this.add(this.table[n]));
  }

  ofText(s: string): number {
    let n = this.byText.get(s);
    if (n === undefined) this.byText.set(s, (n = this.add(s)));
    return n;
  }

  private add(s: string): number {
    this.out.string(s);
    return this.size++;
  }
}

/**
 * Scratch of the encoder, reused block after block (a block is encoded synchronously): the
 * string table, the client table and the rows, copied once into the block's own buffer.
 */
const scratch = { strings: new ByteWriter(64 * 1024), clients: new ByteWriter(), body: new ByteWriter(64 * 1024) };
/** The most bytes one row takes in the body: five varints of table numbers and deltas, a flags byte, the time. */
const MAX_ROW_BYTES = 8 * 8;

/**
 * A block's client table: one entry per client address (and enrichment), its address, country,
 * ASN and organisation as string numbers.
 */
class BlockClients {
  /** Client entry per address number, and each entry's enrichment. */
  private readonly entryOf = new Map<number, number>();
  readonly infos: IpInfo[] = [];

  constructor(
    private readonly strings: BlockStrings,
    /** Where the entries go (module scratch, reused). */
    readonly out: ByteWriter,
  ) {}

  entry(client: number, info: IpInfo): number {
    const known = this.entryOf.get(client);
    if (known !== undefined && sameInfo(this.infos[known], info)) return known;
    // New, or enriched differently (IP data updated between rows): an entry of its own.
    const entry = this.infos.push(info) - 1;
    this.entryOf.set(client, entry);
    this.out.varint(this.strings.ofNumber(client));
    this.out.varint(this.strings.ofText(info.country));
    this.out.varint(this.strings.ofText(info.asn));
    this.out.varint(this.strings.ofText(info.asOrg));
    return entry;
  }
}

/**
 * Encodes one block: the rows at `indices` of `rows` (all of one account and domain), with
 * the ids `ids` (stored as deltas: any base will do). Country and network follow from the client address, so a row
 * refers to one client entry (address, country, ASN, organisation) rather than to four strings.
 */
function encodeRows(rows: QueryRows, indices: ArrayLike<number>, ids: ArrayLike<number>, minTs: number): Buffer {
  const strings = new BlockStrings(rows.strings, scratch.strings.reset());
  const clients = new BlockClients(strings, scratch.clients.reset());
  const body = scratch.body.reset();
  encodeBody(rows, indices, ids, minTs, strings, clients, body);
  // Version, the string table's size and strings, the client table's size and entries, the rows.
  const out = Buffer.allocUnsafeSlow(1 + 8 + strings.out.length + 8 + clients.out.length + body.length);
  out[0] = VERSION;
  let at = putVarint(out, 1, strings.size);
  at = strings.out.copyTo(out, at);
  at = putVarint(out, at, clients.infos.length);
  at = clients.out.copyTo(out, at);
  at = body.copyTo(out, at);
  return out.subarray(0, at);
}

/**
 * The rows of a block into `body`. Its own function, ending with its loop: the optimizer
 * compiles the loop while it runs (on-stack), and code after it that had not run yet sent
 * later calls back to the interpreter there ("insufficient type feedback"), over and over
 * (decision 0111).
 */
function encodeBody(
  rows: QueryRows,
  indices: ArrayLike<number>,
  ids: ArrayLike<number>,
  minTs: number,
  strings: BlockStrings,
  clients: BlockClients,
  body: ByteWriter,
): void {
  const { ts, qname, qtype, rcode, clientIp, info: infoOf, flags, responseMs } = rows;
  const infos = clients.infos;
  let lastClient = -1;
  let lastEntry = -1;
  let lastId = ids[0];
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    // Table numbers first: a new string grows the table, not the body.
    const name = strings.ofNumber(qname[i]);
    const type = strings.ofNumber(qtype[i]);
    const code = strings.ofNumber(rcode[i]);
    // Consecutive queries mostly come from one client.
    const client = clientIp[i];
    const info = infoOf[i];
    if (client !== lastClient || infos[lastEntry] !== info) {
      lastEntry = clients.entry(client, info);
      lastClient = client;
    }
    const buf = body.room(MAX_ROW_BYTES);
    let at = putVarint(buf, body.length, ts[i] - minTs);
    at = putVarint(buf, at, ids[k] - lastId);
    lastId = ids[k];
    at = putVarint(buf, at, name);
    at = putVarint(buf, at, type);
    at = putVarint(buf, at, code);
    at = putVarint(buf, at, lastEntry);
    buf[at++] = flags[i];
    body.length = putVarint(buf, at, Math.round(responseMs[i] * 1000));
  }
}

const sameInfo = (a: IpInfo, b: IpInfo): boolean =>
  a === b || (a.country === b.country && a.asn === b.asn && a.asOrg === b.asOrg);

/** The rows of a block, in the order they were written, with their ids. */
export function decodeBlock(meta: BlockMeta, data: Uint8Array): StoredRow[] {
  const r = new ByteReader(data);
  const version = r.byte();
  if (version !== VERSION) throw new Error(`query-log block format ${version} is not known`);
  const table: string[] = new Array(r.varint());
  for (let i = 0; i < table.length; i++) table[i] = r.string();
  const clients: Array<{ ip: string; country: string; asn: string; asOrg: string }> = new Array(r.varint());
  for (let i = 0; i < clients.length; i++)
    clients[i] = {
      ip: table[r.varint()],
      country: table[r.varint()],
      asn: table[r.varint()],
      asOrg: table[r.varint()],
    };
  const rows: StoredRow[] = new Array(meta.count);
  let id = meta.firstId;
  for (let i = 0; i < meta.count; i++) {
    const ts = meta.minTs + r.varint();
    id += r.varint();
    const qname = table[r.varint()];
    const qtype = table[r.varint()];
    const rcode = table[r.varint()];
    const client = clients[r.varint()];
    const flags = r.byte();
    const responseMs = r.varint() / 1000;
    rows[i] = {
      id: String(id),
      ts,
      accountId: meta.accountId,
      domain: meta.domain,
      qname,
      qtype,
      rcode,
      clientIp: client.ip,
      country: client.country,
      asn: client.asn,
      asOrg: client.asOrg,
      transport: flags & TCP ? 'tcp' : 'udp',
      dnssecOk: (flags & DO) !== 0,
      edns: (flags & EDNS) !== 0,
      responseMs,
    };
  }
  return rows;
}

interface OpenBlock {
  accountId: number;
  domain: string;
  domainNumber: number;
  /** Its place in the order blocks were opened. */
  number: number;
  /** Its rows so far, and where its row indices start in the batch's grouped order (blocksOf). */
  count: number;
  start: number;
  minTs: number;
  maxTs: number;
}

/** Per row of a batch: the number of the block it goes to (module scratch, reused; blocksOf is synchronous). */
let blockOfRow = new Int32Array(16 * 1024);
/** The batch's row indices grouped by block, in row order within each. */
let grouped = new Uint32Array(16 * 1024);

/**
 * Cuts appended rows into blocks, one per account and domain (more when a block would
 * pass MAX_BLOCK_ROWS or MAX_BLOCK_SPAN_MS). Rows get the ids firstId, firstId + 1, … in
 * the order given, so ids follow the order of the append across domains too.
 */
export function blocksOf(given: readonly QueryRow[] | QueryRows, firstId: number): BlockDraft[] {
  const rows = asQueryRows(given);
  const n = rows.count;
  if (blockOfRow.length < n) {
    blockOfRow = new Int32Array(n);
    grouped = new Uint32Array(n);
  }
  // Account -> domain number -> the block being filled (no key string built per row).
  const open = new Map<number, Map<number, OpenBlock>>();
  /** Every block, in the order it was opened (its number); and the order blocks are stored in. */
  const blocks: OpenBlock[] = [];
  const done: OpenBlock[] = [];
  // Consecutive rows mostly go to the block the row before went to: no map lookup then.
  let b: OpenBlock | undefined;
  /** Whether each block's rows are side by side so far, blocks in the order opened (one busy domain): no grouping needed. */
  let inOrder = true;
  let current = -1;
  for (let i = 0; i < n; i++) {
    const accountId = rows.accountId[i];
    const domain = rows.domain[i];
    const ts = rows.ts[i];
    if (!b || b.accountId !== accountId || b.domainNumber !== domain) {
      let domains = open.get(accountId);
      if (!domains) open.set(accountId, (domains = new Map()));
      b = domains.get(domain);
    }
    if (b && (b.count >= MAX_BLOCK_ROWS || Math.max(b.maxTs, ts) - Math.min(b.minTs, ts) > MAX_BLOCK_SPAN_MS)) {
      done.push(b);
      b = undefined;
    }
    if (!b) {
      const number = blocks.length;
      b = {
        accountId,
        domain: rows.strings[domain],
        domainNumber: domain,
        number,
        count: 0,
        start: 0,
        minTs: ts,
        maxTs: ts,
      };
      blocks.push(b);
      open.get(accountId)!.set(domain, b);
    }
    if (b.number !== current) {
      // Back to a block that has rows already: its rows are not side by side.
      if (b.count > 0) inOrder = false;
      current = b.number;
    }
    blockOfRow[i] = b.number;
    b.count++;
    if (ts < b.minTs) b.minTs = ts;
    if (ts > b.maxTs) b.maxTs = ts;
  }
  for (const domains of open.values()) for (const o of domains.values()) done.push(o);
  // Row indices grouped by block (a counting sort, stable), then each block encoded from its slice.
  let at = 0;
  for (const o of blocks) {
    o.start = at;
    at += o.count;
  }
  if (inOrder) for (let i = 0; i < n; i++) grouped[i] = i;
  else {
    const fill = blocks.map((o) => o.start);
    for (let i = 0; i < n; i++) grouped[fill[blockOfRow[i]]++] = i;
  }
  return done.map((o) => {
    const indices = grouped.subarray(o.start, o.start + o.count);
    return {
      accountId: o.accountId,
      domain: o.domain,
      minTs: o.minTs,
      maxTs: o.maxTs,
      firstId: firstId + indices[0],
      count: o.count,
      // Ids are firstId + index: the indices serve as ids (stored as deltas).
      data: encodeRows(rows, indices, indices, o.minTs),
    };
  });
}

/** A block of the given rows of one account and domain, keeping their ids (pruning rewrites the block a cutoff falls in). */
export function blockOfStoredRows(stored: readonly StoredRow[]): BlockDraft {
  const rows = QueryRows.of(stored);
  const ids = stored.map((r) => Number(r.id));
  const indices = ids.map((_, i) => i);
  const minTs = Math.min(...stored.map((r) => r.ts));
  const maxTs = Math.max(...stored.map((r) => r.ts));
  return {
    accountId: stored[0].accountId,
    domain: stored[0].domain,
    minTs,
    maxTs,
    firstId: ids[0],
    count: stored.length,
    data: encodeRows(rows, indices, ids, minTs),
  };
}
