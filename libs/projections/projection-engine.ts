import { EventEmitter } from 'node:events';
import {
  EventStore,
  Position,
  positionFromString,
  positionNumber,
  positionToString,
  RecordedEvent,
  Subscription,
} from '../eventstore/event-store.port';
import { upcast } from '../eventstore/upcasters';
import { Collection, Doc, ReadStore } from '../readstore/read-store.port';
import { ProjectionContext, ProjectionDefinition } from './projection';

interface ProjectionMeta extends Doc {
  _id: string;
  generation: number;
  version: number;
}

interface CheckpointDoc extends Doc {
  _id: string;
  position: string | null;
  updated_at: string;
}

export interface ProjectionStatus {
  name: string;
  version: number;
  generation: number;
  position: string | null;
  lag: number;
  state: 'catching_up' | 'live' | 'failed' | 'stopped';
  error?: string;
  rebuilding?: { generation: number; position: string | null };
}

const META = '_projections';
const CHECKPOINTS = '_checkpoints';
const physicalName = (logical: string, generation: number) => `${logical}__g${generation}`;
const CHECKPOINT_EVERY = 500;
const CHECKPOINT_IDLE_MS = 50;

/** Adapters without `batches()`: the per-event iterator, one event per batch. */
async function* oneByOne(subscription: Subscription): AsyncGenerator<RecordedEvent[]> {
  for await (const event of subscription) yield [event];
}

/**
 * Runs one generation of one projection: a durable catch-up subscription consumed in
 * order, batch by batch (the async machinery is paid once per batch), applying each
 * event the projection handles, then saving the checkpoint in batches. Handlers are
 * idempotent, so resuming from an older checkpoint after a crash is safe.
 */
class ProjectionRunner {
  /**
   * The last event applied or skipped, as far as readers need to know: it may lag
   * behind skipped events within the current batch (never behind an applied one), and
   * is exact whenever a batch is done, which is when checkpoints are saved.
   */
  position: Position | null;
  state: ProjectionStatus['state'] = 'catching_up';
  error?: string;
  private subscription: Subscription | null = null;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();
  private sinceCheckpoint = 0;
  private checkpointTimer: NodeJS.Timeout | null = null;
  private readonly handles: Set<string> | null;
  /** Physical collection names by logical name, resolved once rather than per event. */
  private readonly physicalNames: Map<string, string>;
  private readonly ownCollection = <T extends Doc>(logical: string) => this.collection<T>(logical);

