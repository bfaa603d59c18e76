/**
 * For projection specs: applies events, as the engine would, to a projection's read
 * models in a throw-away embedded read store, and reads the documents back. Given events
 * → documents; `replayed()` applies them all again (a redelivery from an older
 * checkpoint after a crash), which must change nothing.
 */
import { randomUUID } from 'node:crypto';
import { EventMetadata, RecordedEvent } from '../eventstore/event-store.port';
import { EmbeddedReadStore } from '../readstore/embedded/embedded-read-store';
import { Doc } from '../readstore/read-store.port';
import { ProjectionContext, ProjectionDefinition } from './projection';
import { EventShape, ReadModel } from './read-model';

/** An event to project: a member of the projection's event union, with the metadata it would be appended with. */
export type GivenEvent<E extends EventShape = EventShape> = E & {
  metadata?: EventMetadata;
  streamId?: string;
  id?: string;
  created?: Date;
};

export interface ProjectionHarness {
  /** Every document of a read model, by `_id`, without the position guard's `_pos`. */
  documents<D extends Doc>(model: ReadModel<D>): Promise<Omit<D, '_pos'>[]>;
  /** Applies every event given so far once more, in order, at the same positions. */
  replayed(): Promise<void>;
  close(): Promise<void>;
}

export async function project<E extends EventShape>(
  definition: ProjectionDefinition,
  given: GivenEvent<E>[],
): Promise<ProjectionHarness> {
  const store = new EmbeddedReadStore({ file: ':memory:', writer: 'inline' });
  const ctx: { position: number; firstDelivery: boolean } & ProjectionContext = {
    position: 0,
    // The first pass delivers each event for the first time; replayed() again.
    firstDelivery: true,
    collection: (model) => {
      const name = typeof model === 'string' ? model : model.name;
      if (!definition.collections.includes(name)) throw new Error(`${definition.name} does not own ${name}`);
      return store.collection(name);
    },
  };
  const recorded: RecordedEvent[] = given.map((e, i) => ({
    id: e.id ?? randomUUID(),
    streamId: e.streamId ?? 'stream',
    revision: i,
    type: e.type,
    data: e.data,
    metadata: e.metadata ?? {},
    position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
    created: e.created ?? new Date(0),
  }));
  const applyAll = async () => {
    for (const [i, event] of recorded.entries()) {
      if (definition.handles && !definition.handles.includes(event.type)) continue;
      ctx.position = i + 1;
      await definition.apply(event, ctx);
    }
  };
  await definition.setup?.(ctx);
  await applyAll();
  return {
    async documents<D extends Doc>(model: ReadModel<D>) {
      const docs = await store.collection<D>(model.name).find({}, { sort: { _id: 1 } });
      return docs.map(({ _pos, ...rest }) => rest as Omit<D, '_pos'>);
    },
    replayed: () => {
      ctx.firstDelivery = false;
      return applyAll();
    },
    close: () => store.close(),
  };
}
