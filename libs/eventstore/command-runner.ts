import { Inject, Injectable } from '@nestjs/common';
import { EventMetadata, Position } from './event-store.port';
import { EventStreams, HandleResult } from './event-streams';
import { Decider, DomainEvent } from '../shared/decider';

/**
 * Read-your-writes, as the write side needs it: wait until the named read models (all when
 * omitted) have applied the event store up to `position`. The projection engine provides it;
 * the port keeps the write side free of the read side's code.
 */
export interface ReadModelsCatchUp {
  waitFor(position: Position | null, timeoutMs: number, readModels?: string[]): Promise<unknown>;
}
export const READ_MODELS_CATCH_UP = Symbol('READ_MODELS_CATCH_UP');

/**
 * What a command handler does with a decider: decide on the stream, append, and answer
 * only once the read models have caught up with the append, so the client that made a
 * change reads it back at once (read-your-writes).
 */
@Injectable()
export class CommandRunner {
  constructor(
    readonly streams: EventStreams,
    @Inject(READ_MODELS_CATCH_UP) private readonly readModels: ReadModelsCatchUp,
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
    await this.readModels.waitFor(result.position, 5000, readModels);
    return result;
  }

  /**
   * A process manager's or a scheduled job's command, sent again after a crash: appended once
   * (event ids from `commandKey`, see `EventStreams.handleOnce`). No client waits on its read
   * models, so it answers as soon as the events are stored.
   */
  runOnce<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C,
    commandKey: string,
    metadata: EventMetadata,
  ): Promise<E[]> {
    return this.streams.handleOnce(stream, decider, command, commandKey, metadata);
  }
}
