/**
 * Two-factor authentication end to end: the real app over HTTP on the embedded stores,
 * time driven by a ManualClock, and every TOTP code computed by an independent
 * implementation, oathtool (Debian, installed by scripts/test-setup.sh).
 */
import { ManualClock } from '../libs/shared/clock';
import { SetupDeadlineProcess } from '../libs/two-factor/application/setup-deadline.process';
import { HttpClient, registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { totpAt } from './support/totp';

const START = new Date('2031-03-04T05:06:10.000Z'); // ten seconds into a 30-second step

/** The code oathtool computes for `secret` at the app clock's time shifted by `offsetSeconds`. */
const oathtool = (secret: string, clock: ManualClock, offsetSeconds = 0): string =>
  totpAt(secret, new Date(clock.now().getTime() + offsetSeconds * 1000));

type User = Awaited<ReturnType<typeof registerAndLogin>>;

async function startSetup(http: HttpClient, user: User) {
  const res = await http.post('/2fa/setup', undefined, user.token);
  expect(res.status).toBe(200);
  return res.body as { secret: string; qr_code: string; setup_token: string; otpauth_url: string };
}

/** Setup + verify; the clock then moves to the next step so the verify code's step is not reused by accident. */
async function enable(http: HttpClient, clock: ManualClock, user: User) {
  const setup = await startSetup(http, user);
  const res = await http.post(
    '/2fa/verify',
    { setup_token: setup.setup_token, code: oathtool(setup.secret, clock) },
    user.token,
  );
  expect(res.status).toBe(200);
  clock.advance(30_000);
  return { secret: setup.secret, backupCodes: res.body.backup_codes as string[] };
}

async function passwordStep(http: HttpClient, user: User): Promise<string> {
  const res = await http.post('/auth/login', { username: user.username, password: user.password });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ requires_2fa: true, login_token: expect.any(String), expires_in: 300 });
  return res.body.login_token;
}

const expectError = (res: { status: number; body: any }, status: number, code: string, message?: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (message) expect(res.body.error.message).toBe(message);
};

