import { RecordedEvent } from '../eventstore/event-store.port';
import { Collection, Doc } from '../readstore/read-store.port';
import type { ReadModel } from './read-model';

/** What a projection's `apply` sees: its own collections (by read model, or logical name) and the event's global position. */
export interface ProjectionContext {
  collection<T extends Doc = Doc>(model: ReadModel<T> | string): Collection<T>;
  /** Global position of the event being applied, as a number, for idempotence guards. */
  readonly position: number;
  /**
   * The event was appended after this run of the projection started, so no earlier run
   * applied it: documents keyed by the event alone cannot exist yet (a previous lease holder
   * still finishing could only write the same ones). Lets such writes skip the read for an
   * existing document (UpdateOptions.unseen); false when in doubt (replays, catch-up).
   */
  readonly firstDelivery: boolean;
}

/**
 * A read model: the events it consumes and the documents it writes. `version` is part
 * of the code: bumping it makes the engine rebuild the projection into new collections
 * and switch readers over once it has caught up.
 */
export interface ProjectionDefinition {
  readonly name: string;
  readonly version: number;
  /** Logical names of the collections this projection owns (and only it writes). */
  readonly collections: readonly string[];
  /** Event types it reacts to; others are skipped without calling `apply`. */
  readonly handles?: readonly string[];
  setup?(ctx: Omit<ProjectionContext, 'position' | 'firstDelivery'>): Promise<void>;
  apply(event: RecordedEvent, ctx: ProjectionContext): Promise<void>;
}

export const PROJECTIONS = Symbol('PROJECTIONS');
