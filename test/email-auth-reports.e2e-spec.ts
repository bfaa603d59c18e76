import SwaggerParser from '@apidevtools/swagger-parser';
import { DnsServer } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { sample } from './support/dmarc-samples';
import { enrolZone, startWorld, tlsReport } from './support/email-auth';
import { HttpResponse } from './support/http-client';
import { answerChecker } from './support/openapi-answers';
import { enableTwoFactor } from './support/totp';
import { mediaTypeOf, postRaw } from './support/report-intake';
import { startReverseDns } from './support/reverse-dns';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'example.com'; // the shared fixtures' domain
const ZONE2 = 'reports-two.test';
const OTHER = 'reports-foreign.test';
const UA = { 'user-agent': 'email-auth-reports-e2e/1.0' };
const BASE = '/api/v1/email-auth';
const NOW = new Date('2026-06-01T10:00:00Z');
const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

interface Row {
  ip: string;
  count: number;
  disposition?: string;
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
  envelopeFrom?: string;
}

/** An RFC 7489 aggregate report with exactly these rows. */
function aggregateXml(o: {
  reportId: string;
  domain: string;
  begin: string;
  rows: Row[];
  org?: string;
  p?: string;
}): Buffer {
  const records = o.rows.map(
    (r) =>
      `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated><disposition>${r.disposition ?? 'none'}</disposition>` +
      `<dkim>${r.dkim}</dkim><spf>${r.spf}</spf></policy_evaluated></row><identifiers><header_from>${o.domain}</header_from>` +
      `${r.envelopeFrom ? `<envelope_from>${r.envelopeFrom}</envelope_from>` : ''}</identifiers>` +
      `<auth_results><dkim><domain>${o.domain}</domain><selector>s1</selector><result>${r.dkim}</result></dkim>` +
      `<spf><domain>${r.envelopeFrom ?? o.domain}</domain><result>${r.spf}</result></spf></auth_results></record>`,
  );
  const begin = epoch(o.begin);
  return Buffer.from(
    `<?xml version="1.0"?><feedback><report_metadata><org_name>${o.org ?? 'reporter.example'}</org_name><email>dmarc@reporter.example</email>` +
      `<report_id>${o.reportId}</report_id><date_range><begin>${begin}</begin><end>${begin + 86399}</end></date_range></report_metadata>` +
      `<policy_published><domain>${o.domain}</domain><adkim>r</adkim><aspf>r</aspf><p>${o.p ?? 'none'}</p><pct>100</pct></policy_published>` +
      `${records.join('')}</feedback>`,
  );
}

/** Rows from distinct private addresses (no PTR, network Unknown): bulk for paging. */
const bulkRows = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    ip: `10.9.${i >> 8}.${i & 255}`,
    count: 1,
    dkim: i % 2 ? 'pass' : 'fail',
    spf: 'fail',
  }));

/** A TLS report (RFC 8460) for `domain` on `day`: 1,000 sessions under MTA-STS (100 failing), 50 without a policy. */
const tlsJson = (domain: string, day: string, reportId: string) =>
  tlsReport(domain, day, reportId, [
    {
      successful: 900,
      failures: [
        { type: 'certificate-expired', ip: '198.51.100.20', sessions: 70 },
        { type: 'starttls-not-supported', ip: '198.51.100.21', sessions: 30 },
      ],
    },
    { type: 'no-policy-found', successful: 50 },
  ]);

/**
 * The report endpoints of the email-auth read API and their dashboard mirrors, end to
 * end: reports ingested through POST /admin/reports (shared fixtures and generated
 * reports), read over real HTTP with real keys; reverse DNS answered by a resolver
 * stand-in behind VERIFY_RESOLVER.
 */
