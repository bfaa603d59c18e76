import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { TwoFactorEvent, TWO_FACTOR_EVENT_TYPES } from '../libs/two-factor/domain/two-factor.events';
import { guardedUpdate } from './guard';

/** What `/2fa/status` answers for one account, and its pending setup. */
export interface TwoFactorDoc {
  _id: number;
  account_id: number;
  enabled?: boolean;
  enabled_at?: string | null;
  backup_codes_remaining?: number;
  pending_setup: { setup_id: string; expires_at: string } | null;
}

export const TWO_FACTOR = defineReadModel<TwoFactorDoc>('two_factor', 'two_factor', [
  { keys: { 'pending_setup.expires_at': 1 } },
]);

/**
 * two_factor: one document per account with what `/2fa/status` answers
 * (`enabled`, `backup_codes_remaining`) and the pending setup's deadline.
 */
export const twoFactorProjection = defineProjection<TwoFactorEvent>({
  name: 'two_factor',
  version: 1,
  readModels: [TWO_FACTOR],
  handles: TWO_FACTOR_EVENT_TYPES,
  async apply(event, ctx) {
    const accountId = event.metadata.account_id;
    if (accountId === undefined) return;
    const update = (u: Record<string, unknown>) =>
      guardedUpdate(ctx.collection(TWO_FACTOR), accountId, ctx.position, u);
    switch (event.type) {
      case 'TwoFactorSetupStarted':
        return update({
          $set: {
            account_id: accountId,
            pending_setup: { setup_id: event.data.setup_id, expires_at: event.data.expires_at },
          },
        });
      case 'TwoFactorSetupExpired':
        return update({ $set: { pending_setup: null } });
      case 'TwoFactorEnabled':
        return update({
          $set: { account_id: accountId, enabled: true, pending_setup: null, enabled_at: event.data.at },
        });
      case 'TwoFactorDisabled':
        return update({ $set: { enabled: false, backup_codes_remaining: 0, pending_setup: null, enabled_at: null } });
      case 'BackupCodesIssued':
        return update({ $set: { backup_codes_remaining: event.data.code_hashes.length } });
      case 'BackupCodeUsed':
        return update({ $inc: { backup_codes_remaining: -1 } });
      default:
        // Replay guard, failures and login challenges matter to the write side only.
        return;
    }
  },
});
