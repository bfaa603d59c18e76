import { TwoFactorEvent, TWO_FACTOR_EVENT_TYPES } from '../libs/two-factor/domain/two-factor.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';

/**
 * two_factor: one document per account with what `/2fa/status` answers
 * (`enabled`, `backup_codes_remaining`) and the pending setup's deadline, which the
 * setup deadline process scans for setups to expire.
 */
export const twoFactorProjection: ProjectionDefinition = {
  name: 'two_factor',
  version: 1,
  collections: ['two_factor'],
  handles: TWO_FACTOR_EVENT_TYPES,
  async setup(ctx) {
    await ctx.collection('two_factor').createIndex({ 'pending_setup.expires_at': 1 });
  },
  async apply(raw, ctx) {
    const accountId = raw.metadata.account_id;
    if (accountId === undefined) return;
    const event = raw as unknown as TwoFactorEvent;
    const update = (u: Record<string, unknown>) => guardedUpdate(ctx.collection('two_factor'), accountId, ctx.position, u);
    switch (event.type) {
      case 'TwoFactorSetupStarted':
        return update({
          $set: { account_id: accountId, pending_setup: { setup_id: event.data.setup_id, expires_at: event.data.expires_at } },
        });
      case 'TwoFactorSetupExpired':
        return update({ $set: { pending_setup: null } });
      case 'TwoFactorEnabled':
        return update({ $set: { account_id: accountId, enabled: true, pending_setup: null, enabled_at: event.data.at } });
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
};
