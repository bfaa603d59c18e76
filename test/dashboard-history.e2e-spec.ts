/**
 * Issue 26 in the dashboard: undo after a destructive record edit, the zone's history with
 * its diffs and "restore to here", and a host's address history. Real server process
 * (`npm start`'s build), Debian's Chromium, `dig` for what the DNS server answers; every
 * screen is scanned with axe-core and photographed at 1280 and 375 px.
 */
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { freePort } from './support/server-process';

jest.setTimeout(240_000);

const ZONE = 'history-ui.example';
const ZONE_FILE = [`$ORIGIN ${ZONE}.`, '$TTL 300', 'www IN A 192.0.2.1', 'mail IN A 192.0.2.25', ''].join('\n');

describe('dashboard: history and undo (issue 26)', () => {
  let s: DashboardSuite;
  let dnsPort: number;
  let user: SignedIn;

  beforeAll(async () => {
    dnsPort = await freePort();
    s = await startDashboardSuite({ DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net' });
    user = await s.signIn({ plan: 'pro' });
    expect((await s.server.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, user.token)).status).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
  });

  const answers = (name: string) => dig(dnsPort, name, 'A').answers;

  it('offers undo after records are deleted, and the undo brings them back (dig)', async () => {
    await s.go(`/zones/${ZONE}`);
    await s.page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    await s.page.getByRole('button', { name: 'Delete mail A' }).click();
    await s.page.getByText('Records removed.').waitFor();
    expect(
      await eventually(
        () => answers(`mail.${ZONE}`),
        (a) => a.length === 0,
      ),
    ).toEqual([]);
    await s.checkScreen('zone-undo');
    await s.page.setViewportSize({ width: 1280, height: 900 });
    await s.page.getByRole('button', { name: 'Undo', exact: true }).click();
    await s.page.locator('td code', { hasText: /^mail$/ }).waitFor();
    expect(await s.page.getByText('Records removed.').count()).toBe(0);
    expect(
      await eventually(
        () => answers(`mail.${ZONE}`),
        (a) => a.length === 1,
      ),
    ).toEqual(['192.0.2.25']);
  });

  it('lists the zone’s changes with their diffs, and restores to any of them', async () => {
    await s.go(`/zones/${ZONE}`);
    await s.page.getByRole('link', { name: 'History of the records' }).click();
    await s.h1(`History of ${ZONE}`);
    const table = s.page.getByRole('region', { name: `Changes of ${ZONE}` });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).innerText()).toMatch(/Restored[\s\S]*mail A[\s\S]*\+ 192\.0\.2\.25/);
    expect(await rows.nth(1).innerText()).toMatch(/Records changed[\s\S]*mail A \(removed\)[\s\S]*− 192\.0\.2\.25/);
    expect(await rows.nth(1).innerText()).toContain(user.username);
    expect(await rows.nth(2).innerText()).toMatch(/Zone imported/);
    await s.checkScreen('zone-history');
    await s.page.setViewportSize({ width: 1280, height: 900 });
    // Back to how it was right after the deletion: mail goes again.
    await rows.nth(1).getByRole('button', { name: 'Restore to here' }).click();
    await s.page.getByRole('button', { name: /^Restore to \d/ }).click();
    await s.page.getByText(/Brought back to how it was at/).waitFor();
    expect(
      await eventually(
        () => answers(`mail.${ZONE}`),
        (a) => a.length === 0,
      ),
    ).toEqual([]);
    expect(
      await eventually(
        () => rows.count(),
        (n) => n === 4,
      ),
    ).toBe(4);
  });

  it('shows a host’s address changes', async () => {
    const fqdn = 'home.dyn.example.net';
    expect(
      (await s.server.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.10' }, user.token))
        .status,
    ).toBe(201);
    expect((await s.server.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '192.0.2.11' }, user.token)).status).toBe(
      200,
    );
    await s.go(`/ddns/${fqdn}`);
    await s.page.getByRole('link', { name: 'history' }).click();
    await s.h1(`History of ${fqdn}`);
    const rows = s.page.getByRole('region', { name: `Changes of ${fqdn}` }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.nth(0).innerText()).toMatch(/Address updated[\s\S]*IPv4: 192\.0\.2\.10 → 192\.0\.2\.11/);
    await s.checkScreen('host-history');
  });

  it('has no serious accessibility findings, no sideways overflow, no browser errors', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
