import { AnyBulkWriteOperation, Db, MongoClient, MongoServerError, Collection as MongoCollection } from 'mongodb';
import {
  BulkOp,
  Collection,
  Doc,
  Filter,
  FindOptions,
  IndexOptions,
  ReadStore,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../read-store.port';

const counts = (r: { matchedCount: number; modifiedCount: number; upsertedCount: number }): UpdateResult => ({
  matchedCount: r.matchedCount,
  modifiedCount: r.modifiedCount,
  upsertedCount: r.upsertedCount,
});

/**
 * The port was cut from MongoDB's API, so each call passes straight through; the
 * driver's E11000 errors already carry `code: 11000`, which `isDuplicateKeyError` checks.
 */
class MongoReadCollection<T extends Doc> implements Collection<T> {
  constructor(private readonly c: MongoCollection<Doc>) {}

  get name(): string {
    return this.c.collectionName;
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<T | null> {
    return (await this.c.findOne(filter, options)) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return (await this.c.find(filter, options).toArray()) as unknown as T[];
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return this.c.countDocuments(filter);
  }

  async insertOne(document: T): Promise<void> {
    // The driver writes a generated `_id` back into the argument; callers keep their object unchanged.
    await this.c.insertOne({ ...document });
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return counts(await this.c.updateOne(filter, update, { upsert: options.upsert ?? false }));
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return counts(await this.c.updateMany(filter, update));
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    return counts(await this.c.replaceOne(filter, replacement, { upsert: options.upsert ?? false }));
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await this.c.deleteOne(filter)).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.c.deleteMany(filter)).deletedCount;
  }

  async bulkWrite(ops: BulkOp<T>[]): Promise<void> {
    if (ops.length === 0) return;
    // Ordered, like the embedded store: operations apply in sequence and stop at the first error.
    await this.c.bulkWrite(ops as AnyBulkWriteOperation<Doc>[], { ordered: true });
  }

  async createIndex(keys: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    await this.c.createIndex(keys, {
      unique: options.unique ?? false,
      ...(options.expireAfterSeconds === undefined ? {} : { expireAfterSeconds: options.expireAfterSeconds }),
    });
  }
}

const NAMESPACE_NOT_FOUND = 26;

export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb' as const;

  private constructor(
    private readonly client: MongoClient,
    readonly db: Db,
  ) {}

  /** Connects eagerly so a wrong URL fails at start, not on the first request. `dbName` overrides the URL's database. */
  static async connect(url: string, dbName?: string): Promise<MongoReadStore> {
    const client = new MongoClient(url);
    await client.connect();
    return new MongoReadStore(client, client.db(dbName));
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoReadCollection<T>(this.db.collection<Doc>(name));
  }

  async listCollections(): Promise<string[]> {
    const infos = await this.db.listCollections({}, { nameOnly: true }).toArray();
    return infos.map((i) => i.name).filter((n) => !n.startsWith('system.'));
  }

  async dropCollection(name: string): Promise<void> {
    try {
      await this.db.dropCollection(name);
    } catch (e) {
      // Servers before 7.0 report dropping a missing collection as an error; the outcome is the same.
      if (!(e instanceof MongoServerError && e.code === NAMESPACE_NOT_FOUND)) throw e;
    }
  }

  async flush(): Promise<void> {
    // Acknowledged writes are already durable per the connection's write concern.
  }

  async committed(): Promise<void> {
    // Acknowledged writes are visible to every client at once.
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /** Drops the whole database; for tests that create a throw-away one. */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
