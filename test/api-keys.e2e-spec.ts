import { ManualClock } from '../libs/shared/clock';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

describe('API keys (contract §3)', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('creates a key shown once, hashed at rest, listed without key and user_id', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const res = await t.http.post('/api-keys/', { name: 'laptop' }, u.token);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: u.id,
      key: expect.stringMatching(/^ak_[A-Za-z0-9_-]{43}$/),
      name: 'laptop',
      created_at: '2026-03-01T10:00:00.000Z',
      last_used_at: null,
      is_active: true,
      access: 'account',
      expires_at: null,
    });
    const list = await t.http.get('/api-keys', u.token);
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([
      {
        id: res.body.id,
        name: 'laptop',
        created_at: res.body.created_at,
        last_used_at: null,
        is_active: true,
        access: 'account',
        expires_at: null,
      },
    ]);
    // Only the hash is stored: the raw key appears in no event.
    const replay = await t.http.admin('GET', `/admin/streams/keyring-${u.id}`);
    expect(JSON.stringify(replay.body)).not.toContain(res.body.key);
  });

  it('authenticates with the key as the owner, and tracks last_used_at on success only', async () => {
    const u = await registerAndLogin(t.http, { plan: 'elite' });
    const { body: k } = await t.http.post('/api-keys', { name: 'ci' }, u.token);
    clock.set('2026-03-01T11:00:00.000Z');
    const me = await t.http.get('/account', k.key);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(u.id);
    clock.set('2026-03-01T12:00:00.000Z');
    // A wrong key fails and moves nothing.
    expect((await t.http.get('/account', k.key.slice(0, -2) + 'xx')).status).toBe(401);
    const listed = await t.http.get('/api-keys', u.token);
    expect(listed.body.keys[0].last_used_at).toBe('2026-03-01T11:00:00.000Z');
  });

  it('refuses Free and Plus accounts with the seed message', async () => {
    for (const plan of ['free', 'plus'] as const) {
      const u = await registerAndLogin(t.http, { plan });
      for (const res of [
        await t.http.post('/api-keys', { name: 'x' }, u.token),
        await t.http.get('/api-keys', u.token),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({
          code: 'plan_required',
          message: 'API access requires Pro or Elite subscription',
        });
      }
    }
  });

  it('validates the name', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(256) },
      { name: 5 },
      { name: 'ok', access: 'root' },
      { name: 'ok', domains: ['a.com'] },
    ]) {
      const res = await t.http.post('/api-keys', body, u.token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await t.http.post('/api-keys', { name: 'x'.repeat(255) }, u.token)).status).toBe(201);
  });

  it('allows exactly 5 active keys even when 12 creations race', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.http.post('/api-keys', { name: `k${i}` }, u.token)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe('Maximum number of API keys reached (5)');
    }
    expect((await t.http.get('/api-keys', u.token)).body.keys).toHaveLength(5);
  });

  it('deactivates a key: it stops at once, is hidden, and cannot be deleted twice', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const { body: k } = await t.http.post('/api-keys', { name: 'temp' }, u.token);
    expect((await t.http.get('/account', k.key)).status).toBe(200);
    expect((await t.http.delete(`/api-keys/${k.id}`, u.token)).status).toBe(204);
    const after = await t.http.get('/account', k.key);
    expect(after.status).toBe(401);
    expect((await t.http.get('/api-keys', u.token)).body.keys).toEqual([]);
    const again = await t.http.delete(`/api-keys/${k.id}`, u.token);
    expect(again.status).toBe(404);
    expect(again.body.error.message).toBe('API key not found');
    // A freed slot can be used again.
    for (let i = 0; i < 5; i++) expect((await t.http.post('/api-keys', { name: `n${i}` }, u.token)).status).toBe(201);
  });

  it("answers 404 for another account's key id", async () => {
    const a = await registerAndLogin(t.http, { plan: 'pro' });
    const b = await registerAndLogin(t.http, { plan: 'pro' });
    const { body: k } = await t.http.post('/api-keys', { name: 'mine' }, a.token);
    const res = await t.http.delete(`/api-keys/${k.id}`, b.token);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('API key not found');
    expect((await t.http.get('/account', k.key)).status).toBe(200);
  });

  it('lets a key manage keys, but a downgraded account key gets 403 with the seed message', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const { body: k } = await t.http.post('/api-keys', { name: 'automation' }, u.token);
    expect((await t.http.post('/api-keys', { name: 'made-by-key' }, k.key)).status).toBe(201);
    const before = (await t.http.get('/api-keys', u.token)).body.keys.find((x: any) => x.id === k.id).last_used_at;
    await t.http.admin('PUT', `/admin/accounts/${u.id}/subscription`, { plan: 'plus' });
    clock.advance(60_000);
    const res = await t.http.get('/account', k.key);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'plan_required', message: 'API access requires Pro or Elite subscription' });
    // A refused request is not a successful use.
    await t.http.admin('PUT', `/admin/accounts/${u.id}/subscription`, { plan: 'pro' });
    expect((await t.http.get('/api-keys', u.token)).body.keys.find((x: any) => x.id === k.id).last_used_at).toBe(
      before,
    );
  });

  it("stops a disabled account's sessions and keys, and login answers account_disabled", async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const { body: k } = await t.http.post('/api-keys', { name: 'k' }, u.token);
    const disabled = await t.http.admin('POST', `/admin/accounts/${u.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    expect((await t.http.get('/account', u.token)).status).toBe(401);
    expect((await t.http.get('/account', k.key)).status).toBe(401);
    const login = await t.http.post('/auth/login', { username: u.username, password: u.password });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe('account_disabled');
    await t.http.admin('POST', `/admin/accounts/${u.id}/enable`);
    // Keys come back with the account; ended sessions do not.
    expect((await t.http.get('/account', k.key)).status).toBe(200);
    expect((await t.http.get('/account', u.token)).status).toBe(401);
    expect((await t.http.post('/auth/login', { username: u.username, password: u.password })).status).toBe(200);
  });

  describe('email-authentication keys', () => {
    it('need the Enterprise tier, then two-factor authentication', async () => {
      const u = await registerAndLogin(t.http, { plan: 'free' });
      const noTier = await t.http.post('/api-keys', { name: 'dmarc', access: 'email_auth:read' }, u.token);
      expect(noTier.status).toBe(403);
      expect(noTier.body.error.message).toBe('API access needs the Email Authentication Enterprise tier.');
      await t.http.admin('PUT', `/admin/accounts/${u.id}/subscription`, {
        email_auth: { tier: 'enterprise', domains: ['example.org'] },
      });
      const no2fa = await t.http.post('/api-keys', { name: 'dmarc', access: 'email_auth:read' }, u.token);
      expect(no2fa.status).toBe(403);
      expect(no2fa.body.error).toEqual({
        code: 'two_factor_required',
        message: 'Turn on two-factor authentication before creating an Email Authentication API key.',
      });
    });
  });
});
