import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { LoginChallenge } from '../../accounts/application/second-factor.port';
import { SessionIssuer, SessionToken } from '../../accounts/application/session-issuer';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { verifyPassword } from '../../shared/crypto';
import { notFound } from '../../shared/errors';
import { CommandRunner } from '../../eventstore/command-runner';
import { EventMetadata } from '../../eventstore/event-store.port';
import {
  invalidLoginToken,
  LOGIN_TOKEN_TTL_SECONDS,
  LoginProof,
  refusalOf,
  TwoFactorCommand,
  twoFactorDecider,
  TwoFactorState,
} from '../domain/two-factor.decider';
import { TwoFactorEvent, twoFactorStream } from '../domain/two-factor.events';
import {
  CompleteLoginChallenge,
  ConfirmSecondFactor,
  DisableTwoFactor,
  ExpireTwoFactorSetup,
  IssueLoginChallenge,
  RegenerateBackupCodes,
  SetupStarted,
  StartTwoFactorSetup,
  VerifyTwoFactorSetup,
} from './two-factor.commands';
import { isBackupCodeShape, normaliseBackupCode, normaliseTotpCode, TwoFactorCrypto } from './two-factor.crypto';
import { matchTotpStep, newTotpSecret, provisioningUri, qrCodeDataUrl } from './totp';

const userMetadata = (accountId: number, sourceIp: string): EventMetadata => ({
  actor: `user:${accountId}`,
  account_id: accountId,
  source_ip: sourceIp,
});

/**
 * One account's 2FA stream through the runner (fold, decide, append, wait for the read
 * models); a refused attempt answers its error only after the failure itself is recorded.
 */
async function runOnStream(
  runner: CommandRunner,
  accountId: number,
  command: TwoFactorCommand | ((state: TwoFactorState) => TwoFactorCommand),
  metadata: EventMetadata,
): Promise<TwoFactorEvent[]> {
  const result = await runner.run(twoFactorStream(accountId), twoFactorDecider, command, metadata);
  const refusal = refusalOf(result.events);
  if (refusal) throw refusal;
  return result.events;
}

async function loadAccount(directory: AccountDirectory, accountId: number) {
  const { state } = await directory.load(accountId);
  if (!state.exists) throw notFound('Account not found');
  return state;
}

@CommandHandler(StartTwoFactorSetup)
export class StartTwoFactorSetupHandler implements ICommandHandler<StartTwoFactorSetup, SetupStarted> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    private readonly crypto: TwoFactorCrypto,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(cmd: StartTwoFactorSetup): Promise<SetupStarted> {
    const account = await loadAccount(this.directory, cmd.accountId);
    const secret = newTotpSecret();
    const setupId = randomUUID();
    const { token, hash } = this.crypto.issueToken('setup', { accountId: cmd.accountId, id: setupId });
    await runOnStream(
      this.runner,
      cmd.accountId,
      {
        type: 'StartSetup',
        setupId,
        secretSealed: this.crypto.sealSecret(secret),
        tokenHash: hash,
        at: this.clock.now().toISOString(),
      },
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
    const uri = provisioningUri(this.config.totpIssuer, account.email, secret);
    return { secret, qr_code: await qrCodeDataUrl(uri), setup_token: token, otpauth_url: uri };
  }
}

@CommandHandler(VerifyTwoFactorSetup)
export class VerifyTwoFactorSetupHandler implements ICommandHandler<
  VerifyTwoFactorSetup,
  { success: true; backup_codes: string[] }
> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TwoFactorCrypto,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: VerifyTwoFactorSetup) {
    const claims = this.crypto.readToken('setup', cmd.setupToken);
    const codes = this.crypto.newBackupCodes();
    const now = this.clock.now();
    const code = normaliseTotpCode(cmd.code);
    await runOnStream(
      this.runner,
      cmd.accountId,
      (state) => ({
        type: 'VerifySetup',
        accountId: cmd.accountId,
        tokenAccountId: claims?.accountId ?? null,
        tokenHash: this.crypto.tokenHash(cmd.setupToken),
        totpStep: state.pending ? matchTotpStep(this.crypto.openSecret(state.pending.secretSealed), code, now) : null,
        backupCodeHashes: codes.map((c) => this.crypto.hashBackupCode(cmd.accountId, c)),
        at: now.toISOString(),
      }),
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
    return { success: true as const, backup_codes: codes };
  }
}

/** Both password-confirmed operations check the password the same way before deciding. */
async function passwordMatches(directory: AccountDirectory, accountId: number, password: string): Promise<boolean> {
  const account = await loadAccount(directory, accountId);
  return verifyPassword(password, account.passwordHash);
}

@CommandHandler(DisableTwoFactor)
export class DisableTwoFactorHandler implements ICommandHandler<DisableTwoFactor, { success: true }> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: DisableTwoFactor) {
    const passwordOk = await passwordMatches(this.directory, cmd.accountId, cmd.password);
    await runOnStream(
      this.runner,
      cmd.accountId,
      { type: 'Disable', passwordOk, at: this.clock.now().toISOString() },
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
    return { success: true as const };
  }
}

@CommandHandler(RegenerateBackupCodes)
export class RegenerateBackupCodesHandler implements ICommandHandler<
  RegenerateBackupCodes,
  { backup_codes: string[] }
> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    private readonly crypto: TwoFactorCrypto,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: RegenerateBackupCodes) {
    const passwordOk = await passwordMatches(this.directory, cmd.accountId, cmd.password);
    const codes = this.crypto.newBackupCodes();
    await runOnStream(
      this.runner,
      cmd.accountId,
      {
        type: 'RegenerateBackupCodes',
        passwordOk,
        codeHashes: codes.map((c) => this.crypto.hashBackupCode(cmd.accountId, c)),
        at: this.clock.now().toISOString(),
      },
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
    return { backup_codes: codes };
  }
}

@CommandHandler(IssueLoginChallenge)
export class IssueLoginChallengeHandler implements ICommandHandler<IssueLoginChallenge, LoginChallenge> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TwoFactorCrypto,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: IssueLoginChallenge): Promise<LoginChallenge> {
    const challengeId = randomUUID();
    const { token, hash } = this.crypto.issueToken('login', { accountId: cmd.accountId, id: challengeId });
    await runOnStream(
      this.runner,
      cmd.accountId,
      { type: 'IssueLoginChallenge', challengeId, tokenHash: hash, at: this.clock.now().toISOString() },
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
    return { requires_2fa: true, login_token: token, expires_in: LOGIN_TOKEN_TTL_SECONDS };
  }
}

@CommandHandler(CompleteLoginChallenge)
export class CompleteLoginChallengeHandler implements ICommandHandler<CompleteLoginChallenge, SessionToken> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TwoFactorCrypto,
    private readonly sessions: SessionIssuer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: CompleteLoginChallenge): Promise<SessionToken> {
    const claims = this.crypto.readToken('login', cmd.loginToken);
    if (!claims) throw invalidLoginToken();
    const { accountId } = claims;
    const now = this.clock.now();
    const events = await runOnStream(
      this.runner,
      accountId,
      (state) => ({
        type: 'CompleteLogin',
        challengeId: claims.id,
        tokenHash: this.crypto.tokenHash(cmd.loginToken),
        proof: this.proof(state, accountId, cmd.code, now),
        at: now.toISOString(),
      }),
      // The token holder has proven the password; the session does not exist yet.
      userMetadata(accountId, cmd.sourceIp),
    );
    const completed = events.find((e) => e.type === 'LoginChallengeCompleted');
    if (completed?.type !== 'LoginChallengeCompleted') throw new Error('login challenge neither completed nor refused');
    return this.sessions.start(accountId, completed.data.method, cmd.sourceIp);
  }

  /** Six digits are a TOTP code, eight hex characters a backup code; anything else matches nothing. */
  private proof(state: TwoFactorState, accountId: number, input: string, now: Date): LoginProof {
    const totp = normaliseTotpCode(input);
    if (/^\d{6}$/.test(totp)) {
      return {
        kind: 'totp',
        step: state.secretSealed ? matchTotpStep(this.crypto.openSecret(state.secretSealed), totp, now) : null,
      };
    }
    const backup = normaliseBackupCode(input);
    if (isBackupCodeShape(backup)) return { kind: 'backup_code', hash: this.crypto.hashBackupCode(accountId, backup) };
    return { kind: 'malformed' };
  }
}

@CommandHandler(ConfirmSecondFactor)
export class ConfirmSecondFactorHandler implements ICommandHandler<ConfirmSecondFactor, void> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TwoFactorCrypto,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: ConfirmSecondFactor): Promise<void> {
    const now = this.clock.now();
    const code = normaliseTotpCode(cmd.code);
    await runOnStream(
      this.runner,
      cmd.accountId,
      (state) => ({
        type: 'ConfirmCode',
        totpStep:
          /^\d{6}$/.test(code) && state.secretSealed
            ? matchTotpStep(this.crypto.openSecret(state.secretSealed), code, now)
            : null,
        at: now.toISOString(),
      }),
      userMetadata(cmd.accountId, cmd.sourceIp),
    );
  }
}

@CommandHandler(ExpireTwoFactorSetup)
export class ExpireTwoFactorSetupHandler implements ICommandHandler<ExpireTwoFactorSetup, boolean> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: ExpireTwoFactorSetup): Promise<boolean> {
    // Sent again after a crash or by two workers: appended once (ids from the command id).
    const events = await this.runner.runOnce(
      twoFactorStream(cmd.accountId),
      twoFactorDecider,
      { type: 'ExpireSetup', setupId: cmd.setupId, at: this.clock.now().toISOString() },
      cmd.context?.commandId ?? `2fa-setup-expired:${cmd.setupId}`,
      {
        actor: 'system',
        account_id: cmd.accountId,
        causation_id: cmd.context?.causationId ?? cmd.setupId,
        ...(cmd.context?.correlationId ? { correlation_id: cmd.context.correlationId } : {}),
      },
    );
    return events.length > 0;
  }
}

export const TWO_FACTOR_COMMAND_HANDLERS = [
  StartTwoFactorSetupHandler,
  VerifyTwoFactorSetupHandler,
  DisableTwoFactorHandler,
  RegenerateBackupCodesHandler,
  IssueLoginChallengeHandler,
  CompleteLoginChallengeHandler,
  ConfirmSecondFactorHandler,
  ExpireTwoFactorSetupHandler,
];
