/**
 * What the query-log writer stores from one delivery of its queue: the queries as
 * QueryRows, in order of receipt, attributed and enriched. Chunks drained from the rings
 * become columns without an object per query: their strings keep the numbers the drain
 * gave them, and an account id or an address is parsed or looked up once per run of
 * queries that repeat it.
 */
import type { IpInfo, QueryRow } from '../domain/query-row';
import { QueryRows } from '../domain/query-rows';
import {
  ACCOUNT,
  CLIENT,
  columnsOf,
  DeferredColumns,
  DOMAIN,
  FLAGS,
  NAME,
  RCODE,
  TYPE,
  U32_COLUMNS,
  type LoggedQuery,
} from './query-batch';

export interface Enricher {
  ready(): Promise<void>;
  lookup(ip: string): IpInfo;
}

/** A dual-stack socket reports IPv4 clients as `::ffff:a.b.c.d`; they are IPv4 clients. */
const unmapped = (ip: string): string => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);

/**
 * Answered queries of a query's account, enriched. Queries that belong to no account
 * (REFUSED outside the served zones, unreadable packets) have no one to show them to and
 * are only counted in /metrics.
 */
export function toRow(q: LoggedQuery, info: IpInfo): QueryRow | null {
  if (q.accountId === null || q.domain === null) return null;
  const accountId = Number(q.accountId);
  if (!Number.isSafeInteger(accountId)) return null;
  return {
    ts: Math.round(q.timestamp),
    accountId,
    domain: q.domain,
    qname: q.name,
    qtype: q.type,
    rcode: q.rcode,
    clientIp: unmapped(q.clientIp),
    country: info.country,
    asn: info.asn,
    asOrg: info.asOrg,
    transport: q.transport,
    dnssecOk: q.dnssecOk,
    edns: q.edns,
    responseMs: Math.round(q.durationMs * 1000) / 1000,
  };
}

/**
 * The delivery's queries as row batches: one per run of items that share a string table
 * (a table starts afresh every 100,000 strings) or are objects. Within a batch rows are
 * put in order of receipt across threads, so that ids (the tie-break within a millisecond)
 * follow the order clients asked in; as across deliveries, a query answered late (TCP) may
 * get its id after a later one's where a table starts afresh. The rows of chunks are scratch,
 * valid until the next call (the writer stores them before it takes its next delivery); the
 * chunks' buffers go back to the drains.
 */
export function deliveredRows(items: ReadonlyArray<LoggedQuery | DeferredColumns>, enricher: Enricher): QueryRows[] {
  const out: QueryRows[] = [];
  for (let i = 0; i < items.length;) {
    let j = i + 1;
    const first = items[i];
    if (first instanceof DeferredColumns) {
      while (j < items.length && (items[j] as DeferredColumns).table === first.table) j++;
      out.push(rowsOfChunks(items.slice(i, j) as DeferredColumns[], enricher, out.length));
    } else {
      while (j < items.length && !(items[j] instanceof DeferredColumns)) j++;
      out.push(rowsOfObjects(items.slice(i, j) as LoggedQuery[], enricher));
    }
    i = j;
  }
  return out;
}

function rowsOfObjects(queries: LoggedQuery[], enricher: Enricher): QueryRows {
  const rows: QueryRow[] = [];
  for (const q of [...queries].sort((a, b) => a.timestamp - b.timestamp)) {
    const row = toRow(q, enricher.lookup(q.clientIp));
    if (row) rows.push(row);
  }
  return QueryRows.of(rows);
}

/**
 * The delivery's chunks side by side, reused from delivery to delivery (rowsOfChunks and
 * receiptOrder are synchronous; the rows they make are new columns): a second of queries is
 * megabytes, which fresh typed arrays would zero and the allocator map anew every time.
 */
const joined = {
  ts: new Float64Array(0),
  duration: new Float64Array(0),
  u32: new Uint32Array(0),
  from: new Uint32Array(0),
  to: new Uint32Array(0),
};

function joinedFor(n: number): typeof joined {
  if (joined.ts.length < n) {
    const capacity = Math.max(n, 2 * joined.ts.length);
    joined.ts = new Float64Array(capacity);
    joined.duration = new Float64Array(capacity);
    joined.u32 = new Uint32Array(capacity * U32_COLUMNS);
    joined.from = new Uint32Array(capacity);
    joined.to = new Uint32Array(capacity);
  }
  return joined;
}

/**
 * The rows a delivery makes, reused from delivery to delivery: a second of queries is a few
 * MB of columns and an array of 65,536 references, which fresh would be zeroed and mapped by
 * the kernel, then collected, every second. One per batch of the delivery (a delivery makes
 * more than one only where a string table starts afresh).
 */
const rowsScratch: QueryRows[] = [];

function scratchRows(slot: number, n: number, table: readonly string[]): QueryRows {
  const held = rowsScratch[slot];
  const rows = held && held.capacity >= n ? held : new QueryRows(Math.max(n, 2 * (held?.capacity ?? 0)), table);
  rowsScratch[slot] = rows;
  return rows.reuse(table);
}

