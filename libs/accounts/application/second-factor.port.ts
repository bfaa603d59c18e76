/**
 * What password login needs from two-factor authentication, without depending on it:
 * whether the account must pass a second step, and the challenge to hand the client.
 */
export interface LoginChallenge {
  requires_2fa: true;
  login_token: string;
  expires_in: number;
}

export interface SecondFactorGate {
  required(accountId: number): Promise<boolean>;
  challenge(accountId: number, sourceIp: string): Promise<LoginChallenge>;
  /** A signed-in user's TOTP code for a sensitive operation; rejects with 400 `invalid_code` when wrong. */
  confirm(accountId: number, code: string, sourceIp: string): Promise<void>;
}

export const SECOND_FACTOR_GATE = Symbol('SECOND_FACTOR_GATE');
