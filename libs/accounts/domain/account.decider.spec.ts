import { specFor } from '../../shared/testing/decider-spec';
import { accountDecider } from './account.decider';
import { AccountEvent } from './account.events';

const spec = specFor(accountDecider);
const at = '2026-01-01T00:00:00.000Z';
const registered: AccountEvent = {
  type: 'AccountRegistered',
  data: {
    account_id: 7,
    username: 'ann',
    email: 'ann@example.com',
    password_hash: 'h',
    plan: 'free',
    registered_at: at,
  },
};
const session = (id: string): AccountEvent => ({
  type: 'SessionStarted',
  data: { session_id: id, token_hash: `t${id}`, started_at: at, expires_at: at, second_factor: 'none' },
});

describe('account decider', () => {
  it('registers a new account on the free plan', () => {
    spec
      .given([])
      .when({ type: 'Register', accountId: 7, username: 'ann', email: 'ann@example.com', passwordHash: 'h', at })
      .then([registered]);
  });

  it('refuses to register an existing account stream', () => {
    spec
      .given([registered])
      .when({ type: 'Register', accountId: 7, username: 'ann', email: 'ann@example.com', passwordHash: 'h', at })
      .thenFails(409, 'username_taken');
  });

  it('records a failed login instead of a session when the password was wrong', () => {
    spec
      .given([registered])
      .when({
        type: 'StartSession',
        passwordOk: false,
        sessionId: 's',
        tokenHash: 't',
        at,
        expiresAt: at,
        secondFactor: 'none',
      })
      .then([{ type: 'LoginFailed', data: { at, reason: 'bad_password' } }]);
  });

  it('starts a session with the right password', () => {
    spec
      .given([registered])
      .when({
        type: 'StartSession',
        passwordOk: true,
        sessionId: '1',
        tokenHash: 't1',
        at,
        expiresAt: at,
        secondFactor: 'none',
      })
      .then([session('1')]);
  });

  it('refuses sessions for a disabled account', () => {
    spec
      .given([registered, { type: 'AccountDisabled', data: { at } }])
      .when({
        type: 'StartSession',
        passwordOk: true,
        sessionId: '1',
        tokenHash: 't1',
        at,
        expiresAt: at,
        secondFactor: 'none',
      })
      .thenFails(403, 'account_disabled');
  });

  it('ends a live session once and ignores unknown ones', () => {
    spec
      .given([registered, session('1')])
      .when({ type: 'EndSession', sessionId: '1', at })
      .then([{ type: 'SessionEnded', data: { session_id: '1', ended_at: at, reason: 'logout' } }]);
    spec
      .given([registered, session('1')])
      .when({ type: 'EndSession', sessionId: '2', at })
      .then([]);
  });

  it('changes the password only with the current one, keeping the caller session', () => {
    spec
      .given([registered, session('1')])
      .when({ type: 'ChangePassword', currentPasswordOk: false, newPasswordHash: 'n', keepSessionId: '1', at })
      .thenFails(401, 'Invalid username or password');
    spec
      .given([registered, session('1'), session('2')])
      .when({ type: 'ChangePassword', currentPasswordOk: true, newPasswordHash: 'n', keepSessionId: '1', at })
      .then([{ type: 'PasswordChanged', data: { password_hash: 'n', changed_at: at, kept_session_id: '1' } }]);
  });

  it('changes the subscription, and does nothing when nothing changes', () => {
    spec
      .given([registered])
      .when({ type: 'ChangeSubscription', plan: 'pro', at })
      .then([
        {
          type: 'SubscriptionChanged',
          data: { plan: 'pro', email_auth: { tier: 'none', domains: [] }, changed_at: at },
        },
      ]);
    spec.given([registered]).when({ type: 'ChangeSubscription', plan: 'free', at }).then([]);
  });

  it('disables and enables idempotently', () => {
    spec
      .given([registered])
      .when({ type: 'Disable', at })
      .then([{ type: 'AccountDisabled', data: { at } }]);
    spec
      .given([registered, { type: 'AccountDisabled', data: { at } }])
      .when({ type: 'Disable', at })
      .then([]);
    spec.given([registered]).when({ type: 'Enable', at }).then([]);
    spec
      .given([registered, { type: 'AccountDisabled', data: { at } }])
      .when({ type: 'Enable', at })
      .then([{ type: 'AccountEnabled', data: { at } }]);
  });

  it('refuses commands on an account that does not exist', () => {
    spec.given([]).when({ type: 'Disable', at }).thenFails(404, 'Account not found');
  });

  describe('deletion (decision 0090)', () => {
    const deleted: AccountEvent = { type: 'AccountDeleted', data: { at } };

    it('deletes the account in one event', () => {
      spec
        .given([registered, session('s1')])
        .when({ type: 'Delete', at })
        .then([deleted]);
    });

    it('refuses every later command but the completion: the account no longer exists', () => {
      for (const command of [
        { type: 'Delete', at } as const,
        { type: 'Enable', at } as const,
        { type: 'ChangeSubscription', plan: 'pro', at } as const,
        { type: 'EndSession', sessionId: 's1', at } as const,
      ])
        spec
          .given([registered, session('s1'), deleted])
          .when(command)
          .thenFails(404, 'Account not found');
    });

    it('completes once: the data removed is recorded, a resend appends nothing', () => {
      spec
        .given([registered, deleted])
        .when({ type: 'CompleteDeletion', at })
        .then([{ type: 'AccountDataRemoved', data: { at } }]);
      spec
        .given([registered, deleted, { type: 'AccountDataRemoved', data: { at } }])
        .when({ type: 'CompleteDeletion', at })
        .then([]);
    });

    it('refuses to complete the deletion of an account not deleted', () => {
      spec.given([registered]).when({ type: 'CompleteDeletion', at }).thenFails(409, 'not_deleted');
    });
  });
});
