import { SubscriptionChanged } from '../libs/accounts/domain/account.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';

/** `_id` of an enrolment: the zone and the account whose add-on lists it. */
export const enrolmentId = (zone: string, accountId: number): string => `${zone} ${accountId}`;

/**
 * email_auth_enrolments: one document per zone listed in an account's Email
 * Authentication add-on (tier not `none`), indexed by zone. Report intake asks "which
 * account covers this domain?" for every report and every SMTP recipient: looked up by
 * zone this is an index probe, where the same question on the accounts read model
 * (`email_auth.domains` is an array, which no index serves) read every account.
 */
export const emailAuthEnrolmentsProjection: ProjectionDefinition = {
  name: 'email_auth_enrolments',
  version: 1,
  collections: ['email_auth_enrolments'],
  handles: ['SubscriptionChanged'],
  async setup(ctx) {
    await ctx.collection('email_auth_enrolments').createIndex({ zone: 1 });
    await ctx.collection('email_auth_enrolments').createIndex({ account_id: 1 });
  },
  async apply(raw, ctx) {
    const accountId = raw.metadata.account_id;
    if (accountId === undefined) return;
    const { email_auth } = (raw as unknown as SubscriptionChanged).data;
    const enrolments = ctx.collection('email_auth_enrolments');
    // The event carries the whole subscription: replace the account's enrolments (idempotent on replay).
    await enrolments.deleteMany({ account_id: accountId });
    if (!email_auth || email_auth.tier === 'none' || email_auth.domains.length === 0) return;
    await enrolments.bulkWrite(
      email_auth.domains.map((zone) => {
        const _id = enrolmentId(zone, accountId);
        return { replaceOne: { filter: { _id }, replacement: { _id, zone, account_id: accountId, tier: email_auth.tier }, upsert: true } };
      }),
    );
  },
};