describe('two-factor authentication (e2e)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let http: HttpClient;

  beforeAll(async () => {
    clock = new ManualClock(START);
    t = await startTestApp({ clock });
    http = t.http;
  });
  afterAll(() => t.close());

  describe('setup and verify', () => {
    it('setup returns a base32 secret, a 256×256 PNG QR code, a setup token and the seed provisioning URI', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(setup.otpauth_url).toBe(
        `otpauth://totp/Account%20DNS:${user.email}?secret=${setup.secret}&issuer=Account%20DNS`,
      );
      expect(setup.qr_code.startsWith('data:image/png;base64,')).toBe(true);
      const png = Buffer.from(setup.qr_code.split(',')[1], 'base64');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
      expect(typeof setup.setup_token).toBe('string');
      // Pending verification is still "disabled".
      expect((await http.get('/2fa/status', user.token)).body).toEqual({ enabled: false, backup_codes_remaining: 0 });
    });

    it('verify with an oathtool code enables 2FA and returns 10 backup codes once', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      const res = await http.post(
        '/2fa/verify',
        { setup_token: setup.setup_token, code: oathtool(setup.secret, clock) },
        user.token,
      );
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.backup_codes).toHaveLength(10);
      for (const c of res.body.backup_codes) expect(c).toMatch(/^[0-9A-F]{8}$/);
      expect(new Set(res.body.backup_codes).size).toBe(10);
      expect((await http.get('/2fa/status', user.token)).body).toEqual({ enabled: true, backup_codes_remaining: 10 });
      expect((await http.get('/account', user.token)).body.two_factor_enabled).toBe(true);
    });

    it('a wrong code is "Invalid verification code" (400) and leaves 2FA off', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      const wrong = oathtool(setup.secret, clock, 120);
      expectError(
        await http.post('/2fa/verify', { setup_token: setup.setup_token, code: wrong }, user.token),
        400,
        'invalid_code',
        'Invalid verification code',
      );
      expectError(
        await http.post('/2fa/verify', { setup_token: setup.setup_token, code: 'abcdef' }, user.token),
        400,
        'invalid_code',
      );
      expect((await http.get('/2fa/status', user.token)).body.enabled).toBe(false);
    });

    it('"2FA already enabled" (400) for setup and verify once enabled', async () => {
      const user = await registerAndLogin(http);
      const { secret } = await enable(http, clock, user);
      expectError(await http.post('/2fa/setup', undefined, user.token), 400, 'already_enabled', '2FA already enabled');
      const other = await registerAndLogin(http);
      const otherSetup = await startSetup(http, other);
      expectError(
        await http.post(
          '/2fa/verify',
          { setup_token: otherSetup.setup_token, code: oathtool(secret, clock) },
          user.token,
        ),
        400,
        'already_enabled',
        '2FA already enabled',
      );
    });

    it('"Setup token mismatch" (403) for a token issued to another user', async () => {
      const alice = await registerAndLogin(http);
      const bob = await registerAndLogin(http);
      const aliceSetup = await startSetup(http, alice);
      await startSetup(http, bob);
      expectError(
        await http.post(
          '/2fa/verify',
          { setup_token: aliceSetup.setup_token, code: oathtool(aliceSetup.secret, clock) },
          bob.token,
        ),
        403,
        'setup_token_mismatch',
        'Setup token mismatch',
      );
      // Alice's own setup is untouched by Bob's attempt.
      const res = await http.post(
        '/2fa/verify',
        { setup_token: aliceSetup.setup_token, code: oathtool(aliceSetup.secret, clock) },
        alice.token,
      );
      expect(res.status).toBe(200);
    });

    it('"Invalid or expired setup token" (400) for a made-up token or one replaced by a newer setup', async () => {
      const user = await registerAndLogin(http);
      const first = await startSetup(http, user);
      expectError(
        await http.post('/2fa/verify', { setup_token: 'not-a-token', code: '123456' }, user.token),
        400,
        'invalid_setup_token',
        'Invalid or expired setup token',
      );
      const second = await startSetup(http, user);
      expect(second.secret).not.toBe(first.secret);
      expectError(
        await http.post(
          '/2fa/verify',
          { setup_token: first.setup_token, code: oathtool(second.secret, clock) },
          user.token,
        ),
        400,
        'invalid_setup_token',
      );
      const res = await http.post(
        '/2fa/verify',
        { setup_token: second.setup_token, code: oathtool(second.secret, clock) },
        user.token,
      );
      expect(res.status).toBe(200);
    });

    it('accepts codes of the previous and next step, not two steps away', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      for (const offset of [-60, 60]) {
        expectError(
          await http.post(
            '/2fa/verify',
            { setup_token: setup.setup_token, code: oathtool(setup.secret, clock, offset) },
            user.token,
          ),
          400,
          'invalid_code',
        );
      }
      const prev = await http.post(
        '/2fa/verify',
        { setup_token: setup.setup_token, code: oathtool(setup.secret, clock, -30) },
        user.token,
      );
      expect(prev.status).toBe(200);

      const other = await registerAndLogin(http);
      const otherSetup = await startSetup(http, other);
      const next = await http.post(
        '/2fa/verify',
        { setup_token: otherSetup.setup_token, code: oathtool(otherSetup.secret, clock, 30) },
        other.token,
      );
      expect(next.status).toBe(200);
    });

    it('refuses unknown fields and non-string codes', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      expectError(
        await http.post('/2fa/verify', { setup_token: setup.setup_token, code: '123456', extra: 1 }, user.token),
        400,
        'validation_failed',
      );
      expectError(
        await http.post('/2fa/verify', { setup_token: setup.setup_token, code: 123456 }, user.token),
        400,
        'validation_failed',
      );
    });

    it('keeps the secret and backup codes out of the event log in plaintext', async () => {
      const user = await registerAndLogin(http);
      const { secret, backupCodes } = await enable(http, clock, user);
      const events = await t.running.deps.eventStore.readStream(`twofactor-${user.id}`);
      const log = JSON.stringify(events.map((e) => [e.type, e.data, e.metadata]));
      expect(log).not.toContain(secret);
      for (const code of backupCodes) expect(log).not.toContain(code);
    });
  });

  describe('the 600-second setup deadline', () => {
    it('a setup token works at 599 s and is refused from 600 s', async () => {
      const early = await registerAndLogin(http);
      const late = await registerAndLogin(http);
      const earlySetup = await startSetup(http, early);
      const lateSetup = await startSetup(http, late);
      clock.advance(599_000);
      const ok = await http.post(
        '/2fa/verify',
        { setup_token: earlySetup.setup_token, code: oathtool(earlySetup.secret, clock) },
        early.token,
      );
      expect(ok.status).toBe(200);
      clock.advance(1_000);
      expectError(
        await http.post(
          '/2fa/verify',
          { setup_token: lateSetup.setup_token, code: oathtool(lateSetup.secret, clock) },
          late.token,
        ),
        400,
        'invalid_setup_token',
        'Invalid or expired setup token',
      );
    });

    it('the deadline process records the expiry in the stream, once', async () => {
      const user = await registerAndLogin(http);
      await startSetup(http, user);
      const process = t.running.app.get(SetupDeadlineProcess);
      clock.advance(599_000);
      await process.runDue();
      const types = async () => (await t.running.deps.eventStore.readStream(`twofactor-${user.id}`)).map((e) => e.type);
      expect(await types()).toEqual(['TwoFactorSetupStarted']);
      clock.advance(1_000);
      await process.runDue();
      await process.runDue();
      expect(await types()).toEqual(['TwoFactorSetupStarted', 'TwoFactorSetupExpired']);
    });
  });

  describe('login second step', () => {
    it('password login asks for the second step; a TOTP code completes it with a working session', async () => {
      const user = await registerAndLogin(http);
      const { secret } = await enable(http, clock, user);
      const loginToken = await passwordStep(http, user);
      const res = await http.post('/auth/login/2fa', { login_token: loginToken, code: oathtool(secret, clock) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: expect.any(Number),
      });
      expect((await http.get('/account', res.body.access_token)).status).toBe(200);
    });

    it('a TOTP code accepted once is not accepted again (replay), at verify or at login', async () => {
      const user = await registerAndLogin(http);
      const setup = await startSetup(http, user);
      const verifyCode = oathtool(setup.secret, clock);
      expect(
        (await http.post('/2fa/verify', { setup_token: setup.setup_token, code: verifyCode }, user.token)).status,
      ).toBe(200);
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: verifyCode }),
        400,
        'invalid_code',
      );

      clock.advance(30_000);
      const code = oathtool(setup.secret, clock);
      expect((await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code })).status).toBe(
        200,
      );
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code }),
        400,
        'invalid_code',
        'Invalid verification code',
      );
      clock.advance(30_000);
    });

    it('a backup code works once, case and spaces normalised, and its use is recorded', async () => {
      const user = await registerAndLogin(http);
      const { backupCodes } = await enable(http, clock, user);
      const typed = `${backupCodes[0].slice(0, 4).toLowerCase()} ${backupCodes[0].slice(4).toLowerCase()}`;
      const res = await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: typed });
      expect(res.status).toBe(200);
      expect((await http.get('/2fa/status', user.token)).body).toEqual({ enabled: true, backup_codes_remaining: 9 });
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: backupCodes[0] }),
        400,
        'invalid_code',
      );
      const used = (await t.running.deps.eventStore.readStream(`twofactor-${user.id}`)).find(
        (e) => e.type === 'BackupCodeUsed',
      );
      expect(used?.data.used_at).toBe(clock.now().toISOString());
    });

    it('five wrong codes invalidate the login_token', async () => {
      const user = await registerAndLogin(http);
      const { secret } = await enable(http, clock, user);
      const loginToken = await passwordStep(http, user);
      for (let i = 0; i < 5; i++) {
        expectError(
          await http.post('/auth/login/2fa', { login_token: loginToken, code: '000000' }),
          400,
          'invalid_code',
        );
      }
      expectError(
        await http.post('/auth/login/2fa', { login_token: loginToken, code: oathtool(secret, clock) }),
        401,
        'invalid_login_token',
      );
      // A fresh login_token still works: the token died, not the account.
      expect(
        (
          await http.post('/auth/login/2fa', {
            login_token: await passwordStep(http, user),
            code: oathtool(secret, clock),
          })
        ).status,
      ).toBe(200);
      clock.advance(30_000);
    });

    it('the per-account limit answers 429 with Retry-After across login tokens', async () => {
      const user = await registerAndLogin(http);
      const { secret } = await enable(http, clock, user);
      for (let token = 0; token < 2; token++) {
        const loginToken = await passwordStep(http, user);
        for (let i = 0; i < 5; i++) await http.post('/auth/login/2fa', { login_token: loginToken, code: 'FFFFFFFF' });
      }
      const res = await http.post('/auth/login/2fa', {
        login_token: await passwordStep(http, user),
        code: oathtool(secret, clock),
      });
      expectError(res, 429, 'too_many_attempts');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      clock.advance(15 * 60_000);
      expect(
        (
          await http.post('/auth/login/2fa', {
            login_token: await passwordStep(http, user),
            code: oathtool(secret, clock),
          })
        ).status,
      ).toBe(200);
      clock.advance(30_000);
    });

    it('mistyped login codes do not lock a signed-in user out of their settings; wrong passwords have their own limit', async () => {
      const user = await registerAndLogin(http);
      await enable(http, clock, user);
      // Ten wrong codes over two login tokens: code guessing is now throttled...
      for (let token = 0; token < 2; token++) {
        const loginToken = await passwordStep(http, user);
        for (let i = 0; i < 5; i++) await http.post('/auth/login/2fa', { login_token: loginToken, code: '000000' });
      }
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: '000000' }),
        429,
        'too_many_attempts',
      );
      // ...but the session the user already has confirms with the right password.
      const regenerated = await http.post('/2fa/backup-codes', { password: user.password }, user.token);
      expect(regenerated.status).toBe(200);
      expect(regenerated.body.backup_codes).toHaveLength(10);
      // Wrong passwords count on their own: five lock the confirmations, not a word about codes.
      for (let i = 0; i < 5; i++) {
        expectError(
          await http.post('/2fa/backup-codes', { password: 'wrong-password-here' }, user.token),
          401,
          'invalid_credentials',
        );
      }
      expectError(await http.post('/2fa/disable', { password: user.password }, user.token), 429, 'too_many_attempts');
      clock.advance(15 * 60_000);
      expect((await http.post('/2fa/disable', { password: user.password }, user.token)).body).toEqual({
        success: true,
      });
    });

    it('a login_token dies after 300 s, and a made-up one is refused', async () => {
      const user = await registerAndLogin(http);
      const { secret } = await enable(http, clock, user);
      const loginToken = await passwordStep(http, user);
      clock.advance(300_000);
      expectError(
        await http.post('/auth/login/2fa', { login_token: loginToken, code: oathtool(secret, clock) }),
        401,
        'invalid_login_token',
      );
      expectError(
        await http.post('/auth/login/2fa', { login_token: 'forged', code: '123456' }),
        401,
        'invalid_login_token',
      );
    });
  });

  describe('API keys', () => {
    it('are refused by every 2FA endpoint (403 session_required) and bypass the second login step', async () => {
      const user = await registerAndLogin(http, { plan: 'pro' });
      await enable(http, clock, user);
      const created = await http.post('/api-keys/', { name: 'ci' }, user.token);
      expect(created.status).toBe(201);
      const key = created.body.key as string;
      const calls = [
        http.post('/2fa/setup', undefined, key),
        http.post('/2fa/verify', { setup_token: 'x', code: '123456' }, key),
        http.get('/2fa/status', key),
        http.post('/2fa/disable', { password: user.password }, key),
        http.post('/2fa/backup-codes', { password: user.password }, key),
      ];
      for (const res of await Promise.all(calls)) expectError(res, 403, 'session_required');
      // The key authenticates as the owner although 2FA is on.
      expect((await http.get('/account', key)).status).toBe(200);
    });
  });

  describe('disable and regenerate', () => {
    it('disable needs the current password, then deletes secret and codes and ends the second step', async () => {
      const user = await registerAndLogin(http);
      const { backupCodes } = await enable(http, clock, user);
      expectError(
        await http.post('/2fa/disable', { password: 'wrong-password-here' }, user.token),
        401,
        'invalid_credentials',
      );
      expect((await http.post('/2fa/disable', { password: user.password }, user.token)).body).toEqual({
        success: true,
      });
      expect((await http.get('/2fa/status', user.token)).body).toEqual({ enabled: false, backup_codes_remaining: 0 });
      expect((await http.get('/account', user.token)).body.two_factor_enabled).toBe(false);
      const login = await http.post('/auth/login', { username: user.username, password: user.password });
      expect(login.body.access_token).toEqual(expect.any(String));
      expectError(await http.post('/2fa/disable', { password: user.password }, user.token), 409, 'not_enabled');
      // Re-enabling makes a new secret; the old backup codes are gone for good.
      const again = await enable(http, clock, user);
      expect(again.backupCodes).not.toContain(backupCodes[0]);
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: backupCodes[0] }),
        400,
        'invalid_code',
      );
    });

    it('regenerating needs the password, issues 10 new codes and invalidates the earlier ones', async () => {
      const user = await registerAndLogin(http);
      const { backupCodes: old } = await enable(http, clock, user);
      await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: old[1] });
      expect((await http.get('/2fa/status', user.token)).body.backup_codes_remaining).toBe(9);
      expectError(
        await http.post('/2fa/backup-codes', { password: 'wrong-password-here' }, user.token),
        401,
        'invalid_credentials',
      );
      const res = await http.post('/2fa/backup-codes', { password: user.password }, user.token);
      expect(res.status).toBe(200);
      expect(res.body.backup_codes).toHaveLength(10);
      expect((await http.get('/2fa/status', user.token)).body).toEqual({ enabled: true, backup_codes_remaining: 10 });
      expectError(
        await http.post('/auth/login/2fa', { login_token: await passwordStep(http, user), code: old[2] }),
        400,
        'invalid_code',
      );
      expect(
        (
          await http.post('/auth/login/2fa', {
            login_token: await passwordStep(http, user),
            code: res.body.backup_codes[0],
          })
        ).status,
      ).toBe(200);
    });
  });
});

