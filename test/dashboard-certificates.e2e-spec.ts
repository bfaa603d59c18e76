/**
 * The certificates screens in a real browser against a real ACME CA: Debian's pebble
 * validates DNS-01 against the service's own DNS server; zones are verified through
 * pebble-challtestsrv as the world's DNS. Plan gate, request, live status, logs, PEM
 * download, auto-renew, renew, revoke.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { screenshotsAt } from './support/browser';
import { verifiedZone } from './support/certificates';
import { DashboardSuite, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { ChallTestSrv, Pebble, startChallTestSrv, startPebble } from './support/pebble';
import { freePort } from './support/server-process';

jest.setTimeout(180_000);

const ZONE = 'certs-dash.example';

describe('dashboard: certificates (contract §10, §14) with pebble', () => {
  let s: DashboardSuite;
  let pebble: Pebble;
  let world: ChallTestSrv;
  let user: SignedIn;

  beforeAll(async () => {
    const dnsPort = await freePort();
    world = await startChallTestSrv();
    pebble = await startPebble(dnsPort);
    s = await startDashboardSuite({
      DNS_PORT: String(dnsPort),
      VERIFY_RESOLVER: world.resolver,
      ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_CERT: pebble.caCertFile,
      ACME_PROPAGATION_DELAY_MS: '300',
    });
  });
  afterAll(async () => {
    await s?.close();
    await pebble?.stop();
    await world?.stop();
  });

  const main = () => s.page.locator('main').innerText();
  const downloaded = async (button: string): Promise<{ name: string; text: string }> => {
    const [file] = await Promise.all([
      s.page.waitForEvent('download'),
      s.page.getByRole('button', { name: button }).click(),
    ]);
    return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
  };

  it('says which plan unlocks certificates on the Free plan', async () => {
    user = await s.signIn({ plan: 'free' });
    await s.go('/certificates');
    expect(await main()).toContain('Certificate management needs the Plus plan or higher.');
    await s.checkScreen('certificates-plan-gate');
    // The operator moves the account to Pro; wildcards stay Elite-only.
    expect((await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, { plan: 'pro' })).status).toBe(
      200,
    );
    await verifiedZone(s.server.http, world, user.token, ZONE);
  });

  it('requests a certificate, follows its status to issued, shows the log, downloads PEM files that parse', async () => {
    await s.go('/certificates');
    expect(await main()).toContain('0/25');
    expect(await main()).toContain('No certificates yet');
    await expect(s.page.getByLabel('Wildcard (also covers *.domain)').isDisabled()).resolves.toBe(true);
    expect(await main()).toContain('Needs the Elite plan.');
    await s.checkScreen('certificates-empty');
    expect(await s.page.getByLabel('Domain', { exact: true }).inputValue()).toBe(ZONE);
    await s.page.getByLabel('Additional names (SANs)').fill(`www.${ZONE}`);
    // By keyboard: Space ticks the box, Enter in a text field submits the form.
    await s.page.getByLabel('Renew automatically before expiry').focus();
    await s.page.keyboard.press('Space');
    expect(await s.page.getByLabel('Renew automatically before expiry').isChecked()).toBe(true);
    await s.page.getByLabel('Domain', { exact: true }).focus();
    await s.page.keyboard.press('Enter');
    await s.h1('Certificate');
    // The screen polls through pending → validating → issued by itself.
    await s.page.locator('.steps [aria-current="step"]', { hasText: 'Issued' }).waitFor({ timeout: 60_000 });
    await s.page.locator('table', { hasText: 'Certificate issued (serial' }).waitFor();
    const text = await main();
    expect(text).toContain(`${ZONE}, www.${ZONE}`);
    expect(text).toMatch(/Automatic renewal\s+On/);
    await s.checkScreen('certificate-issued');

    await s.page.getByRole('button', { name: 'Get the PEM files' }).click();
    const cert = await downloaded('Download certificate');
    expect(cert.name).toBe(`${ZONE}.crt.pem`);
    const x509 = new X509Certificate(cert.text);
    expect(x509.subjectAltName!.split(', ').sort()).toEqual([`DNS:${ZONE}`, `DNS:www.${ZONE}`]);
    const key = await downloaded('Download private key');
    expect(x509.checkPrivateKey(createPrivateKey(key.text))).toBe(true);
    const full = await downloaded('Download full chain');
    expect(full.text.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThanOrEqual(2);
    await s.checkScreen('certificate-files');

    await s.go('/certificates');
    await s.page
      .locator('tr', { hasText: `www.${ZONE}` })
      .getByText('Issued')
      .waitFor();
    expect(await main()).toContain('1/25');
    await s.checkScreen('certificates');
  });

  it('sums up "Certificate issued" in the audit log: names, expiry, serial, no PEM (issue 27, bug 6)', async () => {
    await s.go('/audit');
    const row = s.page.locator('tr', { hasText: 'Certificate issued' });
    await row.waitFor();
    const details = await row.locator('.details').innerText();
    expect(details).toMatch(
      /^names: certs-dash\.example, www\.certs-dash\.example · expires: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · serial: [0-9A-Fa-f:]+$/,
    );
    expect(await main()).not.toContain('BEGIN CERTIFICATE');
    await s.checkScreen('audit-certificate-issued');
    await screenshotsAt(s.page, 'audit-certificate-issued', [1280, 390]);
    await s.go('/certificates');
  });

  it('turns auto-renew off, renews by hand, and revokes with confirmation', async () => {
    await s.page.getByRole('link', { name: `${ZONE}, www.${ZONE}` }).click();
    await s.h1('Certificate');
    const serialBefore = await s.page.locator('dt:has-text("Serial") + dd').innerText();
    await s.page.getByRole('button', { name: 'Turn automatic renewal off' }).click();
    await s.page.getByRole('button', { name: 'Turn automatic renewal on' }).waitFor();
    expect(await main()).toMatch(/Automatic renewal\s+Off/);

    await s.page.getByRole('button', { name: 'Renew now' }).click();
    await s.page
      .locator('dt:has-text("Serial") + dd')
      .filter({ hasNotText: serialBefore })
      .waitFor({ timeout: 60_000 });
    await s.page.locator('.steps [aria-current="step"]', { hasText: 'Issued' }).waitFor({ timeout: 60_000 });
    const serial = await s.page.locator('dt:has-text("Serial") + dd').innerText();
    expect(serial).not.toBe(serialBefore);
    expect(await pebble.certStatus(serial)).toBe('Valid');

    // Revoke: asks in place first; Cancel keeps it.
    await s.page.getByRole('button', { name: 'Revoke and delete' }).click();
    await s.page.getByRole('button', { name: 'Cancel' }).click();
    await s.page.getByRole('button', { name: 'Revoke and delete' }).click();
    await s.checkScreen('certificate-revoke-confirm');
    await s.page.getByRole('button', { name: `Revoke ${ZONE}` }).click();
    await s.h1('Certificates');
    await s.page.getByText('No certificates yet').waitFor();
    expect(await pebble.certStatus(serial)).toBe('Revoked');
  });

  it('shows an unknown certificate as not found, and has no serious accessibility violations or overflow', async () => {
    await s.go('/certificates/00000000-0000-0000-0000-000000000000');
    await s.page.getByRole('alert').filter({ hasText: 'Certificate not found' }).waitFor();
    await s.checkScreen('certificate-not-found');
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
