import { EventEmitter } from 'node:events';
import { CheckpointedConsumer } from '../consumers/checkpointed-consumer';
import { Coordination } from '../consumers/coordination';
import { LeasedWork, newHolderId } from '../consumers/lease';
import { SqliteCoordination } from '../consumers/sqlite-coordination';
import { EventStore, Position, positionFromString, positionNumber, positionToString, RecordedEvent } from '../eventstore/event-store.port';
import { Collection, Doc, ReadStore } from '../readstore/read-store.port';
import { PositionPublisher } from './position-publisher';
import { ProjectionDefinition } from './projection';
import { ReadModel } from './read-model';

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
  /** The lease holder running it (this process or another); null when none does. */
  holder?: string | null;
}

const META = '_projections';
const CHECKPOINTS = '_checkpoints';
const physicalName = (logical: string, generation: number) => `${logical}__g${generation}`;
const CHECKPOINT_EVERY = 500;
const CHECKPOINT_IDLE_MS = 50;
const PUBLISH_EVERY_MS = 5;
const REMOTE_POLL_MS = 10;
const FOLLOW_INTERVAL_MS = 250;
const POSITION_PREFIX = 'projection:';
const positionKey = (projection: string) => `${POSITION_PREFIX}${projection}`;

/**
 * Runs one generation of one projection on the consumer runtime: applies each event the
 * projection handles to its own collections, saves the checkpoint beside the documents
 * in batches, and publishes how far it has got for readers in other processes. Handlers
 * are idempotent, so resuming from an older checkpoint after a crash is safe.
 */
