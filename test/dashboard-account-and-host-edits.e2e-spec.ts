/**
 * Issue 27, "What a user expects": TTL edit and removing an address family on a DDNS host
 * (decision 0091), and deleting the account (decision 0090), in Debian's Chromium against the
 * compiled server. Each screen is scanned with axe at desktop and phone width and
 * photographed at 1280 and 390 px (test-output/screenshots/).
 */
import { screenshotsAt } from './support/browser';
import { DashboardSuite, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { freePort } from './support/server-process';

jest.setTimeout(240_000);

describe('dashboard: host TTL and address families, account deletion (issue 27)', () => {
  let s: DashboardSuite;
  let user: SignedIn;
  const fqdn = 'edit.dyn.example.net';

  beforeAll(async () => {
    s = await startDashboardSuite({
      DNS_PORT: String(await freePort()),
      DDNS_ZONES: 'dyn.example.net',
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    user = await s.signIn({ plan: 'pro' });
    const created = await s.server.http.post(
      '/api/domains',
      { fqdn, record_type: 'A', record_ip: '192.0.2.10' },
      user.token,
    );
    expect(created.status).toBe(201);
    expect((await s.server.http.put(`/api/domains/fqdn/${fqdn}`, { ipv6: '2001:db8::10' }, user.token)).status).toBe(
      200,
    );
  });
  afterAll(() => s?.close());

  const hostNow = async () => (await s.server.http.get(`/api/domains/fqdn/${fqdn}`, user.token)).body;

  it('edits the TTL, with the bounds said in words beside the field', async () => {
    const { page } = s;
    await s.go(`/ddns/${fqdn}`);
    await s.h1(fqdn);
    await s.checkScreen('ddns-host-edits');
    const ttl = page.getByLabel('TTL (seconds)');
    await ttl.fill('30');
    await page.getByRole('button', { name: 'Save TTL' }).click();
    await page.getByText('Use a TTL from 60 to 86400 seconds (one minute to one day).').waitFor();
    expect((await hostNow()).ttl).toBe(60);
    await ttl.fill('300');
    await page.getByRole('button', { name: 'Save TTL' }).click();
    await page.getByText('TTL set to 300 s: the DNS server answers with it within a second.').waitFor();
    expect((await hostNow()).ttl).toBe(300);
    await page.getByText('300 s', { exact: true }).waitFor();
  });

  it('removes the IPv6 address after a confirmation naming it; the last address cannot be removed', async () => {
    const { page } = s;
    await page.getByRole('button', { name: 'Remove IPv6 address' }).click();
    const confirm = page.getByRole('button', { name: 'Remove 2001:db8::10: stop answering AAAA queries' });
    await confirm.waitFor();
    await s.checkScreen('ddns-host-remove-family-confirm');
    await screenshotsAt(page, 'ddns-host-remove-family-confirm', [1280, 390]);
    await confirm.click();
    await page
      .getByText('IPv6 address removed: the DNS server stops answering AAAA queries within a second.')
      .waitFor();
    expect((await hostNow()).addresses).toEqual({ ipv4: '192.0.2.10', ipv6: null });
    // One address left: no remove button, and the line says what to do instead.
    await page.getByText('The only address: delete the host to stop answering.').waitFor();
    expect(await page.getByRole('button', { name: /^Remove IPv[46] address$/ }).count()).toBe(0);
    await screenshotsAt(page, 'ddns-host-edits', [1280, 390]);
  });

  it('the host history lists the TTL change and the removed family in words', async () => {
    const { page } = s;
    await s.go(`/ddns/${fqdn}/history`);
    await s.h1(`History of ${fqdn}`);
    const rows = page.getByRole('region', { name: `Changes of ${fqdn}` }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.nth(0).innerText()).toMatch(/Address updated[\s\S]*IPv6: 2001:db8::10 → (none|—|removed)/);
    expect(await rows.nth(1).innerText()).toMatch(/TTL changed[\s\S]*TTL: 60 → 300/);
    await s.checkScreen('ddns-host-history-ttl');
  });

  it('shows one record set’s history from its row in the zone (per-record history)', async () => {
    const { page } = s;
    const zone = 'records.test';
    const imported = await s.server.http.post(
      '/zones',
      { name: zone, zone_file: 'www 300 IN A 192.0.2.1\nmail 300 IN A 192.0.2.2\n' },
      user.token,
    );
    expect(imported.status).toBe(201);
    for (const records of [
      [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.3'] }],
      [{ subname: 'mail', type: 'A', ttl: 300, records: ['192.0.2.4'] }],
    ])
      expect((await s.server.http.put(`/zones/${zone}/records`, { records }, user.token)).status).toBe(200);
    await s.go(`/zones/${zone}`);
    await page.getByRole('link', { name: 'History of www A' }).click();
    await s.h1(`History of www A in ${zone}`);
    const rows = page.getByRole('region', { name: `Changes of www A in ${zone}` }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/Records changed[\s\S]*www A[\s\S]*192\.0\.2\.3/);
    expect(await rows.nth(1).innerText()).toMatch(/Zone imported[\s\S]*www A/);
    expect(await page.locator('main').innerText()).not.toContain('192.0.2.4');
    await s.checkScreen('zone-record-history');
    await screenshotsAt(page, 'zone-record-history', [1280, 390]);
  });

  it('deletes the account: says what is removed and kept, asks for the username typed out and the password', async () => {
    const { page } = s;
    await s.go('/account/security');
    await s.h1('Security');
    const section = page.getByRole('region', { name: 'Delete account' });
    await section.getByText('The audit log of the account', { exact: false }).waitFor();
    await section.getByText('Every DDNS host', { exact: false }).waitFor();
    await section.getByRole('button', { name: 'Delete account…' }).click();
    await page.getByLabel(`Type your username (${user.username}) to confirm`).waitFor();
    await s.checkScreen('account-delete');
    await screenshotsAt(page, 'account-delete', [1280, 390]);

    const form = page.getByRole('form', { name: 'Confirm account deletion' });
    const password = form.getByLabel('Password');
    const submit = form.getByRole('button', { name: `Delete ${user.username} and everything in it` });
    await page.getByLabel(`Type your username (${user.username}) to confirm`).fill('someone-else');
    await password.fill(user.password);
    await submit.click();
    await page.getByText('Type your username exactly as shown to confirm.').waitFor();
    expect((await s.server.http.get('/account', user.token)).status).toBe(200);

    await page.getByLabel(`Type your username (${user.username}) to confirm`).fill(user.username);
    await password.fill('not-my-password');
    await submit.click();
    await page.getByText('The password is wrong.').waitFor();
    expect((await s.server.http.get('/account', user.token)).status).toBe(200);

    await password.fill(user.password);
    await submit.click();
    await page.getByText('Your account has been deleted.', { exact: false }).waitFor();
    await page.getByLabel('Username or email').waitFor();
    expect((await s.server.http.get('/account', user.token)).status).toBe(401);
    await s.checkScreen('account-deleted-login');
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
