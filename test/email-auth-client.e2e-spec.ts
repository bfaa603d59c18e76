import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { EMAIL_AUTH_CLIENT_TYPES, generateApiTypes } from '../apps/server/gen-api-types';
import { DnsServer } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import type { paths } from './generated/email-auth-api';
import { AggregateReportSender, emailAuthReadKey, enrolZone, startWorld } from './support/email-auth';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'client-main.test';
const HEADERS = { 'User-Agent': 'generated-client-e2e/1.0' };
type Client = ReturnType<typeof createClient<paths>>;

/** The typed body of a 200 answer (openapi-fetch puts it in `data` on success only). */
const ok = <T>(res: { data?: T; error?: unknown; response: Response }): T => {
  expect([res.response.status, res.error]).toEqual([200, undefined]);
  return res.data!;
};

/**
 * Every endpoint of the read API, read through the client generated from its document:
 * one line each. The checks go through the
 * generated types, so a field the document does not describe does not compile.
 */
const ENDPOINTS: Array<[string, (c: Client) => Promise<void>]> = [
  [
    '/domains',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/domains', { params: { header: HEADERS } })).data.map((d) => [
          d.domain,
          d.compliance.dmarc,
        ]),
      ).toEqual([[ZONE, 'enforced']]),
  ],
  [
    '/domains/{domain}',
    async (c) =>
      expect(
        ok(
          await c.GET('/api/v1/email-auth/domains/{domain}', { params: { header: HEADERS, path: { domain: ZONE } } }),
        ).records.map((r) => r.name),
      ).toContain(`_dmarc.${ZONE}`),
  ],
  [
    '/dmarc/policy',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/dmarc/policy', { params: { header: HEADERS, query: { domain: ZONE } } }))
          .policy,
      ).toBe('quarantine'),
  ],
  [
    '/senders',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/senders', { params: { header: HEADERS, query: { domain: ZONE } } })).spf
          ?.include,
      ).toEqual(['_spf.mailer.example']),
  ],
  [
    '/dmarc/summary',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/dmarc/summary', { params: { header: HEADERS, query: { domain: ZONE } } }))
          .messages,
      ).toBe(10),
  ],
  [
    '/dmarc/sources',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/dmarc/sources', { params: { header: HEADERS, query: { domain: ZONE } } }))
          .unidentified_messages,
      ).toBe(10),
  ],
  [
    '/dmarc/reports',
    async (c) =>
      expect(
        ok(
          await c.GET('/api/v1/email-auth/dmarc/reports', { params: { header: HEADERS, query: { domain: ZONE } } }),
        ).data.map((r) => r.messages),
      ).toEqual([10]),
  ],
  [
    '/dmarc/reports/{id}',
    async (c) => {
      const [report] = ok(await c.GET('/api/v1/email-auth/dmarc/reports', { params: { header: HEADERS } })).data;
      const detail = ok(
        await c.GET('/api/v1/email-auth/dmarc/reports/{id}', { params: { header: HEADERS, path: { id: report.id } } }),
      );
      expect(detail.rows.data.map((r) => [r.source_ip, r.count])).toEqual([
        ['192.0.2.10', 9],
        ['198.51.100.20', 1],
      ]);
    },
  ],
  [
    '/dmarc/forensic',
    async (c) =>
      expect(ok(await c.GET('/api/v1/email-auth/dmarc/forensic', { params: { header: HEADERS } })).data).toEqual([]),
  ],
  [
    '/tls-rpt/summary',
    async (c) =>
      expect(
        ok(await c.GET('/api/v1/email-auth/tls-rpt/summary', { params: { header: HEADERS, query: { domain: ZONE } } }))
          .reports,
      ).toBe(0),
  ],
  [
    '/events',
    async (c) =>
      expect(
        ok(
          await c.GET('/api/v1/email-auth/events', {
            params: { header: HEADERS, query: { type: ['dmarc.report.received', 'dmarc.policy.changed'] } },
          }),
        )
          .data.map((e) => e.type)
          .sort(),
      ).toEqual(['dmarc.policy.changed', 'dmarc.report.received']),
  ],
];

describe('client generated from /api/v1/openapi.json (openapi-typescript + openapi-fetch; issue 14)', () => {
  let app: TestApp;
  let world: DnsServer;
  let client: Client;

  beforeAll(async () => {
    const w = await startWorld();
    world = w.server;
    const clock = new ManualClock(new Date('2026-06-10T08:00:00Z'));
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, w.world, owner, ZONE);
    const key = await emailAuthReadKey(app.http, owner, [ZONE], clock.now());
    expect(
      (
        await app.http.put(
          `/email-auth/domains/${ZONE}/dmarc`,
          { policy: 'quarantine', rua: [`mailto:dmarc@${ZONE}`] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await app.http.put(
          `/email-auth/domains/${ZONE}/spf`,
          { include: ['_spf.mailer.example'], all: '~all' },
          owner.token,
        )
      ).status,
    ).toBe(200);
    await new AggregateReportSender(app.url).add(ZONE, '2026-06-01T00:00:00Z', 10, 9);
    const { eventStore, projections } = app.running.deps;
    expect(await projections.waitFor(await eventStore.headPosition(), 10_000, ['email_auth_events'])).toBe(true);
    client = createClient<paths>({ baseUrl: app.url, headers: { authorization: `Bearer ${key}` } });
  });
  afterAll(async () => {
    await app?.close();
    await world?.stop();
  });

  it(`the checked-in types (${EMAIL_AUTH_CLIENT_TYPES}) are what the live document generates`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-types-'));
    try {
      await generateApiTypes(`${app.url}/api/v1/openapi.json`, join(dir, 'types.d.ts'));
      const fresh = readFileSync(join(dir, 'types.d.ts'), 'utf8');
      // Stale? Run `npm run gen:api-types`.
      expect(readFileSync(join(__dirname, '..', EMAIL_AUTH_CLIENT_TYPES), 'utf8')).toBe(fresh);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('covers every path the document lists', async () => {
    const doc = (await app.http.get('/api/v1/openapi.json')).body;
    expect(ENDPOINTS.map(([p]) => `/api/v1/email-auth${p}`).sort()).toEqual(Object.keys(doc.paths).sort());
  });

  it.each(ENDPOINTS)('reads %s with typed bodies', async (_path, read) => {
    await read(client);
  });

  it('gets the typed error body on a refusal', async () => {
    const res = await client.GET('/api/v1/email-auth/domains/{domain}', {
      params: { header: HEADERS, path: { domain: 'elsewhere.test' } },
    });
    expect(res.response.status).toBe(404);
    expect(res.error?.error.code).toBe('domain_not_found');
  });
});
