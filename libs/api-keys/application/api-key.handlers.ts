import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { CommandRunner } from '../../eventstore/command-runner';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { CLOCK, Clock } from '../../shared/clock';
import { sha256Hex } from '../../shared/crypto';
import { notFound } from '../../shared/errors';
import { keyringDecider } from '../domain/api-key.decider';
import { ApiKeyCreated, keyringStream } from '../domain/api-key.events';
import { CreateApiKey, DeactivateApiKey } from './api-key.commands';

export const API_KEY_PREFIX = 'ak_';
/** `ak_` + 32 random bytes in base64url (43 characters): 46 characters in all. */
export const generateApiKey = (): string => API_KEY_PREFIX + randomBytes(32).toString('base64url');

export interface CreatedKey {
  key: string;
  event: ApiKeyCreated['data'];
}

@CommandHandler(CreateApiKey)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKey, CreatedKey> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: CreateApiKey): Promise<CreatedKey> {
    const { state: account } = await this.directory.load(cmd.accountId);
    if (!account.exists) throw notFound('Account not found');
    const twoFactorEnabled = cmd.access === 'email_auth:read' && (await this.directory.twoFactorEnabled(cmd.accountId));
    const key = generateApiKey();
    const result = await this.runner.run(
      keyringStream(cmd.accountId),
      keyringDecider,
      {
        type: 'CreateApiKey',
        account: {
          accountId: cmd.accountId,
          plan: account.plan,
          emailAuthTier: account.emailAuth.tier,
          emailAuthDomains: account.emailAuth.domains,
          twoFactorEnabled,
        },
        keyId: randomUUID(),
        keyHash: sha256Hex(key),
        name: cmd.name,
        access: cmd.access,
        domains: [...new Set(cmd.domains.map((d) => d.toLowerCase()))],
        failureReportSubjects: cmd.failureReportSubjects,
        expiresInDays: cmd.expiresInDays,
        at: this.clock.now().toISOString(),
      },
      { actor: cmd.actor, account_id: cmd.accountId, source_ip: cmd.sourceIp },
    );
    return { key, event: (result.events[0] as ApiKeyCreated).data };
  }
}

@CommandHandler(DeactivateApiKey)
export class DeactivateApiKeyHandler implements ICommandHandler<DeactivateApiKey, void> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: DeactivateApiKey): Promise<void> {
    await this.runner.run(
      keyringStream(cmd.accountId),
      keyringDecider,
      { type: 'DeactivateApiKey', keyId: cmd.keyId, at: this.clock.now().toISOString() },
      { actor: cmd.actor, account_id: cmd.accountId, source_ip: cmd.sourceIp },
    );
  }
}

export const API_KEY_COMMAND_HANDLERS = [CreateApiKeyHandler, DeactivateApiKeyHandler];