function rowsOfChunks(drained: DeferredColumns[], enricher: Enricher, slot: number): QueryRows {
  // Each ring's chunks side by side (a stable sort: in the order drained): a ring's queries are
  // mostly in order across its chunks, so the merge sees one run per ring, not one per drain.
  const chunks = bySource(drained);
  const n = chunks.reduce((sum, c) => sum + c.count, 0);
  const { ts, duration, u32 } = joinedFor(n);
  let at = 0;
  for (const chunk of chunks) {
    const c = columnsOf(chunk.buffer);
    ts.set(c.ts.subarray(0, chunk.count), at);
    duration.set(c.duration.subarray(0, chunk.count), at);
    u32.set(c.u32.subarray(0, chunk.count * U32_COLUMNS), at * U32_COLUMNS);
    at += chunk.count;
    // Copied: the chunk's buffer serves the next drains.
    chunk.release();
  }
  const order = receiptOrder(ts.subarray(0, n));
  const table = chunks[0].table;
  const rows = scratchRows(slot, n, table);
  rows.count = gather(rows, order, n, table, enricher);
  return rows;
}

/**
 * The joined columns into `rows`, in `order` (null: as they are); returns how many rows. Its own
 * function, ending with its loop: the optimizer compiles the loop while it runs (on-stack), and
 * code after it that had not run yet sent every later call back to the interpreter at that
 * point ("insufficient type feedback"), a recompilation per delivery (decision 0111).
 */
function gather(
  rows: QueryRows,
  order: Uint32Array | null,
  n: number,
  table: readonly string[],
  enricher: Enricher,
): number {
  const { ts, duration, u32 } = joined;
  let lastAccount = -1;
  let accountId = NaN;
  let lastClient = -1;
  let info: IpInfo | undefined;
  // A UDP batch's queries share one answer time.
  let lastDuration = NaN;
  let responseMs = 0;
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = order ? order[k] : k;
    const at = i * U32_COLUMNS;
    if (u32[at + ACCOUNT] !== lastAccount) {
      lastAccount = u32[at + ACCOUNT];
      accountId = Number(table[lastAccount]);
    }
    if (!Number.isSafeInteger(accountId)) continue;
    const client = u32[at + CLIENT];
    if (client !== lastClient || !info) {
      // The drain already logs IPv4-mapped addresses as IPv4 (query-ring.ts).
      info = enricher.lookup(table[client]);
      lastClient = client;
    }
    rows.ts[m] = Math.round(ts[i]);
    if (duration[i] !== lastDuration) {
      lastDuration = duration[i];
      responseMs = Math.round(lastDuration * 1000) / 1000;
    }
    rows.responseMs[m] = responseMs;
    rows.accountId[m] = accountId;
    rows.domain[m] = u32[at + DOMAIN];
    rows.qname[m] = u32[at + NAME];
    rows.qtype[m] = u32[at + TYPE];
    rows.rcode[m] = u32[at + RCODE];
    rows.clientIp[m] = client;
    rows.flags[m] = u32[at + FLAGS];
    rows.info[m] = info;
    m++;
  }
  return m;
}

function bySource(chunks: DeferredColumns[]): DeferredColumns[] {
  for (let i = 1; i < chunks.length; i++)
    if (chunks[i].source < chunks[i - 1].source) return [...chunks].sort((a, b) => a.source - b.source);
  return chunks;
}

/**
 * Indices in order of time, stable; null when already in order. Each chunk is mostly in
 * order (one answering thread's receipts; TCP queries are recorded when answered), so this
 * merges the ascending runs pairwise (natural merge sort): a few passes over typed arrays,
 * no comparator calls. The indices are scratch, valid until the next call.
 */
export function receiptOrder(ts: Float64Array): Uint32Array | null {
  const n = ts.length;
  // Run boundaries: starts of every ascending run, then n.
  const bounds: number[] = [0];
  for (let i = 1; i < n; i++) if (ts[i] < ts[i - 1]) bounds.push(i);
  if (bounds.length === 1) return null;
  bounds.push(n);
  let from = joinedFor(n).from;
  let to = joined.to;
  for (let i = 0; i < n; i++) from[i] = i;
  let runs = bounds;
  while (runs.length > 2) {
    const merged: number[] = [0];
    for (let r = 0; r + 1 < runs.length; r += 2) {
      const lo = runs[r];
      const mid = runs[r + 1];
      const hi = r + 2 < runs.length ? runs[r + 2] : mid;
      let a = lo;
      let b = mid;
      let out = lo;
      // Ties take the left run's index first: earlier chunks keep their place.
      while (a < mid && b < hi) to[out++] = ts[from[b]] < ts[from[a]] ? from[b++] : from[a++];
      while (a < mid) to[out++] = from[a++];
      while (b < hi) to[out++] = from[b++];
      merged.push(hi);
    }
    [from, to] = [to, from];
    runs = merged;
  }
  return from.subarray(0, n);
}
