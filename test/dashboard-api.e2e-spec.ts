/**
 * What the dashboard adds to the HTTP API, over real HTTP to the Nest app: the cookie
 * session with its CSRF token beside unchanged Bearer authentication (contract §14), the
 * uptime history and limits endpoints (docs/uptime-history.md), and the static app's
 * first-load size.
 */
import { measureBundle, total } from '../bench/dashboard-bundle.bench';
import { ManualClock } from '../libs/shared/clock';
import { UptimeWorker } from '../libs/uptime/application/uptime.worker';
import { dashboardDir } from '../libs/dashboard/web-front';
import { AppWithUpTarget, startAppWithUpTarget } from './support/uptime-target';
import { registerAndLogin, TestApp } from './support/test-app';
import { enableTwoFactor, totpAt } from './support/totp';

const COOKIE_LOGIN = { 'x-session-transport': 'cookie' };

/** `name=value` pairs of Set-Cookie headers, plus each header's attributes. */
function cookiesOf(headers: Headers): Record<string, { value: string; attrs: string }> {
  const out: Record<string, { value: string; attrs: string }> = {};
  for (const line of headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(';');
    const i = pair.indexOf('=');
    out[pair.slice(0, i).trim()] = { value: pair.slice(i + 1), attrs: attrs.join(';').trim() };
  }
  return out;
}

