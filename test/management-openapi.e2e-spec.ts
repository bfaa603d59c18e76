import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { DASHBOARD_API_TYPES, generateApiTypes } from '../apps/server/gen-api-types';
import { QUERY_LOG_STORE, QueryLogStore } from '../libs/dns-analytics/application/query-log.store';
import { queryRows } from '../libs/dns-analytics/infrastructure/conformance/query-row.builder';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { DOCS_CSP } from '../apps/server/management-openapi';
import { DashboardBrowser, launchDashboardBrowser } from './support/browser';
import { enrolZone, startWorld } from './support/email-auth';
import { answerChecker, AnswerCheck } from './support/openapi-answers';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { totpAt } from './support/totp';

type Operation = {
  operationId: string;
  security: unknown[];
  requestBody?: any;
  parameters?: any[];
  responses: Record<string, any>;
};

/**
 * The management API's OpenAPI 3.1 document at /openapi.json (contract §14: every endpoint
 * of the service outside the email-auth read API) and Swagger UI at /docs.
 */
describe('management API OpenAPI document and Swagger UI (issue 14; contract §1, §14)', () => {
  let app: TestApp;
  let doc: any;
  const op = (path: string, method: string): Operation => {
    const found = doc.paths[path]?.[method];
    if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    return found;
  };

  beforeAll(async () => {
    app = await startTestApp();
    const res = await app.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    doc = res.body;
  });
  afterAll(() => app?.close());

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it(`the dashboard's checked-in types (${DASHBOARD_API_TYPES}) are what the live document generates`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-types-'));
    try {
      await generateApiTypes(`${app.url}/openapi.json`, join(dir, 'types.d.ts'));
      // Stale? Run `npm run gen:api-types`.
      expect(readFileSync(join(__dirname, '..', DASHBOARD_API_TYPES), 'utf8')).toBe(
        readFileSync(join(dir, 'types.d.ts'), 'utf8'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes the management endpoints and leaves the email-auth read API to its own document', () => {
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/auth/register',
      '/auth/login',
      '/account',
      '/api-keys',
      '/api-keys/{id}',
      '/zones',
      '/zones/{zone}/records',
      '/health',
      '/admin/reports',
      '/admin/jobs/email-auth-alerts',
      '/admin/zones/{zone}/allow-overlap',
      '/admin/zones/conflicts',
    ]) {
      expect(paths).toContain(p);
    }
    expect(paths.filter((p) => p.startsWith('/api/v1/email-auth'))).toEqual([]);
  });

  it('gives request bodies from the DTOs’ validation rules', () => {
    const register = op('/auth/register', 'post');
    const ref: string = register.requestBody.content['application/json'].schema.$ref;
    const schema = doc.components.schemas[ref.split('/').pop()!];
    expect(schema.properties).toEqual(
      expect.objectContaining({
        username: expect.any(Object),
        email: expect.any(Object),
        password: expect.any(Object),
      }),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['username', 'password']));
    // Nested DTOs come along: a zone's record sets.
    const upsert = op('/zones/{zone}/records', 'put');
    const records =
      doc.components.schemas[upsert.requestBody.content['application/json'].schema.$ref.split('/').pop()].properties
        .records;
    expect(records).toMatchObject({ type: 'array', maxItems: 1000 });
    expect(doc.components.schemas[records.items.$ref.split('/').pop()].properties).toBeDefined();
    const overlap = op('/admin/zones/{zone}/allow-overlap', 'post');
    expect(
      doc.components.schemas[overlap.requestBody.content['application/json'].schema.$ref.split('/').pop()].properties
        .account_id,
    ).toMatchObject({ type: 'integer' });
    expect(overlap.security).toEqual([{ admin_token: [] }]);
  });

  it('describes account deletion and the additive host edit (decisions 0090, 0091)', () => {
    const bodyOf = (o: Operation) =>
      doc.components.schemas[o.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    const deletion = bodyOf(op('/account', 'delete'));
    expect(Object.keys(deletion.properties).sort()).toEqual(['code', 'password']);
    expect(deletion.required).toEqual(['password']);
    const edit = bodyOf(op('/api/domains/fqdn/{fqdn}', 'put'));
    expect(Object.keys(edit.properties).sort()).toEqual(['ipv4', 'ipv6', 'record_ip', 'ttl']);
    expect(edit.properties.ttl).toMatchObject({ minimum: 60, maximum: 86400 });
    expect(edit.required ?? []).toEqual([]);
    expect(op('/admin/accounts/{id}/audit', 'get').security).toEqual([{ admin_token: [] }]);
  });

  it('names each route’s authentication and its error responses in the contract’s shape', () => {
    expect(op('/auth/login', 'post').security).toEqual([]);
    expect(op('/account', 'get').security).toEqual([{ bearer: [] }]);
    expect(op('/admin/jobs/email-auth-alerts', 'post').security).toEqual([{ admin_token: [] }]);
    expect(doc.components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' },
      admin_token: { type: 'apiKey', in: 'header', name: 'X-Admin-Token' },
    });
    const account = op('/account', 'get');
    for (const status of ['401', '403', '429', '4XX'])
      expect(account.responses[status].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    // 404 where a path names a resource (another account's is unknown too), and on admin routes (ADMIN_TOKEN unset).
    expect(account.responses['404']).toBeUndefined();
    expect(op('/api-keys/{id}', 'delete').responses['404']).toBeDefined();
    expect(op('/admin/jobs/email-auth-alerts', 'post').responses['404']).toBeDefined();
    expect(op('/auth/login', 'post').responses['401']).toBeUndefined();
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
  });

  it('describes what the listed endpoints really return, errors included (ajv)', async () => {
    const check = answerChecker(doc);
    const reg = await app.http.post('/auth/register', {
      username: 'openapi-check',
      email: 'openapi-check@example.com',
      password: 'a-long-enough-password',
    });
    check('/auth/register', 'post', reg);
    check('/auth/register', 'post', await app.http.post('/auth/register', { username: 'x', bogus: 1 }));
    const user = await registerAndLogin(app.http);
    check('/account', 'get', await app.http.get('/account', user.token));
    check('/account', 'get', await app.http.get('/account'));
    check('/api-keys', 'post', await app.http.post('/api-keys', { name: 'ci' }, user.token));
    check('/api-keys', 'get', await app.http.get('/api-keys', user.token));
    check('/health', 'get', await app.http.get('/health'));
    const host = await app.http.post(
      '/api/domains',
      { fqdn: 'openapi.dyn.example.net', record_type: 'A', record_ip: '192.0.2.7' },
      user.token,
    );
    check('/api/domains', 'post', host);
    check(
      '/api/domains/fqdn/{fqdn}',
      'get',
      await app.http.get('/api/domains/fqdn/openapi.dyn.example.net', user.token),
    );
    check(
      '/api/domains/fqdn/{fqdn}',
      'put',
      await app.http.put('/api/domains/fqdn/openapi.dyn.example.net', { record_ip: '192.0.2.8' }, user.token),
    );
    check('/domains', 'get', await app.http.get('/domains', user.token));
    check('/zones', 'post', await app.http.post('/zones', { name: 'openapi-check.example' }, user.token));
    check('/zones', 'get', await app.http.get('/zones', user.token));
    const records = { records: [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.9'] }] };
    check(
      '/zones/{zone}/records',
      'put',
      await app.http.put('/zones/openapi-check.example/records', records, user.token),
    );
    check('/zones/{zone}/records', 'get', await app.http.get('/zones/openapi-check.example/records', user.token));
    check('/zones/{zone}', 'get', await app.http.get('/zones/openapi-check.example', user.token));
    const plus = await registerAndLogin(app.http, { plan: 'plus' });
    const monitored = await app.http.post(
      '/api/domains',
      { fqdn: 'openapi-up.dyn.example.net', record_type: 'A', record_ip: '192.0.2.10' },
      plus.token,
    );
    await app.http.post(`/uptime/domain/${monitored.body.id}/monitor`, { enabled: true }, plus.token);
    check('/uptime/domain/{id}', 'get', await app.http.get(`/uptime/domain/${monitored.body.id}`, plus.token));
    check('/uptime/domains', 'get', await app.http.get('/uptime/domains', plus.token));
    check('/uptime/dashboard', 'get', await app.http.get('/uptime/dashboard', plus.token));
    check('/uptime/limits', 'get', await app.http.get('/uptime/limits', plus.token));
    check('/account/audit', 'get', await app.http.get('/account/audit', plus.token));

    // types-a (issue 30): uptime history and checks, DNSSEC, two-factor set-up. Certificates: certificates.e2e-spec.ts.
    const ok = (status: number, res: { status: number; body: unknown }) => {
      expect([res.status, res.body]).toEqual([status, expect.anything()]);
      return res;
    };
    const uptimePath = `/uptime/domain/${monitored.body.id}`;
    for (const window of ['24h', '7d', '30d'])
      check(
        '/uptime/domain/{id}/history',
        'get',
        ok(200, await app.http.get(`${uptimePath}/history?window=${window}`, plus.token)),
      );
    for (const window of ['1h', '6h', '24h'])
      check(
        '/uptime/domain/{id}/checks',
        'get',
        ok(200, await app.http.get(`${uptimePath}/checks?window=${window}`, plus.token)),
      );
    const dnssec = '/zones/openapi-check.example/dnssec';
    check('/zones/{zone}/dnssec', 'get', ok(200, await app.http.get(dnssec, user.token)));
    const signed = ok(200, await app.http.put(dnssec, { enabled: true }, user.token));
    expect((signed.body as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
    check('/zones/{zone}/dnssec', 'put', signed);
    check(
      '/zones/{zone}/dnssec/rollover',
      'post',
      ok(202, await app.http.post(`${dnssec}/rollover`, undefined, user.token)),
    );
    const setup = ok(200, await app.http.post('/2fa/setup', undefined, user.token));
    check('/2fa/setup', 'post', setup);
    check('/2fa/status', 'get', ok(200, await app.http.get('/2fa/status', user.token)));
    const { secret, setup_token } = setup.body as { secret: string; setup_token: string };
    const enabled = ok(200, await app.http.post('/2fa/verify', { setup_token, code: totpAt(secret) }, user.token));
    check('/2fa/verify', 'post', enabled);
    // Login answers, each kind (issue 30): a bearer session, the cookie transport, a 2FA challenge and its step.
    const credentials = (u: { username: string; password: string }) => ({ username: u.username, password: u.password });
    check('/auth/login', 'post', await app.http.post('/auth/login', credentials(plus)), 200);
    const cookie = { 'X-Session-Transport': 'cookie' };
    const inCookie = await app.http.post('/auth/login', credentials(plus), undefined, cookie);
    check('/auth/login', 'post', inCookie, 200);
    expect(inCookie.body).toEqual({ token_type: 'cookie', expires_in: expect.any(Number) });
    const challenge = await app.http.post('/auth/login', credentials(user));
    check('/auth/login', 'post', challenge, 200);
    expect(challenge.body.requires_2fa).toBe(true);
    const [backup1, backup2] = (enabled.body as { backup_codes: string[] }).backup_codes;
    const secondStep = async (code: string, headers?: Record<string, string>) => {
      const { login_token } = (await app.http.post('/auth/login', credentials(user))).body;
      return app.http.post('/auth/login/2fa', { login_token, code }, undefined, headers);
    };
    check('/auth/login/2fa', 'post', await secondStep(backup1), 200);
    check('/auth/login/2fa', 'post', await secondStep(backup2, cookie), 200);
    const confirm = { password: user.password };
    check('/2fa/backup-codes', 'post', ok(200, await app.http.post('/2fa/backup-codes', confirm, user.token)));
    check('/2fa/disable', 'post', ok(200, await app.http.post('/2fa/disable', confirm, user.token)));
  });

  it('serves Swagger UI at /docs with a CSP of its own', async () => {
    const page = await app.http.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self';");
    expect(page.text).not.toMatch(/<script>|<style/);
    expect(page.text).toContain('swagger-ui-bundle.js');
    const init = await app.http.get('/docs/swagger-ui-init.js');
    expect([
      init.status,
      init.text.includes('/openapi.json') || init.text.includes('Account DNS Service management API'),
    ]).toEqual([200, true]);
    expect((await app.http.get('/docs/swagger-ui-bundle.js')).status).toBe(200);
  });

  describe('in a real browser', () => {
    let browser: DashboardBrowser;
    beforeAll(async () => {
      browser = await launchDashboardBrowser();
    });
    afterAll(() => browser?.close());

    it('renders the operations under the CSP without violations', async () => {
      await browser.page.goto(`${app.url}/docs`);
      await browser.page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const paths = await browser.page.locator('.opblock-summary-path').allTextContents();
      expect(paths.map((p) => p.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/auth/login', '/zones']));
      expect(browser.problems).toEqual([]);
    });
  });
});

// Issue #30, types-b: DNS analytics and email-auth settings/wizard answers, from an app that verifies zones.
describe('management API OpenAPI document: DNS analytics and email authentication answers (issue 30)', () => {
  const ZONE = 'openapi-mail.test';
  let app: TestApp;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let check: AnswerCheck;

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    const dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    check = answerChecker((await app.http.get('/openapi.json')).body);
  });
  afterAll(async () => {
    await app?.close();
    await worldServer?.stop();
  });

  it('describes the analytics summary and recent queries, empty and with queries logged', async () => {
    const pro = await registerAndLogin(app.http, { plan: 'pro' });
    check('/dns-analytics/summary', 'get', await app.http.get('/dns-analytics/summary', pro.token));
    check('/dns-analytics/queries', 'get', await app.http.get('/dns-analytics/queries', pro.token));
    expect((await app.http.post('/zones', { name: 'openapi-analytics.test' }, pro.token)).status).toBe(201);
    const row = queryRows({ accountId: pro.id, domain: 'openapi-analytics.test', qname: 'www.openapi-analytics.test' });
    const now = Date.now();
    await app.running.app
      .get<QueryLogStore>(QUERY_LOG_STORE)
      .append([
        row({ ts: now - 1000 }),
        row({ ts: now - 500, rcode: 'NXDOMAIN', qname: 'nope.openapi-analytics.test' }),
      ]);
    const summary = await app.http.get('/dns-analytics/summary?window=7d', pro.token);
    expect(summary.body.total_queries_24h).toBe(2);
    check('/dns-analytics/summary', 'get', summary);
    const recent = await app.http.get('/dns-analytics/queries?limit=10', pro.token);
    expect(recent.body.queries).toHaveLength(2);
    check('/dns-analytics/queries', 'get', recent);
    check('/dns-analytics/summary', 'get', await app.http.get('/dns-analytics/summary?window=1y', pro.token));
  });

  it('describes the email-auth settings after each kind of change, and the DMARC wizard', async () => {
    const owner = await registerAndLogin(app.http);
    await enrolZone(app.http, world, owner, ZONE, {
      zoneFile: 'mx1 300 IN A 192.0.2.25\n@ 300 IN TXT "v=spf1 a -all"',
    });
    const base = `/email-auth/domains/${ZONE}`;
    check('/email-auth/domains/{zone}', 'get', await app.http.get(base, owner.token));
    const dmarc = { policy: 'none', rua: [`mailto:dmarc@${ZONE}`] };
    check('/email-auth/domains/{zone}/dmarc', 'put', await app.http.put(`${base}/dmarc`, dmarc, owner.token));
    const spf = { include: ['_spf.example.net'], ip4: ['203.0.113.0/24'], all: '-all' };
    check('/email-auth/domains/{zone}/spf', 'put', await app.http.put(`${base}/spf`, spf, owner.token));
    const dkim = await app.http.put(`${base}/dkim/mail2026`, { generate: true }, owner.token);
    expect(dkim.body.generated_key.selector).toBe('mail2026');
    check('/email-auth/domains/{zone}/dkim/{selector}', 'put', dkim);
    const mtaSts = { mode: 'enforce', mx: [`mx1.${ZONE}`], max_age: 604800 };
    check('/email-auth/domains/{zone}/mta-sts', 'put', await app.http.put(`${base}/mta-sts`, mtaSts, owner.token));
    const tlsRpt = { rua: ['mailto:tls@reports.example.net'] };
    check('/email-auth/domains/{zone}/tls-rpt', 'put', await app.http.put(`${base}/tls-rpt`, tlsRpt, owner.token));
    const bimi = { logo_url: 'https://brand.example.net/logo.svg', vmc_url: null };
    check('/email-auth/domains/{zone}/bimi', 'put', await app.http.put(`${base}/bimi`, bimi, owner.token));
    const settings = await app.http.get(base, owner.token);
    expect(settings.body.published_spf).not.toBeNull();
    check('/email-auth/domains/{zone}', 'get', settings);

    const wizard = `/email-auth/dmarc/wizard/${ZONE}`;
    check('/email-auth/dmarc/wizard/{zone}', 'get', await app.http.get(wizard, owner.token));
    const recommendation = await app.http.get(`${wizard}/recommendation`, owner.token);
    expect(recommendation.body.recommendation).toBe('need_more_data');
    check('/email-auth/dmarc/wizard/{zone}/recommendation', 'get', recommendation);
    // Advancing needs weeks of reports (test/email-auth.e2e-spec.ts): here its refusal's shape.
    const advance = await app.http.post(`${wizard}/advance`, { confirm: true }, owner.token);
    expect(advance.status).toBe(409);
    check('/email-auth/dmarc/wizard/{zone}/advance', 'post', advance);
  });
});