describe('email-auth read API: report endpoints (seed: Email-authentication read API; contract §9)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let worldServer: DnsServer;
  let reverse: { port: number; stop(): Promise<void> };
  let owner: { id: number; token: string };
  let other: { id: number; token: string };
  let allKey: string;
  let subjectsKey: string;
  let zone2Key: string;
  let accountKey: string;
  const ids: Record<string, string> = {};
  let calls = 0;

  /** Every 50 API calls the clock moves a minute on, so the 60-a-minute limit never gets in the way here (it has its own test). */
  const get = async (
    path: string,
    key: string | undefined,
    headers: Record<string, string> = UA,
  ): Promise<HttpResponse> => {
    if (++calls % 50 === 0) clock.advance(60_000);
    return app.http.get(`${BASE}${path}`, key, headers);
  };
  const expectError = (res: HttpResponse, status: number, code: string, message?: string) => {
    expect([res.status, res.body?.error?.code]).toEqual([status, code]);
    if (message) expect(res.body.error.message).toBe(message);
  };
  const ingest = async (body: Buffer, type = 'application/xml') => {
    const res = await postRaw(app.url, '/admin/reports', body, type);
    if (res.status !== 201) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  /** Projections catch up asynchronously: poll until `ready` holds. */
  const until = async (path: string, key: string, ready: (body: any) => boolean): Promise<any> => {
    for (let i = 0; i < 200; i++) {
      const res = await get(path, key);
      if (res.status === 200 && ready(res.body)) return res.body;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${path} never became ready: ${(await get(path, key)).text.slice(0, 500)}`);
  };

  beforeAll(async () => {
    const w = await startWorld();
    worldServer = w.server;
    reverse = await startReverseDns(w.port, {
      '192.0.2.10': ['o1.ptr4242.sendgrid.net'],
      '198.51.100.7': ['mail-ej1-f41.google.com'],
      '203.0.113.5': ['host5.dsl.isp.example'],
    });
    clock = new ManualClock(NOW);
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${reverse.port}` } });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, w.world, owner, ZONE, { addOnDomains: [ZONE, ZONE2] });
    await enrolZone(app.http, w.world, owner, ZONE2, { addOnDomains: [ZONE, ZONE2] });
    await app.http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, {
      email_auth: { tier: 'enterprise', domains: [ZONE, ZONE2] },
    });
    await enableTwoFactor(app.http, owner.token, clock.now());
    other = await registerAndLogin(app.http);
    await enrolZone(app.http, w.world, other, OTHER);

    const key = async (body: Record<string, unknown>) => {
      const res = await app.http.post(
        '/api-keys',
        { name: 'reports', access: 'email_auth:read', ...body },
        owner.token,
      );
      expect(res.status).toBe(201);
      return res.body.key as string;
    };
    allKey = await key({});
    subjectsKey = await key({ domains: [ZONE], failure_report_subjects: true });
    zone2Key = await key({ domains: [ZONE2] });
    accountKey = (await app.http.post('/api-keys', { name: 'account' }, owner.token)).body.key;

    ids.recent = await ingest(
      aggregateXml({
        reportId: 'recent-1',
        domain: ZONE,
        begin: '2026-05-30T00:00:00Z',
        p: 'quarantine',
        rows: [
          { ip: '192.0.2.10', count: 40, dkim: 'pass', spf: 'pass', envelopeFrom: 'bounces.sendgrid.example' },
          { ip: '198.51.100.7', count: 50, dkim: 'pass', spf: 'fail' },
          {
            ip: '203.0.113.5',
            count: 10,
            dkim: 'fail',
            spf: 'fail',
            disposition: 'quarantine',
            envelopeFrom: 'spoofer.example',
          },
        ],
      }),
    );
    ids.bulk = await ingest(
      aggregateXml({ reportId: 'bulk-1', domain: ZONE, begin: '2026-05-31T00:00:00Z', rows: bulkRows(250) }),
    );
    ids.zone2 = await ingest(
      aggregateXml({
        reportId: 'zone2-1',
        domain: ZONE2,
        begin: '2026-05-29T00:00:00Z',
        rows: [{ ip: '192.0.2.10', count: 5, dkim: 'pass', spf: 'pass' }],
      }),
    );
    ids.outlook = await ingest(sample('aggregate/protection.outlook.com!example.com!1711756800!1711843200.xml'));
    ids.foreign = await ingest(
      aggregateXml({
        reportId: 'foreign-1',
        domain: OTHER,
        begin: '2026-05-30T00:00:00Z',
        rows: [{ ip: '192.0.2.99', count: 3, dkim: 'pass', spf: 'pass' }],
      }),
    );
    const exim = 'forensic/exim_plain_text_only_no_arf_part.eml';
    ids.failure = await ingest(sample(exim), mediaTypeOf(exim));
    clock.advance(1000);
    const linkedin = 'forensic/dmarc_ruf_report_linkedin.eml';
    ids.failure2 = await ingest(sample(linkedin), mediaTypeOf(linkedin));
    ids.tls = await ingest(tlsJson(ZONE, '2026-05-31', 'tls-recent'), 'application/tlsrpt+json');
    ids.tlsOld = await ingest(sample('smtp_tls/smtp_tls.json'), 'application/tlsrpt+json');
    await until(`/dmarc/summary?domain=${ZONE}`, allKey, (b) => b.messages === 350);
    await until(
      `/dmarc/reports/${ids.bulk}?limit=1&cursor=${Buffer.from(JSON.stringify(['248', 'x'])).toString('base64url')}`,
      allKey,
      (b) => b.rows.data.length === 1,
    );
  }, 180_000); // ingests a dozen real reports through SMTP and the parser; slow on a loaded machine
  afterAll(async () => {
    await app?.close();
    await reverse?.stop();
    await worldServer?.stop();
  });

  describe('GET /dmarc/summary', () => {
    it('totals messages, disposition, DKIM and SPF, with the newest published policy and a daily series over days', async () => {
      const res = await get(`/dmarc/summary?domain=${ZONE}`, allKey);
      expect(res.status).toBe(200);
      const b = res.body;
      // recent-1: 100 messages (90 pass); bulk-1: 250 rows of 1, odd rows pass DKIM.
      expect(b).toMatchObject({ domain: ZONE, days: 30, reports: 2, messages: 350, passing: 215, pass_rate: 0.6143 });
      expect(b.disposition).toEqual({ none: 340, quarantine: 10 });
      expect(b.dkim).toEqual({ pass: 215, fail: 135 });
      expect(b.spf).toEqual({ pass: 40, fail: 310 });
      expect(b.published_policy).toMatchObject({ domain: ZONE, p: 'none', pct: 100 });
      expect(b.daily).toHaveLength(30);
      expect(b.daily[29]).toEqual({ date: '2026-06-01', messages: 0, passing: 0, pass_rate: null });
      expect(b.daily[28]).toEqual({ date: '2026-05-31', messages: 250, passing: 125, pass_rate: 0.5 });
      expect(b.daily[27]).toEqual({ date: '2026-05-30', messages: 100, passing: 90, pass_rate: 0.9 });
    });

    it('looks back as far as days= says (three years at most)', async () => {
      const wide = (await get(`/dmarc/summary?domain=${ZONE}&days=1096`, allKey)).body;
      expect(wide.reports).toBe(3); // the 2024 Outlook fixture joins
      expect(wide.messages).toBeGreaterThan(350);
      expect(wide.daily).toHaveLength(1096);
      const narrow = (await get(`/dmarc/summary?domain=${ZONE}&days=1`, allKey)).body;
      expect([narrow.reports, narrow.messages, narrow.daily.length]).toEqual([0, 0, 1]);
      const empty = (await get(`/dmarc/summary?domain=${ZONE2}&days=1`, allKey)).body;
      expect(empty).toMatchObject({ messages: 0, pass_rate: null, disposition: {} });
    });
  });

  describe('GET /dmarc/sources', () => {
    it('names known services from reverse DNS, and lists unidentified addresses and sending domains with pass rates', async () => {
      const b = (await get(`/dmarc/sources?domain=${ZONE}`, allKey)).body;
      expect(b).toMatchObject({
        domain: ZONE,
        messages: 350,
        identified_messages: 90,
        unidentified_messages: 260,
        unidentified_source_count: 251,
      });
      expect(b.services).toEqual([
        { id: 'google', name: 'Google Workspace / Gmail', messages: 50, passing: 50, pass_rate: 1, source_ips: 1 },
        { id: 'sendgrid', name: 'SendGrid', messages: 40, passing: 40, pass_rate: 1, source_ips: 1 },
      ]);
      expect(b.unidentified_sources[0]).toEqual({
        source_ip: '203.0.113.5',
        ptr: 'host5.dsl.isp.example',
        country: expect.any(String),
        network: { asn: expect.any(String), org: expect.any(String) },
        messages: 10,
        passing: 0,
        pass_rate: 0,
        sending_domains: ['spoofer.example'],
      });
      expect(b.unidentified_sources).toHaveLength(100);
      expect(b.unidentified_sending_domains).toEqual([
        { domain: ZONE, messages: 250, passing: 125, pass_rate: 0.5 },
        { domain: 'spoofer.example', messages: 10, passing: 0, pass_rate: 0 },
      ]);
    });
  });

  describe('GET /dmarc/reports and /dmarc/reports/{id}', () => {
    it('lists aggregate reports newest first, of every visible domain or one, within days', async () => {
      const all = (await get('/dmarc/reports', allKey)).body;
      expect(all.data.map((r: { id: string }) => r.id)).toEqual([ids.bulk, ids.recent, ids.zone2]);
      expect(all.next_cursor).toBeNull();
      expect(all.data[1]).toEqual({
        id: ids.recent,
        domain: ZONE,
        org_name: 'reporter.example',
        email: 'dmarc@reporter.example',
        report_id: 'recent-1',
        begin: '2026-05-30T00:00:00.000Z',
        end: '2026-05-30T23:59:59.000Z',
        received_at: expect.any(String),
        policy_published: { domain: ZONE, p: 'quarantine', sp: null, pct: 100, adkim: 'r', aspf: 'r' },
        record_count: 3,
        messages: 100,
        passing: 90,
        pass_rate: 0.9,
      });
      expect((await get(`/dmarc/reports?domain=${ZONE2}`, allKey)).body.data.map((r: { id: string }) => r.id)).toEqual([
        ids.zone2,
      ]);
      expect((await get('/dmarc/reports?days=1096', allKey)).body.data.map((r: { id: string }) => r.id)).toEqual([
        ids.bulk,
        ids.recent,
        ids.zone2,
        ids.outlook,
      ]);
      expect((await get('/dmarc/reports', zone2Key)).body.data.map((r: { id: string }) => r.id)).toEqual([ids.zone2]);
    });

    it('pages with limit and next_cursor', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: HttpResponse = await get(
          `/dmarc/reports?days=1096&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          allKey,
        );
        expect(res.body.data).toHaveLength(1);
        seen.push(res.body.data[0].id);
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual([ids.bulk, ids.recent, ids.zone2, ids.outlook]);
    });

    it('gives one report with its rows: source IP, country, network, count, disposition, DKIM and SPF', async () => {
      const res = await get(`/dmarc/reports/${ids.recent}`, allKey);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: ids.recent, report_id: 'recent-1', record_count: 3 });
      expect(res.body.rows.next_cursor).toBeNull();
      expect(res.body.rows.data.map((r: { source_ip: string }) => r.source_ip)).toEqual([
        '192.0.2.10',
        '198.51.100.7',
        '203.0.113.5',
      ]);
      expect(res.body.rows.data[2]).toEqual({
        index: 2,
        source_ip: '203.0.113.5',
        country: expect.any(String),
        network: { asn: expect.any(String), org: expect.any(String) },
        count: 10,
        disposition: 'quarantine',
        dkim: 'fail',
        spf: 'fail',
        header_from: ZONE,
        envelope_from: 'spoofer.example',
        reasons: [],
        dkim_results: [{ domain: ZONE, selector: 's1', result: 'fail' }],
        spf_results: [{ domain: 'spoofer.example', scope: null, result: 'fail' }],
      });
      // Addresses outside any network data read Unknown, as in DNS analytics.
      const bulk = (await get(`/dmarc/reports/${ids.bulk}?limit=1`, allKey)).body.rows.data[0];
      expect([bulk.country, bulk.network]).toEqual(['Unknown', { asn: 'Unknown', org: 'Unknown' }]);
    });

    it('pages a report’s rows in report order', async () => {
      const indexes: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: HttpResponse = await get(
          `/dmarc/reports/${ids.bulk}?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          allKey,
        );
        expect(res.status).toBe(200);
        indexes.push(...res.body.rows.data.map((r: { index: number }) => r.index));
        cursor = res.body.rows.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(indexes).toEqual(Array.from({ length: 250 }, (_, i) => i));
      expect((await get(`/dmarc/reports/${ids.bulk}`, allKey)).body.rows.data).toHaveLength(50);
    });

    it('gives the same rows whatever the page size, pages straddling the stored 100-row blocks included, as JSON', async () => {
      const walk = async (limit: number) => {
        const rows: unknown[] = [];
        let cursor: string | null = null;
        do {
          const res: HttpResponse = await get(
            `/dmarc/reports/${ids.bulk}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
            allKey,
          );
          expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
          expect(JSON.parse(res.text)).toEqual(res.body);
          rows.push(...res.body.rows.data);
          cursor = res.body.rows.next_cursor;
        } while (cursor);
        return rows;
      };
      const byHundred = await walk(100);
      // 7 does not divide 100: pages 14 (rows 98-104) and 28 (196-202) each read two blocks.
      expect(await walk(7)).toEqual(byHundred);
      expect(await walk(33)).toEqual(byHundred);
      expect(byHundred[100]).toEqual({
        index: 100,
        source_ip: '10.9.0.100',
        country: 'Unknown',
        network: { asn: 'Unknown', org: 'Unknown' },
        count: 1,
        disposition: 'none',
        dkim: 'fail',
        spf: 'fail',
        header_from: ZONE,
        envelope_from: null,
        reasons: [],
        dkim_results: expect.any(Array),
        spf_results: expect.any(Array),
      });
      // A cursor at the report's last row: an empty page, no further cursor.
      const last = await get(
        `/dmarc/reports/${ids.bulk}?cursor=${Buffer.from(JSON.stringify(['249', 'x'])).toString('base64url')}`,
        allKey,
      );
      expect(last.body.rows).toEqual({ data: [], next_cursor: null });
    });

    it('answers 404 for another account’s report, a report outside the key’s domains, and unknown ids', async () => {
      for (const [key, id] of [
        [allKey, ids.foreign],
        [zone2Key, ids.recent],
        [allKey, 'no-such-report'],
        [allKey, ids.failure],
      ]) {
        expectError(
          await get(`/dmarc/reports/${id}`, key),
          404,
          'report_not_found',
          'No aggregate report by that id on this key.',
        );
      }
    });
  });

  describe('GET /dmarc/forensic (privacy rule)', () => {
    it('lists failure reports newest first without subject or full mail-from for keys without the setting', async () => {
      const res = await get('/dmarc/forensic', allKey);
      expect(res.status).toBe(200);
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([ids.failure2, ids.failure]);
      const exim = res.body.data[1];
      expect(exim).toMatchObject({
        domain: ZONE,
        source_ip: '203.0.113.68',
        mail_from_domain: 'example.com',
        country: expect.any(String),
      });
      expect(exim).not.toHaveProperty('subject');
      expect(exim).not.toHaveProperty('mail_from');
      expect(res.text).not.toContain('Payment from your account');
      expect(res.text).not.toContain('user@example.com');
    });

    it('adds the subject and full mail-from, decrypted, for keys with the setting; message ids never', async () => {
      const res = await get(`/dmarc/forensic?domain=${ZONE}`, subjectsKey);
      const exim = res.body.data.find((r: { id: string }) => r.id === ids.failure);
      expect(exim).toMatchObject({ subject: 'Payment from your account.', mail_from: 'user@example.com' });
      expect(res.text).not.toMatch(/134117F8-2145-AECE-9CCA-25FC98731341|E1u1tpB-00AA5u-ED|message_id/i);
    });

    it('pages and keeps to the key’s domains', async () => {
      const first = (await get('/dmarc/forensic?limit=1', allKey)).body;
      expect(first.data.map((r: { id: string }) => r.id)).toEqual([ids.failure2]);
      const second = (await get(`/dmarc/forensic?limit=1&cursor=${first.next_cursor}`, allKey)).body;
      expect([second.data.map((r: { id: string }) => r.id), second.next_cursor]).toEqual([[ids.failure], null]);
      expect((await get('/dmarc/forensic', zone2Key)).body.data).toEqual([]);
    });
  });

  describe('GET /tls-rpt/summary', () => {
    it('totals sessions, failure types, failing senders and policy types, with a daily series', async () => {
      const b = (await get(`/tls-rpt/summary?domain=${ZONE}`, allKey)).body;
      expect(b).toMatchObject({
        domain: ZONE,
        days: 30,
        reports: 1,
        successful_sessions: 950,
        failed_sessions: 100,
        success_rate: 0.9048,
      });
      expect(b.failure_types).toEqual([
        { result_type: 'certificate-expired', failed_sessions: 70 },
        { result_type: 'starttls-not-supported', failed_sessions: 30 },
      ]);
      expect(b.failing_senders).toEqual([
        { sending_mta_ip: '198.51.100.20', failed_sessions: 70, result_types: ['certificate-expired'] },
        { sending_mta_ip: '198.51.100.21', failed_sessions: 30, result_types: ['starttls-not-supported'] },
      ]);
      expect(b.policy_types).toEqual([
        { policy_type: 'sts', sessions: 1000 },
        { policy_type: 'no-policy-found', sessions: 50 },
      ]);
      expect(b.daily[28]).toEqual({ date: '2026-05-31', successful_sessions: 950, failed_sessions: 100 });
      expect((await get(`/tls-rpt/summary?domain=${ZONE}&days=1096`, allKey)).body.reports).toBe(2);
    });
  });

  describe('errors common to the report endpoints', () => {
    const DOMAIN_404 = 'No Email Authentication domain by that name on this key.';
    const withDomain = ['/dmarc/summary', '/dmarc/sources', '/tls-rpt/summary', '/dmarc/reports', '/dmarc/forensic'];

    it('answers 404 with the seed message for domains of other accounts, outside the key or the add-on', async () => {
      for (const path of withDomain) {
        expectError(await get(`${path}?domain=${OTHER}`, allKey), 404, 'domain_not_found', DOMAIN_404);
        expectError(await get(`${path}?domain=${ZONE2}`, subjectsKey), 404, 'domain_not_found', DOMAIN_404);
        expectError(await get(`${path}?domain=nowhere.test`, allKey), 404, 'domain_not_found', DOMAIN_404);
      }
    });

    it('wants domain= where the seed requires it, and validates days, limit and cursor', async () => {
      for (const path of ['/dmarc/summary', '/dmarc/sources', '/tls-rpt/summary'])
        expectError(await get(path, allKey), 400, 'validation_failed');
      for (const q of ['days=0', 'days=1097', 'days=x']) {
        for (const path of withDomain)
          expectError(await get(`${path}?domain=${ZONE}&${q}`, allKey), 400, 'validation_failed');
      }
      for (const q of ['limit=0', 'limit=101', 'cursor=not-a-cursor']) {
        for (const path of ['/dmarc/reports', '/dmarc/forensic', `/dmarc/reports/${ids.recent}`])
          expectError(await get(`${path}?${q}`, allKey), 400, 'validation_failed');
      }
      expect((await get('/dmarc/reports?limit=100&days=1096', allKey)).status).toBe(200);
    });

    it('keeps the API’s authentication: user agent, key, scope', async () => {
      expectError(await get(`/dmarc/summary?domain=${ZONE}`, allKey, { 'user-agent': '' }), 400, 'user_agent_required');
      expectError(await get(`/dmarc/reports`, undefined), 401, 'unauthorized');
      expectError(
        await get(`/dmarc/reports/${ids.recent}`, accountKey),
        403,
        'insufficient_scope',
        'This key does not have the email_auth:read scope.',
      );
      expectError(await get('/dmarc/forensic', owner.token), 401, 'unauthorized');
      const res = await get('/dmarc/reports', allKey);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });
  });

  describe('dashboard mirrors (GET /email-auth/domains/{zone}/…; contract §7)', () => {
    const mirror = (zone: string, path: string, token: string) =>
      app.http.get(`/email-auth/domains/${zone}/${path}`, token);

    it('serve the same bodies to the session and to an account key', async () => {
      for (const [path, api] of [
        ['dmarc/summary', `/dmarc/summary?domain=${ZONE}`],
        ['dmarc/sources', `/dmarc/sources?domain=${ZONE}`],
        ['dmarc/reports?limit=2', `/dmarc/reports?domain=${ZONE}&limit=2`],
        [`dmarc/reports/${ids.bulk}?limit=5`, `/dmarc/reports/${ids.bulk}?limit=5`],
        ['tls-rpt/summary?days=1096', `/tls-rpt/summary?domain=${ZONE}&days=1096`],
      ]) {
        const session = await mirror(ZONE, path, owner.token);
        expect(session.status).toBe(200);
        expect(session.body).toEqual((await get(api, allKey)).body);
        expect((await mirror(ZONE, path, accountKey)).body).toEqual(session.body);
      }
    });

    it('show failure-report subjects to the account owner', async () => {
      const res = await mirror(ZONE, 'dmarc/forensic', owner.token);
      expect(res.body.data.find((r: { id: string }) => r.id === ids.failure)).toMatchObject({
        subject: 'Payment from your account.',
        mail_from: 'user@example.com',
      });
      expect(res.body).toEqual((await get(`/dmarc/forensic?domain=${ZONE}`, subjectsKey)).body);
    });

    it('answer 404 for zones of other accounts or outside the add-on, and for reports of another zone', async () => {
      for (const path of [
        'dmarc/summary',
        'dmarc/sources',
        'dmarc/reports',
        `dmarc/reports/${ids.recent}`,
        'dmarc/forensic',
        'tls-rpt/summary',
      ]) {
        expect((await mirror(OTHER, path, owner.token)).status).toBe(404);
        expect((await mirror('nowhere.test', path, owner.token)).status).toBe(404);
      }
      expectError(await mirror(ZONE2, `dmarc/reports/${ids.recent}`, owner.token), 404, 'report_not_found');
      expectError(await mirror(ZONE, `dmarc/reports/${ids.foreign}`, owner.token), 404, 'report_not_found');
      // The other account reads its own zone's reports, and none of ours.
      const theirs = await mirror(OTHER, 'dmarc/reports', other.token);
      expect([theirs.status, theirs.body.data.map((r: { id: string }) => r.id)]).toEqual([200, [ids.foreign]]);
      expect((await mirror(ZONE, 'dmarc/summary', other.token)).status).toBe(404);
      expectError(await mirror(OTHER, `dmarc/reports/${ids.recent}`, other.token), 404, 'report_not_found');
    });

    it('refuse email-auth keys (management scope) and validate the same parameters', async () => {
      expectError(await mirror(ZONE, 'dmarc/summary', allKey), 403, 'insufficient_scope');
      expectError(await mirror(ZONE, 'dmarc/reports?limit=0', owner.token), 400, 'validation_failed');
    });
  });

  describe('paging while reports are ingested concurrently', () => {
    it('loses and repeats no report and no row', async () => {
      // A second large report whose rows are paged while other reports keep arriving.
      const big = await ingest(
        aggregateXml({ reportId: 'concurrent-big', domain: ZONE, begin: '2026-05-20T00:00:00Z', rows: bulkRows(1500) }),
      );
      for (let i = 0; i < 6; i++)
        await ingest(
          aggregateXml({
            reportId: `before-${i}`,
            domain: ZONE,
            begin: `2026-05-${String(10 + i).padStart(2, '0')}T00:00:00Z`,
            rows: bulkRows(3),
          }),
        );
      const before: string[] = [];
      let c: string | null = null;
      do {
        const res: HttpResponse = await until(
          `/dmarc/reports?limit=100${c ? `&cursor=${c}` : ''}`,
          allKey,
          () => true,
        ).then((body) => ({ body }) as HttpResponse);
        before.push(...res.body.data.map((r: { id: string }) => r.id));
        c = res.body.next_cursor;
      } while (c);
      expect(before).toContain(big);

      // Reports land before, between and after the pages being read (periods spread over the window).
      let n = 0;
      const days = ['2026-05-25', '2026-05-12', '2026-05-05', '2026-05-31', '2026-05-15', '2026-05-03'];
      let ingesting = true;
      const background = (async () => {
        while (ingesting) {
          const day = days[n % days.length];
          await ingest(
            aggregateXml({
              reportId: `during-${n++}`,
              domain: ZONE,
              begin: `${day}T0${n % 10}:00:00Z`,
              rows: bulkRows(300),
            }),
          );
        }
      })();
      try {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res: HttpResponse = await get(`/dmarc/reports?limit=2${cursor ? `&cursor=${cursor}` : ''}`, allKey);
          expect(res.status).toBe(200);
          seen.push(...res.body.data.map((r: { id: string }) => r.id));
          cursor = res.body.next_cursor;
          await new Promise((r) => setTimeout(r, 10));
        } while (cursor);
        const rows: number[] = [];
        cursor = null;
        do {
          const res: HttpResponse = await get(
            `/dmarc/reports/${big}?limit=97${cursor ? `&cursor=${cursor}` : ''}`,
            allKey,
          );
          expect(res.status).toBe(200);
          rows.push(...res.body.rows.data.map((r: { index: number }) => r.index));
          cursor = res.body.rows.next_cursor;
        } while (cursor);
        ingesting = false;
        await background;
        expect(n).toBeGreaterThan(1);
        expect(new Set(seen).size).toBe(seen.length);
        for (const id of before) expect(seen).toContain(id);
        expect(rows).toEqual(Array.from({ length: 1500 }, (_, i) => i));
      } finally {
        ingesting = false;
        await background;
      }
    });
  });

  describe('OpenAPI document', () => {
    it('describes what every report endpoint returns, errors included, and still validates', async () => {
      const doc = (await app.http.get('/api/v1/openapi.json')).body;
      await SwaggerParser.validate(structuredClone(doc));
      // Formats (date-time, date) are checked too, not only typed.
      const answer = answerChecker(doc);
      const check = (path: string, status: number, res: HttpResponse) => answer(`${BASE}${path}`, 'get', res, status);
      check('/dmarc/summary', 200, await get(`/dmarc/summary?domain=${ZONE}`, allKey));
      check('/dmarc/summary', 200, await get(`/dmarc/summary?domain=${ZONE2}&days=1`, allKey));
      check('/dmarc/summary', 404, await get(`/dmarc/summary?domain=${OTHER}`, allKey));
      check('/dmarc/summary', 400, await get('/dmarc/summary', allKey));
      check('/dmarc/sources', 200, await get(`/dmarc/sources?domain=${ZONE}`, allKey));
      check('/dmarc/sources', 404, await get(`/dmarc/sources?domain=${OTHER}`, allKey));
      check('/dmarc/reports', 200, await get('/dmarc/reports?days=1096&limit=100', allKey));
      check('/dmarc/reports', 400, await get('/dmarc/reports?limit=0', allKey));
      check('/dmarc/reports/{id}', 200, await get(`/dmarc/reports/${ids.recent}`, allKey));
      check('/dmarc/reports/{id}', 200, await get(`/dmarc/reports/${ids.outlook}`, allKey));
      check('/dmarc/reports/{id}', 404, await get(`/dmarc/reports/${ids.foreign}`, allKey));
      check('/dmarc/forensic', 200, await get('/dmarc/forensic', allKey));
      check('/dmarc/forensic', 200, await get('/dmarc/forensic', subjectsKey));
      check('/dmarc/forensic', 403, await get('/dmarc/forensic', accountKey));
      check('/tls-rpt/summary', 200, await get(`/tls-rpt/summary?domain=${ZONE}&days=1096`, allKey));
      check('/tls-rpt/summary', 200, await get(`/tls-rpt/summary?domain=${ZONE2}`, allKey));
      check('/tls-rpt/summary', 401, await get(`/tls-rpt/summary?domain=${ZONE}`, 'ak_unknownunknownunknown'));
      expect(Object.keys(doc.paths).every((p) => p.startsWith(BASE))).toBe(true);
    });
  });
});
