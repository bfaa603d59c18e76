import { EventEmitter } from 'node:events';
import { CheckpointedConsumer } from '../consumers/checkpointed-consumer';
import { Coordination } from '../consumers/coordination';
import { EventStore, Position, positionNumber, positionToString } from '../eventstore/event-store.port';
import { Collection, Doc, ReadStore } from '../readstore/read-store.port';
import { PositionPublisher } from './position-publisher';
import { ProjectionDefinition } from './projection';
import type { ProjectionStatus } from './projection-status';
import { ReadModel } from './read-model';

export interface CheckpointDoc extends Doc {
  _id: string;
  position: string | null;
  updated_at: string;
}

export const CHECKPOINTS = '_checkpoints';
export const physicalName = (logical: string, generation: number) => `${logical}__g${generation}`;
const CHECKPOINT_EVERY = 500;
const CHECKPOINT_IDLE_MS = 50;
export const POSITION_PREFIX = 'projection:';
export const positionKey = (projection: string) => `${POSITION_PREFIX}${projection}`;

/**
 * Runs one generation of one projection on the consumer runtime: applies each event the
 * projection handles to its own collections, saves the checkpoint beside the documents
 * in batches, and publishes how far it has got for readers in other processes. Handlers
 * are idempotent, so resuming from an older checkpoint after a crash is safe.
 */
export class ProjectionRunner {
  private readonly consumer: CheckpointedConsumer;
  private sinceCheckpoint = 0;
  /** The store's head when this run started: events past it are first deliveries (ProjectionContext.firstDelivery). */
  private headAtStart = Number.MAX_SAFE_INTEGER;
  /** Whether an event was applied (not only skipped) since the checkpoint was last saved. */
  private appliedSinceCheckpoint = false;
  private checkpointTimer: NodeJS.Timeout | null = null;
  /** Set while this runner is the one readers use; a rebuild publishes nothing until it is switched to. */
  publishing = false;
  /** Physical collection names by logical name, resolved once rather than per event. */
  private readonly physicalNames: Map<string, string>;
  private readonly ownCollection = <T extends Doc>(model: ReadModel<T> | string) =>
    this.collection<T>(typeof model === 'string' ? model : model.name);
  /** What publishSoon hands the publisher after every batch: made once, not a string and a closure per batch. */
  private readonly publishedKey: string;
  private readonly positionText = () => positionToString(this.position);

  constructor(
    readonly definition: ProjectionDefinition,
    readonly generation: number,
    start: Position | null,
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    private readonly coordination: Coordination,
    private readonly publisher: PositionPublisher,
    progress: EventEmitter,
    log: (msg: string, extra?: object) => void,
  ) {
    this.physicalNames = new Map(definition.collections.map((n) => [n, physicalName(n, generation)]));
    this.publishedKey = positionKey(definition.name);
    const ctx = { collection: this.ownCollection, position: 0, firstDelivery: false };
    this.consumer = new CheckpointedConsumer({
      name: `projection:${definition.name}`,
      store,
      from: start,
      handles: definition.handles ? new Set(definition.handles) : null,
      apply: (event) => {
        ctx.position = positionNumber(event.position);
        ctx.firstDelivery = ctx.position > this.headAtStart;
        if (!this.appliedSinceCheckpoint) this.markApplied();
        return definition.apply(event, ctx);
      },
      // Read-your-writes: a waiter learns of its event as soon as it is applied, not at the end of the batch.
      applied: () => progress.emit('progress', definition.name),
      batchDone: (events) => {
        progress.emit('progress', definition.name);
        this.publishSoon();
        return this.noteProgress(events);
      },
      log: (msg, extra) => log(msg.replace('consumer', 'projection'), { projection: definition.name, ...extra }),
    });
  }

  /** An applied event after only skipped ones: the checkpoint is due at the applied pace (a lazy skip timer is brought forward). */
  private markApplied(): void {
    this.appliedSinceCheckpoint = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
  }

  get position(): Position | null {
    return this.consumer.position;
  }
  get state(): ProjectionStatus['state'] {
    return this.consumer.state;
  }
  get error(): string | undefined {
    return this.consumer.error;
  }

  collection<T extends Doc>(logical: string): Collection<T> {
    const physical = this.physicalNames.get(logical);
    if (physical === undefined) {
      throw new Error(`projection ${this.definition.name} does not own collection ${logical}`);
    }
    // Looked up each time, not cached: a dropped collection must not linger in a runner.
    return this.readStore.collection<T>(physical);
  }

  private get checkpointId() {
    return `${this.definition.name}__g${this.generation}`;
  }

  async start(): Promise<void> {
    await this.definition.setup?.({ collection: this.ownCollection });
    // Read before the consumer starts: every event past it is delivered to this run first.
    const head = await this.store.headPosition();
    this.headAtStart = head ? positionNumber(head) : 0;
    this.consumer.start();
  }

  /**
   * Saves the checkpoint every CHECKPOINT_EVERY events, or CHECKPOINT_IDLE_MS after the
   * first batch since the last one. A projection that has only skipped events since (most
   * of the sixteen, under a load of one kind of event) saves it ten times less often: each
   * save is a read-store write, and resuming from an older checkpoint only skips again.
   */
  private noteProgress(events: number): Promise<void> | void {
    this.sinceCheckpoint += events;
    const every = this.appliedSinceCheckpoint ? CHECKPOINT_EVERY : CHECKPOINT_EVERY * 10;
    if (this.sinceCheckpoint >= every) return this.saveCheckpoint();
    if (!this.checkpointTimer) {
      const after = this.appliedSinceCheckpoint ? CHECKPOINT_IDLE_MS : CHECKPOINT_IDLE_MS * 10;
      this.checkpointTimer = setTimeout(() => void this.saveCheckpoint().catch(() => undefined), after);
    }
  }

  /**
   * Publishes the position soon (at most once per PUBLISH_EVERY_MS, for all runners
   * together): API processes without a local runner wait on it (read-your-writes across
   * processes). Once per batch would cost a write per event under a live load of
   * single-event appends.
   */
  private publishSoon(): void {
    if (this.publishing) this.publisher.request(this.publishedKey, this.positionText);
  }

  /** Readers in other processes read the store's disk: the position goes out once what it covers is there. */
  async publish(): Promise<void> {
    const position = this.position;
    await this.readStore.committed();
    await this.coordination.savePosition(positionKey(this.definition.name), positionToString(position));
  }

  async saveCheckpoint(): Promise<void> {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.sinceCheckpoint = 0;
    this.appliedSinceCheckpoint = false;
    await this.readStore
      .collection<CheckpointDoc>(CHECKPOINTS)
      .updateOne(
        { _id: this.checkpointId },
        { $set: { position: positionToString(this.position), updated_at: new Date().toISOString() } },
        { upsert: true },
      );
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
    await this.publisher.forget(positionKey(this.definition.name));
    await this.saveCheckpoint();
    if (this.publishing) await this.publish().catch(() => undefined);
  }

  async dropCheckpoint(): Promise<void> {
    await this.readStore.collection(CHECKPOINTS).deleteOne({ _id: this.checkpointId });
  }
}
