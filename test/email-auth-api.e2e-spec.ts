import SwaggerParser from '@apidevtools/swagger-parser';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { enrolZone, startWorld } from './support/email-auth';
import { HttpResponse } from './support/http-client';
import { answerChecker } from './support/openapi-answers';
import { enableTwoFactor } from './support/totp';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'api-main.test';
const ZONE2 = 'api-second.test';
const OTHER = 'api-foreign.test';
const UA = { 'user-agent': 'email-auth-api-e2e/1.0 (+https://example.test/integration)' };
const BASE = '/api/v1/email-auth';

/**
 * The read-only email-authentication API end to end (seed: Email-authentication read
 * API, Errors; contract §3, §9): real HTTP, keys made through the management API, records
 * checked live through a real DNS server standing in for the world (VERIFY_RESOLVER).
 */
describe('email-auth read API (seed: Email-authentication read API; contract §9)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  // The session of registration stays valid throughout: the test moves the clock by minutes until its last step.
  let owner: { id: number; token: string };
  let other: { id: number; token: string };
  let allKey: string;
  let oneKey: string;
  let accountKey: string;

  const enterprise = (id: number, domains: string[]) =>
    app.http.admin('PUT', `/admin/accounts/${id}/subscription`, { email_auth: { tier: 'enterprise', domains } });
  const createKey = async (token: string, body: Record<string, unknown>) => {
    const res = await app.http.post('/api-keys', { name: 'integration', access: 'email_auth:read', ...body }, token);
    expect(res.status).toBe(201);
    return res;
  };
  const get = (path: string, key: string | undefined, headers: Record<string, string> = UA) =>
    app.http.get(`${BASE}${path}`, key, headers);
  const expectError = (res: HttpResponse, status: number, code: string, message?: string) => {
    expect([res.status, res.body?.error?.code]).toEqual([status, code]);
    if (message) expect(res.body.error.message).toBe(message);
  };
  /** The event log is a projection: wait until it has caught up with what the test wrote. */
  const eventsOnce = async (key: string, count: number, query = '') => {
    for (let i = 0; i < 100; i++) {
      const res = await get(`/events?limit=100${query}`, key);
      if (res.status === 200 && res.body.data.length >= count)
        return res.body.data as Array<{ id: string; occurred_at: string; type: string; domain: string }>;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`event log never reached ${count} entries`);
  };

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    clock = new ManualClock(new Date('2026-06-01T10:00:00Z'));
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, world, owner, ZONE, { addOnDomains: [ZONE, ZONE2] });
    await enrolZone(app.http, world, owner, ZONE2, { addOnDomains: [ZONE, ZONE2] });
    expect((await enterprise(owner.id, [ZONE, ZONE2])).status).toBe(200);
    await enableTwoFactor(app.http, owner.token, clock.now());
    other = await registerAndLogin(app.http);
    await enrolZone(app.http, world, other, OTHER);
    await enterprise(other.id, [OTHER]);

    allKey = (await createKey(owner.token, {})).body.key;
    oneKey = (await createKey(owner.token, { domains: [ZONE], failure_report_subjects: true, expires_in_days: 30 }))
      .body.key;
    accountKey = (await app.http.post('/api-keys', { name: 'account' }, owner.token)).body.key;
  });
  afterAll(async () => {
    await app?.close();
    await worldServer?.stop();
  });

  describe('keys (seed: API key settings; contract §3)', () => {
    it('fixes access, domains, subject flag and a one-year default expiry at creation', async () => {
      const res = await createKey(owner.token, { name: 'defaults' });
      expect(res.body).toMatchObject({ access: 'email_auth:read', domains: [], failure_report_subjects: false });
      expect(Date.parse(res.body.expires_at) - clock.now().getTime()).toBe(365 * 86_400_000);
      const listed = (await app.http.get('/api-keys', owner.token)).body.keys.find(
        (k: { id: string }) => k.id === res.body.id,
      );
      expect(listed).toMatchObject({ access: 'email_auth:read', domains: [], expires_at: res.body.expires_at });
      // Nothing changes a key after creation: there is no update route.
      expect(
        (await app.http.request('PATCH', `/api-keys/${res.body.id}`, { body: { domains: [ZONE] }, token: owner.token }))
          .status,
      ).toBe(404);
      expect((await app.http.delete(`/api-keys/${res.body.id}`, owner.token)).status).toBe(204);
      expectError(await get('/domains', res.body.key), 401, 'unauthorized', 'The API key is not valid or has expired.');
    });

    it('refuses domains outside the Email Authentication subscription', async () => {
      const res = await app.http.post(
        '/api-keys',
        { name: 'x', access: 'email_auth:read', domains: [OTHER] },
        owner.token,
      );
      expectError(res, 400, 'validation_failed');
    });

    it('needs 2FA on when creating one (seed message)', async () => {
      const res = await app.http.post('/api-keys', { name: 'x', access: 'email_auth:read' }, other.token);
      expectError(
        res,
        403,
        'two_factor_required',
        'Turn on two-factor authentication before creating an Email Authentication API key.',
      );
    });

    it('keeps scopes apart both ways', async () => {
      expectError(await app.http.get('/account', allKey), 403, 'insufficient_scope');
      expectError(await app.http.get('/api-keys', allKey), 403, 'insufficient_scope');
      expectError(
        await app.http.put(`/email-auth/domains/${ZONE}/dmarc`, { policy: 'reject' }, allKey),
        403,
        'insufficient_scope',
      );
      const ddns = await app.http.get('/domains/nic/update?hostname=h.api-main.test&myip=192.0.2.1', allKey);
      expect([ddns.status, ddns.body]).toEqual([401, 'badauth']);
      expectError(
        await get('/domains', accountKey),
        403,
        'insufficient_scope',
        'This key does not have the email_auth:read scope.',
      );
    });
  });

  describe('common rules', () => {
    it('needs a User-Agent', async () => {
      const res = await app.http.get(`${BASE}/domains`, allKey, { 'user-agent': '' });
      expectError(res, 400, 'user_agent_required');
    });

    it('answers 401 with the seed message for missing, malformed, unknown and session credentials', async () => {
      for (const key of [undefined, 'ak_unknownunknownunknown', owner.token]) {
        expectError(await get('/domains', key), 401, 'unauthorized', 'The API key is not valid or has expired.');
      }
      expectError(await get('/domains', undefined, { ...UA, authorization: `Basic ${allKey}` }), 401, 'unauthorized');
    });

    it('carries X-Request-Id and the rate-limit headers on every answer', async () => {
      const res = await get('/domains', allKey, { ...UA, 'x-request-id': 'trace-123' });
      expect(res.headers.get('x-request-id')).toBe('trace-123');
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(60);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(clock.now().getTime() / 1000);
      const missing = await get('/domains/nowhere.test', allKey);
      expect(missing.headers.get('x-request-id')).toBeTruthy();
    });

    it('answers 404 for domains outside the key, the account or the add-on', async () => {
      for (const [key, domain] of [
        [oneKey, ZONE2],
        [allKey, OTHER],
        [allKey, 'nowhere.test'],
      ]) {
        expectError(
          await get(`/domains/${domain}`, key),
          404,
          'domain_not_found',
          'No Email Authentication domain by that name on this key.',
        );
        expectError(await get(`/dmarc/policy?domain=${domain}`, key), 404, 'domain_not_found');
        expectError(await get(`/senders?domain=${domain}`, key), 404, 'domain_not_found');
      }
      expectError(await get('/senders', allKey), 400, 'validation_failed');
    });

    it('validates limit, cursor and days', async () => {
      for (const q of [
        'limit=0',
        'limit=101',
        'limit=abc',
        'cursor=not-a-cursor',
        'days=0',
        'days=1097',
        'type=dmarc.unknown',
        'since=yesterday',
      ]) {
        expectError(await get(`/events?${q}`, allKey), 400, 'validation_failed');
      }
      expect((await get('/events?limit=100&days=1096', allKey)).status).toBe(200);
    });
  });

  describe('domains, policy, senders', () => {
    beforeAll(async () => {
      const put = (path: string, body: unknown) =>
        app.http.put(`/email-auth/domains/${ZONE}/${path}`, body, owner.token);
      expect((await put('dmarc', { policy: 'none', rua: [`mailto:dmarc@${ZONE}`] })).status).toBe(200);
      expect((await put('spf', { include: ['_spf.mailer.example'], all: '~all' })).status).toBe(200);
      expect((await put('dkim/mail2026', { generate: true })).status).toBe(200);
    });

    it('lists every domain the key sees with its compliance; a selecting key sees only its own', async () => {
      const all = await get('/domains', allKey);
      expect(all.status).toBe(200);
      expect(all.body.data.map((d: { domain: string }) => d.domain)).toEqual([ZONE, ZONE2]);
      const main = all.body.data[0];
      expect(main).toMatchObject({ domain: ZONE, status: 'active', hosting_mode: 'delegated' });
      expect(main.compliance).toMatchObject({
        dmarc: 'partial',
        spf: 'partial',
        dkim: 'enforced',
        bimi: 'missing',
        mta_sts: 'missing',
        tls_rpt: 'missing',
      });
      expect(main.compliance.score).toBeGreaterThan(0);
      expect(all.body.data[1].compliance).toMatchObject({ score: 0, dmarc: 'missing' });
      const one = await get('/domains', oneKey);
      expect(one.body.data.map((d: { domain: string }) => d.domain)).toEqual([ZONE]);
    });

    it('shows each needed record and whether the world sees it now', async () => {
      const before = await get(`/domains/${ZONE}`, oneKey);
      expect(before.status).toBe(200);
      const dmarc = before.body.records.find((r: { name: string }) => r.name === `_dmarc.${ZONE}`);
      expect(dmarc).toMatchObject({ type: 'TXT', value: `v=DMARC1; p=none; rua=mailto:dmarc@${ZONE}`, live: false });
      expect(before.body.records.map((r: { name: string }) => r.name).sort()).toEqual(
        [ZONE, `_dmarc.${ZONE}`, `mail2026._domainkey.${ZONE}`].sort(),
      );
      expect(before.body.all_live).toBe(false);
      // The world now publishes the DMARC record (and a stale SPF): only DMARC is live.
      world.setRRset(ZONE, '_dmarc', 'TXT', 60, [`"${dmarc.value}"`]);
      world.setRRset(ZONE, '', 'TXT', 60, ['"v=spf1 -all"']);
      const after = await get(`/domains/${ZONE}`, oneKey);
      const live = Object.fromEntries(after.body.records.map((r: { name: string; live: boolean }) => [r.name, r.live]));
      expect(live).toEqual({ [`_dmarc.${ZONE}`]: true, [ZONE]: false, [`mail2026._domainkey.${ZONE}`]: false });
      expect(after.body.records.find((r: { name: string }) => r.name === ZONE).found).toEqual(['v=spf1 -all']);
    });

    it('gives the published policy and, once open, the wizard’s stage, recommendation and blockers', async () => {
      const before = await get(`/dmarc/policy?domain=${ZONE}`, allKey);
      expect(before.body).toMatchObject({
        domain: ZONE,
        policy: 'none',
        subdomain_policy: null,
        percentage: 100,
        record: `v=DMARC1; p=none; rua=mailto:dmarc@${ZONE}`,
        wizard: null,
      });
      expect((await app.http.get(`/email-auth/dmarc/wizard/${ZONE}`, owner.token)).status).toBe(200);
      const wizard = (await app.http.get(`/email-auth/dmarc/wizard/${ZONE}/recommendation`, owner.token)).body;
      const after = await get(`/dmarc/policy?domain=${ZONE}`, allKey);
      expect(after.body.wizard).toMatchObject({
        stage: 'monitoring',
        recommendation: wizard.recommendation,
        reason: wizard.reason,
        blockers: wizard.blockers,
        next_stage: 'quarantine_partial',
        ready_to_advance: false,
      });
      expect(after.body.wizard.blockers).toEqual(['insufficient_data', 'low_pass_rate', 'min_days_not_met']);
    });

    it('lists SPF includes and DKIM public keys only', async () => {
      const res = await get(`/senders?domain=${ZONE}`, allKey);
      expect(res.body.spf).toMatchObject({
        include: ['_spf.mailer.example'],
        all: '~all',
        record: 'v=spf1 include:_spf.mailer.example ~all',
      });
      expect(res.body.dkim).toHaveLength(1);
      expect(res.body.dkim[0]).toMatchObject({
        selector: 'mail2026',
        name: `mail2026._domainkey.${ZONE}`,
        key_type: 'rsa',
        key_bits: 2048,
      });
      expect(res.text).not.toMatch(/PRIVATE/);
      const empty = await get(`/senders?domain=${ZONE2}`, allKey);
      expect(empty.body).toEqual({ domain: ZONE2, spf: null, dkim: [] });
    });
  });

  describe('events', () => {
    it('logs dmarc.policy.changed with the seed’s fields, filtered by type and since, scoped to the key', async () => {
      const t0 = clock.now().toISOString();
      clock.advance(1000);
      expect(
        (
          await app.http.put(
            `/email-auth/domains/${ZONE2}/dmarc`,
            { policy: 'quarantine', percentage: 50 },
            owner.token,
          )
        ).status,
      ).toBe(200);
      const all = await eventsOnce(allKey, 2);
      expect(all[0]).toEqual({
        id: expect.any(String),
        type: 'dmarc.policy.changed',
        occurred_at: clock.now().toISOString(),
        domain: ZONE2,
        severity: 'info',
        title: `DMARC policy of ${ZONE2} published as quarantine (50%)`,
        data: { source: 'settings', from: null, to: { policy: 'quarantine', percentage: 50 }, stage: null },
      });
      const since = await get(`/events?since=${encodeURIComponent(clock.now().toISOString())}`, allKey);
      expect(since.body.data.map((e: { domain: string }) => e.domain)).toEqual([ZONE2]);
      expect((await get(`/events?since=${t0}&type=alert.raised&type=dmarc.report.received`, allKey)).body.data).toEqual(
        [],
      );
      expect((await get(`/events?type=dmarc.policy.changed&type=alert.raised`, allKey)).body.data.length).toBe(
        all.length,
      );
      // The selecting key never sees the other zone's entries; the other account sees none of ours.
      const scoped = await get('/events', oneKey);
      expect(scoped.body.data.every((e: { domain: string }) => e.domain === ZONE)).toBe(true);
    });

    it('pages newest first with next_cursor, losing and repeating nothing while entries are added', async () => {
      const policies = ['reject', 'quarantine', 'none'] as const;
      const change = async (i: number) => {
        clock.advance(1000);
        const res = await app.http.put(
          `/email-auth/domains/${ZONE2}/dmarc`,
          { policy: policies[i % 3], percentage: 10 + i },
          owner.token,
        );
        expect(res.status).toBe(200);
      };
      for (let i = 0; i < 7; i++) await change(i);
      const before = await eventsOnce(allKey, 9);
      const seen: string[] = [];
      let cursor: string | null = null;
      let i = 7;
      do {
        const res: HttpResponse = await get(`/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`, allKey);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.data.map((e: { id: string }) => e.id));
        cursor = res.body.next_cursor;
        if (i < 11) await change(i++); // newer entries arrive between pages
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(before.map((e) => e.id));
      const times = before.map((e) => e.occurred_at);
      expect([...times].sort().reverse()).toEqual(times);
    });
  });

  describe('OpenAPI document (GET /api/v1/openapi.json)', () => {
    it('passes an OpenAPI validator and describes what every endpoint really returns', async () => {
      const res = await app.http.get('/api/v1/openapi.json');
      expect(res.status).toBe(200);
      const doc = res.body;
      await SwaggerParser.validate(structuredClone(doc));
      // Formats (date-time, date) are checked too, not only warned about.
      const answer = answerChecker(doc);
      const check = (path: string, status: number, res: HttpResponse) => answer(path, 'get', res, status);
      check(`${BASE}/domains`, 200, await get('/domains', allKey));
      check(`${BASE}/domains/{domain}`, 200, await get(`/domains/${ZONE}`, allKey));
      check(`${BASE}/domains/{domain}`, 404, await get(`/domains/${OTHER}`, allKey));
      check(`${BASE}/dmarc/policy`, 200, await get(`/dmarc/policy?domain=${ZONE}`, allKey));
      check(`${BASE}/dmarc/policy`, 200, await get(`/dmarc/policy?domain=${ZONE2}`, allKey));
      check(`${BASE}/senders`, 200, await get(`/senders?domain=${ZONE}`, allKey));
      check(`${BASE}/senders`, 200, await get(`/senders?domain=${ZONE2}`, allKey));
      check(`${BASE}/events`, 200, await get('/events?limit=3', allKey));
      check(`${BASE}/events`, 401, await get('/events', 'ak_unknownunknownunknown'));
      check(`${BASE}/events`, 403, await get('/events', accountKey));
      // Report endpoints before any report arrives (test/email-auth-reports.e2e-spec.ts checks them with reports).
      check(`${BASE}/dmarc/summary`, 200, await get(`/dmarc/summary?domain=${ZONE}`, allKey));
      check(`${BASE}/dmarc/sources`, 200, await get(`/dmarc/sources?domain=${ZONE}`, allKey));
      check(`${BASE}/dmarc/reports`, 200, await get('/dmarc/reports', allKey));
      check(`${BASE}/dmarc/reports/{id}`, 404, await get('/dmarc/reports/unknown', allKey));
      check(`${BASE}/dmarc/forensic`, 200, await get('/dmarc/forensic', allKey));
      check(`${BASE}/tls-rpt/summary`, 200, await get(`/tls-rpt/summary?domain=${ZONE}`, allKey));
      check(`${BASE}/tls-rpt/summary`, 404, await get(`/tls-rpt/summary?domain=${OTHER}`, allKey));
      expect(Object.keys(doc.paths).every((p) => p.startsWith(BASE))).toBe(true);
    });
  });

  describe('rate limit (60 a minute per key, shared store, injected clock)', () => {
    it('allows 60 requests in a window, then 429 with Retry-After until the window ends', async () => {
      const key = (await createKey(owner.token, { name: 'rate' })).body.key;
      const windowStart = Math.ceil(clock.now().getTime() / 60_000) * 60_000;
      clock.set(new Date(windowStart + 15_000));
      for (let n = 1; n <= 60; n++) {
        const res = await get('/events?limit=1', key);
        expect([res.status, res.headers.get('x-ratelimit-remaining')]).toEqual([200, String(60 - n)]);
      }
      const limited = await get('/events?limit=1', key);
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers.get('retry-after')).toBe('45');
      expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-reset')).toBe(String((windowStart + 60_000) / 1000));
      // Another key has its own budget.
      expect((await get('/events?limit=1', allKey)).status).toBe(200);
      clock.advance(44_000);
      expect((await get('/events?limit=1', key)).status).toBe(429);
      clock.advance(1_000);
      const next = await get('/events?limit=1', key);
      expect([next.status, next.headers.get('x-ratelimit-remaining')]).toEqual([200, '59']);
    });
  });

  describe('keys that stop working', () => {
    it('answers 403 with the seed message when the account leaves Enterprise, and works again when it returns', async () => {
      await app.http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, {
        email_auth: { tier: 'standard', domains: [ZONE, ZONE2] },
      });
      expectError(
        await get('/domains', allKey),
        403,
        'tier_required',
        'API access needs the Email Authentication Enterprise tier.',
      );
      await enterprise(owner.id, [ZONE, ZONE2]);
      expect((await get('/domains', allKey)).status).toBe(200);
    });

    it('answers 401 once the key has expired', async () => {
      clock.advance(31 * 86_400_000);
      expectError(await get('/domains', oneKey), 401, 'unauthorized', 'The API key is not valid or has expired.');
      expect((await get('/domains', allKey)).status).toBe(200);
    });
  });
});
