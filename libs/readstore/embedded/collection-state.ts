/**
 * What the embedded read store keeps about each collection whose table exists, shared by
 * the collection (which reads and decides writes) and the store (which commits them).
 */
import Database from 'better-sqlite3';
import { Doc } from '../read-store.port';
import { DocumentCache } from './document-cache';
import { fieldPath } from './filter-evaluation';
import { CatalogueIndex } from './read-model-database';
import { Key } from './sql-filter';

/** What a collection that exists on disk knows about itself. */
export interface CollectionState {
  id: number;
  table: string;
  indexes: CatalogueIndex[];
  /** Every field some index covers. */
  indexed: Set<string>;
  multikey: Set<string>;
  statements: Map<string, Database.Statement>;
  /** The read of one document by key (every cache miss), prepared once: not looked up by its SQL text each time. */
  pointRead?: Database.Statement;
  /**
   * Writes the writer thread has not committed yet, by key (null: deleted). They
   * override the table: queries skip these keys' rows and test these documents instead.
   */
  overlay: Map<Key, Pending<Doc>>;
  /**
   * For `findOne({field: value})` on an indexed field, the key of the document found
   * (null: none), by field and value; entries go when a write touches that value.
   */
  lookups: Map<string, Map<string, Key | null>>;
}

/** A write on its way to the disk. */
export interface Pending<T> {
  doc: T | null;
  /**
   * The number of its newest write op (the store numbers ops in the order made): it
   * leaves the overlay when the batch holding that op is on disk, not an earlier one.
   */
  op: number;
  /** About the size of its JSON (document-size.ts): what the store's byte bounds count. */
  bytes: number;
  /**
   * Whether the document goes into the cache once on disk: only when it replaced one that
   * was there (an update, which read it). A new document (an audit entry, a log row) is
   * mostly written once and never read again; caching every insert filled the cache with
   * those and pushed out the documents updated all day (found by the soak benchmark).
   */
  recache: boolean;
}

/** A plain value as a map key that keeps 1 and "1" apart. */
export const valueKey = (v: string | number): string => (typeof v === 'string' ? `s${v}` : `n${v}`);

/** Whether any step of `field`'s path in `doc` is an array. */
export function touchesArray(doc: unknown, field: string): boolean {
  let v: any = doc;
  for (const segment of fieldPath(field)) {
    if (v === null || typeof v !== 'object') return false;
    v = v[segment];
    if (Array.isArray(v)) return true;
  }
  return false;
}

/** What a collection needs from the store that owns it. */
export interface CollectionHost {
  readonly db: Database.Database;
  readonly cache: DocumentCache<Doc>;
  createTable(name: string): CollectionState;
  /** Runs a catalogue or schema change in one transaction of this store. */
  commitHere<R>(change: () => R): R;
  /** Drops what other processes' commits made stale; at most one check per event-loop turn. */
  noticeOtherProcesses(): void;
  markMultikey(state: CollectionState, field: string): void;
  /** Makes `doc` (null: deleted) the document under `key` in place of `previous`; `uncached`: the caller saw it is not cached. */
  write(state: CollectionState, key: Key, doc: Doc | null, previous: Doc | null, uncached?: boolean): void;
  /**
   * Writers wait here while too many writes are pending: a promise only then, so the usual
   * write awaits nothing (each promise also runs the async-context hooks).
   */
  keepUp(): Promise<void> | undefined;
  flush(): Promise<void>;
}
