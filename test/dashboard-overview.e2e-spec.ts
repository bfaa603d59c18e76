/**
 * Issue 27, "Overview that tells what needs attention": hosts down, certificates that failed
 * (or expire soon), open email-authentication alerts and zones not verified, each with a link
 * to where it is acted on, kept current by the live notices. Real server process, Debian's
 * Chromium, a real refused uptime check and a real failed issuance (the CA's port is closed).
 * The rules for expiring certificates and open alerts are unit-tested in
 * apps/dashboard/src/features/overview/attention.spec.ts.
 */
import type { DnsServer, ZoneIndex } from '../libs/dns-server';
import { screenshotsAt } from './support/browser';
import { DashboardSuite, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { enrolZone, startWorld } from './support/email-auth';
import { freePort } from './support/server-process';

jest.setTimeout(240_000);

describe('dashboard: the overview says what needs attention (issue 27)', () => {
  let s: DashboardSuite;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let user: SignedIn;

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    const closed = await freePort();
    s = await startDashboardSuite({
      DNS_PORT: String(await freePort()),
      DDNS_ZONES: 'dyn.example.net',
      VERIFY_RESOLVER: `127.0.0.1:${w.port}`,
      UPTIME_INTERVAL_SECONDS: '1',
      UPTIME_CHECK_PORTS: String(closed),
      UPTIME_TIMEOUT_MS: '500',
      ALLOW_PRIVATE_TARGETS: 'true',
      // No CA listens there: issuance meets an outage until it fails.
      ACME_DIRECTORY_URL: `http://127.0.0.1:${closed}/dir`,
      ACME_PROPAGATION_DELAY_MS: '0',
    });
    user = await s.signIn({ plan: 'pro' });
  });
  afterAll(async () => {
    await s?.close();
    await worldServer?.stop();
  });

  const check = async (name: string) => {
    await s.checkScreen(name);
    await screenshotsAt(s.page, name, [1280, 390]);
  };
  const attention = () => s.page.getByRole('region', { name: 'Needs your attention' });

  it('says nothing needs attention when nothing does', async () => {
    await s.go('/');
    expect(await attention().innerText()).toContain('Nothing needs your attention');
  });

  it('lists a zone not verified, a host down and a failed certificate as they happen, each linking to its screen', async () => {
    await s.go('/');
    expect((await s.server.http.post('/zones', { name: 'pending.example' }, user.token)).status).toBe(201);
    await attention().getByText('pending.example is not verified yet').waitFor();

    const host = await s.server.http.post(
      '/api/domains',
      { fqdn: 'down.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
      user.token,
    );
    expect(
      (await s.server.http.post(`/uptime/domain/${host.body.id}/monitor`, { enabled: true }, user.token)).status,
    ).toBe(200);
    await attention().getByText('down.dyn.example.net is down (connection refused).').waitFor({ timeout: 20_000 });

    await enrolZone(s.server.http, world, user, 'certs.example');
    const cert = await s.server.http.post(
      '/certificates/',
      { zone: 'certs.example', domain: 'certs.example', wildcard: false, auto_renew: true },
      user.token,
    );
    expect(cert.status).toBe(202);
    await attention().getByText('The certificate for certs.example failed to issue.').waitFor({ timeout: 60_000 });

    const items = await attention().locator('li').allInnerTexts();
    // Most urgent first: the failures, then what to check soon.
    expect(items.map((t) => t.split('\n')[0])).toEqual(['Needs action', 'Needs action', 'Check soon']);
    await check('overview-attention');

    await attention().getByRole('link', { name: 'See uptime of down.dyn.example.net' }).click();
    await s.h1('Uptime history');
    await s.go('/');
    await attention().getByRole('link', { name: 'Open the certificate for certs.example' }).click();
    await s.h1('Certificate');
    await s.go('/');
    await attention().getByRole('link', { name: 'Verify pending.example' }).click();
    await s.h1('pending.example');
  });

  it('the certificates list follows an issuance to its failure without a reload', async () => {
    await s.go('/certificates');
    const cert = await s.server.http.post(
      '/certificates/',
      { zone: 'certs.example', domain: 'www.certs.example', wildcard: false, auto_renew: true },
      user.token,
    );
    expect(cert.status).toBe(202);
    const row = s.page.getByRole('region', { name: 'Certificates' }).locator('tr', { hasText: 'www.certs.example' });
    await row.waitFor();
    await row.locator('.status', { hasText: 'Failed' }).waitFor({ timeout: 60_000 });
    await s.checkScreen('certificates-live-failed');
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
