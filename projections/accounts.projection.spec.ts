import { AccountEvent } from '../libs/accounts/domain/account.events';
import { GivenEvent, project } from '../libs/projection-engine/projection-harness';
import { TwoFactorEnabled } from '../libs/two-factor/domain/two-factor.events';
import { ACCOUNTS, accountsProjection } from './accounts.projection';

const meta = { account_id: 7 };
const history: GivenEvent<AccountEvent | TwoFactorEnabled>[] = [
  {
    type: 'AccountRegistered',
    data: {
      account_id: 7,
      username: 'ada',
      email: 'ada@example.com',
      password_hash: 'secret-hash',
      plan: 'free',
      registered_at: '2026-03-01T00:00:00Z',
    },
    metadata: meta,
  },
  {
    type: 'SubscriptionChanged',
    data: { plan: 'pro', email_auth: { tier: 'standard', domains: ['ada.test'] }, changed_at: '2026-03-02T00:00:00Z' },
    metadata: meta,
  },
  {
    type: 'TwoFactorEnabled',
    data: { setup_id: 's1', secret_sealed: 'sealed', at: '2026-03-03T00:00:00Z' },
    metadata: meta,
  },
  { type: 'AccountDisabled', data: { at: '2026-03-04T00:00:00Z' }, metadata: meta },
];

describe('accounts projection', () => {
  it('given an account registered, upgraded, with 2FA, then disabled: one document as /account shows it, no password hash', async () => {
    const h = await project(accountsProjection, history);
    const expected = {
      _id: 7,
      id: 7,
      username: 'ada',
      email: 'ada@example.com',
      plan: 'pro',
      email_auth: { tier: 'standard', domains: ['ada.test'] },
      two_factor_enabled: true,
      disabled: true,
      created_at: '2026-03-01T00:00:00Z',
    };
    expect(await h.documents(ACCOUNTS)).toEqual([expected]);
    await h.replayed();
    expect(await h.documents(ACCOUNTS)).toEqual([expected]);
    await h.close();
  });

  it('ignores an event without the account in its metadata', async () => {
    const h = await project(accountsProjection, [{ ...history[0], metadata: {} }]);
    expect(await h.documents(ACCOUNTS)).toEqual([]);
    await h.close();
  });
});
