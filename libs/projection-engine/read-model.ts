/**
 * Read models owned by their projection file: each collection is declared once, with its
 * document type and indexes (`defineReadModel`), and the projection that writes it is
 * declared with the events it handles (`defineProjection`), so `apply` sees those events
 * typed (a switch on `event.type` narrows `event.data`) and readers import the document
 * type and the handle instead of re-declaring them and naming collections by strings.
 */
import { RecordedEvent } from '../eventstore/event-store.port';
import { Doc, IndexOptions } from '../readstore/read-store.port';
import { ProjectionContext, ProjectionDefinition } from './projection';

export interface ReadModelIndex {
  keys: Record<string, 1 | -1>;
  options?: IndexOptions;
}

/** One collection of a read model: the projection that owns it, its logical name, its indexes; `D` its documents. */
export interface ReadModel<D extends Doc> {
  readonly projection: string;
  readonly name: string;
  readonly indexes: readonly ReadModelIndex[];
  /** Never set: carries the document type for `ctx.collection(model)` and `engine.readModel(model)`. */
  readonly document?: D;
}

export const defineReadModel = <D extends Doc>(
  projection: string,
  name: string,
  indexes: readonly ReadModelIndex[] = [],
): ReadModel<D> => ({
  projection,
  name,
  indexes,
});

/** The shape every domain event union member has. */
export interface EventShape {
  type: string;
  data: unknown;
}

/** A recorded event of the union `E`, one member per type, so a switch on `type` narrows `data`. */
export type ProjectedEvent<E extends EventShape> = E extends unknown
  ? Omit<RecordedEvent, 'type' | 'data'> & { type: E['type']; data: E['data'] }
  : never;

export interface TypedProjection<E extends EventShape> {
  name: string;
  /** Bump to rebuild the read model into new collections at the next start. */
  version: number;
  readModels: readonly ReadModel<any>[];
  handles: readonly E['type'][];
  /** Beyond the read models' declared indexes (created before this runs). */
  setup?(ctx: Omit<ProjectionContext, 'position' | 'firstDelivery'>): Promise<void>;
  apply(event: ProjectedEvent<E>, ctx: ProjectionContext): Promise<void>;
}

/** A projection over the events `E`, writing only its own read models; the engine's definition of it. */
export function defineProjection<E extends EventShape>(projection: TypedProjection<E>): ProjectionDefinition {
  for (const model of projection.readModels) {
    if (model.projection !== projection.name)
      throw new Error(`read model ${model.name} belongs to ${model.projection}, not ${projection.name}`);
  }
  return {
    name: projection.name,
    version: projection.version,
    collections: projection.readModels.map((m) => m.name),
    handles: projection.handles,
    async setup(ctx) {
      for (const model of projection.readModels) {
        for (const index of model.indexes) await ctx.collection(model).createIndex(index.keys, index.options);
      }
      await projection.setup?.(ctx);
    },
    // The engine hands `apply` only the event types listed in `handles` (its consumer filters
    // on them), so every event here is one of `E`: the one place that is taken on trust.
    apply: (event, ctx) => projection.apply(event as ProjectedEvent<E>, ctx),
  };
}
