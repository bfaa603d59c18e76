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

/** Queries per block at most (a writer batch is 2,000). */
export const MAX_BLOCK_ROWS = 4096;
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

/** A growable byte buffer written with varints and UTF-8 strings. */
class ByteWriter {
  private buf: Buffer;
  length = 0;

  // Small by default: a block of a quiet domain holds a few rows; doubling is cheap.
  constructor(initialBytes = 256) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  /** Non-negative integers up to 2^53, seven bits a byte, low bits first. */
  varint(v: number): void {
    this.room(8);
    const buf = this.buf;
    let at = this.length;
    while (v >= 0x80) {
      buf[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[at++] = v;
    this.length = at;
  }

  byte(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }

  string(s: string): void {
    this.room(5 + 3 * s.length);
    const at = this.length;
    // Length first: written after the bytes, as a varint of at most 3 bytes (block strings are short).
    const bytes = this.buf.write(s, at + 3, 'utf8');
    if (bytes >= 0x200000) throw new Error('string too long for a query-log block');
    this.buf[at] = (bytes & 0x7f) | 0x80;
    this.buf[at + 1] = ((bytes >> 7) & 0x7f) | 0x80;
    this.buf[at + 2] = bytes >> 14;
    this.length = at + 3 + bytes;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
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
  /** Per table number: the block number + 1 when `stamp` holds this block's generation (module scratch, reused). */
  private static local = new Int32Array(1024);
  private static stamp = new Uint32Array(1024);
  private static generation = 0;
  readonly out = new ByteWriter();
  size = 0;
  private readonly byText = new Map<string, number>();
  private readonly generation: number;

  constructor(private readonly table: readonly string[]) {
    BlockStrings.generation = (BlockStrings.generation + 1) >>> 0;
    if (BlockStrings.generation === 0) {
      // Wrapped: stamps of 4 billion blocks ago must not pass for this block's.
      BlockStrings.stamp.fill(0);
      BlockStrings.generation = 1;
    }
    this.generation = BlockStrings.generation;
    if (BlockStrings.local.length < table.length) {
      const length = Math.max(table.length, 2 * BlockStrings.local.length);
      BlockStrings.local = new Int32Array(length);
      BlockStrings.stamp = new Uint32Array(length);
    }
  }

  ofNumber(n: number): number {
    const stamp = BlockStrings.stamp;
    if (stamp[n] === this.generation) return BlockStrings.local[n];
    stamp[n] = this.generation;
    return (BlockStrings.local[n] = this.add(this.table[n]));
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
 * Encodes one block: the rows at `indices` of `rows` (all of one account and domain), with
 * the ids `ids`. Country and network follow from the client address, so a row refers to
 * one client entry (address, country, ASN, organisation) rather than to four strings.
 */
function encodeRows(rows: QueryRows, indices: ArrayLike<number>, ids: ArrayLike<number>, minTs: number): Buffer {
  const strings = new BlockStrings(rows.strings);
  const clientTable = new ByteWriter();
  // A query takes about 8-12 bytes: room for most blocks at once.
  const body = new ByteWriter(16 * indices.length + 64);
  // Client entry per address number (-1: none yet), and each entry's enrichment.
  const clientOf = new Map<number, number>();
  const infos: IpInfo[] = [];
  let lastClient = -1;
  let lastEntry = -1;
  const clientRef = (client: number, info: IpInfo): number => {
    const known = clientOf.get(client);
    if (known !== undefined && sameInfo(infos[known], info)) return known;
    // New, or enriched differently (IP data updated between rows): an entry of its own.
    const entry = infos.push(info) - 1;
    clientOf.set(client, entry);
    clientTable.varint(strings.ofNumber(client));
    clientTable.varint(strings.ofText(info.country));
    clientTable.varint(strings.ofText(info.asn));
    clientTable.varint(strings.ofText(info.asOrg));
    return entry;
  };
  let lastId = ids[0];
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    body.varint(rows.ts[i] - minTs);
    body.varint(ids[k] - lastId);
    lastId = ids[k];
    body.varint(strings.ofNumber(rows.qname[i]));
    body.varint(strings.ofNumber(rows.qtype[i]));
    body.varint(strings.ofNumber(rows.rcode[i]));
    // Consecutive queries mostly come from one client.
    const client = rows.clientIp[i];
    const info = rows.info[i];
    if (client !== lastClient || infos[lastEntry] !== info) {
      lastEntry = clientRef(client, info);
      lastClient = client;
    }
    body.varint(lastEntry);
    body.byte(rows.flags[i]);
    body.varint(Math.round(rows.responseMs[i] * 1000));
  }
  const head = new ByteWriter();
  head.byte(VERSION);
  head.varint(strings.size);
  const middle = new ByteWriter();
  middle.varint(infos.length);
  return Buffer.concat([head.bytes(), strings.out.bytes(), middle.bytes(), clientTable.bytes(), body.bytes()]);
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
  /** Rows of the batch, by index. */
  indices: number[];
  minTs: number;
  maxTs: number;
}

/**
 * Cuts appended rows into blocks, one per account and domain (more when a block would
 * pass MAX_BLOCK_ROWS or MAX_BLOCK_SPAN_MS). Rows get the ids firstId, firstId + 1, … in
 * the order given, so ids follow the order of the append across domains too.
 */
export function blocksOf(given: readonly QueryRow[] | QueryRows, firstId: number): BlockDraft[] {
  const rows = asQueryRows(given);
  // Account -> domain number -> the block being filled (no key string built per row).
  const open = new Map<number, Map<number, OpenBlock>>();
  const done: BlockDraft[] = [];
  const draft = (b: OpenBlock): BlockDraft => {
    const ids = b.indices.map((i) => firstId + i);
    return {
      accountId: b.accountId,
      domain: b.domain,
      minTs: b.minTs,
      maxTs: b.maxTs,
      firstId: ids[0],
      count: ids.length,
      data: encodeRows(rows, b.indices, ids, b.minTs),
    };
  };
  // Consecutive rows mostly go to the block the row before went to: no map lookup then.
  let b: OpenBlock | undefined;
  for (let i = 0; i < rows.count; i++) {
    const accountId = rows.accountId[i];
    const domain = rows.domain[i];
    const ts = rows.ts[i];
    if (!b || b.accountId !== accountId || b.domainNumber !== domain) {
      let domains = open.get(accountId);
      if (!domains) open.set(accountId, (domains = new Map()));
      b = domains.get(domain);
    }
    if (
      b &&
      (b.indices.length >= MAX_BLOCK_ROWS || Math.max(b.maxTs, ts) - Math.min(b.minTs, ts) > MAX_BLOCK_SPAN_MS)
    ) {
      done.push(draft(b));
      b = undefined;
    }
    if (!b) {
      b = { accountId, domain: rows.strings[domain], domainNumber: domain, indices: [], minTs: ts, maxTs: ts };
      open.get(accountId)!.set(domain, b);
    }
    b.indices.push(i);
    if (ts < b.minTs) b.minTs = ts;
    if (ts > b.maxTs) b.maxTs = ts;
  }
  for (const domains of open.values()) for (const b of domains.values()) done.push(draft(b));
  return done;
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
