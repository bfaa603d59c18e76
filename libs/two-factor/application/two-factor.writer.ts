import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventMetadata, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projections/projection-engine';
import { sha256Hex } from '../../shared/crypto';
import { refusalOf, TwoFactorCommand, twoFactorDecider, TwoFactorState } from '../domain/two-factor.decider';
import { TwoFactorEvent, twoFactorStream } from '../domain/two-factor.events';

export const userMetadata = (accountId: number, sourceIp: string): EventMetadata => ({
  actor: `user:${accountId}`,
  account_id: accountId,
  source_ip: sourceIp,
});

/** A UUID derived from a name, so re-sending the same step's events is recognised by the store. */
export function deterministicEventId(name: string): string {
  const h = sha256Hex(name);
  // RFC 4122 layout with version 5 / variant bits, as EventStoreDB wants UUID event ids.
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The command side of one account's 2FA stream: fold, decide, append (retried on
 * conflicts by EventStreams), wait for the read models, then answer a refused
 * attempt with its error only after the failure itself has been recorded.
 */
@Injectable()
export class TwoFactorWriter {
  constructor(
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(accountId: number): Promise<TwoFactorState> {
    return (await this.streams.loadState(twoFactorStream(accountId), twoFactorDecider)).state;
  }

  async execute(
    accountId: number,
    command: TwoFactorCommand | ((state: TwoFactorState) => TwoFactorCommand),
    metadata: EventMetadata,
  ): Promise<TwoFactorEvent[]> {
    const result = await this.streams.handle(twoFactorStream(accountId), twoFactorDecider, command, metadata);
    await this.projections.waitFor(result.position);
    const refusal = refusalOf(result.events);
    if (refusal) throw refusal;
    return result.events;
  }

  /**
   * For process-manager steps: events get ids derived from `stepKey`, so a step
   * replayed after a crash or run by two workers at once appends once. A concurrent
   * change to the stream simply defers the step to the next sweep, which re-decides.
   */
  async executeOnce(accountId: number, command: TwoFactorCommand, stepKey: string, metadata: EventMetadata): Promise<TwoFactorEvent[]> {
    const stream = twoFactorStream(accountId);
    const { state, revision } = await this.streams.loadState(stream, twoFactorDecider);
    const events = twoFactorDecider.decide(command, state);
    if (events.length === 0) return [];
    try {
      await this.store.appendToStream(
        stream,
        events.map((e, i) => ({ id: deterministicEventId(`${stepKey}:${i}`), type: e.type, data: e.data, metadata: { version: 1, ...metadata } })),
        revision === -1 ? 'no_stream' : revision,
      );
      return events;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return [];
      throw e;
    }
  }
}
