import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { LoginChallenge, SecondFactorGate } from '../../accounts/application/second-factor.port';
import { EventStreams } from '../../eventstore/event-streams';
import { twoFactorDecider } from '../domain/two-factor.decider';
import { twoFactorStream } from '../domain/two-factor.events';
import { ConfirmSecondFactor, IssueLoginChallenge } from './two-factor.commands';

/**
 * What password login asks of 2FA. Whether the second step is required is read from
 * the 2FA stream itself, not from a read model, so a login right after enabling can
 * never slip through on a lagging projection.
 */
@Injectable()
export class TwoFactorLoginGate implements SecondFactorGate {
  constructor(
    private readonly streams: EventStreams,
    private readonly commands: CommandBus,
  ) {}

  async required(accountId: number): Promise<boolean> {
    return (await this.streams.loadState(twoFactorStream(accountId), twoFactorDecider)).state.enabled;
  }

  challenge(accountId: number, sourceIp: string): Promise<LoginChallenge> {
    return this.commands.execute(new IssueLoginChallenge(accountId, sourceIp));
  }

  confirm(accountId: number, code: string, sourceIp: string): Promise<void> {
    return this.commands.execute(new ConfirmSecondFactor(accountId, code, sourceIp));
  }
}