class ProjectionRunner {
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
  private readonly ownCollection = <T extends Doc>(model: ReadModel<T> | string) => this.collection<T>(typeof model === 'string' ? model : model.name);

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
      applied: () => progress.emit('progress'),
      batchDone: (events) => {
        progress.emit('progress');
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
    if (this.publishing) this.publisher.request(positionKey(this.definition.name), () => positionToString(this.position));
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
      .updateOne({ _id: this.checkpointId }, { $set: { position: positionToString(this.position), updated_at: new Date().toISOString() } }, { upsert: true });
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

interface Waiter {
  target: bigint;
  /** The projections waited on; null: all. */
  only: string[] | null;
  /** `only` as one string, so waiters on the same projections share one computation. */
  key: string;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

export interface ProjectionEngineOptions {
  /** Where leases, published positions and generations live; a private in-memory one when omitted (one process). */
  coordination?: Coordination;
  /** This process's lease-holder id. */
  holder?: string;
  leaseTtlMs?: number;
  /** How often processes without a runner look for generation switches and rebuild requests are looked for. */
  followIntervalMs?: number;
  /**
   * How long a rebuild keeps the old generation after switching, so readers in other
   * processes have followed the switch before its collections go. Default: two follow
   * intervals with a shared coordination, none without (one process).
   */
  retireAfterMs?: number;
}

/**
 * Owns the projections of the process: runs, under a lease per projection, the ones no
 * other process runs; tells readers which physical collections are current (following
 * switches made by other processes); waits for read-your-writes, on local runners or on
 * the positions other processes publish; and rebuilds a projection beside the live one,
 * switching readers only once the new one has caught up.
 */
export class ProjectionEngine {
  private readonly runners = new Map<string, ProjectionRunner>();
  private readonly rebuilds = new Map<string, ProjectionRunner>();
  private readonly generations = new Map<string, number>();
  private readonly leases = new Map<string, LeasedWork>();
  /** Positions published by the processes that run the projections this one does not. */
  private readonly remotePositions = new Map<string, bigint>();
  private readonly progress = new EventEmitter();
  private readonly waiters = new Set<Waiter>();
  private readonly coordination: Coordination;
  private readonly ownsCoordination: boolean;
  private readonly publisher: PositionPublisher;
  readonly holder: string;
  private followTimer: NodeJS.Timeout | null = null;
  private remotePoll: NodeJS.Timeout | null = null;
  private following: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly readStore: ReadStore,
    private readonly definitions: ProjectionDefinition[],
    private readonly log: (msg: string, extra?: object) => void = () => undefined,
    private readonly options: ProjectionEngineOptions = {},
  ) {
    this.progress.setMaxListeners(0);
    this.progress.on('progress', () => this.settleWaiters());
    const names = new Set<string>();
    for (const d of definitions) {
      if (names.has(d.name)) throw new Error(`duplicate projection ${d.name}`);
      names.add(d.name);
    }
    this.ownsCoordination = !options.coordination;
    this.coordination = options.coordination ?? new SqliteCoordination(':memory:');
    this.publisher = new PositionPublisher(readStore, this.coordination, PUBLISH_EVERY_MS);
    this.holder = options.holder ?? newHolderId();
    // Another process's commit may be a rebuild's switch: look at once rather than at the next interval.
    readStore.onCommitElsewhere?.(() => this.followSoon());
  }

  private followQueued = false;

  private followSoon(): void {
    if (this.followQueued || !this.followTimer) return;
    this.followQueued = true;
    this.following = this.following
      .then(() => {
        this.followQueued = false;
        return this.followGenerations();
      })
      .catch((e) => this.log('projection follow failed', { error: String(e) }));
  }

  private definition(name: string): ProjectionDefinition {
    const d = this.definitions.find((p) => p.name === name);
    if (!d) throw new Error(`unknown projection ${name}`);
    return d;
  }

  /**
   * Resolves generations (readers need this even where no runner runs) and keeps
   * following them: another process's rebuild switches this one's readers too.
   */
  async loadGenerations(): Promise<void> {
    const metas = this.readStore.collection<ProjectionMeta>(META);
    const shared = await this.coordination.generations();
    for (const d of this.definitions) {
      const generation = shared.get(d.name) ?? (await metas.findOne({ _id: d.name }))?.generation ?? 1;
      if (!this.runners.has(d.name)) this.generations.set(d.name, generation);
    }
    this.startFollowing();
  }

  private startFollowing(): void {
    if (this.followTimer) return;
    this.followTimer = setInterval(() => {
      this.following = this.following.then(() => this.follow()).catch((e) => this.log('projection follow failed', { error: String(e) }));
    }, this.options.followIntervalMs ?? FOLLOW_INTERVAL_MS);
    this.followTimer.unref();
  }

  private async followGenerations(): Promise<void> {
    const shared = await this.coordination.generations();
    for (const [name, generation] of shared) {
      if (!this.runners.has(name) && this.generations.has(name) && this.generations.get(name) !== generation) {
        this.generations.set(name, generation);
        this.log('projection generation followed', { projection: name, generation });
      }
    }
  }

  /** Generation switches made elsewhere, and rebuilds other processes asked this one (the lease holder) for. */
  private async follow(): Promise<void> {
    await this.followGenerations();
    const held = [...this.runners.keys()].filter((n) => !this.rebuilds.has(n));
    if (held.length === 0) return;
    for (const name of await this.coordination.takeRebuildRequests(held)) {
      await this.rebuild(name).catch((e) => this.log('requested rebuild failed', { projection: name, error: String(e) }));
    }
  }

  /**
   * Runs every projection whose lease this process gets; the others stay on standby and
   * are taken over if their holder stops renewing. A projection whose code version
   * changed is rebuilt first.
   */
  async start(): Promise<void> {
    await this.loadGenerations();
    for (const d of this.definitions) {
      const lease = new LeasedWork(this.coordination, `projection:${d.name}`, this.holder, {
        ttlMs: this.options.leaseTtlMs,
        onAcquired: () => this.takeOver(d),
        onReleased: () => this.letGo(d.name),
        log: this.log,
      });
      this.leases.set(d.name, lease);
    }
    await Promise.all([...this.leases.values()].map((l) => l.start()));
  }

  private async takeOver(d: ProjectionDefinition): Promise<void> {
    const metas = this.readStore.collection<ProjectionMeta>(META);
    const meta = await metas.findOne({ _id: d.name });
    if (!meta) {
      await metas.updateOne({ _id: d.name }, { $set: { generation: 1, version: d.version } }, { upsert: true });
      await this.coordination.setGeneration(d.name, 1);
    } else if (meta.version !== d.version) {
      // Code changed the read model's shape: build the new version before serving it.
      this.log('projection version changed; rebuilding', { projection: d.name, from: meta.version, to: d.version });
      await this.startRunner(d, meta.generation, true);
      await this.rebuild(d.name, { wait: true });
      return;
    } else {
      await this.coordination.setGeneration(d.name, meta.generation);
    }
    await this.startRunner(d, meta?.generation ?? 1, false);
  }

  private async letGo(name: string): Promise<void> {
    const rebuilding = this.rebuilds.get(name);
    this.rebuilds.delete(name);
    const runner = this.runners.get(name);
    this.runners.delete(name);
    await Promise.all([rebuilding?.stop(), runner?.stop()]);
    this.log('projection stopped here', { projection: name });
  }

  private async startRunner(d: ProjectionDefinition, generation: number, quiet: boolean): Promise<ProjectionRunner> {
    const checkpoint = await this.readStore.collection<CheckpointDoc>(CHECKPOINTS).findOne({ _id: `${d.name}__g${generation}` });
    const runner = this.newRunner(d, generation, positionFromString(checkpoint?.position ?? null));
    runner.publishing = true;
    this.runners.set(d.name, runner);
    this.generations.set(d.name, generation);
    await runner.start();
    if (!quiet) this.log('projection started', { projection: d.name, generation, from: checkpoint?.position ?? null });
    return runner;
  }

  private newRunner(d: ProjectionDefinition, generation: number, from: Position | null): ProjectionRunner {
    return new ProjectionRunner(d, generation, from, this.store, this.readStore, this.coordination, this.publisher, this.progress, this.log);
  }

  /** The physical collection readers use for a projection's logical collection. */
  collection<T extends Doc = Doc>(projection: string, logical: string): Collection<T> {
    const d = this.definition(projection);
    if (!d.collections.includes(logical)) throw new Error(`${projection} has no collection ${logical}`);
    return this.readStore.collection<T>(physicalName(logical, this.generations.get(projection) ?? 1));
  }

  /** The collection readers use for a read model (its current generation). */
  readModel<T extends Doc>(model: ReadModel<T>): Collection<T> {
    return this.collection<T>(model.projection, model.name);
  }

  /**
   * Resolves once every projection named (all when omitted) has processed `position`
   * (read-your-writes for the client that made the change): on the local runner where
   * this process runs it, else on the position its runner's process publishes. Gives up
   * quietly after `timeoutMs`.
   */
  async waitFor(position: Position | null, timeoutMs = 5000, only?: string[]): Promise<boolean> {
    if (!position) return true;
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
      if (this.waitsOnRemote(waiter.only)) this.pollRemote();
    });
  }

