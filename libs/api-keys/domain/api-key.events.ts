import { DomainEvent } from '../../shared/decider';

export type KeyAccess = 'account' | 'email_auth:read';

export type ApiKeyCreated = DomainEvent<
  'ApiKeyCreated',
  {
    key_id: string;
    account_id: number;
    name: string;
    /** SHA-256 of the key; the key itself is never stored. */
    key_hash: string;
    access: KeyAccess;
    domains: string[];
    failure_report_subjects: boolean;
    expires_at: string | null;
    created_at: string;
  }
>;
export type ApiKeyDeactivated = DomainEvent<'ApiKeyDeactivated', { key_id: string; at: string }>;

export type ApiKeyEvent = ApiKeyCreated | ApiKeyDeactivated;
export const API_KEY_EVENT_TYPES: readonly ApiKeyEvent['type'][] = ['ApiKeyCreated', 'ApiKeyDeactivated'];

/** All keys of one account share a stream, so the 5-key limit is decided on one consistent state. */
export const keyringStream = (accountId: number) => `keyring-${accountId}`;
