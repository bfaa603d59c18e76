import { EventStreams } from '../../eventstore/event-streams';
import { CheckRecorded, uptimeStream } from '../domain/uptime.events';
import { ProbeResult } from './tcp-probe';

export interface CheckedTarget {
  domainId: number;
  accountId: number;
  ip: string;
}

export interface CheckSink {
  record(target: CheckedTarget, at: Date, result: ProbeResult): Promise<void>;
}

/**
 * Appends each check to the domain's uptime stream. Checks are facts no decision
 * depends on, so they append with `any` and do not wait for the read models: at 100k
 * domains per interval, waiting for read-your-writes would only slow the worker down.
 */
export class EventStoreCheckSink implements CheckSink {
  constructor(
    private readonly streams: EventStreams,
    private readonly actor: string,
  ) {}

  async record(target: CheckedTarget, at: Date, result: ProbeResult): Promise<void> {
    const event: CheckRecorded = {
      type: 'CheckRecorded',
      data: {
        domain_id: target.domainId,
        account_id: target.accountId,
        checked_at: at.toISOString(),
        is_up: result.up,
        response_time_ms: result.up ? result.responseTimeMs : null,
        error: result.up ? null : result.error,
        ip: target.ip,
        port: result.port,
      },
    };
    await this.streams.append(uptimeStream(target.domainId), [event], 'any', {
      actor: this.actor,
      account_id: target.accountId,
    });
  }
}
