import { Inject, Injectable } from '@nestjs/common';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { eventMetadata } from '../../eventstore/event-metadata';
import { alertDecider, EvaluateAlert } from '../domain/alert.decider';
import { AlertEvent, alertStream } from '../domain/alert.events';

const CONFLICT_RETRIES = 5;

/**
 * The command side of the alert streams. Event ids derive from the command id (the
 * process manager's or the check's), and the decider ignores an observation it has
 * already seen, so a command sent twice after a crash, or by two workers, appends once.
 */
@Injectable()
export class AlertWriter {
  constructor(
    private readonly streams: EventStreams,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async evaluate(command: EvaluateAlert, commandId: string): Promise<AlertEvent[]> {
    const stream = alertStream(command.account_id, command.rule, command.zone);
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.streams.loadState(stream, alertDecider);
      const events = alertDecider.decide(command, state);
      if (events.length === 0) return [];
      try {
        await this.store.appendToStream(
          stream,
          events.map((e, i) => ({
            id: nameBasedEventId(`${commandId}:${i}`),
            type: e.type,
            data: e.data,
            metadata: eventMetadata({ actor: 'system', account_id: command.account_id }),
          })),
          revision === -1 ? 'no_stream' : revision,
        );
        return events;
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= CONFLICT_RETRIES) throw e;
      }
    }
  }
}
