import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

describe('accounts and sessions (contract §2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const expectError = (res: { status: number; body: any }, status: number, code: string, message?: string | RegExp) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (typeof message === 'string') expect(res.body.error.message).toBe(message);
    else if (message) expect(res.body.error.message).toMatch(message);
  };

  it('registers an account and returns it', async () => {
    const res = await t.http.post('/auth/register', {
      username: 'reg_one',
      email: 'Reg.One@Example.com',
      password: 'long-password-1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      username: 'reg_one',
      email: 'reg.one@example.com',
      plan: 'free',
      email_auth: { tier: 'none', domains: [] },
      two_factor_enabled: false,
      disabled: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validates registration input strictly, naming the field', async () => {
    expectError(
      await t.http.post('/auth/register', {
        username: 'Bad Name',
        email: 'x@example.com',
        password: 'long-password-1',
      }),
      400,
      'validation_failed',
      /username/,
    );
    expectError(
      await t.http.post('/auth/register', { username: 'okname', email: 'not-an-email', password: 'long-password-1' }),
      400,
      'validation_failed',
      /email/,
    );
    expectError(
      await t.http.post('/auth/register', { username: 'okname', email: 'ok@example.com', password: 'short' }),
      400,
      'validation_failed',
      /password/,
    );
    expectError(
      await t.http.post('/auth/register', {
        username: 'okname',
        email: 'ok@example.com',
        password: 'long-password-1',
        admin: true,
      }),
      400,
      'validation_failed',
      /admin: unknown field/,
    );
    expectError(
      await t.http.post('/auth/register', { username: 42, email: 'ok@example.com', password: 'long-password-1' }),
      400,
      'validation_failed',
      /username/,
    );
    expectError(
      await t.http.request('POST', '/auth/register', { raw: '{"username": "x",' }),
      400,
      'validation_failed',
      /Malformed/,
    );
    expectError(
      await t.http.request('POST', '/auth/register', { raw: '[1,2]' }),
      400,
      'validation_failed',
      /JSON object/,
    );
    const big = JSON.stringify({ username: 'big', email: 'big@example.com', password: 'x'.repeat(1024 * 1024 + 10) });
    expectError(await t.http.request('POST', '/auth/register', { raw: big }), 413, 'payload_too_large');
  });

  it('keeps usernames and emails unique, even under concurrent registrations', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.http.post('/auth/register', {
          username: 'racer',
          email: `racer${i}@example.com`,
          password: 'long-password-1',
        }),
      ),
    );
    const winners = attempts.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    for (const r of attempts.filter((r) => r.status !== 201)) expectError(r, 409, 'username_taken');
    expectError(
      await t.http.post('/auth/register', {
        username: 'racer2',
        email: winners[0].body.email.toUpperCase(),
        password: 'long-password-1',
      }),
      409,
      'email_taken',
    );
    // The loser of the email race released its username claim.
    expect(
      (
        await t.http.post('/auth/register', {
          username: 'racer2',
          email: 'racer-2@example.com',
          password: 'long-password-1',
        })
      ).status,
    ).toBe(201);
  });

  it('logs in with username or email and answers /account', async () => {
    const u = await registerAndLogin(t.http);
    const byEmail = await t.http.post('/auth/login', { username: u.email, password: u.password });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual({
      access_token: expect.stringMatching(/^st_/),
      token_type: 'bearer',
      expires_in: 86400,
    });
    const me = await t.http.get('/account', byEmail.body.access_token);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(u.username);
  });

  it('answers the same for a wrong password and an unknown user', async () => {
    const u = await registerAndLogin(t.http);
    expectError(
      await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' }),
      401,
      'invalid_credentials',
      'Invalid username or password',
    );
    expectError(
      await t.http.post('/auth/login', { username: 'nobody-here', password: 'wrong-password-x' }),
      401,
      'invalid_credentials',
      'Invalid username or password',
    );
  });

  it("locks password login after 5 failures in 15 minutes, with Retry-After and the lock's duration", async () => {
    const u = await registerAndLogin(t.http);
    for (let i = 0; i < 5; i++) {
      expect((await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' })).status).toBe(
        401,
      );
    }
    const locked = await t.http.post('/auth/login', { username: u.username, password: u.password });
    expectError(locked, 429, 'too_many_attempts', /locked for 15 minutes/);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    // Unknown names lock the same way, so the lock reveals nothing.
    for (let i = 0; i < 5; i++)
      await t.http.post('/auth/login', { username: 'ghost-user', password: 'wrong-password-x' });
    expectError(
      await t.http.post('/auth/login', { username: 'ghost-user', password: 'wrong-password-x' }),
      429,
      'too_many_attempts',
      /locked for 15 minutes/,
    );
  });

  /** 100 logins sent at once: the statuses, and every 429 carries Retry-After. */
  const burst = async (username: string, password = 'wrong-password-x', count = 100) => {
    const answers = await Promise.all(
      Array.from({ length: count }, () => t.http.post('/auth/login', { username, password })),
    );
    for (const a of answers.filter((r) => r.status === 429)) {
      expect(a.body.error.code).toBe('too_many_attempts');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    return answers.map((r) => r.status);
  };

  it('checks at most 5 passwords of 100 wrong logins sent at once, then refuses the right one', async () => {
    const u = await registerAndLogin(t.http);
    const statuses = await burst(u.username);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    const after = await t.http.post('/auth/login', { username: u.username, password: u.password });
    expectError(after, 429, 'too_many_attempts', /locked for 15 minutes/);
    expect(Number(after.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('counts the username and the email of one account together, also at once', async () => {
    const u = await registerAndLogin(t.http);
    for (let i = 0; i < 3; i++)
      expect((await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' })).status).toBe(
        401,
      );
    for (let i = 0; i < 2; i++)
      expect(
        (await t.http.post('/auth/login', { username: u.email.toUpperCase(), password: 'wrong-password-x' })).status,
      ).toBe(401);
    expectError(
      await t.http.post('/auth/login', { username: u.email, password: u.password }),
      429,
      'too_many_attempts',
    );
    expectError(
      await t.http.post('/auth/login', { username: u.username, password: u.password }),
      429,
      'too_many_attempts',
    );

    const v = await registerAndLogin(t.http);
    const mixed = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.http.post('/auth/login', { username: i % 2 ? v.username : v.email, password: 'wrong-password-x' }),
      ),
    );
    expect(mixed.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expectError(
      await t.http.post('/auth/login', { username: v.username, password: v.password }),
      429,
      'too_many_attempts',
    );
  });

  it('gives names that match no account a counter each, answered like accounts', async () => {
    const statuses = await burst('ghost-burst');
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expectError(
      await t.http.post('/auth/login', { username: 'ghost-burst', password: 'wrong-password-x' }),
      429,
      'too_many_attempts',
      /locked for 15 minutes/,
    );
    // Another unknown name, and a real account, are not locked by it.
    expectError(
      await t.http.post('/auth/login', { username: 'ghost-other', password: 'wrong-password-x' }),
      401,
      'invalid_credentials',
    );
    const u = await registerAndLogin(t.http);
    expect((await t.http.post('/auth/login', { username: u.username, password: u.password })).status).toBe(200);
  });

  it('a successful login clears the failures before the limit', async () => {
    const u = await registerAndLogin(t.http);
    for (let i = 0; i < 4; i++)
      expect((await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' })).status).toBe(
        401,
      );
    expect((await t.http.post('/auth/login', { username: u.email, password: u.password })).status).toBe(200);
    for (let i = 0; i < 4; i++)
      expect((await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' })).status).toBe(
        401,
      );
    expect((await t.http.post('/auth/login', { username: u.username, password: u.password })).status).toBe(200);
  });

  it('requires credentials and parses the bearer header strictly', async () => {
    const u = await registerAndLogin(t.http);
    expectError(await t.http.get('/account'), 401, 'unauthorized');
    for (const header of [
      `Bearer  ${u.token}`,
      `Bearer\t${u.token}`,
      `Bearer${u.token}`,
      `Basic ${u.token}`,
      `Bearer ${u.token}x`,
      `Bearer ${u.token},x`,
    ]) {
      expectError(await t.http.get('/account', undefined, { authorization: header }), 401, 'unauthorized');
    }
    expect((await t.http.get('/account', undefined, { authorization: `Bearer ${u.token}` })).status).toBe(200);
    // The scheme is case-insensitive (RFC 9110), the rest is exact.
    expect((await t.http.get('/account', undefined, { authorization: `bearer ${u.token}` })).status).toBe(200);
  });

  it('logs out: the session token stops working', async () => {
    const u = await registerAndLogin(t.http);
    expect((await t.http.post('/auth/logout', undefined, u.token)).status).toBe(204);
    expectError(await t.http.get('/account', u.token), 401, 'unauthorized');
  });

  it('changes the password: other sessions end, the current one stays', async () => {
    const u = await registerAndLogin(t.http);
    const other = (await t.http.post('/auth/login', { username: u.username, password: u.password })).body.access_token;
    expectError(
      await t.http.post(
        '/account/password',
        { current_password: 'not-the-password', new_password: 'brand-new-password' },
        u.token,
      ),
      401,
      'invalid_credentials',
    );
    expect(
      (
        await t.http.post(
          '/account/password',
          { current_password: u.password, new_password: 'brand-new-password' },
          u.token,
        )
      ).status,
    ).toBe(204);
    expect((await t.http.get('/account', u.token)).status).toBe(200);
    expectError(await t.http.get('/account', other), 401, 'unauthorized');
    expect((await t.http.post('/auth/login', { username: u.username, password: u.password })).status).toBe(401);
    expect((await t.http.post('/auth/login', { username: u.username, password: 'brand-new-password' })).status).toBe(
      200,
    );
  });

  it('shows the account its own events, newest first, with stable cursors and no secrets', async () => {
    const u = await registerAndLogin(t.http);
    await t.http.post('/auth/login', { username: u.username, password: 'wrong-password-x' });
    const first = await t.http.get('/account/audit?limit=2', u.token);
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: any) => e.type)).toEqual(['LoginFailed', 'SessionStarted']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // A new event must not shift the next page.
    await t.http.post('/auth/login', { username: u.username, password: u.password });
    const second = await t.http.get(`/account/audit?limit=2&cursor=${first.body.next_cursor}`, u.token);
    expect(second.body.data.map((e: any) => e.type)).toEqual(['AccountRegistered']);
    expect(second.body.next_cursor).toBeNull();
    const all = JSON.stringify([first.body, second.body]);
    expect(all).not.toMatch(/scrypt\$/);
    expect(second.body.data[0].data.password_hash).toBe('[redacted]');
    expectError(await t.http.get('/account/audit?limit=0', u.token), 400, 'validation_failed', /limit/);
    expectError(await t.http.get('/account/audit?cursor=bogus', u.token), 400, 'validation_failed', /cursor/);
  });

  it('echoes a sane client X-Request-Id and replaces a bad one', async () => {
    const good = await t.http.get('/health', undefined, { 'x-request-id': 'trace-abc-123' });
    expect(good.headers.get('x-request-id')).toBe('trace-abc-123');
    const bad = await t.http.get('/health', undefined, { 'x-request-id': 'x'.repeat(200) });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('treats a trailing slash as optional and unknown paths as 404 in the error shape', async () => {
    const u = await registerAndLogin(t.http);
    expect((await t.http.get('/account/', u.token)).status).toBe(200);
    expectError(await t.http.get('/no/such/thing', u.token), 404, 'not_found');
  });
});
