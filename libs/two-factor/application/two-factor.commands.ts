import type { CommandContext } from '../../consumers/process-manager-runtime';
export class StartTwoFactorSetup {
  constructor(
    readonly accountId: number,
    readonly sourceIp: string,
  ) {}
}

export class VerifyTwoFactorSetup {
  constructor(
    readonly accountId: number,
    readonly setupToken: string,
    readonly code: string,
    readonly sourceIp: string,
  ) {}
}

export class DisableTwoFactor {
  constructor(
    readonly accountId: number,
    readonly password: string,
    readonly sourceIp: string,
  ) {}
}

export class RegenerateBackupCodes {
  constructor(
    readonly accountId: number,
    readonly password: string,
    readonly sourceIp: string,
  ) {}
}

/** Issued by password login when the account has 2FA on (through the SecondFactorGate). */
export class IssueLoginChallenge {
  constructor(
    readonly accountId: number,
    readonly sourceIp: string,
  ) {}
}

/** The second login step: a login_token and a TOTP or backup code. */
export class CompleteLoginChallenge {
  constructor(
    readonly loginToken: string,
    readonly code: string,
    readonly sourceIp: string,
  ) {}
}

/** Sent by the setup deadline process once a pending setup is past its deadline. */
export class ExpireTwoFactorSetup {
  constructor(
    readonly accountId: number,
    readonly setupId: string,
    /** Set by the deadline process manager: the command's id and what caused it. */
    readonly context?: CommandContext,
  ) {}
}

export interface SetupStarted {
  secret: string;
  qr_code: string;
  setup_token: string;
  otpauth_url: string;
}

/** A signed-in user's TOTP code confirming a sensitive operation (account deletion); 400 invalid_code when wrong. */
export class ConfirmSecondFactor {
  constructor(
    readonly accountId: number,
    readonly code: string,
    readonly sourceIp: string,
  ) {}
}
