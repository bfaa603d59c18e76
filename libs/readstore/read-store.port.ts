/**
 * The read-store port: a small, MongoDB-shaped subset (filter documents, update
 * operators, upserts, sort, limit) so projections and queries are written once and
 * run on MongoDB in production and on the embedded engine by default.
 */
export type Doc = { _id: string | number; [key: string]: any };
export type Filter = Record<string, any>;
export type Update = Record<string, any>;
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  limit?: number;
  skip?: number;
  projection?: Record<string, 0 | 1>;
}

export interface UpdateOptions {
  upsert?: boolean;
  /**
   * With `upsert` on a filter of `_id` alone: the caller knows that no document under that
   * `_id` can exist, or only one of this very content (a document keyed by an event, written
   * at the event's first delivery). A store may then write without first looking for it (the
   * result reports an insert); one that cannot use the hint ignores it.
   */
  unseen?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
}

export type BulkOp<T extends Doc = Doc> =
  | { insertOne: { document: T } }
  | { updateOne: { filter: Filter; update: Update; upsert?: boolean } }
  | { updateMany: { filter: Filter; update: Update } }
  | { replaceOne: { filter: Filter; replacement: T; upsert?: boolean } }
  | { deleteOne: { filter: Filter } }
  | { deleteMany: { filter: Filter } };

export interface IndexOptions {
  unique?: boolean;
  /**
   * A TTL index (one Date field): MongoDB deletes a document this many seconds after
   * the time in that field. The embedded store keeps the index as a plain one; the
   * retention job deletes its expired documents on schedule (libs/retention).
   */
  expireAfterSeconds?: number;
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  findOne(filter: Filter, options?: FindOptions): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter?: Filter): Promise<number>;
  insertOne(document: T): Promise<void>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  replaceOne(filter: Filter, replacement: T, options?: UpdateOptions): Promise<UpdateResult>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  bulkWrite(ops: BulkOp<T>[]): Promise<void>;
  createIndex(keys: Record<string, 1 | -1>, options?: IndexOptions): Promise<void>;
}

export interface ReadStore {
  readonly kind: 'embedded' | 'mongodb';
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  listCollections(): Promise<string[]>;
  dropCollection(name: string): Promise<void>;
  /** Makes every acknowledged write durable (a no-op where writes already are). */
  flush(): Promise<void>;
  /**
   * Resolves once every write made so far is committed where other processes read it,
   * without hurrying a batching store (at once where acknowledged writes already are).
   */
  committed(): Promise<void>;
  /** Stores that keep documents in memory call `listener` when they notice another process's commit. */
  onCommitElsewhere?(listener: () => void): void;
  /** Such stores look for other processes' commits again before the next read (the caller knows of one). */
  lookAgain?(): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('READ_STORE');

/** Same code and shape as MongoDB's E11000 so callers handle both adapters alike. */
export class DuplicateKeyError extends Error {
  readonly code = 11000;
  constructor(collection: string, key: string) {
    super(`E11000 duplicate key error collection: ${collection} dup key: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}

export const isDuplicateKeyError = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 11000;
