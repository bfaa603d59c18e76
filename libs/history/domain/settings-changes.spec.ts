import { applySettings, changeTypeOf, fieldsSetBy, settingsSubjectOf } from './settings-changes';

describe('settings history', () => {
  it('names the subject of each kind; email-auth settings are per account and zone', () => {
    expect(settingsSubjectOf('ApiKeyDeactivated', { key_id: 'k1', at: '' }, 3)).toEqual({
      kind: 'api_key',
      subject: 'api_key:k1',
      name: 'k1',
    });
    expect(settingsSubjectOf('SpfConfigured', { zone: 'example.com' }, 3)?.subject).toBe('email_auth:3:example.com');
    expect(settingsSubjectOf('DmarcStageMetricsRecorded', { zone: 'example.com' }, 3)).toBeNull();
    expect(settingsSubjectOf('AcmeOrderPlaced', { certificate_id: 'c' }, 3)).toBeNull();
    expect(changeTypeOf('ApiKeyCreated')).toBe('api_key_created');
  });

  it('diffs the fields an event sets against what the resource had, secrets redacted', () => {
    const created = fieldsSetBy('ApiKeyCreated', {
      key_id: 'k1',
      account_id: 3,
      name: 'ci',
      key_hash: 'abc',
      access: 'account',
      domains: [],
      expires_at: null,
      created_at: 't',
    });
    expect(created).toEqual({ name: 'ci', access: 'account', domains: [], expires_at: null, is_active: true });
    const first = applySettings({}, created);
    expect(first.changes.map((c) => c.field)).toEqual(['name', 'access', 'domains', 'is_active']);
    expect(applySettings(first.after, fieldsSetBy('ApiKeyDeactivated', { key_id: 'k1' })).changes).toEqual([
      { field: 'is_active', before: true, after: false },
    ]);
  });

  it('keeps DKIM keys apart by selector and a removal sets the selector to null', () => {
    const key = { selector: 's1', public_key: 'AAAA', algorithm: 'rsa' };
    const set = applySettings({}, fieldsSetBy('DkimKeySet', { zone: 'z', key }));
    expect(set.changes).toEqual([{ field: 'dkim.s1', before: null, after: key }]);
    expect(applySettings(set.after, fieldsSetBy('DkimKeyRemoved', { zone: 'z', selector: 's1' })).changes).toEqual([
      { field: 'dkim.s1', before: key, after: null },
    ]);
  });
});
