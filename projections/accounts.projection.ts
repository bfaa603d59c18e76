import { AccountEvent, ACCOUNT_EVENT_TYPES, EmailAuthSubscription, Plan } from '../libs/accounts/domain/account.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { TwoFactorDisabled, TwoFactorEnabled } from '../libs/two-factor/domain/two-factor.events';
import { guardedUpdate } from './guard';

/** One account, as `/account` returns it (plus what authentication checks). */
export interface AccountDoc {
  _id: number;
  id: number;
  username: string;
  email: string;
  plan: Plan;
  email_auth: EmailAuthSubscription;
  two_factor_enabled: boolean;
  disabled: boolean;
  created_at: string;
  /** Set when the owner deleted the account (decision 0090); the document stays as a tombstone. */
  deleted_at?: string | null;
}

/**
 * The deleted account's names in its tombstone: they cannot be a username or an email
 * (`#`), so the names released for registration never collide with it in the unique indexes.
 */
export const deletedAccountName = (id: number) => `#deleted-${id}`;

export const ACCOUNTS = defineReadModel<AccountDoc>('accounts', 'accounts', [
  { keys: { username: 1 }, options: { unique: true } },
  { keys: { email: 1 }, options: { unique: true } },
]);

/**
 * accounts: one document per account, as `/account` returns it.
 * Also consumes the 2FA stream's enable/disable facts for `two_factor_enabled`.
 */
export const accountsProjection = defineProjection<AccountEvent | TwoFactorEnabled | TwoFactorDisabled>({
  name: 'accounts',
  version: 1,
  readModels: [ACCOUNTS],
  handles: [...ACCOUNT_EVENT_TYPES, 'TwoFactorEnabled', 'TwoFactorDisabled'],
  async apply(event, ctx) {
    const accounts = ctx.collection(ACCOUNTS);
    const id = event.metadata.account_id;
    if (id === undefined) return;
    const set = (fields: Partial<AccountDoc>) => guardedUpdate(accounts, id, ctx.position, { $set: fields });
    switch (event.type) {
      case 'AccountRegistered':
        return set({
          id: event.data.account_id,
          username: event.data.username,
          email: event.data.email,
          plan: event.data.plan,
          email_auth: { tier: 'none', domains: [] },
          two_factor_enabled: false,
          disabled: false,
          created_at: event.data.registered_at,
        });
      case 'SubscriptionChanged':
        return set({ plan: event.data.plan, email_auth: event.data.email_auth });
      case 'AccountDisabled':
        return set({ disabled: true });
      case 'AccountEnabled':
        return set({ disabled: false });
      case 'AccountDeleted':
        // Authentication reads `disabled`; the plan stays for the deletion process's own commands.
        return set({
          disabled: true,
          deleted_at: event.data.at,
          username: deletedAccountName(id),
          email: deletedAccountName(id),
        });
      case 'TwoFactorEnabled':
        return set({ two_factor_enabled: true });
      case 'TwoFactorDisabled':
        return set({ two_factor_enabled: false });
      default:
        return;
    }
  },
});
