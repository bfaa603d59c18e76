import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { LoginChallenge, SecondFactorGate } from '../../accounts/application/second-factor.port';
import { IssueLoginChallenge } from './two-factor.commands';
import { TwoFactorWriter } from './two-factor.writer';

/**
 * What password login asks of 2FA. Whether the second step is required is read from
 * the 2FA stream itself, not from a read model, so a login right after enabling can
 * never slip through on a lagging projection.
 */
@Injectable()
export class TwoFactorLoginGate implements SecondFactorGate {
  constructor(
    private readonly writer: TwoFactorWriter,
    private readonly commands: CommandBus,
  ) {}

  async required(accountId: number): Promise<boolean> {
    return (await this.writer.state(accountId)).enabled;
  }

  challenge(accountId: number, sourceIp: string): Promise<LoginChallenge> {
    return this.commands.execute(new IssueLoginChallenge(accountId, sourceIp));
  }
}
