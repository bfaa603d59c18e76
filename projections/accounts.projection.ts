import { AccountEvent, ACCOUNT_EVENT_TYPES } from '../libs/accounts/domain/account.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';

/**
 * accounts: one document per account, as `/account` returns it.
 * Also consumes the 2FA stream's enable/disable facts for `two_factor_enabled`.
 */
export const accountsProjection: ProjectionDefinition = {
  name: 'accounts',
  version: 1,
  collections: ['accounts'],
  handles: [...ACCOUNT_EVENT_TYPES, 'TwoFactorEnabled', 'TwoFactorDisabled'],
  async setup(ctx) {
    await ctx.collection('accounts').createIndex({ username: 1 }, { unique: true });
    await ctx.collection('accounts').createIndex({ email: 1 }, { unique: true });
  },
  async apply(raw, ctx) {
    const accounts = ctx.collection('accounts');
    const event = raw as unknown as AccountEvent | { type: 'TwoFactorEnabled' | 'TwoFactorDisabled'; data: any };
    const id = raw.metadata.account_id;
    if (id === undefined) return;
    const set = (fields: Record<string, unknown>) => guardedUpdate(accounts, id, ctx.position, { $set: fields });
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
      case 'TwoFactorEnabled':
        return set({ two_factor_enabled: true });
      case 'TwoFactorDisabled':
        return set({ two_factor_enabled: false });
      default:
        return;
    }
  },
};
