import { Injectable } from '@nestjs/common';
import { EventMetadata } from '../eventstore/event-store.port';
import { EventStreams, HandleResult } from '../eventstore/event-streams';
import { Decider, DomainEvent } from '../shared/decider';
import { ProjectionEngine } from './projection-engine';

/**
 * What a command handler does with a decider: decide on the stream, append, and answer
 * only once the read models have caught up with the append, so the client that made a
 * change reads it back at once (read-your-writes).
 */
@Injectable()
export class CommandRunner {
  constructor(
    readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
  ) {}

  async run<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C | ((state: S) => C),
    metadata: EventMetadata,
    /** The read models the answer depends on; all of them when omitted. */
    readModels?: string[],
  ): Promise<HandleResult<S, E>> {
    const result = await this.streams.handle(stream, decider, command, metadata);
    await this.projections.waitFor(result.position, 5000, readModels);
    return result;
  }
}
