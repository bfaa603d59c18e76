import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { AggregateReportSender, emailAuthReadKey, enrolZone, postTlsReport, startWorld } from './support/email-auth';
import { sample } from './support/dmarc-samples';
import { postRaw } from './support/report-intake';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'alerts-main.test';
const UA = { 'user-agent': 'email-auth-alerts-e2e/1.0' };
const HOUR = 3_600_000;

interface LogEntry {
  id: string;
  type: string;
  occurred_at: string;
  domain: string;
  severity: string;
  title: string;
  data: Record<string, any>;
}

/**
 * The event log's report entries and the alert rules of contract §9, end to end: reports
 * through the operators' intake, DNS records checked through a real DNS server standing in
 * for the world (VERIFY_RESOLVER), alert checks run by `POST /admin/jobs/email-auth-alerts`,
 * and the log read through the email-auth API with `since=` and repeatable `type=`.
 */
describe('email-auth event log and alerts (seed: Events; contract §8, §9)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let key: string;
  let reports: AggregateReportSender;

  const runAlerts = async () => {
    clock.advance(HOUR);
    const res = await app.http.admin('POST', '/admin/jobs/email-auth-alerts', {});
    expect(res.status).toBe(200);
    return res.body as {
      checked_at: string;
      days_evaluated: number;
      domains: Array<{ domain: string; outcome: string; missing: string[]; alert: string | null }>;
    };
  };
  /** The log is a projection: reads wait until it has caught up with everything appended so far. */
  const events = async (query: string) => {
    const { eventStore, projections } = app.running.deps;
    expect(await projections.waitFor(await eventStore.headPosition(), 10_000, ['email_auth_events'])).toBe(true);
    const res = await app.http.get(`/api/v1/email-auth/events?limit=100${query}`, key, UA);
    return res;
  };
  const entries = async (query: string): Promise<LogEntry[]> => {
    const res = await events(query);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const alertsQuery = '&type=alert.raised&type=alert.resolved';
  /** The alert entries of one rule, oldest first. */
  const alertsOf = async (rule: string): Promise<LogEntry[]> =>
    (await entries(alertsQuery)).filter((e) => e.data.rule === rule).reverse();

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    clock = new ManualClock(new Date('2026-06-10T08:00:00Z'));
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    reports = new AggregateReportSender(app.url);
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, world, owner, ZONE);
    key = await emailAuthReadKey(app.http, owner, [ZONE], clock.now());
    const put = (path: string, body: unknown) => app.http.put(`/email-auth/domains/${ZONE}/${path}`, body, owner.token);
    expect((await put('dmarc', { policy: 'none', rua: [`mailto:dmarc@${ZONE}`] })).status).toBe(200);
    expect((await put('spf', { include: ['_spf.mailer.example'], all: '~all' })).status).toBe(200);
    expect((await put('dkim/mail2026', { generate: true })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
    await worldServer?.stop();
  });

  it('logs accepted aggregate and TLS reports with reporter, report id, period and counts', async () => {
    await reports.add(ZONE, '2026-05-20T00:00:00Z', 40, 40);
    await postTlsReport(app.url, ZONE, '2026-05-20', 10, 0);
    const [dmarc] = await entries('&type=dmarc.report.received');
    expect(dmarc).toMatchObject({
      type: 'dmarc.report.received',
      domain: ZONE,
      severity: 'info',
      occurred_at: clock.now().toISOString(),
    });
    expect(dmarc.data).toMatchObject({
      kind: 'aggregate',
      reporter: 'wizard-test',
      record_count: 1,
      message_count: 40,
      passing_count: 40,
      pass_rate: 1,
      source: 'admin',
    });
    expect(dmarc.data.report_id).toMatch(/^wizard-/);
    expect(dmarc.data.begin).toBe('2026-05-20T00:00:00.000Z');
    const [tls] = await entries('&type=tls.report.received');
    expect(tls).toMatchObject({
      type: 'tls.report.received',
      domain: ZONE,
      title: `TLS report for ${ZONE} from tls-test-reporter`,
    });
    expect(tls.data).toMatchObject({
      report_id: `tls-${ZONE}-2026-05-20`,
      successful_sessions: 10,
      failed_sessions: 0,
      failure_rate: 0,
    });
    // Repeatable type= selects both kinds; no alert yet.
    const both = await entries('&type=dmarc.report.received&type=tls.report.received');
    expect(both.map((e) => e.type).sort()).toEqual(['dmarc.report.received', 'tls.report.received']);
    expect((await events(alertsQuery)).body.data).toEqual([]);
  });

  it('logs a failure report without its subject, addresses or message ids', async () => {
    const mail = sample('forensic/dmarc_ruf_report_linkedin.eml').toString('latin1').replaceAll('example.com', ZONE);
    expect((await postRaw(app.url, '/admin/reports', Buffer.from(mail, 'latin1'), 'message/rfc822')).status).toBe(201);
    const failure = (await entries('&type=dmarc.report.received')).find((e) => e.data.kind === 'failure')!;
    expect(failure).toMatchObject({
      domain: ZONE,
      severity: 'warning',
      data: { kind: 'failure', feedback_type: 'auth-failure', source_ip: '10.10.10.10', source: 'admin' },
    });
    expect(JSON.stringify(failure)).not.toMatch(/Subject line|sender@|01010101|JavaMail/);
  });

  it('(a) raises once when a needed record is gone from DNS and resolves once after two clear checks', async () => {
    const needed = (await app.http.get(`/api/v1/email-auth/domains/${ZONE}`, key, UA)).body.records as Array<{
      name: string;
      value: string;
    }>;
    // A TXT record's text goes out as strings of at most 255 bytes (RFC 1035 §3.3.14); a DKIM key needs two.
    const strings = (value: string) => (value.match(/.{1,255}/g) ?? []).map((s) => `"${s}"`).join(' ');
    const publish = (r: { name: string; value: string }) =>
      world.setRRset(ZONE, r.name === ZONE ? '' : r.name.slice(0, -(ZONE.length + 1)), 'TXT', 60, [strings(r.value)]);
    needed.forEach(publish);
    expect((await runAlerts()).domains).toEqual([
      { domain: ZONE, needed: needed.length, missing: [], outcome: 'clear', alert: null },
    ]);

    const dmarc = needed.find((r) => r.name === `_dmarc.${ZONE}`)!;
    world.removeRRset(ZONE, '_dmarc', 'TXT');
    const raisedAt = (await runAlerts()).checked_at;
    expect((await runAlerts()).domains[0]).toMatchObject({ outcome: 'firing', missing: [dmarc.name], alert: null }); // still missing: no second raise

    publish(dmarc);
    expect((await runAlerts()).domains[0]).toMatchObject({ outcome: 'clear', alert: null }); // one clear check is not enough
    expect((await runAlerts()).domains[0]).toMatchObject({ outcome: 'clear', alert: 'resolved' });
    expect((await runAlerts()).domains[0]).toMatchObject({ outcome: 'clear', alert: null });

    const alerts = await alertsOf('record_missing');
    expect(alerts.map((a) => a.type)).toEqual(['alert.raised', 'alert.resolved']);
    expect(alerts[0]).toMatchObject({
      occurred_at: raisedAt,
      domain: ZONE,
      severity: 'critical',
      title: `DNS records of ${ZONE} are not live: ${dmarc.name}`,
      data: {
        rule: 'record_missing',
        figures: { missing: [dmarc.name], needed: needed.length },
        threshold: { missing_records: 0 },
      },
    });
    expect(alerts[1]).toMatchObject({
      severity: 'critical',
      data: { rule: 'record_missing', raised_at: raisedAt, figures: { missing: [] } },
    });
  });

  it('(b) raises when a day’s DMARC pass rate is below 90% on 100+ messages and resolves on a clear day', async () => {
    // 2026-06-01: two reporters, 150 of 200 passing (75%).
    await reports.add(ZONE, '2026-06-01T00:00:00Z', 120, 90);
    await reports.add(ZONE, '2026-06-01T00:00:00Z', 80, 60);
    // 2026-06-02: too few messages to judge either way.
    await reports.add(ZONE, '2026-06-02T00:00:00Z', 50, 0);
    const run = await runAlerts();
    expect(run.days_evaluated).toBeGreaterThanOrEqual(2);
    let alerts = await alertsOf('dmarc_pass_rate');
    expect(alerts.map((a) => a.type)).toEqual(['alert.raised']);
    expect(alerts[0]).toMatchObject({
      severity: 'warning',
      title: `DMARC pass rate of ${ZONE} fell to 75% on 200 messages (2026-06-01)`,
      data: {
        rule: 'dmarc_pass_rate',
        observed: '2026-06-01',
        figures: { day: '2026-06-01', messages: 200, passing: 150, pass_rate: 0.75 },
        threshold: { min_pass_rate: 0.9, min_messages: 100 },
      },
    });

    // A late report for the judged day and a rerun change nothing; re-sending a report is refused as a duplicate.
    await reports.add(ZONE, '2026-06-01T00:00:00Z', 100, 0);
    expect((await runAlerts()).days_evaluated).toBe(0);
    const june1 = Date.parse('2026-06-01T00:00:00Z') / 1000;
    const xml = Buffer.from(
      `<?xml ` +
        `version="1.0"?><feedback><report_metadata><org_name>dup</org_name><email>d@r.example</email><report_id>same-1</report_id><date_range><begin>${june1}</begin><end>${june1 + 86_399}</end></date_range></report_metadata><policy_published><domain>${ZONE}</domain><p>none</p></policy_published><record><row><source_ip>198.51.100.1</source_ip><count>150</count><policy_evaluated><disposition>none</disposition><dkim>fail</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>${ZONE}</header_from></identifiers><auth_results><spf><domain>${ZONE}</domain><result>fail</result></spf></auth_results></record></feedback>`,
    );
    expect((await postRaw(app.url, '/admin/reports', xml, 'application/xml')).status).toBe(201);
    expect((await postRaw(app.url, '/admin/reports', xml, 'application/xml')).status).toBe(409);

    // 2026-06-03 is clear (198 of 200): resolved once.
    await reports.add(ZONE, '2026-06-03T00:00:00Z', 200, 198);
    await runAlerts();
    await runAlerts();
    alerts = await alertsOf('dmarc_pass_rate');
    expect(alerts.map((a) => a.type)).toEqual(['alert.raised', 'alert.resolved']);
    expect(alerts[1]).toMatchObject({
      title: `DMARC pass rate of ${ZONE} is back at 99% (2026-06-03)`,
      data: { observed: '2026-06-03', figures: { pass_rate: 0.99 } },
    });
  });

  it('(c) raises when more than 5% of a day’s TLS sessions failed and resolves on a clear day', async () => {
    await postTlsReport(app.url, ZONE, '2026-06-04', 90, 10);
    await postTlsReport(app.url, ZONE, '2026-06-05', 95, 5); // exactly 5%: clear
    await runAlerts();
    await runAlerts();
    const alerts = await alertsOf('tls_failures');
    expect(alerts.map((a) => [a.type, a.data.observed])).toEqual([
      ['alert.raised', '2026-06-04'],
      ['alert.resolved', '2026-06-05'],
    ]);
    expect(alerts[0]).toMatchObject({
      severity: 'warning',
      title: `TLS failures for ${ZONE} reached 10% of 100 sessions (2026-06-04)`,
      data: {
        figures: { sessions: 100, failed_sessions: 10, failed_ratio: 0.1 },
        threshold: { max_failed_ratio: 0.05 },
      },
    });
  });

  it('the operators’ job takes only an optional `now` and the admin token', async () => {
    const bad = await app.http.admin('POST', '/admin/jobs/email-auth-alerts', { bogus: true });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
    const anonymous = await app.http.post('/admin/jobs/email-auth-alerts', {});
    expect([401, 403, 404]).toContain(anonymous.status);
    expect(anonymous.body.error.code).toBeDefined();
  });

  it('filters the log by since= and repeatable type=, newest first', async () => {
    const all = await entries('');
    const times = all.map((e) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    const since = all.find((e) => e.type === 'alert.resolved' && e.data.rule === 'dmarc_pass_rate')!.occurred_at;
    const recent = await entries(`&since=${encodeURIComponent(since)}${alertsQuery}`);
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((e) => e.occurred_at >= since && e.type.startsWith('alert.'))).toBe(true);
    expect(recent.map((e) => e.data.rule)).toEqual(expect.arrayContaining(['dmarc_pass_rate', 'tls_failures']));
    expect(recent.map((e) => e.data.rule)).not.toContain('record_missing');
    const unknown = await events('&type=alert.exploded');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'validation_failed']);
  });
});
