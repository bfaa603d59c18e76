import { EMAIL_AUTH_EVENT_TYPES, EmailAuthEvent } from '../libs/email-auth/domain/email-auth.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';

/**
 * email_auth_zones: zones with email-authentication settings, their owner and where their
 * DMARC wizard stands (for the nightly job and its record repair).
 */
export const emailAuthProjection: ProjectionDefinition = {
  name: 'email_auth',
  version: 1,
  collections: ['email_auth_zones'],
  handles: EMAIL_AUTH_EVENT_TYPES,
  async setup(ctx) {
    await ctx.collection('email_auth_zones').createIndex({ wizard_stage: 1 });
  },
  async apply(raw, ctx) {
    const zones = ctx.collection('email_auth_zones');
    const event = raw as unknown as EmailAuthEvent;
    const d = event.data;
    switch (event.type) {
      case 'DmarcConfigured':
        return guardedUpdate(zones, d.zone, ctx.position, { $set: { zone: d.zone, account_id: d.account_id, dmarc_policy: event.data.dmarc.policy } });
      case 'DmarcWizardStarted':
        return guardedUpdate(zones, d.zone, ctx.position, { $set: { zone: d.zone, account_id: d.account_id, wizard_stage: event.data.stage } });
      case 'DmarcStageAdvanced':
        return guardedUpdate(zones, d.zone, ctx.position, { $set: { zone: d.zone, account_id: d.account_id, wizard_stage: event.data.to_stage } });
      default:
        return guardedUpdate(zones, d.zone, ctx.position, { $set: { zone: d.zone, account_id: d.account_id } });
    }
  },
};
