/**
 * The email-authentication screens in a real browser: the add-on gate, every settings
 * family with its generated record (and whether the world's DNS answers it), a DKIM key
 * whose private half is shown once, the zone's event log, and the DMARC wizard made ready
 * by real aggregate reports and the nightly job (operator endpoints, as the wizard e2e
 * does), advanced through the confirmation dialog; `dig` then reads the new `_dmarc`.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DnsServer, ZoneIndex } from '../libs/dns-server';
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { AggregateReportSender, enrolZone, startWorld } from './support/email-auth';
import { freePort } from './support/server-process';

jest.setTimeout(180_000);

const ZONE = 'mail-dash.example';
const DAY = 86_400_000;

describe('dashboard: email authentication and the DMARC wizard (contract §7, §14)', () => {
  let s: DashboardSuite;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let dnsPort: number;
  let user: SignedIn;

  beforeAll(async () => {
    dnsPort = await freePort();
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    s = await startDashboardSuite({ DNS_PORT: String(dnsPort), VERIFY_RESOLVER: `127.0.0.1:${w.port}` });
  });
  afterAll(async () => {
    await s?.close();
    await worldServer?.stop();
  });

  const main = () => s.page.locator('main').innerText();
  const section = (title: string) =>
    s.page.locator('section.card', { has: s.page.getByRole('heading', { level: 2, name: title, exact: true }) });
  const recordRow = (name: string) =>
    s.page.getByRole('region', { name: 'Generated records' }).locator('tr', { hasText: name });
  const dmarcTxt = () => dig(dnsPort, `_dmarc.${ZONE}`, 'TXT').answers.join('');

  it('says which add-on unlocks email authentication', async () => {
    user = await s.signIn({ plan: 'free' });
    await s.go('/email-auth');
    expect(await main()).toContain('needs the Email Authentication add-on');
    await s.checkScreen('email-auth-addon-gate');
    await enrolZone(s.server.http, world, user, ZONE);
  });

  it('configures DMARC, SPF, DKIM, MTA-STS, TLS-RPT and BIMI with their records, live state and event log', async () => {
    await s.go('/email-auth');
    await s.page.getByRole('link', { name: ZONE, exact: true }).click();
    await s.h1(`Email authentication: ${ZONE}`);
    await s.page.waitForSelector('.loading', { state: 'detached' });
    expect(await main()).toContain('No records yet');

    const dmarc = section('DMARC');
    expect(await dmarc.getByLabel('Aggregate report addresses (rua)').inputValue()).toBe(`mailto:dmarc-rua@${ZONE}`);
    await dmarc.getByRole('button', { name: 'Save DMARC' }).click();
    await dmarc.getByText('DMARC saved').waitFor();
    const value = `v=DMARC1; p=none; rua=mailto:dmarc-rua@${ZONE}`;
    await recordRow(`_dmarc.${ZONE}`).getByText('Not yet').waitFor();
    expect(await eventually(dmarcTxt, (t) => t === `"${value}"`)).toBe(`"${value}"`);

    const spf = section('SPF');
    await spf.getByLabel("Include (sending services' domains)").fill('_spf.mailer.example');
    await spf.getByLabel('IPv4 senders').fill('192.0.2.25');
    await spf.getByLabel('Everything else').selectOption('-all');
    await spf.getByRole('button', { name: 'Save SPF' }).click();
    await spf.getByText('SPF saved').waitFor();
    await recordRow('v=spf1').waitFor();
    expect(await recordRow('v=spf1').innerText()).toContain('v=spf1 ip4:192.0.2.25 include:_spf.mailer.example -all');

    // A generated DKIM key: the private half is shown once, downloadable, and parses.
    const dkim = section('DKIM');
    await dkim.getByLabel('Selector').fill('dash1');
    await dkim.getByRole('button', { name: 'Generate key' }).click();
    const block = s.page.locator('.copy-block', { hasText: 'DKIM private key (PEM)' });
    await block.waitFor();
    await s.checkScreen('email-auth-dkim-private-key');
    const [file] = await Promise.all([
      s.page.waitForEvent('download'),
      block.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe(`dash1._domainkey.${ZONE}.key.pem`);
    const key = createPrivateKey(readFileSync((await file.path())!, 'utf8'));
    expect([key.asymmetricKeyType, key.asymmetricKeyDetails?.modulusLength]).toEqual(['rsa', 2048]);
    await s.page.getByRole('button', { name: 'I have saved it' }).click();
    await block.waitFor({ state: 'detached' });
    await recordRow(`dash1._domainkey.${ZONE}`).waitFor();
    const published = await eventually(
      () => dig(dnsPort, `dash1._domainkey.${ZONE}`, 'TXT').answers.join(''),
      (t) => t.includes('v=DKIM1'),
    );
    expect(published).toContain('v=DKIM1; k=rsa; p=');

    const sts = section('MTA-STS');
    await sts.getByLabel('Mail servers (MX patterns)').fill(`mail.${ZONE}`);
    await sts.getByRole('button', { name: 'Save MTA-STS' }).click();
    await sts.getByText('MTA-STS saved').waitFor();
    await recordRow(`_mta-sts.${ZONE}`).waitFor();
    const rpt = section('TLS-RPT');
    await rpt.getByLabel('TLS report addresses').fill(`mailto:tls-rpt@${ZONE}`);
    await rpt.getByRole('button', { name: 'Save TLS-RPT' }).click();
    await rpt.getByText('TLS-RPT saved').waitFor();
    await recordRow(`_smtp._tls.${ZONE}`).waitFor();
    const bimi = section('BIMI');
    await bimi.getByLabel('Logo URL (SVG)').fill(`https://${ZONE}/logo.svg`);
    await bimi.getByRole('button', { name: 'Save BIMI' }).click();
    await bimi.getByText('BIMI saved').waitFor();
    await recordRow(`default._bimi.${ZONE}`).waitFor();
    // BIMI without enforcement: the service's advice is shown.
    expect(await main()).toContain('mailbox providers show the logo only with DMARC at p=quarantine or p=reject');

    // The owner publishes _dmarc at the zone's current provider: the screen says it is live.
    world.setRRset(ZONE, '_dmarc', 'TXT', 300, [`"${value}"`]);
    await s.go(`/email-auth/${ZONE}`);
    await recordRow(`_dmarc.${ZONE}`).getByText('Live', { exact: true }).waitFor();
    expect(await recordRow(`default._bimi.${ZONE}`).innerText()).toContain('Not yet');

    const events = await s.page.getByRole('region', { name: 'Email authentication events, newest first' }).innerText();
    for (const what of [
      'Dmarc configured',
      'Spf configured',
      'Dkim key set',
      'Mta sts configured',
      'Tls rpt configured',
      'Bimi configured',
    ])
      expect(events).toContain(what);
    await s.checkScreen('email-auth-zone');
  });

  it('opens the wizard, becomes ready after real reports and nightly runs, advances through the dialog; dig sees the new policy', async () => {
    await s.page.getByRole('link', { name: 'Open the DMARC wizard' }).click();
    await s.h1('DMARC wizard');
    await s.page.locator('.steps [aria-current="step"]', { hasText: 'Monitoring (p=none)' }).waitFor();
    await s.page.getByText('Need more data').waitFor();
    expect(await main()).toContain('Not enough reported mail yet');
    expect(await main()).toContain('No nightly figures yet');
    await s.checkScreen('dmarc-wizard-monitoring');

    // Fourteen nights, each with a day of mail that passes (real aggregate reports; the
    // operator's nightly endpoint with an explicit night).
    const sender = new AggregateReportSender(s.server.url);
    const firstNight =
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 2) + DAY;
    for (let n = 0; n < 14; n++) {
      const night = firstNight + n * DAY;
      await sender.add(ZONE, new Date(night - 3600_000), 20, 20);
      const run = await s.server.http.admin('POST', '/admin/jobs/dmarc-nightly', {
        now: new Date(night).toISOString(),
      });
      expect(run.status).toBe(200);
    }
    await s.go(`/email-auth/${ZONE}/wizard`);
    await s.page.getByText('Ready to advance to quarantine_partial').waitFor();
    const text = await main();
    expect(text).toContain('14 of 14 recommended days');
    expect(text).toContain('DMARC pass rate\n100%');
    // The pass-rate chart: one point per night, in percent.
    await s.page.locator('.chart canvas').waitFor();
    expect(await s.page.locator('.chart table.chart-data th').allTextContents()).toEqual([
      'Time (UTC)',
      'DMARC pass rate (%)',
    ]);
    expect(await s.page.locator('.chart table.chart-data tbody tr').count()).toBe(14);
    await s.checkScreen('dmarc-wizard-ready');

    // Advance: the dialog says what changes and takes a custom percentage. By keyboard
    // first: Enter opens it with focus inside, Escape cancels and gives focus back.
    const advanceButton = s.page.getByRole('button', { name: 'Advance to Quarantine, part of mail…' });
    const dialog = s.page.getByRole('dialog', { name: 'Advance to Quarantine, part of mail?' });
    await advanceButton.focus();
    await s.page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await s.page.evaluate('document.activeElement.closest("dialog") !== null')).toBe(true);
    await s.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await advanceButton.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await advanceButton.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await s.page.getByRole('button', { name: 'Advance to Quarantine, part of mail…' }).click();
    await dialog.getByLabel('Percentage of mail').fill('25');
    await s.checkScreen('dmarc-wizard-advance-dialog');
    await dialog.getByRole('button', { name: 'Yes, advance' }).click();
    await s.page.getByText('Advanced to quarantine_partial: policy quarantine for 25% of messages').waitFor();
    await s.page.locator('.steps [aria-current="step"]', { hasText: 'Quarantine, part of mail' }).waitFor();
    expect(await main()).toContain('p=quarantine, 25% of mail');
    expect(await s.page.getByRole('region', { name: 'Stage history' }).innerText()).toContain('Monitoring (p=none)');
    const published = await eventually(dmarcTxt, (t) => t.includes('p=quarantine'));
    expect(published).toContain('p=quarantine');
    expect(published).toContain('pct=25');
    await s.checkScreen('dmarc-wizard-advanced');
  });

  it('shows refusals in place: an unknown zone, a zone outside the add-on, a zone not verified yet', async () => {
    await s.go('/email-auth/not-mine.example');
    await s.page
      .getByRole('alert')
      .filter({ hasText: /not found/i })
      .waitFor();
    await s.checkScreen('email-auth-error');
    expect((await s.server.http.post('/zones', { name: 'outside-dash.example' }, user.token)).status).toBe(201);
    await s.go('/email-auth/outside-dash.example');
    await s.page
      .getByRole('alert')
      .filter({ hasText: 'DMARC management requires the Email Authentication add-on' })
      .waitFor();
    expect(
      (
        await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, {
          email_auth: { tier: 'standard', domains: [ZONE, 'outside-dash.example'] },
        })
      ).status,
    ).toBe(200);
    await s.go('/email-auth/outside-dash.example/wizard');
    await s.page
      .getByRole('alert')
      .filter({ hasText: 'Verify the zone outside-dash.example before managing its email authentication' })
      .waitFor();
  });

  it('has no serious accessibility violations, overflow or CSP problems', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
