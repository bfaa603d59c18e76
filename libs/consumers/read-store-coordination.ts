import { Doc, isDuplicateKeyError, ReadStore } from '../readstore/read-store.port';
import { Coordination, PendingTimer } from './coordination';

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

/**
 * Coordination in read-store collections, for production on MongoDB where processes
 * share no disk. A lease is one document: the conditional upsert either matches (own or
 * expired lease) or collides on `_id` with the live holder's document, which MongoDB
 * refuses atomically (E11000) — the lease is not taken.
 */
export class ReadStoreCoordination implements Coordination {
  readonly kind = 'readstore' as const;

  constructor(private readonly store: ReadStore) {}

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

  async tryLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    try {
      await this.leases.updateOne({ _id: name, $or: [{ holder }, { expires_at: { $lte: now } }] }, { $set: { holder, expires_at: now + ttlMs } }, { upsert: true });
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
    await this.positionDocs.updateOne({ _id: consumer }, { $set: { position, updated_at: Date.now() } }, { upsert: true });
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
    await this.store.collection('_rebuild_requests').updateOne({ _id: projection }, { $set: { requested_at: Date.now() } }, { upsert: true });
  }

  async takeRebuildRequests(projections: readonly string[]): Promise<string[]> {
    const taken: string[] = [];
    for (const p of projections) if ((await this.store.collection('_rebuild_requests').deleteOne({ _id: p })) === 1) taken.push(p);
    return taken;
  }

  async scheduleTimer(t: PendingTimer): Promise<void> {
    await this.timers.updateOne({ _id: `${t.owner}/${t.stream}/${t.id}` }, { $setOnInsert: { owner: t.owner, id: t.id, stream: t.stream, due_at: t.dueAt } }, { upsert: true });
  }

  async cancelTimer(owner: string, stream: string, id: string): Promise<void> {
    await this.timers.deleteOne({ _id: `${owner}/${stream}/${id}` });
  }

  async dueTimers(owner: string, now: number, limit: number): Promise<PendingTimer[]> {
    const docs = await this.timers.find({ owner, due_at: { $lte: now } }, { sort: { due_at: 1 }, limit });
    return docs.map((d) => ({ owner: d.owner, id: d.id, stream: d.stream, dueAt: d.due_at }));
  }

  async close(): Promise<void> {
    // The read store is closed by its owner.
  }
}
