import { EventEmitter } from 'node:events';
import { Coordination } from '../consumers/coordination';
import { EventStore, Position } from '../eventstore/event-store.port';
import { Doc, ReadStore } from '../readstore/read-store.port';
import { PositionPublisher } from './position-publisher';
import { ProjectionDefinition } from './projection';
import { ProjectionRunner } from './projection-runner';

export interface ProjectionMeta extends Doc {
  _id: string;
  generation: number;
  version: number;
}

export const META = '_projections';
export const FOLLOW_INTERVAL_MS = 250;

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
 * What the parts of the projection engine share: the projections, the stores, and which
 * generation of each runs here (`runners`, `rebuilds`) or is read here (`generations`).
 * `progress` fires whenever a runner has applied events (read-your-writes listens).
 */
export class ProjectionSet {
  readonly runners = new Map<string, ProjectionRunner>();
  readonly rebuilds = new Map<string, ProjectionRunner>();
  readonly generations = new Map<string, number>();
  readonly progress = new EventEmitter();

  constructor(
    readonly store: EventStore,
    readonly readStore: ReadStore,
    readonly definitions: ProjectionDefinition[],
    readonly log: (msg: string, extra?: object) => void,
    readonly options: ProjectionEngineOptions,
    readonly coordination: Coordination,
    /** True when the coordination is this engine's private in-memory one (one process). */
    readonly ownsCoordination: boolean,
    readonly publisher: PositionPublisher,
    readonly holder: string,
  ) {
    this.progress.setMaxListeners(0);
  }

  definition(name: string): ProjectionDefinition {
    const d = this.definitions.find((p) => p.name === name);
    if (!d) throw new Error(`unknown projection ${name}`);
    return d;
  }

  names(): string[] {
    return this.definitions.map((d) => d.name);
  }

  newRunner(d: ProjectionDefinition, generation: number, from: Position | null): ProjectionRunner {
    return new ProjectionRunner(
      d,
      generation,
      from,
      this.store,
      this.readStore,
      this.coordination,
      this.publisher,
      this.progress,
      this.log,
    );
  }
}
