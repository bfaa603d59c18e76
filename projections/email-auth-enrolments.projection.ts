import { EmailAuthSubscription, SubscriptionChanged } from '../libs/accounts/domain/account.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/** `_id` of an enrolment: the zone and the account whose add-on lists it. */
export const enrolmentId = (zone: string, accountId: number): string => `${zone} ${accountId}`;

/** A zone listed in an account's Email Authentication add-on, with the add-on's tier (never `none`). */
export interface EmailAuthEnrolmentDoc {
  _id: string;
  zone: string;
  account_id: number;
  tier: EmailAuthSubscription['tier'];
}

export const EMAIL_AUTH_ENROLMENTS = defineReadModel<EmailAuthEnrolmentDoc>(
  'email_auth_enrolments',
  'email_auth_enrolments',
  [{ keys: { zone: 1 } }, { keys: { account_id: 1 } }],
);

/**
 * email_auth_enrolments: one document per zone listed in an account's Email
 * Authentication add-on (tier not `none`), indexed by zone. Report intake asks "which
 * account covers this domain?" for every report and every SMTP recipient: looked up by
 * zone this is an index probe, where the same question on the accounts read model
 * (`email_auth.domains` is an array, which no index serves) read every account.
 */
export const emailAuthEnrolmentsProjection = defineProjection<SubscriptionChanged>({
  name: 'email_auth_enrolments',
  version: 1,
  readModels: [EMAIL_AUTH_ENROLMENTS],
  handles: ['SubscriptionChanged'],
  async apply(event, ctx) {
    const accountId = event.metadata.account_id;
    if (accountId === undefined) return;
    const { email_auth } = event.data;
    const enrolments = ctx.collection(EMAIL_AUTH_ENROLMENTS);
    // The event carries the whole subscription: replace the account's enrolments (idempotent on replay).
    await enrolments.deleteMany({ account_id: accountId });
    if (!email_auth || email_auth.tier === 'none' || email_auth.domains.length === 0) return;
    await enrolments.bulkWrite(
      email_auth.domains.map((zone) => {
        const _id = enrolmentId(zone, accountId);
        return {
          replaceOne: {
            filter: { _id },
            replacement: { _id, zone, account_id: accountId, tier: email_auth.tier },
            upsert: true,
          },
        };
      }),
    );
  },
});
