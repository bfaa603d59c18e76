import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../eventstore/event-streams';
import { CommandRunner } from '../../eventstore/command-runner';
import { CLOCK, Clock } from '../../shared/clock';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../shared/crypto';
import { AppError, badRequest, conflict, notFound } from '../../shared/errors';
import { accountDecider, AccountState, invalidCredentials } from '../domain/account.decider';
import { accountStream } from '../domain/account.events';
import { AccountDirectory } from './account-directory';
import {
  ChangePassword,
  ChangeSubscription,
  CompleteAccountDeletion,
  DeleteAccount,
  LoginWithPassword,
  Logout,
  RegisterAccount,
  SetAccountDisabled,
} from './account.commands';
import { LoginThrottle } from './login-throttle';
import { LoginChallenge, SECOND_FACTOR_GATE, SecondFactorGate } from './second-factor.port';
import { SessionIssuer, SessionToken } from './session-issuer';

@CommandHandler(RegisterAccount)
export class RegisterAccountHandler implements ICommandHandler<RegisterAccount, number> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: RegisterAccount): Promise<number> {
    const passwordHash = await hashPassword(cmd.password);
    const accountId = await this.directory.nextAccountId();
    const metadata = { actor: `user:${accountId}`, account_id: accountId, source_ip: cmd.sourceIp };
    // Reservations are bookkeeping of the uniqueness rule, not facts of the account's own history.
    const reservation = { actor: metadata.actor, source_ip: cmd.sourceIp };
    if (!(await this.directory.claim('username', cmd.username, accountId, reservation))) {
      throw conflict('username_taken', 'That username is taken');
    }
    if (!(await this.directory.claim('email', cmd.email, accountId, reservation))) {
      await this.directory.release('username', cmd.username, reservation);
      throw conflict('email_taken', 'An account with that email exists');
    }
    await this.runner.run(
      accountStream(accountId),
      accountDecider,
      {
        type: 'Register',
        accountId,
        username: cmd.username,
        email: cmd.email,
        passwordHash,
        at: this.clock.now().toISOString(),
      },
      metadata,
    );
    return accountId;
  }
}

@CommandHandler(LoginWithPassword)
export class LoginWithPasswordHandler implements ICommandHandler<LoginWithPassword, SessionToken | LoginChallenge> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly streams: EventStreams,
    private readonly throttle: LoginThrottle,
    private readonly sessions: SessionIssuer,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(SECOND_FACTOR_GATE) private readonly secondFactor?: SecondFactorGate,
  ) {}

  async execute(cmd: LoginWithPassword): Promise<SessionToken | LoginChallenge> {
    // The counter is the account's whichever name was given; a name nobody holds has its own.
    const accountId = await this.directory.resolve(cmd.login);
    const attempt = await this.throttle.begin(accountId === null ? { unknownName: cmd.login } : { accountId });
    let passwordOk = false;
    let state: AccountState | null = null;
    try {
      if (accountId === null) {
        // Same work as a real check, so response time does not reveal which names exist.
        await verifyPassword(cmd.password, await dummyPasswordHash());
      } else {
        state = (await this.directory.load(accountId)).state;
        passwordOk = state.exists && !state.deleted && (await verifyPassword(cmd.password, state.passwordHash));
      }
    } catch (e) {
      await attempt.abandon();
      throw e;
    }
    if (!passwordOk || accountId === null || !state) {
      await attempt.failed();
      // A deleted account (its name not yet released) records nothing more: it answers as an unknown name.
      if (accountId !== null && state?.exists && !state.deleted) {
        await this.streams.handle(
          accountStream(accountId),
          accountDecider,
          {
            type: 'StartSession',
            passwordOk: false,
            sessionId: '',
            tokenHash: '',
            at: this.clock.now().toISOString(),
            expiresAt: '',
            secondFactor: 'none',
          },
          { actor: 'anonymous', account_id: accountId, source_ip: cmd.sourceIp },
        );
      }
      throw invalidCredentials();
    }
    await attempt.succeeded();
    if (state.disabled) {
      // Decided by the decider (403 account_disabled) without writing a session.
      accountDecider.decide(
        {
          type: 'StartSession',
          passwordOk: true,
          sessionId: '',
          tokenHash: '',
          at: '',
          expiresAt: '',
          secondFactor: 'none',
        },
        state,
      );
    }
    if (this.secondFactor && (await this.secondFactor.required(accountId))) {
      return this.secondFactor.challenge(accountId, cmd.sourceIp);
    }
    return this.sessions.start(accountId, 'none', cmd.sourceIp);
  }
}

@CommandHandler(Logout)
export class LogoutHandler implements ICommandHandler<Logout, void> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: Logout): Promise<void> {
    await this.runner.run(
      accountStream(cmd.accountId),
      accountDecider,
      { type: 'EndSession', sessionId: cmd.sessionId, at: this.clock.now().toISOString() },
      { actor: `user:${cmd.accountId}`, account_id: cmd.accountId, source_ip: cmd.sourceIp },
    );
  }
}