  constructor(
    readonly definition: ProjectionDefinition,
    readonly generation: number,
    start: Position | null,
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    private readonly progress: EventEmitter,
    private readonly log: (msg: string, extra?: object) => void,
  ) {
    this.position = start;
    this.handles = definition.handles ? new Set(definition.handles) : null;
    this.physicalNames = new Map(definition.collections.map((n) => [n, physicalName(n, generation)]));
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
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      try {
        const subscription = (this.subscription = this.store.subscribeToAll(this.position));
        for await (const batch of subscription.batches ? subscription.batches() : oneByOne(subscription)) {
          let last: RecordedEvent | null = null;
          let done = 0;
          for (const raw of batch) {
            if (this.stopped) break;
            // Upcasting never changes an event's type, so unhandled events are skipped undecoded.
            if (!this.handles || this.handles.has(raw.type)) {
              const event = upcast(raw);
              const ctx: ProjectionContext = { collection: this.ownCollection, position: positionNumber(event.position) };
              await this.definition.apply(event, ctx);
              this.position = raw.position;
              // Read-your-writes: a waiter learns of its event as soon as it is applied,
              // not at the end of the batch.
              this.progress.emit('progress');
            }
            last = raw;
            done += 1;
          }
          if (last !== null) {
            this.position = last.position;
            this.state = 'live';
            this.error = undefined;
            backoff = 100;
            this.progress.emit('progress');
            await this.noteProgress(done);
          }
          if (this.stopped) break;
        }
      } catch (e) {
        if (this.stopped) break;
        this.state = 'failed';
        this.error = e instanceof Error ? e.message : String(e);
        this.log('projection failed; retrying', { projection: this.definition.name, error: this.error });
        await this.subscription?.close().catch(() => undefined);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }

  /** Saves the checkpoint every CHECKPOINT_EVERY events, or once the projection has been idle briefly. */
  private noteProgress(events: number): Promise<void> | void {
    this.sinceCheckpoint += events;
    if (this.sinceCheckpoint >= CHECKPOINT_EVERY) return this.saveCheckpoint();
    if (!this.checkpointTimer) {
      this.checkpointTimer = setTimeout(() => void this.saveCheckpoint().catch(() => undefined), CHECKPOINT_IDLE_MS);
    }
  }

  async saveCheckpoint(): Promise<void> {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.sinceCheckpoint = 0;
    await this.readStore.collection<CheckpointDoc>(CHECKPOINTS).updateOne(
      { _id: this.checkpointId },
      { $set: { position: positionToString(this.position), updated_at: new Date().toISOString() } },
      { upsert: true },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.state = 'stopped';
    await this.subscription?.close();
    await this.done;
    await this.saveCheckpoint();
  }

  async dropCheckpoint(): Promise<void> {
    await this.readStore.collection(CHECKPOINTS).deleteOne({ _id: this.checkpointId });
  }
}

/**
 * Owns every projection of the process: starts each at its checkpoint, tells readers
 * which physical collections are current, waits for read-your-writes, and rebuilds a
 * projection beside the live one, switching readers only once the new one has caught up.
 */
interface Waiter {
  target: bigint;
  /** The projections waited on; null: all. */
  only: string[] | null;
  /** `only` as one string, so waiters on the same projections share one computation. */
  key: string;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

export class ProjectionEngine {
  private readonly runners = new Map<string, ProjectionRunner>();
  private readonly rebuilds = new Map<string, ProjectionRunner>();
  private readonly generations = new Map<string, number>();
  private readonly progress = new EventEmitter();
  private readonly waiters = new Set<Waiter>();
  private running = false;

  constructor(
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    private readonly definitions: ProjectionDefinition[],
    private readonly log: (msg: string, extra?: object) => void = () => undefined,
  ) {
    this.progress.setMaxListeners(0);
    this.progress.on('progress', () => this.settleWaiters());
    const names = new Set<string>();
    for (const d of definitions) {
      if (names.has(d.name)) throw new Error(`duplicate projection ${d.name}`);
      names.add(d.name);
    }
  }

  private definition(name: string): ProjectionDefinition {
    const d = this.definitions.find((p) => p.name === name);
    if (!d) throw new Error(`unknown projection ${name}`);
    return d;
  }

  /** Resolves generations from the store (readers need this even where no runner runs). */
  async loadGenerations(): Promise<void> {
    const metas = this.readStore.collection<ProjectionMeta>(META);
    for (const d of this.definitions) {
      const meta = await metas.findOne({ _id: d.name });
      this.generations.set(d.name, meta?.generation ?? 1);
    }
  }

  /** Starts a runner per projection; one whose code version changed is rebuilt first. */
  async start(): Promise<void> {
    await this.loadGenerations();
    const metas = this.readStore.collection<ProjectionMeta>(META);
    this.running = true;
    for (const d of this.definitions) {
      const meta = await metas.findOne({ _id: d.name });
      if (!meta) {
        await metas.updateOne({ _id: d.name }, { $set: { generation: 1, version: d.version } }, { upsert: true });
      } else if (meta.version !== d.version) {
        // Code changed the read model's shape: build the new version before serving it.
        this.log('projection version changed; rebuilding', { projection: d.name, from: meta.version, to: d.version });
        await this.startRunner(d, meta.generation, true);
        await this.rebuild(d.name, { wait: true });
        continue;
      }
      await this.startRunner(d, meta?.generation ?? 1, false);
    }
  }

  private async startRunner(d: ProjectionDefinition, generation: number, quiet: boolean): Promise<ProjectionRunner> {
    const checkpoint = await this.readStore
      .collection<CheckpointDoc>(CHECKPOINTS)
      .findOne({ _id: `${d.name}__g${generation}` });
    const runner = new ProjectionRunner(
      d,
      generation,
      positionFromString(checkpoint?.position ?? null),
      this.store,
      this.readStore,
      this.progress,
      this.log,
    );
    this.runners.set(d.name, runner);
    this.generations.set(d.name, generation);
    await runner.start();
    if (!quiet) this.log('projection started', { projection: d.name, generation, from: checkpoint?.position ?? null });
    return runner;
  }

  /** The physical collection readers use for a projection's logical collection. */
  collection<T extends Doc = Doc>(projection: string, logical: string): Collection<T> {
    const d = this.definition(projection);
    if (!d.collections.includes(logical)) throw new Error(`${projection} has no collection ${logical}`);
    return this.readStore.collection<T>(physicalName(logical, this.generations.get(projection) ?? 1));
  }

  /**
   * Resolves once every running projection has processed `position` (read-your-writes
   * for the client that made the change). Gives up quietly after `timeoutMs`.
   */
  async waitFor(position: Position | null, timeoutMs = 5000, only?: string[]): Promise<boolean> {
    if (!position || !this.running) return true;
    const target = position.commit;
    if (this.lowestPosition(only ?? null) >= target) return true;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        target,
        only: only ?? null,
        key: only ? only.join(' ') : '*',
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /**
   * On every progress of any runner: resolves the waiters whose projections have all
   * passed their position. The lowest position is worked out once per set of projections
   * waited on, not once per waiter (many requests wait at once under load).
   */
  private settleWaiters(): void {
    if (this.waiters.size === 0) return;
    const lowest = new Map<string, bigint>();
    for (const w of this.waiters) {
      let reached = lowest.get(w.key);
      if (reached === undefined) lowest.set(w.key, (reached = this.lowestPosition(w.only)));
      if (reached < w.target) continue;
      clearTimeout(w.timer);
      this.waiters.delete(w);
      w.resolve(true);
    }
  }

  /** The position every runner named in `only` (all when null) has reached; -1 before any event. */
  private lowestPosition(only: string[] | null): bigint {
    let lowest: bigint | null = null;
    for (const r of this.runners.values()) {
      if (only && !only.includes(r.definition.name)) continue;
      const at = r.position?.commit ?? -1n;
      if (lowest === null || at < lowest) lowest = at;
    }
    return lowest ?? BigInt(Number.MAX_SAFE_INTEGER);
  }

  /**
   * Rebuilds a projection without downtime: a new generation is built from position
   * zero beside the live one; once it reaches the head, readers switch to it and the
   * old generation's collections are dropped.
   */
  async rebuild(name: string, options: { wait?: boolean } = {}): Promise<{ generation: number }> {
    const d = this.definition(name);
    if (this.rebuilds.has(name)) throw new Error(`projection ${name} is already rebuilding`);
    const current = this.generations.get(name) ?? 1;
    const next = current + 1;
    for (const logical of d.collections) await this.readStore.dropCollection(physicalName(logical, next));
    const runner = new ProjectionRunner(d, next, null, this.store, this.readStore, this.progress, this.log);
    await runner.dropCheckpoint();
    this.rebuilds.set(name, runner);
    await runner.start();
    const finished = this.switchWhenCaughtUp(name, runner, current);
    if (options.wait) await finished;
    else finished.catch((e) => this.log('rebuild failed', { projection: name, error: String(e) }));
    return { generation: next };
  }

  private async switchWhenCaughtUp(name: string, runner: ProjectionRunner, oldGeneration: number): Promise<void> {
    const d = this.definition(name);
    for (;;) {
      const head = await this.store.headPosition();
      if (!head || (runner.position && runner.position.commit >= head.commit)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await runner.saveCheckpoint();
    await this.readStore
      .collection<ProjectionMeta>(META)
      .updateOne({ _id: name }, { $set: { generation: runner.generation, version: d.version } }, { upsert: true });
    const old = this.runners.get(name);
    this.runners.set(name, runner);
    this.generations.set(name, runner.generation);
    this.rebuilds.delete(name);
    if (old) {
      await old.stop();
      await old.dropCheckpoint();
    }
    for (const logical of d.collections) await this.readStore.dropCollection(physicalName(logical, oldGeneration));
    this.log('projection rebuilt', { projection: name, generation: runner.generation });
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    const headN = head ? positionNumber(head) : 0;
    const out: ProjectionStatus[] = [];
    const lagOf = (p: Position | null) => Math.max(0, headN - (p ? positionNumber(p) : 0));
    for (const d of this.definitions) {
      const r = this.runners.get(d.name);
      const rebuilding = this.rebuilds.get(d.name);
      let position = r ? r.position : null;
      if (!r) {
        const cp = await this.readStore
          .collection<CheckpointDoc>(CHECKPOINTS)
          .findOne({ _id: `${d.name}__g${this.generations.get(d.name) ?? 1}` });
        position = positionFromString(cp?.position ?? null);
      }
      out.push({
        name: d.name,
        version: d.version,
        generation: this.generations.get(d.name) ?? 1,
        position: positionToString(position),
        lag: lagOf(position),
        state: !r ? 'stopped' : r.state === 'failed' || r.state === 'stopped' ? r.state : lagOf(position) === 0 ? 'live' : 'catching_up',
        ...(r?.error ? { error: r.error } : {}),
        ...(rebuilding
          ? { rebuilding: { generation: rebuilding.generation, position: positionToString(rebuilding.position) } }
          : {}),
      });
    }
    return out;
  }

  names(): string[] {
    return this.definitions.map((d) => d.name);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.runners.values(), ...this.rebuilds.values()].map((r) => r.stop()));
    this.runners.clear();
    this.rebuilds.clear();
  }
}

export type { RecordedEvent };
