import { project } from '../libs/projection-engine/projection-harness';
import { TwoFactorEvent } from '../libs/two-factor/domain/two-factor.events';
import { TWO_FACTOR, twoFactorProjection } from './two-factor.projection';

const meta = { account_id: 7 };

describe('two_factor projection', () => {
  it('given a setup verified, backup codes issued and one used: enabled with the codes left, no secret; replaying changes nothing', async () => {
    const h = await project<TwoFactorEvent>(twoFactorProjection, [
      {
        type: 'TwoFactorSetupStarted',
        data: { setup_id: 's1', secret_sealed: 'sealed', token_hash: 'h', started_at: 't0', expires_at: 't1' },
        metadata: meta,
      },
      {
        type: 'TwoFactorEnabled',
        data: { setup_id: 's1', secret_sealed: 'sealed', at: '2026-03-01T00:00:00Z' },
        metadata: meta,
      },
      { type: 'BackupCodesIssued', data: { code_hashes: ['a', 'b', 'c'], at: 't2' }, metadata: meta },
      { type: 'BackupCodeUsed', data: { code_hash: 'a', used_at: 't3', challenge_id: 'c1' }, metadata: meta },
    ]);
    const expected = [
      {
        _id: 7,
        account_id: 7,
        enabled: true,
        enabled_at: '2026-03-01T00:00:00Z',
        pending_setup: null,
        backup_codes_remaining: 2,
      },
    ];
    expect(await h.documents(TWO_FACTOR)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(TWO_FACTOR)).toEqual(expected);
    await h.close();
  });

  it('a pending setup shows its deadline until it expires', async () => {
    const startedSetup = {
      type: 'TwoFactorSetupStarted',
      data: { setup_id: 's1', secret_sealed: 'x', token_hash: 'h', started_at: 't0', expires_at: 't1' },
      metadata: meta,
    } as const;
    const pending = await project<TwoFactorEvent>(twoFactorProjection, [startedSetup]);
    expect(await pending.documents(TWO_FACTOR)).toEqual([
      { _id: 7, account_id: 7, pending_setup: { setup_id: 's1', expires_at: 't1' } },
    ]);
    await pending.close();
    const expired = await project<TwoFactorEvent>(twoFactorProjection, [
      startedSetup,
      { type: 'TwoFactorSetupExpired', data: { setup_id: 's1', at: 't1' }, metadata: meta },
    ]);
    expect(await expired.documents(TWO_FACTOR)).toEqual([{ _id: 7, account_id: 7, pending_setup: null }]);
    await expired.close();
  });
});