@CommandHandler(ChangePassword)
export class ChangePasswordHandler implements ICommandHandler<ChangePassword, void> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: ChangePassword): Promise<void> {
    const { state } = await this.directory.load(cmd.accountId);
    if (!state.exists) throw notFound('Account not found');
    const currentPasswordOk = await verifyPassword(cmd.currentPassword, state.passwordHash);
    const newPasswordHash = currentPasswordOk ? await hashPassword(cmd.newPassword) : '';
    await this.runner.run(
      accountStream(cmd.accountId),
      accountDecider,
      {
        type: 'ChangePassword',
        currentPasswordOk,
        newPasswordHash,
        keepSessionId: cmd.keepSessionId,
        at: this.clock.now().toISOString(),
      },
      { actor: cmd.actor, account_id: cmd.accountId, source_ip: cmd.sourceIp },
    );
  }
}

@CommandHandler(ChangeSubscription)
export class ChangeSubscriptionHandler implements ICommandHandler<ChangeSubscription, void> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: ChangeSubscription): Promise<void> {
    await this.runner.run(
      accountStream(cmd.accountId),
      accountDecider,
      { type: 'ChangeSubscription', plan: cmd.plan, emailAuth: cmd.emailAuth, at: this.clock.now().toISOString() },
      { actor: 'operator', account_id: cmd.accountId },
    );
  }
}

@CommandHandler(SetAccountDisabled)
export class SetAccountDisabledHandler implements ICommandHandler<SetAccountDisabled, void> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: SetAccountDisabled): Promise<void> {
    const at = this.clock.now().toISOString();
    await this.runner.run(
      accountStream(cmd.accountId),
      accountDecider,
      cmd.disabled ? { type: 'Disable', at } : { type: 'Enable', at },
      {
        actor: 'operator',
        account_id: cmd.accountId,
      },
    );
  }
}

/** The deletion process's actor: the events removing a deleted account's data name it (decision 0090). */
export const ACCOUNT_DELETION_ACTOR = 'system:account-deletion';

@CommandHandler(DeleteAccount)
export class DeleteAccountHandler implements ICommandHandler<DeleteAccount, void> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly runner: CommandRunner,
    private readonly throttle: LoginThrottle,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(SECOND_FACTOR_GATE) private readonly secondFactor?: SecondFactorGate,
  ) {}

  /**
   * The password is checked under the login lockout of the account (contract §2): a stolen
   * session cannot guess it faster than a login could, and five wrong ones lock both.
   */
  async execute(cmd: DeleteAccount): Promise<void> {
    const attempt = await this.throttle.begin({ accountId: cmd.accountId });
    let passwordOk = false;
    try {
      const { state } = await this.directory.load(cmd.accountId);
      passwordOk = state.exists && !state.deleted && (await verifyPassword(cmd.password, state.passwordHash));
      if (passwordOk && this.secondFactor && (await this.secondFactor.required(cmd.accountId))) {
        if (!cmd.code)
          throw badRequest(
            'invalid_code',
            'Two-factor authentication is on: send code, a 6-digit code from your authenticator app',
          );
        await this.secondFactor.confirm(cmd.accountId, cmd.code, cmd.sourceIp);
      }
    } catch (e) {
      // A wrong code counts like a wrong password; a missing one or an error counts as nothing.
      if (passwordOk && cmd.code && e instanceof AppError && e.code === 'invalid_code') await attempt.failed();
      else await attempt.abandon();
      throw e;
    }
    if (!passwordOk) {
      await attempt.failed();
      throw invalidCredentials();
    }
    await attempt.succeeded();
    await this.runner.run(
      accountStream(cmd.accountId),
      accountDecider,
      { type: 'Delete', at: this.clock.now().toISOString() },
      { actor: cmd.actor, account_id: cmd.accountId, source_ip: cmd.sourceIp },
      // Sessions and keys are refused from the read models: the answer waits until they know.
      ['accounts', 'sessions'],
    );
  }
}

@CommandHandler(CompleteAccountDeletion)
export class CompleteAccountDeletionHandler implements ICommandHandler<CompleteAccountDeletion, void> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: CompleteAccountDeletion): Promise<void> {
    const { state } = await this.directory.load(cmd.accountId);
    if (!state.deleted) throw conflict('not_deleted', 'The account has not been deleted');
    // Bookkeeping of the uniqueness rule, like registration's claims: no account_id, out of the audit log.
    const reservation = { actor: ACCOUNT_DELETION_ACTOR };
    await this.directory.releaseHeld('username', state.username, cmd.accountId, reservation);
    await this.directory.releaseHeld('email', state.email, cmd.accountId, reservation);
    await this.runner.runOnce(
      accountStream(cmd.accountId),
      accountDecider,
      { type: 'CompleteDeletion', at: this.clock.now().toISOString() },
      cmd.commandId,
      { actor: ACCOUNT_DELETION_ACTOR, account_id: cmd.accountId },
    );
  }
}

export const ACCOUNT_COMMAND_HANDLERS = [
  RegisterAccountHandler,
  LoginWithPasswordHandler,
  LogoutHandler,
  ChangePasswordHandler,
  ChangeSubscriptionHandler,
  SetAccountDisabledHandler,
  DeleteAccountHandler,
  CompleteAccountDeletionHandler,
];
