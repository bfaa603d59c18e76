import { EmailAuthSubscription, Plan } from '../domain/account.events';

export class RegisterAccount {
  constructor(
    readonly username: string,
    readonly email: string,
    readonly password: string,
    readonly sourceIp: string,
  ) {}
}

export class LoginWithPassword {
  constructor(
    readonly login: string,
    readonly password: string,
    readonly sourceIp: string,
  ) {}
}

export class Logout {
  constructor(
    readonly accountId: number,
    readonly sessionId: string,
    readonly sourceIp: string,
  ) {}
}

export class ChangePassword {
  constructor(
    readonly accountId: number,
    readonly currentPassword: string,
    readonly newPassword: string,
    readonly keepSessionId: string | null,
    readonly actor: string,
    readonly sourceIp: string,
  ) {}
}

export class ChangeSubscription {
  constructor(
    readonly accountId: number,
    readonly plan: Plan | undefined,
    readonly emailAuth: EmailAuthSubscription | undefined,
  ) {}
}

export class SetAccountDisabled {
  constructor(
    readonly accountId: number,
    readonly disabled: boolean,
  ) {}
}

/** The owner deletes the account (decision 0090): the current password, and a TOTP code when 2FA is on. */
export class DeleteAccount {
  constructor(
    readonly accountId: number,
    readonly password: string,
    readonly code: string | undefined,
    readonly actor: string,
    readonly sourceIp: string,
  ) {}
}

/**
 * Sent once by the account-deletion process after it removed the account's resources:
 * releases the username and email and records AccountDataRemoved. `commandId` makes a resend a no-op.
 */
export class CompleteAccountDeletion {
  constructor(
    readonly accountId: number,
    readonly commandId: string,
  ) {}
}
