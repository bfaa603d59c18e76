import { DomainEvent } from '../../shared/decider';

/**
 * Facts of one account's two-factor authentication, all in one stream so that every
 * decision that must be consistent (one secret, single-use backup codes, the replay
 * guard, the per-token and per-account attempt limits) is taken on one state.
 * Nothing secret is stored in the clear: the TOTP secret is sealed (AES-256-GCM),
 * backup codes are keyed hashes, setup and login tokens are SHA-256 hashes.
 */

/** Setup began; `expires_at` is the process deadline (the scheduled expiry, stored as a fact). */
export type TwoFactorSetupStarted = DomainEvent<
  'TwoFactorSetupStarted',
  { setup_id: string; secret_sealed: string; token_hash: string; started_at: string; expires_at: string }
>;
/** The setup process reached its deadline without verification; appended by the deadline process. */
export type TwoFactorSetupExpired = DomainEvent<'TwoFactorSetupExpired', { setup_id: string; at: string }>;
/** Verification completed the setup: the pending secret becomes the account's one secret. */
export type TwoFactorEnabled = DomainEvent<'TwoFactorEnabled', { setup_id: string; secret_sealed: string; at: string }>;
/** Secret, backup codes and pending login challenges are gone. */
export type TwoFactorDisabled = DomainEvent<'TwoFactorDisabled', { at: string }>;
/** A new set of backup codes; every earlier code stops working. */
export type BackupCodesIssued = DomainEvent<'BackupCodesIssued', { code_hashes: string[]; at: string }>;
export type BackupCodeUsed = DomainEvent<
  'BackupCodeUsed',
  { code_hash: string; used_at: string; challenge_id: string }
>;
/** The replay guard: a TOTP time step at or before this one is never accepted again. */
export type TotpCodeAccepted = DomainEvent<'TotpCodeAccepted', { time_step: number; at: string }>;
export type TwoFactorAttemptFailed = DomainEvent<
  'TwoFactorAttemptFailed',
  { kind: 'setup_code' | 'login_code' | 'confirm_code' | 'password'; challenge_id: string | null; at: string }
>;
export type LoginChallengeIssued = DomainEvent<
  'LoginChallengeIssued',
  { challenge_id: string; token_hash: string; issued_at: string; expires_at: string }
>;
export type LoginChallengeCompleted = DomainEvent<
  'LoginChallengeCompleted',
  { challenge_id: string; method: 'totp' | 'backup_code'; at: string }
>;
export type LoginChallengeRevoked = DomainEvent<
  'LoginChallengeRevoked',
  { challenge_id: string; reason: 'too_many_failures'; at: string }
>;

export type TwoFactorEvent =
  | TwoFactorSetupStarted
  | TwoFactorSetupExpired
  | TwoFactorEnabled
  | TwoFactorDisabled
  | BackupCodesIssued
  | BackupCodeUsed
  | TotpCodeAccepted
  | TwoFactorAttemptFailed
  | LoginChallengeIssued
  | LoginChallengeCompleted
  | LoginChallengeRevoked;

export const TWO_FACTOR_EVENT_TYPES: readonly TwoFactorEvent['type'][] = [
  'TwoFactorSetupStarted',
  'TwoFactorSetupExpired',
  'TwoFactorEnabled',
  'TwoFactorDisabled',
  'BackupCodesIssued',
  'BackupCodeUsed',
  'TotpCodeAccepted',
  'TwoFactorAttemptFailed',
  'LoginChallengeIssued',
  'LoginChallengeCompleted',
  'LoginChallengeRevoked',
];

/** The account-directory reads this same stream name to know whether 2FA is on. */
export const twoFactorStream = (accountId: number) => `twofactor-${accountId}`;