describe('dashboard API: cookie sessions, CSRF, uptime history (contract §14)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let started: AppWithUpTarget;
  let worker: UptimeWorker;

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-01T10:20:00Z'));
    started = await startAppWithUpTarget(clock, { UPTIME_TIMEOUT_MS: '500', TRUSTED_PROXIES: '127.0.0.1' });
    ({ app, worker } = started);
  });
  afterAll(() => started?.close());

  async function cookieLogin(username: string, password: string, headers: Record<string, string> = {}) {
    const res = await app.http.post('/auth/login', { username, password }, undefined, { ...COOKIE_LOGIN, ...headers });
    expect(res.status).toBe(200);
    const cookies = cookiesOf(res.headers);
    return {
      res,
      cookies,
      cookie: `ads_session=${cookies.ads_session.value}; ads_csrf=${cookies.ads_csrf.value}`,
      csrf: cookies.ads_csrf.value,
    };
  }

  it('puts the session in an httpOnly SameSite=Strict cookie and never in the body', async () => {
    const user = await registerAndLogin(app.http);
    const { res, cookies } = await cookieLogin(user.username, user.password);
    expect(res.body).toEqual({ token_type: 'cookie', expires_in: 86400 });
    expect(cookies.ads_session.value).toMatch(/^st_/);
    expect(cookies.ads_session.attrs).toMatch(/HttpOnly/);
    expect(cookies.ads_session.attrs).toMatch(/SameSite=Strict/);
    expect(cookies.ads_session.attrs).not.toMatch(/Secure/);
    // The CSRF token is for the page's script to read: not httpOnly.
    expect(cookies.ads_csrf.attrs).not.toMatch(/HttpOnly/);
    // Without the header a login answers as before, with the token in the body and no cookie.
    const plain = await app.http.post('/auth/login', { username: user.username, password: user.password });
    expect(plain.body.access_token).toMatch(/^st_/);
    expect(plain.headers.getSetCookie()).toEqual([]);
  });

  it('marks the cookies Secure when the request came over HTTPS', async () => {
    const user = await registerAndLogin(app.http);
    const { cookies } = await cookieLogin(user.username, user.password, { 'x-forwarded-proto': 'https' });
    expect(cookies.ads_session.attrs).toMatch(/Secure/);
    expect(cookies.ads_csrf.attrs).toMatch(/Secure/);
  });

  it('needs the CSRF header on state changes carried by the cookie, not on reads or Bearer requests', async () => {
    const user = await registerAndLogin(app.http);
    const { cookie, csrf } = await cookieLogin(user.username, user.password);
    expect((await app.http.get('/account', undefined, { cookie })).body.username).toBe(user.username);
    const wrong: Record<string, string>[] = [{}, { 'x-csrf-token': 'f'.repeat(64) }, { 'x-csrf-token': csrf.slice(1) }];
    for (const header of wrong) {
      const res = await app.http.post('/zones', { name: 'csrf.example' }, undefined, { cookie, ...header });
      expect([res.status, res.body]).toEqual([
        403,
        { error: { code: 'csrf_failed', message: 'Missing or invalid CSRF token' } },
      ]);
    }
    expect((await app.http.get('/zones', undefined, { cookie })).body).toEqual({ zones: [] });
    const ok = await app.http.post('/zones', { name: 'csrf.example' }, undefined, { cookie, 'x-csrf-token': csrf });
    expect(ok.status).toBe(201);
    // Another session's CSRF token does not fit this session.
    const other = await cookieLogin(user.username, user.password);
    const crossed = await app.http.post('/zones', { name: 'crossed.example' }, undefined, {
      cookie,
      'x-csrf-token': other.csrf,
    });
    expect(crossed.status).toBe(403);
    // Bearer wins over a cookie and needs no CSRF token.
    const bearer = await app.http.post('/zones', { name: 'bearer.example' }, user.token, {
      cookie: 'ads_session=st_garbage',
    });
    expect(bearer.status).toBe(201);
    // A cookie that is no session is 401, like a bad Bearer token.
    expect((await app.http.get('/account', undefined, { cookie: 'ads_session=st_nope' })).status).toBe(401);
  });

  it('ends the session and clears the cookies on logout', async () => {
    const user = await registerAndLogin(app.http);
    const { cookie, csrf } = await cookieLogin(user.username, user.password);
    const out = await app.http.post('/auth/logout', undefined, undefined, { cookie, 'x-csrf-token': csrf });
    expect(out.status).toBe(204);
    const cleared = cookiesOf(out.headers);
    expect([cleared.ads_session.value, cleared.ads_csrf.value]).toEqual(['', '']);
    expect(cleared.ads_session.attrs).toMatch(/Max-Age=0/);
    expect((await app.http.get('/account', undefined, { cookie })).status).toBe(401);
  });

  it('sets the cookie on the second login step when 2FA is on', async () => {
    const user = await registerAndLogin(app.http);
    const { secret } = await enableTwoFactor(app.http, user.token, clock.now());
    const first = await app.http.post(
      '/auth/login',
      { username: user.username, password: user.password },
      undefined,
      COOKIE_LOGIN,
    );
    expect(first.body).toMatchObject({ requires_2fa: true });
    expect(first.headers.getSetCookie()).toEqual([]);
    clock.advance(30_000);
    const second = await app.http.post(
      '/auth/login/2fa',
      { login_token: first.body.login_token, code: totpAt(secret, clock.now()) },
      undefined,
      COOKIE_LOGIN,
    );
    expect(second.body).toEqual({ token_type: 'cookie', expires_in: 86400 });
    expect(cookiesOf(second.headers).ads_session.attrs).toMatch(/HttpOnly/);
  });

  describe('uptime history and limits', () => {
    async function nextInterval(): Promise<void> {
      clock.advance(300_000);
      await worker.scheduler.runDue();
      await app.running.deps.projections.waitFor(await app.running.deps.eventStore.headPosition());
    }

    it('gives hourly and daily series with uptime and response times, and the plan limit in use', async () => {
      const user = await registerAndLogin(app.http, { plan: 'plus' });
      const domain = await app.http.post(
        '/api/domains',
        { fqdn: 'hist.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
        user.token,
      );
      expect(
        (await app.http.post(`/uptime/domain/${domain.body.id}/monitor`, { enabled: true }, user.token)).status,
      ).toBe(200);
      expect((await app.http.get('/uptime/limits', user.token)).body).toEqual({
        plan: 'plus',
        monitor_limit: 5,
        monitors_enabled: 1,
      });
      for (let i = 0; i < 3; i++) await nextInterval();
      const list = await app.http.get('/uptime/domains', user.token);
      expect(list.body.domains).toEqual([(await app.http.get(`/uptime/domain/${domain.body.id}`, user.token)).body]);
      expect(list.body.domains[0]).toMatchObject({
        fqdn: 'hist.dyn.example.net',
        current_status: 'operational',
        uptime_percentage_24h: 100,
      });

      const day = await app.http.get(`/uptime/domain/${domain.body.id}/history?window=24h`, user.token);
      expect(day.status).toBe(200);
      expect(day.body).toMatchObject({
        domain_id: domain.body.id,
        fqdn: 'hist.dyn.example.net',
        window: '24h',
        bucket_seconds: 3600,
      });
      expect(day.body.points).toHaveLength(24);
      const last = day.body.points[23];
      expect(last.at).toBe(clock.now().toISOString().slice(0, 13) + ':00:00Z');
      expect(last.checks).toBeGreaterThanOrEqual(1);
      expect(last.uptime_percentage).toBe(100);
      expect(typeof last.avg_response_time_ms).toBe('number');
      expect(day.body.points[0]).toEqual({
        at: expect.any(String),
        checks: 0,
        uptime_percentage: null,
        avg_response_time_ms: null,
      });
      // The default window is 24h.
      expect((await app.http.get(`/uptime/domain/${domain.body.id}/history`, user.token)).body.points).toHaveLength(24);

      const week = await app.http.get(`/uptime/domain/${domain.body.id}/history?window=7d`, user.token);
      expect([week.body.bucket_seconds, week.body.points.length]).toEqual([86400, 7]);
      expect(week.body.points[6]).toMatchObject({ at: '2026-03-01T00:00:00Z', uptime_percentage: 100 });
      expect(
        (await app.http.get(`/uptime/domain/${domain.body.id}/history?window=30d`, user.token)).body.points,
      ).toHaveLength(30);
    });

    it('refuses a bad window, foreign domains and the Free plan in the contract shape', async () => {
      const owner = await registerAndLogin(app.http, { plan: 'plus' });
      const other = await registerAndLogin(app.http, { plan: 'plus' });
      const free = await registerAndLogin(app.http);
      const domain = await app.http.post(
        '/api/domains',
        { fqdn: 'hist2.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
        owner.token,
      );
      const bad = await app.http.get(`/uptime/domain/${domain.body.id}/history?window=1y`, owner.token);
      expect([bad.status, bad.body]).toEqual([
        400,
        { error: { code: 'validation_failed', message: 'window must be one of 24h, 7d, 30d' } },
      ]);
      const foreign = await app.http.get(`/uptime/domain/${domain.body.id}/history`, other.token);
      expect([foreign.status, foreign.body]).toEqual([
        404,
        { error: { code: 'not_found', message: 'Domain not found' } },
      ]);
      expect((await app.http.get('/uptime/domains', other.token)).body).toEqual({ domains: [] });
      for (const path of [`/uptime/domain/${domain.body.id}/history`, '/uptime/limits', '/uptime/domains']) {
        const gated = await app.http.get(path, free.token);
        expect([gated.status, gated.body.error.code]).toEqual([403, 'plan_required']);
      }
    });
  });

  it('serves the built files compressed and cached, client routes as the app, and nothing else from disk', async () => {
    const html = await app.http.get('/app/zones/example.org');
    expect([html.status, html.headers.get('cache-control')]).toEqual([200, 'no-cache']);
    const entry = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html.text)![1];
    const res = await fetch(app.url + entry, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await res.text()).length).toBeGreaterThan(1000); // fetch decompresses
    for (const path of [
      '/app/assets/nope.js',
      '/app/assets/..%2f..%2fpackage.json',
      '/app/assets/%2e%2e%2findex.html',
    ]) {
      const miss = await app.http.get(path);
      expect([path, miss.status]).toEqual([path, 404]);
    }
  });

  it('serves a first load of under 300 KB of compressed JavaScript', () => {
    const dir = dashboardDir();
    if (!dir) throw new Error('dist/dashboard is missing: run `npm run build`');
    const sizes = measureBundle(dir);
    expect(sizes.firstLoadJs.length).toBeGreaterThan(0);
    expect(total(sizes.firstLoadJs, 'gzip')).toBeLessThan(300 * 1024);
    // The chart library is loaded on demand, not in the first load.
    expect(sizes.onDemand.some((f) => f.file.startsWith('uPlot') && f.file.endsWith('.js'))).toBe(true);
    expect(sizes.firstLoadJs.some((f) => f.file.startsWith('uPlot'))).toBe(false);
  });
});
