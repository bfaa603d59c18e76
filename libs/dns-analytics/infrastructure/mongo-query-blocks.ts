/**
 * The MongoDB query log's documents and queries, apart from the connection so they can be
 * checked without a server: block documents (BSON mapping of query-blocks.ts' drafts),
 * their indexes, the filters of each read, and the former one-document-per-query layout.
 */
import { Binary, ObjectId, type Filter, type IndexDescription } from 'mongodb';
import type { LogCursor, RawFilter, StoredRow } from '../application/query-log.store';
import { isLegacyRowId, type BlockRange } from './block-reads';
import type { BlockDraft, BlockMeta } from './query-blocks';

export const BLOCKS_COLLECTION = 'dns_query_blocks';
/** The id counter (and any later per-store settings): one small document per key. */
export const META_COLLECTION = 'dns_query_log_meta';
/** The former layout: one document per query. Read until retention empties it, then dropped. */
export const LEGACY_COLLECTION = 'dns_query_log';

/** One block of raw rows of one account's domain (query-blocks.ts encoding in `data`). */
export interface BlockDoc {
  _id: ObjectId;
  account_id: number;
  domain: string;
  min_ts: number;
  max_ts: number;
  first_id: number;
  count: number;
  data: Binary;
}

/** `value`: the highest row id handed out so far. */
export interface CounterDoc {
  _id: string;
  value: number;
}

export const ROW_ID_COUNTER = 'last_row_id';

/**
 * The SQLite store's indexes, one entry per block: oldest first (export pages) and newest
 * first (recent queries), by account or by domain. MongoDB has no skip scan, so retention
 * gets its own index on time alone; per block, not per query, it costs little.
 */
export const BLOCK_INDEXES: IndexDescription[] = [
  { key: { account_id: 1, min_ts: 1, max_ts: 1 }, name: 'account_start' },
  { key: { account_id: 1, max_ts: 1 }, name: 'account_end' },
  { key: { account_id: 1, domain: 1, min_ts: 1, max_ts: 1 }, name: 'domain_start' },
  { key: { account_id: 1, domain: 1, max_ts: 1 }, name: 'domain_end' },
  { key: { min_ts: 1, max_ts: 1 }, name: 'age' },
];

/** A writer's block as a new document (the server adds no field: `_id` is made here). */
export function blockDoc(b: BlockDraft): BlockDoc {
  return { _id: new ObjectId(), ...blockFields(b) };
}

/** Everything of a block but its document id: what retention's rewrite sets. */
export function blockFields(b: BlockDraft): Omit<BlockDoc, '_id'> {
  return {
    account_id: b.accountId,
    domain: b.domain,
    min_ts: b.minTs,
    max_ts: b.maxTs,
    first_id: b.firstId,
    count: b.count,
    data: new Binary(b.data),
  };
}

export function blockMeta(d: Omit<BlockDoc, '_id' | 'data'>): BlockMeta {
  return {
    accountId: d.account_id,
    domain: d.domain,
    minTs: d.min_ts,
    maxTs: d.max_ts,
    firstId: d.first_id,
    count: d.count,
  };
}

/** The encoded bytes, without a copy. */
export const blockBytes = (d: Pick<BlockDoc, 'data'>): Uint8Array => d.data.value();

/** The first id of `n` just reserved, given the counter after the increment. */
export const firstReservedId = (counterAfter: number, n: number): number => counterAfter - n + 1;

const owner = (f: RawFilter) =>
  f.domain === null ? { account_id: f.accountId } : { account_id: f.accountId, domain: f.domain };

export function inRange(r: BlockRange) {
  return { min_ts: { $gte: r.minTsFrom, $lt: r.minTsBelow }, max_ts: { $gte: r.maxTsFrom } };
}

/** Recent queries: the owner's blocks holding a row at or after `since`, walked by max_ts descending. */
export function recentBlocksFilter(f: RawFilter, since: number): Filter<BlockDoc> {
  return { ...owner(f), max_ts: { $gte: since } };
}

/** Export pages: the owner's blocks in the range, walked by min_ts ascending. */
export function pageBlocksFilter(f: RawFilter, range: BlockRange): Filter<BlockDoc> {
  return { ...owner(f), ...inRange(range) };
}

/** Blocks wholly before the cutoff (min_ts too, so the `age` index bounds the scan). */
export function expiredBlocksFilter(cutoff: number): Filter<BlockDoc> {
  return { min_ts: { $lt: cutoff }, max_ts: { $lt: cutoff } };
}

/** A row of the former layout, as its adapter wrote it. */
export interface LegacyRowDoc {
  _id: ObjectId;
  ts: number;
  account_id: number;
  domain: string;
  qname: string;
  qtype: string;
  rcode: string;
  client_ip: string;
  country: string;
  asn: string;
  as_org: string;
  transport: 'udp' | 'tcp';
  dnssec_ok: boolean;
  edns: boolean;
  response_ms: number;
}

/** Its id is the ObjectId's hex: block-reads' compareRowIds orders those before every block row. */
export const legacyRow = (d: LegacyRowDoc): StoredRow => ({
  id: d._id.toHexString(),
  ts: d.ts,
  accountId: d.account_id,
  domain: d.domain,
  qname: d.qname,
  qtype: d.qtype,
  rcode: d.rcode,
  clientIp: d.client_ip,
  country: d.country,
  asn: d.asn,
  asOrg: d.as_org,
  transport: d.transport,
  dnssecOk: d.dnssec_ok,
  edns: d.edns,
  responseMs: d.response_ms,
});

export function legacyRecentFilter(f: RawFilter, since: number): Filter<LegacyRowDoc> {
  return { ...owner(f), ts: { $gte: since } };
}

/**
 * Former rows of an export page: from `from` (or strictly after the cursor) to `to`. A
 * cursor on a block row (a decimal id) lies after every former row of its millisecond.
 */
export function legacyPageFilter(
  f: RawFilter,
  from: number,
  to: number,
  after: LogCursor | null,
): Filter<LegacyRowDoc> {
  if (!after || after.ts < from) return { ...owner(f), ts: { $gte: from, $lt: to } };
  const later = { ts: { $gt: after.ts, $lt: to } };
  if (!isLegacyRowId(after.id) || after.ts >= to) return { ...owner(f), ...later };
  return { ...owner(f), $or: [later, { ts: after.ts, _id: { $gt: ObjectId.createFromHexString(after.id) } }] };
}
