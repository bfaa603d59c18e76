import { Doc, isDuplicateKeyError, ReadStore } from '../readstore/read-store.port';
import { Coordination, PendingTimer, RecordChange } from './coordination';

interface LeaseDoc extends Doc {
  _id: string;
  holder: string;
  expires_at: number;
}
interface PositionDoc extends Doc {
  _id: string;
  position: string | null;
  updated_at: number;
}
interface GenerationDoc extends Doc {
  _id: string;
  generation: number;
}
interface TimerDoc extends Doc {
  _id: string;
  owner: string;
  id: string;
  stream: string;
  due_at: number;
}

interface SharedRecordDoc extends Doc {
  _id: string;
  value: unknown;
  /** A TTL index drops the document once it has expired. */
  expires_at: Date;
  /** Bumped by every change: the compare-and-set of `updateRecord`. */
  rev: number;
}

/**
 * Coordination in read-store collections, for production on MongoDB where processes
 * share no disk. A lease is one document: the conditional upsert either matches (own or
 * expired lease) or collides on `_id` with the live holder's document, which MongoDB
 * refuses atomically (E11000) — the lease is not taken.
 */
export class ReadStoreCoordination implements Coordination {
  readonly kind = 'readstore' as const;

  private recordsIndexed: Promise<void> | null = null;

  constructor(private readonly store: ReadStore) {}

  private get records() {
    return this.store.collection<SharedRecordDoc>('_shared_records');
  }

  private get leases() {
    return this.store.collection<LeaseDoc>('_leases');
  }
  private get positionDocs() {
    return this.store.collection<PositionDoc>('_consumer_positions');
  }
  private get generationDocs() {
    return this.store.collection<GenerationDoc>('_generations');
  }
  private get timers() {
    return this.store.collection<TimerDoc>('_timers');
  }

  async tryLease(name: string, holder: string, ttlMs: number, now: number, replacing?: string): Promise<boolean> {
    const takeable = [{ holder }, { expires_at: { $lte: now } }, ...(replacing ? [{ holder: replacing }] : [])];
    try {
      await this.leases.updateOne(
        { _id: name, $or: takeable },
        { $set: { holder, expires_at: now + ttlMs } },
        { upsert: true },
      );
      return true;
    } catch (e) {
      if (isDuplicateKeyError(e)) return false;
      throw e;
    }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, holder });
  }

  async leaseHolder(name: string, now: number): Promise<string | null> {
    return (await this.leases.findOne({ _id: name, expires_at: { $gt: now } }))?.holder ?? null;
  }

  async savePosition(consumer: string, position: string | null): Promise<void> {
    await this.positionDocs.updateOne(
      { _id: consumer },
      { $set: { position, updated_at: Date.now() } },
      { upsert: true },
    );
  }

  async savePositions(positions: ReadonlyMap<string, string | null>): Promise<void> {
    for (const [consumer, position] of positions) await this.savePosition(consumer, position);
  }

  async positions(consumers: readonly string[]): Promise<Map<string, string | null>> {
    const docs = await this.positionDocs.find({ _id: { $in: [...consumers] } });
    const out = new Map<string, string | null>(consumers.map((c) => [c, null]));
    for (const d of docs) out.set(d._id, d.position);
    return out;
  }

  async setGeneration(projection: string, generation: number): Promise<void> {
    await this.generationDocs.updateOne({ _id: projection }, { $set: { generation } }, { upsert: true });
  }

  async generations(): Promise<Map<string, number>> {
    return new Map((await this.generationDocs.find({})).map((d) => [d._id, d.generation]));
  }

  async requestRebuild(projection: string): Promise<void> {
    await this.store
      .collection('_rebuild_requests')
      .updateOne({ _id: projection }, { $set: { requested_at: Date.now() } }, { upsert: true });
  }

  async takeRebuildRequests(projections: readonly string[]): Promise<string[]> {
    const taken: string[] = [];
    for (const p of projections)
      if ((await this.store.collection('_rebuild_requests').deleteOne({ _id: p })) === 1) taken.push(p);
    return taken;
  }

  async scheduleTimer(t: PendingTimer): Promise<void> {
    await this.timers.updateOne(
      { _id: `${t.owner}/${t.stream}/${t.id}` },
      { $setOnInsert: { owner: t.owner, id: t.id, stream: t.stream, due_at: t.dueAt } },
      { upsert: true },
    );
  }

  async cancelTimer(owner: string, stream: string, id: string): Promise<void> {
    await this.timers.deleteOne({ _id: `${owner}/${stream}/${id}` });
  }

  async dueTimers(owner: string, now: number, limit: number): Promise<PendingTimer[]> {
    const docs = await this.timers.find({ owner, due_at: { $lte: now } }, { sort: { due_at: 1 }, limit });
    return docs.map((d) => ({ owner: d.owner, id: d.id, stream: d.stream, dueAt: d.due_at }));
  }

  /**
   * Compare-and-set on one document: MongoDB applies an update atomically, so the
   * update conditioned on the revision read fails (matches nothing) when another process
   * changed the record in between, and `change` runs again on the new value.
   */
  async updateRecord<T, R>(key: string, now: number, change: (current: T | null) => RecordChange<T, R>): Promise<R> {
    this.recordsIndexed ??= this.records.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
    await this.recordsIndexed;
    for (;;) {
      const doc = await this.records.findOne({ _id: key });
      const live = doc && new Date(doc.expires_at).getTime() > now ? (doc.value as T) : null;
      const { next, expiresAt, result } = change(live);
      const keep = next !== null && expiresAt > now;
      if (!doc) {
        if (!keep) return result;
        try {
          await this.records.insertOne({ _id: key, value: next, expires_at: new Date(expiresAt), rev: 1 });
          return result;
        } catch (e) {
          if (isDuplicateKeyError(e)) continue;
          throw e;
        }
      }
      const done = keep
        ? (
            await this.records.updateOne(
              { _id: key, rev: doc.rev },
              { $set: { value: next, expires_at: new Date(expiresAt), rev: doc.rev + 1 } },
            )
          ).matchedCount === 1
        : (await this.records.deleteOne({ _id: key, rev: doc.rev })) === 1;
      if (done) return result;
    }
  }

  async close(): Promise<void> {
    // The read store is closed by its owner.
  }
}
