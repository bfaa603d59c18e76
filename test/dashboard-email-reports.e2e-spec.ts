/**
 * The dashboard's email-authentication report screens, in a real browser against `npm
 * start`'s own server process: reports ingested through the operator intake (a generated
 * aggregate report of today, a real failure-report fixture, a TLS report), then read on the
 * screens as the zone owner: totals, charts, sources, the report list and one report's
 * rows, failure reports with the subject the owner may see, the TLS summary. Every screen
 * gets an axe-core scan, a 375 px overflow check and screenshots.
 */
import { sample } from './support/dmarc-samples';
import { DashboardSuite, findings, startDashboardSuite } from './support/dashboard-suite';
import { AggregateReportSender, enrolZone, startWorld, tlsReport } from './support/email-auth';
import { registerAndLogin } from './support/http-client';
import { mediaTypeOf, postRaw } from './support/report-intake';

jest.setTimeout(120_000);

const ZONE = 'example.com'; // the shared failure-report fixture's domain
const FAILURE = 'forensic/dmarc_ruf_report_linkedin.eml';
const today = new Date().toISOString().slice(0, 10);

describe('dashboard: email-authentication reports (issue 15)', () => {
  let suite: DashboardSuite;
  let world: Awaited<ReturnType<typeof startWorld>>;
  let ownerToken: string;
  const page = () => suite.page;

  beforeAll(async () => {
    world = await startWorld();
    suite = await startDashboardSuite({ VERIFY_RESOLVER: `127.0.0.1:${world.port}` });
    const owner = await suite.signIn({ plan: 'pro' });
    ownerToken = owner.token;
    await enrolZone(suite.server.http, world.world, owner, ZONE);
    const dmarc = await suite.server.http.put(
      `/email-auth/domains/${ZONE}/dmarc`,
      { policy: 'none', rua: [`mailto:dmarc-rua@${ZONE}`] },
      owner.token,
    );
    expect(dmarc.status).toBe(200);
    // 200 messages today, 150 passing DMARC: 75.0 %.
    await new AggregateReportSender(suite.server.url).add(ZONE, `${today}T00:00:00Z`, 200, 150);
    for (const [body, type] of [
      [sample(FAILURE), mediaTypeOf(FAILURE)],
      [
        tlsReport(ZONE, today, `dash-tls-${today}`, [
          { successful: 90, failures: [{ type: 'certificate-expired', ip: '198.51.100.20', sessions: 10 }] },
        ]),
        'application/tlsrpt+json',
      ],
    ] as const) {
      const res = await postRaw(suite.server.url, '/admin/reports', body, type);
      expect(res.status).toBe(201);
    }
    // The add-on was set after the browser signed in: load the account again.
    await suite.go('/');
  });

  afterAll(async () => {
    await suite?.close();
    await world?.server.stop();
  });

  it('shows the DMARC totals, daily charts, sources, reports, failure reports and TLS results of the zone', async () => {
    await page()
      .getByRole('navigation')
      .getByRole('link', { name: /Email reports/ })
      .click();
    const totals = page().getByRole('list', { name: 'DMARC totals' });
    await expect(totals.innerText()).resolves.toContain('200');
    expect(await totals.innerText()).toContain('75%');
    // Daily series drawn with axes and units.
    await page().locator('.u-axis').first().waitFor();
    expect(await page().getByText('DMARC pass rate per day (%)').count()).toBeGreaterThan(0);
    const disposition = page().getByRole('region', { name: 'Disposition' });
    expect(await disposition.innerText()).toMatch(/none\s+200/);
    // The generated report's sources are private-use test addresses: unidentified.
    const unidentified = page().getByRole('region', { name: 'Unidentified sources' });
    expect(await unidentified.innerText()).toContain('192.0.2.10');
    expect(await unidentified.innerText()).toContain('198.51.100.20');

    const reports = page().getByRole('region', { name: 'Aggregate reports', exact: true });
    expect(await reports.innerText()).toContain('wizard-test');
    const failures = page().getByRole('region', { name: 'Failure reports', exact: true });
    expect(await failures.innerText()).toContain('linkedin');

    const tls = page().getByRole('list', { name: 'TLS totals' });
    expect(await tls.innerText()).toMatch(/90\s+sessions succeeded/);
    expect(await tls.innerText()).toMatch(/10\s+sessions failed/);
    expect(await page().getByRole('region', { name: 'Failure types' }).innerText()).toContain('certificate-expired');
    const events = page().getByRole('region', { name: 'Events', exact: true });
    expect(await events.innerText()).toContain(`DMARC policy of ${ZONE} published as none`);
    await suite.checkScreen('email-reports');
  });

  it('opens one aggregate report with its rows', async () => {
    await page()
      .getByRole('region', { name: 'Aggregate reports', exact: true })
      .getByRole('link', { name: 'wizard-test' })
      .click();
    await page()
      .getByRole('heading', { level: 2, name: /wizard-test/ })
      .waitFor();
    const rows = page().getByRole('region', { name: 'Report rows' });
    await rows.waitFor();
    const text = await rows.innerText();
    expect(text).toMatch(/192\.0\.2\.10[\s\S]*150[\s\S]*pass/);
    expect(text).toMatch(/198\.51\.100\.20[\s\S]*50[\s\S]*fail/);
    await suite.checkScreen('email-report-rows');
  });

  it('serves the event log to the account owner: filtered by type and zone, 404 for a zone outside the add-on', async () => {
    const all = await suite.server.http.get('/email-auth/events', ownerToken);
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: { type: string; domain: string }) => [e.type, e.domain])).toContainEqual([
      'dmarc.policy.changed',
      ZONE,
    ]);
    const changes = await suite.server.http.get('/email-auth/events?type=dmarc.policy.changed', ownerToken);
    expect(changes.body.data.length).toBeGreaterThan(0);
    expect(new Set(changes.body.data.map((e: { type: string }) => e.type))).toEqual(new Set(['dmarc.policy.changed']));
    const foreign = await suite.server.http.get('/email-auth/events?domain=not-mine.test', ownerToken);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    const badType = await suite.server.http.get('/email-auth/events?type=nope', ownerToken);
    expect([badType.status, badType.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('says which add-on unlocks the screen for an account without it', async () => {
    const other = await registerAndLogin(suite.server.http, {
      plan: 'pro',
      username: 'no_addon',
      password: 'correct horse battery staple',
    });
    expect(other.id).toBeGreaterThan(0);
    await suite.browser.context.clearCookies();
    await page().goto(`${suite.server.url}/app/login`);
    await page().getByLabel('Username or email').fill('no_addon');
    await page().getByLabel('Password').fill('correct horse battery staple');
    await page().getByRole('button', { name: 'Log in' }).click();
    await page().getByRole('navigation').waitFor();
    await page().goto(`${suite.server.url}/app/email-reports`);
    await page().getByText('Email authentication reports need the Email Authentication add-on').waitFor();
    await suite.checkScreen('email-reports-gated');
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(suite)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
