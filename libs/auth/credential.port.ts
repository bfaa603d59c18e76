import type { Principal } from './principal';

/**
 * The credential port: auth knows how a request presents a credential (the Bearer header,
 * the dashboard's cookie) and what a principal is; the contexts that issue credentials
 * know how to check them. Sessions are verified by accounts, API keys by api-keys, so auth
 * depends on neither.
 */
export interface CredentialVerifier {
  /** The token prefix this verifier owns (`st_`, `ak_`). */
  readonly prefix: string;
  /** The principal of a token with this prefix; throws 401 with `invalidMessage` when it is not valid now. */
  verify(token: string, invalidMessage: string): Promise<Principal>;
}

/** API keys, which also carry a plan rule and a last-use time. */
export interface KeyCredentialVerifier extends CredentialVerifier {
  /** Plan rule for account keys: a downgraded account's keys still authenticate but are refused. */
  assertAccountKeyAllowed(principal: Principal): Promise<void>;
  recordUse(principal: Principal): Promise<void>;
}

export const SESSION_CREDENTIALS = Symbol('SESSION_CREDENTIALS');
export const KEY_CREDENTIALS = Symbol('KEY_CREDENTIALS');
