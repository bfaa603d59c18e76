import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventMetadata, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { CommandRunner } from '../../eventstore/command-runner';
import { nameBasedEventId } from '../../eventstore/event-id';
import { eventMetadata } from '../../eventstore/event-metadata';
import { refusalOf, TwoFactorCommand, twoFactorDecider, TwoFactorState } from '../domain/two-factor.decider';
import { TwoFactorEvent, twoFactorStream } from '../domain/two-factor.events';

export const userMetadata = (accountId: number, sourceIp: string): EventMetadata => ({
  actor: `user:${accountId}`,
  account_id: accountId,
  source_ip: sourceIp,
});

const STEP_CONFLICT_RETRIES = 5;

/**
 * The command side of one account's 2FA stream: fold, decide, append (retried on
 * conflicts by EventStreams), wait for the read models, then answer a refused
 * attempt with its error only after the failure itself has been recorded.
 */
@Injectable()
export class TwoFactorWriter {
  constructor(
    private readonly runner: CommandRunner,
    private readonly streams: EventStreams,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(accountId: number): Promise<TwoFactorState> {
    return (await this.streams.loadState(twoFactorStream(accountId), twoFactorDecider)).state;
  }

  async execute(accountId: number, command: TwoFactorCommand | ((state: TwoFactorState) => TwoFactorCommand), metadata: EventMetadata): Promise<TwoFactorEvent[]> {
    const result = await this.runner.run(twoFactorStream(accountId), twoFactorDecider, command, metadata);
    const refusal = refusalOf(result.events);
    if (refusal) throw refusal;
    return result.events;
  }

  /**
   * For process-manager steps: events get ids derived from `stepKey`, so a step
   * replayed after a crash or run by two workers at once appends once. A concurrent
   * change to the stream fails the step, and the runtime retries it, re-deciding.
   */
  async executeOnce(accountId: number, command: TwoFactorCommand, stepKey: string, metadata: EventMetadata): Promise<TwoFactorEvent[]> {
    const stream = twoFactorStream(accountId);
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.streams.loadState(stream, twoFactorDecider);
      const events = twoFactorDecider.decide(command, state);
      if (events.length === 0) return [];
      try {
        await this.store.appendToStream(
          stream,
          events.map((e, i) => ({ id: nameBasedEventId(`${stepKey}:${i}`), type: e.type, data: e.data, metadata: eventMetadata(metadata) })),
          revision === -1 ? 'no_stream' : revision,
        );
        return events;
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= STEP_CONFLICT_RETRIES) throw e;
      }
    }
  }
}
