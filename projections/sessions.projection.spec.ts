import { AccountEvent } from '../libs/accounts/domain/account.events';
import { GivenEvent, project } from '../libs/projection-engine/projection-harness';
import { SESSIONS, sessionsProjection } from './sessions.projection';

const meta = { account_id: 7, source_ip: '192.0.2.9' };
const started = (n: number): GivenEvent<AccountEvent> => ({
  type: 'SessionStarted',
  data: {
    session_id: `s${n}`,
    token_hash: `hash${n}`,
    started_at: '2026-03-01T00:00:00Z',
    expires_at: '2026-03-02T00:00:00Z',
    second_factor: 'none',
  },
  metadata: meta,
});
const session = (n: number, active: boolean) => ({
  _id: `hash${n}`,
  session_id: `s${n}`,
  account_id: 7,
  started_at: '2026-03-01T00:00:00Z',
  expires_at: '2026-03-02T00:00:00Z',
  active,
  // Where the login came from, for the sessions list.
  source_ip: '192.0.2.9',
});

describe('sessions projection', () => {
  it('given sessions started, a password change keeping one, then a logout: documents by token hash, the right ones inactive', async () => {
    const h = await project<AccountEvent>(sessionsProjection, [
      started(1),
      started(2),
      started(3),
      {
        type: 'PasswordChanged',
        data: { password_hash: 'x', changed_at: '2026-03-01T01:00:00Z', kept_session_id: 's1' },
        metadata: meta,
      },
      {
        type: 'SessionEnded',
        data: { session_id: 's1', ended_at: '2026-03-01T02:00:00Z', reason: 'logout' },
        metadata: meta,
      },
    ]);
    const expected = [session(1, false), session(2, false), session(3, false)];
    expect(await h.documents(SESSIONS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(SESSIONS)).toEqual(expected);
    await h.close();
  });

  it('a password change leaves the kept session active; disabling the account ends every session', async () => {
    const changed: GivenEvent<AccountEvent> = {
      type: 'PasswordChanged',
      data: { password_hash: 'x', changed_at: 't', kept_session_id: 's2' },
      metadata: meta,
    };
    const h = await project<AccountEvent>(sessionsProjection, [started(1), started(2), changed]);
    expect(await h.documents(SESSIONS)).toEqual([session(1, false), session(2, true)]);
    await h.close();
    const disabled = await project<AccountEvent>(sessionsProjection, [
      started(1),
      started(2),
      changed,
      { type: 'AccountDisabled', data: { at: 't' }, metadata: meta },
    ]);
    expect(await disabled.documents(SESSIONS)).toEqual([session(1, false), session(2, false)]);
    await disabled.replayed();
    expect(await disabled.documents(SESSIONS)).toEqual([session(1, false), session(2, false)]);
    await disabled.close();
  });
});
