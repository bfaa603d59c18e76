import { Coordination } from '../consumers/coordination';
import { newHolderId } from '../consumers/lease';
import { SqliteCoordination } from '../consumers/sqlite-coordination';
import { EventStore, Position, RecordedEvent } from '../eventstore/event-store.port';
import { Collection, Doc, ReadStore } from '../readstore/read-store.port';
import { GenerationFollower } from './generation-follower';
import { PositionPublisher } from './position-publisher';
import { ProjectionDefinition } from './projection';
import { ProjectionLeases } from './projection-leases';
import { ProjectionRebuilds } from './projection-rebuilds';
import { physicalName } from './projection-runner';
import { ProjectionEngineOptions, ProjectionSet } from './projection-set';
import { projectionStatus, ProjectionStatus } from './projection-status';
import { ReadModel } from './read-model';
import { ReadYourWrites } from './read-your-writes';

const PUBLISH_EVERY_MS = 5;

export type { ProjectionEngineOptions, ProjectionStatus };

/**
 * Owns the projections of the process: runs, under a lease per projection, the ones no
 * other process runs (projection-leases.ts, each generation run by projection-runner.ts);
 * tells readers which physical collections are current, following switches made by other
 * processes (generation-follower.ts); waits for read-your-writes, on local runners or on
 * the positions other processes publish (read-your-writes.ts); rebuilds a projection
 * beside the live one, switching readers only once the new one has caught up
 * (projection-rebuilds.ts); and reports each one's state (projection-status.ts).
 */
export class ProjectionEngine {
  private readonly set: ProjectionSet;
  private readonly coordination: Coordination;
  private readonly ownsCoordination: boolean;
  private readonly readYourWrites: ReadYourWrites;
  private readonly rebuilds: ProjectionRebuilds;
  private readonly follower: GenerationFollower;
  private readonly leases: ProjectionLeases;
  readonly holder: string;

  constructor(
    store: EventStore,
    private readonly readStore: ReadStore,
    definitions: ProjectionDefinition[],
    log: (msg: string, extra?: object) => void = () => undefined,
    options: ProjectionEngineOptions = {},
  ) {
    const names = new Set<string>();
    for (const d of definitions) {
      if (names.has(d.name)) throw new Error(`duplicate projection ${d.name}`);
      names.add(d.name);
    }
    this.ownsCoordination = !options.coordination;
    this.coordination = options.coordination ?? new SqliteCoordination(':memory:');
    const publisher = new PositionPublisher(readStore, this.coordination, PUBLISH_EVERY_MS);
    this.holder = options.holder ?? newHolderId();
    this.set = new ProjectionSet(
      store,
      readStore,
      definitions,
      log,
      options,
      this.coordination,
      this.ownsCoordination,
      publisher,
      this.holder,
    );
    this.readYourWrites = new ReadYourWrites(this.set);
    this.rebuilds = new ProjectionRebuilds(this.set);
    this.follower = new GenerationFollower(this.set, (name) => this.rebuild(name));
    this.leases = new ProjectionLeases(this.set, (name, opts) => this.rebuild(name, opts));
  }

  /**
   * Resolves generations (readers need this even where no runner runs) and keeps
   * following them: another process's rebuild switches this one's readers too.
   */
  loadGenerations(): Promise<void> {
    return this.follower.loadGenerations();
  }

  /**
   * Runs every projection whose lease this process gets; the others stay on standby and
   * are taken over if their holder stops renewing. A projection whose code version
   * changed is rebuilt first.
   */
  async start(): Promise<void> {
    await this.loadGenerations();
    await this.leases.start();
  }

  /** The physical collection readers use for a projection's logical collection. */
  collection<T extends Doc = Doc>(projection: string, logical: string): Collection<T> {
    const d = this.set.definition(projection);
    if (!d.collections.includes(logical)) throw new Error(`${projection} has no collection ${logical}`);
    return this.readStore.collection<T>(physicalName(logical, this.set.generations.get(projection) ?? 1));
  }

  /** The collection readers use for a read model (its current generation). */
  readModel<T extends Doc>(model: ReadModel<T>): Collection<T> {
    return this.collection<T>(model.projection, model.name);
  }

  /**
   * Resolves once every projection named (all when omitted) has processed `position`
   * (read-your-writes for the client that made the change). Gives up quietly after `timeoutMs`.
   */
  waitFor(position: Position | null, timeoutMs = 5000, only?: string[]): Promise<boolean> {
    return this.readYourWrites.waitFor(position, timeoutMs, only);
  }

  /** Rebuilds a projection without downtime (here if this process holds its lease, else by the holder). */
  rebuild(name: string, options: { wait?: boolean } = {}): Promise<{ generation: number }> {
    return this.rebuilds.rebuild(name, options);
  }

  status(): Promise<ProjectionStatus[]> {
    return projectionStatus(this.set);
  }

  /** The generation of a projection's read models that readers use now (it changes when a rebuild switches over). */
  generationOf(projection: string): number {
    return this.set.generations.get(projection) ?? 1;
  }

  names(): string[] {
    return this.set.names();
  }

  /** Whether this process runs the projection now (holds its lease). */
  runsHere(name: string): boolean {
    return this.set.runners.has(name);
  }

  async stop(): Promise<void> {
    this.follower.stop();
    this.readYourWrites.stop();
    await this.follower.following;
    await this.leases.stop();
    // Runners started without a lease (none today) would still be here.
    await Promise.all([...this.set.runners.values(), ...this.set.rebuilds.values()].map((r) => r.stop()));
    this.set.runners.clear();
    this.set.rebuilds.clear();
    if (this.ownsCoordination) await this.coordination.close();
  }
}

export type { RecordedEvent };
