import type { QueryRow } from '../domain/query-row';
import type { QueryRows } from '../domain/query-rows';
import type { Granularity, Rollup, RollupCounts } from '../domain/rollup';

/** Where a page of the raw log continues: after this row in (ts, id) order. */
export interface LogCursor {
  ts: number;
  id: string;
}

export interface StoredRow extends QueryRow {
  /** Unique within the store, ordered with `ts` for keyset paging. */
  id: string;
}

export interface RawFilter {
  accountId: number;
  /** Exact domain (zone or host) or null for every domain of the account. */
  domain: string | null;
}

/**
 * The query log's storage: raw rows for the recent-queries and export views and the hourly
 * and daily rollups summaries read. Telemetry, not domain events: nothing here goes
 * through the event store. Embedded: SQLite in its own file; production: MongoDB.
 */
export interface QueryLogStore {
  /**
   * Stores the rows and adds `rollups` (by default the rows' own) in one transaction. The
   * writer passes the rollups it accumulated over the last second instead, so a busy bucket
   * is rewritten once a second rather than once per batch.
   */
  append(rows: readonly QueryRow[] | QueryRows, rollups?: Rollup[]): Promise<void>;
  /** Adds pre-built rollups (history imports, benchmarks seeding a year of data). */
  addRollups(rollups: Rollup[]): Promise<void>;
  /** The sum of the account's (or one domain's) buckets with `from <= start <= to`. */
  sumRollups(
    accountId: number,
    domain: string,
    granularity: Granularity,
    from: number,
    to: number,
  ): Promise<RollupCounts>;
  /** Newest first, at or after `since`. */
  recent(filter: RawFilter, since: number, limit: number): Promise<StoredRow[]>;
  /** Oldest first, `from <= ts < to`, strictly after `after`: export pages. */
  page(filter: RawFilter, from: number, to: number, after: LogCursor | null, limit: number): Promise<StoredRow[]>;
  /** Drops raw rows before `rawBefore`, hourly buckets before `hourlyBefore`, daily before `dailyBefore`. */
  prune(rawBefore: number, hourlyBefore: number, dailyBefore: number): Promise<{ rows: number; rollups: number }>;
  close(): Promise<void>;
}

export const QUERY_LOG_STORE = Symbol('QUERY_LOG_STORE');
