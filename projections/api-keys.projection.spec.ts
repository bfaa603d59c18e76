import { ApiKeyEvent } from '../libs/api-keys/domain/api-key.events';
import { project } from '../libs/projection-engine/projection-harness';
import { API_KEYS, apiKeysProjection } from './api-keys.projection';

describe('api_keys projection', () => {
  it('given a key created then deactivated: one document with the hash only, inactive; replaying changes nothing', async () => {
    const h = await project<ApiKeyEvent>(apiKeysProjection, [
      {
        type: 'ApiKeyCreated',
        data: {
          key_id: 'k1',
          account_id: 7,
          name: 'ci',
          key_hash: 'sha256-of-key',
          access: 'account',
          domains: ['ada.test'],
          failure_report_subjects: false,
          expires_at: null,
          created_at: '2026-03-01T00:00:00Z',
        },
      },
      { type: 'ApiKeyDeactivated', data: { key_id: 'k1', at: '2026-03-02T00:00:00Z' } },
    ]);
    const expected = [
      {
        _id: 'k1',
        id: 'k1',
        account_id: 7,
        name: 'ci',
        key_hash: 'sha256-of-key',
        access: 'account',
        domains: ['ada.test'],
        failure_report_subjects: false,
        expires_at: null,
        created_at: '2026-03-01T00:00:00Z',
        is_active: false,
        deactivated_at: '2026-03-02T00:00:00Z',
      },
    ];
    expect(await h.documents(API_KEYS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(API_KEYS)).toEqual(expected);
    await h.close();
  });
});
