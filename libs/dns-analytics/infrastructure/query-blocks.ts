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
import type { QueryRow } from '../domain/query-row';

/** Format of the encoded block; the first byte. */
const VERSION = 1;

const TCP = 1;
const DO = 2;
const EDNS = 4;

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
  // Small to start: a block of a quiet domain holds a few rows; doubling is cheap.
  private buf = Buffer.allocUnsafe(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  /** Non-negative integers up to 2^53, seven bits a byte, low bits first. */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
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

/** A client address with what enrichment said of it: one entry of a block's client table. */
interface ClientEntry {
  n: number;
  country: string;
  asn: string;
  asOrg: string;
}

/**
 * Encodes one block's rows (all of one account and domain; ids increasing). Country and
 * network follow from the client address, so a row refers to one client entry (address,
 * country, ASN, organisation) rather than to four strings.
 */
function encodeRows(rows: readonly QueryRow[], ids: readonly number[], minTs: number): Buffer {
  const table = new Map<string, number>();
  const clients = new Map<string, ClientEntry>();
  const strings = new ByteWriter();
  const clientTable = new ByteWriter();
  const body = new ByteWriter();
  let clientCount = 0;
  const stringRef = (s: string): number => {
    let n = table.get(s);
    if (n === undefined) {
      n = table.size;
      table.set(s, n);
      strings.string(s);
    }
    return n;
  };
  const clientRef = (r: QueryRow): number => {
    const known = clients.get(r.clientIp);
    if (known && known.country === r.country && known.asn === r.asn && known.asOrg === r.asOrg) return known.n;
    // New, or enriched differently (IP data updated between rows): an entry of its own.
    const entry = { n: clientCount++, country: r.country, asn: r.asn, asOrg: r.asOrg };
    clients.set(r.clientIp, entry);
    clientTable.varint(stringRef(r.clientIp));
    clientTable.varint(stringRef(r.country));
    clientTable.varint(stringRef(r.asn));
    clientTable.varint(stringRef(r.asOrg));
    return entry.n;
  };
  let lastId = ids[0];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    body.varint(r.ts - minTs);
    body.varint(ids[i] - lastId);
    lastId = ids[i];
    body.varint(stringRef(r.qname));
    body.varint(stringRef(r.qtype));
    body.varint(stringRef(r.rcode));
    body.varint(clientRef(r));
    body.byte((r.transport === 'tcp' ? TCP : 0) | (r.dnssecOk ? DO : 0) | (r.edns ? EDNS : 0));
    body.varint(Math.round(r.responseMs * 1000));
  }
  const head = new ByteWriter();
  head.byte(VERSION);
  head.varint(table.size);
  const middle = new ByteWriter();
  middle.varint(clientCount);
  return Buffer.concat([head.bytes(), strings.bytes(), middle.bytes(), clientTable.bytes(), body.bytes()]);
}

/** The rows of a block, in the order they were written, with their ids. */
export function decodeBlock(meta: BlockMeta, data: Uint8Array): StoredRow[] {
  const r = new ByteReader(data);
  const version = r.byte();
  if (version !== VERSION) throw new Error(`query-log block format ${version} is not known`);
  const table: string[] = new Array(r.varint());
  for (let i = 0; i < table.length; i++) table[i] = r.string();
  const clients: Array<{ ip: string; country: string; asn: string; asOrg: string }> = new Array(r.varint());
  for (let i = 0; i < clients.length; i++) clients[i] = { ip: table[r.varint()], country: table[r.varint()], asn: table[r.varint()], asOrg: table[r.varint()] };
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
  rows: QueryRow[];
  ids: number[];
  minTs: number;
  maxTs: number;
}

const draftOf = (b: OpenBlock): BlockDraft => ({
  accountId: b.accountId,
  domain: b.domain,
  minTs: b.minTs,
  maxTs: b.maxTs,
  firstId: b.ids[0],
  count: b.rows.length,
  data: encodeRows(b.rows, b.ids, b.minTs),
});

/**
 * Cuts appended rows into blocks, one per account and domain (more when a block would
 * pass MAX_BLOCK_ROWS or MAX_BLOCK_SPAN_MS). Rows get the ids firstId, firstId + 1, … in
 * the order given, so ids follow the order of the append across domains too.
 */
export function blocksOf(rows: readonly QueryRow[], firstId: number): BlockDraft[] {
  // Account -> domain -> the block being filled (no key string built per row).
  const open = new Map<number, Map<string, OpenBlock>>();
  const done: BlockDraft[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    let domains = open.get(row.accountId);
    if (!domains) open.set(row.accountId, (domains = new Map()));
    let b = domains.get(row.domain);
    if (b && (b.rows.length >= MAX_BLOCK_ROWS || Math.max(b.maxTs, row.ts) - Math.min(b.minTs, row.ts) > MAX_BLOCK_SPAN_MS)) {
      done.push(draftOf(b));
      b = undefined;
    }
    if (!b) {
      b = { accountId: row.accountId, domain: row.domain, rows: [], ids: [], minTs: row.ts, maxTs: row.ts };
      domains.set(row.domain, b);
    }
    b.rows.push(row);
    b.ids.push(firstId + i);
    if (row.ts < b.minTs) b.minTs = row.ts;
    if (row.ts > b.maxTs) b.maxTs = row.ts;
  }
  for (const domains of open.values()) for (const b of domains.values()) done.push(draftOf(b));
  return done;
}

/** A block of the given rows of one account and domain, keeping their ids (pruning rewrites the block a cutoff falls in). */
export function blockOfStoredRows(rows: readonly StoredRow[]): BlockDraft {
  const ids = rows.map((r) => Number(r.id));
  const minTs = Math.min(...rows.map((r) => r.ts));
  const maxTs = Math.max(...rows.map((r) => r.ts));
  return { accountId: rows[0].accountId, domain: rows[0].domain, minTs, maxTs, firstId: ids[0], count: rows.length, data: encodeRows(rows, ids, minTs) };
}