describe('two-factor setup across a restart (e2e)', () => {
  it('a pending setup stays valid until its deadline after a restart, and is expired by its timer after it', async () => {
    const clock = new ManualClock(START);
    let t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    try {
      const keeps = await registerAndLogin(t.http);
      const lapses = await registerAndLogin(t.http);
      const keepsSetup = await startSetup(t.http, keeps);
      const lapsesSetup = await startSetup(t.http, lapses);
      await t.close(false);

      clock.advance(300_000);
      t = await startTestApp({ clock, dataDir });
      // Sessions survive the restart too; the setup token is still inside its deadline.
      const ok = await t.http.post(
        '/2fa/verify',
        { setup_token: keepsSetup.setup_token, code: oathtool(keepsSetup.secret, clock) },
        keeps.token,
      );
      expect(ok.status).toBe(200);
      await t.close(false);

      clock.advance(300_000);
      t = await startTestApp({ clock, dataDir });
      // The deadline is a timer stored by the process manager before the restarts: it fires now.
      await t.running.app.get(SetupDeadlineProcess).runDue();
      const types = (await t.running.deps.eventStore.readStream(`twofactor-${lapses.id}`)).map((e) => e.type);
      expect(types).toEqual(['TwoFactorSetupStarted', 'TwoFactorSetupExpired']);
      expectError(
        await t.http.post(
          '/2fa/verify',
          { setup_token: lapsesSetup.setup_token, code: oathtool(lapsesSetup.secret, clock) },
          lapses.token,
        ),
        400,
        'invalid_setup_token',
      );
    } finally {
      await t.close(true);
    }
  });
});
