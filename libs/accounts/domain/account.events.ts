import { DomainEvent } from '../../shared/decider';

export type Plan = 'free' | 'plus' | 'pro' | 'elite';
export const PLANS: readonly Plan[] = ['free', 'plus', 'pro', 'elite'];
export type EmailAuthTier = 'none' | 'standard' | 'enterprise';
export const EMAIL_AUTH_TIERS: readonly EmailAuthTier[] = ['none', 'standard', 'enterprise'];

export interface EmailAuthSubscription {
  tier: EmailAuthTier;
  domains: string[];
}

export type AccountRegistered = DomainEvent<
  'AccountRegistered',
  { account_id: number; username: string; email: string; password_hash: string; plan: Plan; registered_at: string }
>;
export type PasswordChanged = DomainEvent<
  'PasswordChanged',
  { password_hash: string; changed_at: string; kept_session_id: string | null }
>;
export type SessionStarted = DomainEvent<
  'SessionStarted',
  {
    session_id: string;
    token_hash: string;
    started_at: string;
    expires_at: string;
    second_factor: 'none' | 'totp' | 'backup_code';
  }
>;
export type SessionEnded = DomainEvent<'SessionEnded', { session_id: string; ended_at: string; reason: 'logout' }>;
export type LoginFailed = DomainEvent<'LoginFailed', { at: string; reason: 'bad_password' | 'account_disabled' }>;
export type SubscriptionChanged = DomainEvent<
  'SubscriptionChanged',
  { plan: Plan; email_auth: EmailAuthSubscription; changed_at: string }
>;
export type AccountDisabled = DomainEvent<'AccountDisabled', { at: string }>;
export type AccountEnabled = DomainEvent<'AccountEnabled', { at: string }>;
/**
 * The owner deleted the account (decision 0090): every session and key stops at once; the
 * account-deletion process then removes its resources and appends AccountDataRemoved.
 */
export type AccountDeleted = DomainEvent<'AccountDeleted', { at: string }>;
/** The account-deletion process has removed every resource of the deleted account and released its names. */
export type AccountDataRemoved = DomainEvent<'AccountDataRemoved', { at: string }>;

export type AccountEvent =
  | AccountRegistered
  | PasswordChanged
  | SessionStarted
  | SessionEnded
  | LoginFailed
  | SubscriptionChanged
  | AccountDisabled
  | AccountEnabled
  | AccountDeleted
  | AccountDataRemoved;

export const ACCOUNT_EVENT_TYPES: readonly AccountEvent['type'][] = [
  'AccountRegistered',
  'PasswordChanged',
  'SessionStarted',
  'SessionEnded',
  'LoginFailed',
  'SubscriptionChanged',
  'AccountDisabled',
  'AccountEnabled',
  'AccountDeleted',
  'AccountDataRemoved',
];

export const accountStream = (id: number) => `account-${id}`;
export const usernameStream = (username: string) => `username-${username.toLowerCase()}`;
export const emailStream = (email: string) => `email-${email.toLowerCase()}`;