  private waitsOnRemote(only: string[] | null): boolean {
    return (only ?? this.names()).some((n) => !this.runners.has(n));
  }

  /** One poll of the published positions for all waiters, repeated while any waits on another process. */
  private pollRemote(): void {
    if (this.remotePoll) return;
    this.remotePoll = setTimeout(() => {
      void (async () => {
        try {
          const remote = this.names().filter((n) => !this.runners.has(n));
          for (const [name, p] of await this.coordination.positions(remote.map(positionKey))) {
            const projection = name.slice(POSITION_PREFIX.length);
            const at = positionFromString(p)?.commit ?? -1n;
            // The documents up to a published position are on disk: a waiter it releases must read them.
            if (at !== this.remotePositions.get(projection)) this.readStore.lookAgain?.();
            this.remotePositions.set(projection, at);
          }
        } catch (e) {
          this.log('published positions unreadable', { error: String(e) });
        }
        this.remotePoll = null;
        this.settleWaiters();
        if ([...this.waiters].some((w) => this.waitsOnRemote(w.only))) this.pollRemote();
      })();
    }, REMOTE_POLL_MS);
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

  /** The position every projection named in `only` (all when null) has reached; -1 before any event. */
  private lowestPosition(only: string[] | null): bigint {
    let lowest: bigint | null = null;
    for (const name of only ?? this.names()) {
      const r = this.runners.get(name);
      const at = r ? (r.position?.commit ?? -1n) : (this.remotePositions.get(name) ?? -1n);
      if (lowest === null || at < lowest) lowest = at;
    }
    return lowest ?? BigInt(Number.MAX_SAFE_INTEGER);
  }

  /**
   * Rebuilds a projection without downtime: a new generation is built from position
   * zero beside the live one; once it reaches the head, readers switch to it and the
   * old generation's collections are dropped. Only the process holding the projection's
   * lease rebuilds it; any other passes the request on to that process.
   */
  async rebuild(name: string, options: { wait?: boolean } = {}): Promise<{ generation: number }> {
    const d = this.definition(name);
    if (this.rebuilds.has(name)) throw new Error(`projection ${name} is already rebuilding`);
    const current = this.generations.get(name) ?? 1;
    const next = current + 1;
    if (!this.runners.has(name)) {
      await this.coordination.requestRebuild(name);
      if (options.wait) await this.untilGeneration(name, next);
      return { generation: next };
    }
    for (const logical of d.collections) await this.readStore.dropCollection(physicalName(logical, next));
    const runner = this.newRunner(d, next, null);
    await runner.dropCheckpoint();
    this.rebuilds.set(name, runner);
    await runner.start();
    const finished = this.switchWhenCaughtUp(name, runner, current);
    if (options.wait) await finished;
    else finished.catch((e) => this.log('rebuild failed', { projection: name, error: String(e) }));
    return { generation: next };
  }

  private async untilGeneration(name: string, generation: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.generations.get(name) ?? 1) < generation && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, REMOTE_POLL_MS * 5));
      const shared = (await this.coordination.generations()).get(name);
      if (shared !== undefined && !this.runners.has(name)) this.generations.set(name, shared);
    }
  }

  private async switchWhenCaughtUp(name: string, runner: ProjectionRunner, oldGeneration: number): Promise<void> {
    const d = this.definition(name);
    for (;;) {
      // A lease lost meanwhile stopped the rebuild; the new holder starts its own when asked.
      if (this.rebuilds.get(name) !== runner) return;
      const head = await this.store.headPosition();
      if (!head || (runner.position && runner.position.commit >= head.commit)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await runner.saveCheckpoint();
    await this.readStore.collection<ProjectionMeta>(META).updateOne({ _id: name }, { $set: { generation: runner.generation, version: d.version } }, { upsert: true });
    const old = this.runners.get(name);
    runner.publishing = true;
    await runner.publish();
    this.runners.set(name, runner);
    this.generations.set(name, runner.generation);
    await this.coordination.setGeneration(name, runner.generation);
    this.rebuilds.delete(name);
    if (old) {
      old.publishing = false;
      await old.stop();
      await old.dropCheckpoint();
    }
    const retireAfterMs = this.options.retireAfterMs ?? (this.ownsCoordination ? 0 : 2 * (this.options.followIntervalMs ?? FOLLOW_INTERVAL_MS));
    if (retireAfterMs > 0) await new Promise((r) => setTimeout(r, retireAfterMs));
    for (const logical of d.collections) await this.readStore.dropCollection(physicalName(logical, oldGeneration));
    this.log('projection rebuilt', { projection: name, generation: runner.generation });
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    const headN = head ? positionNumber(head) : 0;
    const out: ProjectionStatus[] = [];
    const lagOf = (p: Position | null) => Math.max(0, headN - (p ? positionNumber(p) : 0));
    const elsewhere = this.definitions.filter((d) => !this.runners.has(d.name)).map((d) => d.name);
    const published = await this.coordination.positions(elsewhere.map(positionKey));
    for (const d of this.definitions) {
      const r = this.runners.get(d.name);
      const rebuilding = this.rebuilds.get(d.name);
      const position = r ? r.position : positionFromString(published.get(positionKey(d.name)) ?? null);
      const holder = r ? this.holder : await this.coordination.leaseHolder(`projection:${d.name}`, Date.now());
      const runningElsewhere = !r && holder !== null;
      out.push({
        name: d.name,
        version: d.version,
        generation: this.generations.get(d.name) ?? 1,
        position: positionToString(position),
        lag: lagOf(position),
        state: !r && !runningElsewhere ? 'stopped' : r && (r.state === 'failed' || r.state === 'stopped') ? r.state : lagOf(position) === 0 ? 'live' : 'catching_up',
        holder,
        ...(r?.error ? { error: r.error } : {}),
        ...(rebuilding ? { rebuilding: { generation: rebuilding.generation, position: positionToString(rebuilding.position) } } : {}),
      });
    }
    return out;
  }

  /** The generation of a projection's read models that readers use now (it changes when a rebuild switches over). */
  generationOf(projection: string): number {
    return this.generations.get(projection) ?? 1;
  }

  names(): string[] {
    return this.definitions.map((d) => d.name);
  }

  /** Whether this process runs the projection now (holds its lease). */
  runsHere(name: string): boolean {
    return this.runners.has(name);
  }

  async stop(): Promise<void> {
    if (this.followTimer) clearInterval(this.followTimer);
    this.followTimer = null;
    if (this.remotePoll) clearTimeout(this.remotePoll);
    this.remotePoll = null;
    await this.following;
    await Promise.all([...this.leases.values()].map((l) => l.stop()));
    this.leases.clear();
    // Runners started without a lease (none today) would still be here.
    await Promise.all([...this.runners.values(), ...this.rebuilds.values()].map((r) => r.stop()));
    this.runners.clear();
    this.rebuilds.clear();
    if (this.ownsCoordination) await this.coordination.close();
  }
}

export type { RecordedEvent };
