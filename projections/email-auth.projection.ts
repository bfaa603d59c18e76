import { EMAIL_AUTH_EVENT_TYPES, EmailAuthEvent } from '../libs/email-auth/domain/email-auth.events';
import { DmarcPolicy, StageName } from '../libs/email-auth/domain/stages';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { guardedUpdate } from './guard';

/** A zone with email-authentication settings: its owner, DMARC policy and wizard stage. */
export interface EmailAuthZoneDoc {
  _id: string;
  zone: string;
  account_id: number;
  dmarc_policy?: DmarcPolicy;
  /** Absent until the zone's DMARC wizard is opened. */
  wizard_stage?: StageName;
}

export const EMAIL_AUTH_ZONES = defineReadModel<EmailAuthZoneDoc>('email_auth', 'email_auth_zones', [
  { keys: { wizard_stage: 1 } },
]);

/**
 * email_auth_zones: zones with email-authentication settings, their owner and where their
 * DMARC wizard stands (for the nightly job and its record repair).
 */
export const emailAuthProjection = defineProjection<EmailAuthEvent>({
  name: 'email_auth',
  version: 1,
  readModels: [EMAIL_AUTH_ZONES],
  handles: EMAIL_AUTH_EVENT_TYPES,
  async apply(event, ctx) {
    const zones = ctx.collection(EMAIL_AUTH_ZONES);
    const d = event.data;
    switch (event.type) {
      case 'DmarcConfigured':
        return guardedUpdate(zones, d.zone, ctx.position, {
          $set: { zone: d.zone, account_id: d.account_id, dmarc_policy: event.data.dmarc.policy },
        });
      case 'DmarcWizardStarted':
        return guardedUpdate(zones, d.zone, ctx.position, {
          $set: { zone: d.zone, account_id: d.account_id, wizard_stage: event.data.stage },
        });
      case 'DmarcStageAdvanced':
        return guardedUpdate(zones, d.zone, ctx.position, {
          $set: { zone: d.zone, account_id: d.account_id, wizard_stage: event.data.to_stage },
        });
      default:
        return guardedUpdate(zones, d.zone, ctx.position, { $set: { zone: d.zone, account_id: d.account_id } });
    }
  },
});
