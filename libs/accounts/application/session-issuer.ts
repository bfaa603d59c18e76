import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandRunner } from '../../eventstore/command-runner';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { randomToken, sha256Hex } from '../../shared/crypto';
import { accountDecider } from '../domain/account.decider';
import { accountStream } from '../domain/account.events';

export interface SessionToken {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
}

export const SESSION_TOKEN_PREFIX = 'st_';

/**
 * Starts sessions once every factor has been checked (password login, or the 2FA
 * second step). The token is returned once; only its SHA-256 is stored.
 */
@Injectable()
export class SessionIssuer {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(
    accountId: number,
    secondFactor: 'none' | 'totp' | 'backup_code',
    sourceIp: string,
  ): Promise<SessionToken> {
    const token = SESSION_TOKEN_PREFIX + randomToken(32);
    const now = this.clock.now();
    const ttl = this.config.sessionTtlSeconds;
    await this.runner.run(
      accountStream(accountId),
      accountDecider,
      {
        type: 'StartSession',
        passwordOk: true,
        sessionId: randomUUID(),
        tokenHash: sha256Hex(token),
        at: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttl * 1000).toISOString(),
        secondFactor,
      },
      { actor: `user:${accountId}`, account_id: accountId, source_ip: sourceIp },
    );
    return { access_token: token, token_type: 'bearer', expires_in: ttl };
  }
}
