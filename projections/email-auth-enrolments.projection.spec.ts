import { EmailAuthSubscription, SubscriptionChanged } from '../libs/accounts/domain/account.events';
import { GivenEvent, project } from '../libs/projection-engine/projection-harness';
import { EMAIL_AUTH_ENROLMENTS, emailAuthEnrolmentsProjection } from './email-auth-enrolments.projection';

const subscribed = (
  accountId: number | undefined,
  email_auth: EmailAuthSubscription,
): GivenEvent<SubscriptionChanged> => ({
  type: 'SubscriptionChanged',
  data: { plan: 'plus', email_auth, changed_at: '2026-03-01T00:00:00Z' },
  metadata: accountId === undefined ? {} : { account_id: accountId },
});

describe('email_auth_enrolments projection', () => {
  it('given add-ons subscribed, changed and cancelled: one enrolment per zone of each live add-on; replaying changes nothing', async () => {
    const h = await project<SubscriptionChanged>(emailAuthEnrolmentsProjection, [
      subscribed(7, { tier: 'standard', domains: ['a.example', 'b.example'] }),
      subscribed(8, { tier: 'enterprise', domains: ['a.example'] }),
      // The whole subscription each time: a.example leaves account 7's add-on.
      subscribed(7, { tier: 'enterprise', domains: ['b.example', 'c.example'] }),
      subscribed(8, { tier: 'none', domains: ['a.example'] }),
      // Without an account in its metadata the fact names no owner: ignored.
      subscribed(undefined, { tier: 'standard', domains: ['d.example'] }),
    ]);
    const expected = [
      { _id: 'b.example 7', zone: 'b.example', account_id: 7, tier: 'enterprise' },
      { _id: 'c.example 7', zone: 'c.example', account_id: 7, tier: 'enterprise' },
    ];
    expect(await h.documents(EMAIL_AUTH_ENROLMENTS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(EMAIL_AUTH_ENROLMENTS)).toEqual(expected);
    await h.close();
  });
});
