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
