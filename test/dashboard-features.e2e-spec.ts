/**
 * Issue 27, "What a user expects and is missing": record search, DDNS client configurations
 * that make the key they need (and then work as pasted with the real ddclient), and an audit
 * log in words (names, dates on one line, before → after). Real server process, Debian's
 * Chromium and ddclient; every screen scanned with axe-core and photographed at 1280 and 390 px.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshotsAt } from './support/browser';
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { freePort } from './support/server-process';

jest.setTimeout(240_000);

const ZONE_FILE = [
  '$ORIGIN search.example.',
  '$TTL 300',
  '@ IN A 192.0.2.1',
  '@ IN MX 10 mail',
  'mail IN A 192.0.2.25',
  'www IN CNAME @',
  'old IN TXT "keep me"',
  '_dmarc IN TXT "v=DMARC1; p=none"',
  '',
].join('\n');

describe('dashboard: record search, DDNS keys, audit in words (issue 27)', () => {
  let s: DashboardSuite;
  let user: SignedIn;
  let dnsPort: number;

  beforeAll(async () => {
    dnsPort = await freePort();
    s = await startDashboardSuite({
      DNS_PORT: String(dnsPort),
      DDNS_ZONES: 'dyn.example.net',
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    user = await s.signIn({ plan: 'pro' });
  });
  afterAll(async () => s?.close());

  const check = async (name: string) => {
    await s.checkScreen(name);
    await screenshotsAt(s.page, name, [1280, 390]);
  };
  const rowNames = () =>
    s.page
      .getByRole('region', { name: 'Records of search.example' })
      .locator('tbody tr td:first-child')
      .allInnerTexts();

  it('finds records by name, type or value, and narrows by type', async () => {
    expect(
      (await s.server.http.post('/zones', { name: 'search.example', zone_file: ZONE_FILE }, user.token)).status,
    ).toBe(201);
    await s.go('/zones/search.example');
    const all = await rowNames();
    expect(all.length).toBeGreaterThanOrEqual(6);
    await s.page.getByLabel('Find records').fill('mail');
    expect(await rowNames()).toEqual(['@', 'mail']);
    expect(await s.page.getByRole('search', { name: 'Record search' }).getByRole('status').innerText()).toBe(
      `2 of ${all.length} record sets shown`,
    );
    await s.page.getByLabel('Find records').fill('192.0.2.25');
    expect(await rowNames()).toEqual(['mail']);
    await s.page.getByLabel('Find records').fill('');
    await s.page.getByLabel('Show only').selectOption('TXT');
    expect((await rowNames()).sort()).toEqual(['_dmarc', 'old']);
    await s.page.getByLabel('Find records').fill('nothing-like-this');
    await s.page.getByText('No records match.').waitFor();
    await s.page.getByLabel('Find records').fill('dmarc');
    await check('zone-record-search');
  });

  it('makes the key a DDNS client needs; the configuration works as pasted with ddclient, and the host screen follows the update live', async () => {
    const created = await s.server.http.post(
      '/api/domains',
      { fqdn: 'home.dyn.example.net', record_type: 'A', record_ip: '203.0.113.7' },
      user.token,
    );
    expect(created.status).toBe(201);
    await s.go('/ddns/home.dyn.example.net');
    expect(await s.page.locator('.copy-block pre').first().innerText()).toContain('password=YOUR_API_KEY');
    await s.page.getByRole('button', { name: 'Make a key for these clients' }).click();
    await s.page.getByText('A key named “DDNS clients of home.dyn.example.net” was made').waitFor();
    const configs = await s.page.locator('.copy-block pre').allInnerTexts();
    expect(configs.join('\n')).not.toContain('YOUR_API_KEY');
    const key = /^password=(ak_\S+)$/m.exec(configs[0])?.[1];
    expect(key).toBeDefined();
    expect(configs[3]).toContain(`${user.username}:${key}`);
    const keys = (await s.server.http.get('/api-keys/', user.token)).body.keys as { name: string }[];
    expect(keys.map((k) => k.name)).toContain('DDNS clients of home.dyn.example.net');
    await check('ddns-key-made');

    // Pasted as it is: ddclient updates the host to the address checkip reports (127.0.0.1).
    const work = mkdtempSync(join(s.dataDir, 'clients-'));
    const conf = join(work, 'ddclient.conf');
    writeFileSync(conf, configs[0] + '\n', { mode: 0o600 });
    const out = execFileSync(
      'ddclient',
      ['-daemon=0', '-verbose', '-noquiet', '-force', '-file', conf, '-cache', join(work, 'cache')],
      {
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(out).toMatch(/SUCCESS:\s+updating home\.dyn\.example\.net/);
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A').answers,
        (a) => a[0] === '127.0.0.1',
      ),
    ).toEqual(['127.0.0.1']);
    // No reload: the open screen shows the client's update.
    await s.page.getByRole('list', { name: 'Addresses' }).filter({ hasText: '127.0.0.1' }).waitFor({ timeout: 5000 });
  });

  it('says the audit log in words: who by name, dates on one line, changes as before → after', async () => {
    expect(
      (
        await s.server.http.put(
          '/zones/search.example/records',
          { records: [{ subname: 'mail', type: 'A', ttl: 300, records: ['192.0.2.26'] }] },
          user.token,
        )
      ).status,
    ).toBe(200);
    await s.go('/audit');
    const rows = s.page.getByRole('region', { name: 'Audit log' }).locator('tbody tr');
    const recordRow = rows.filter({ hasText: 'Zone RRsets changed' }).first();
    expect(await recordRow.locator('.diff li').allInnerTexts()).toEqual([
      'mail A 192.0.2.25 (TTL 300 s) → 192.0.2.26 (TTL 300 s)',
    ]);
    expect(await recordRow.locator('del').innerText()).toBe('192.0.2.25 (TTL 300 s)');
    expect(await recordRow.locator('td').nth(3).innerText()).toBe(`You (${user.username})`);
    const ddnsRow = rows.filter({ hasText: 'Domain addresses changed' }).first();
    expect(await ddnsRow.locator('.diff li').allInnerTexts()).toEqual(['IPv4 203.0.113.7 → 127.0.0.1']);
    expect(await ddnsRow.locator('td').nth(3).innerText()).toBe(
      'A DDNS client (API key “DDNS clients of home.dyn.example.net”)',
    );
    // The date is one line, not broken at its spaces.
    const when = recordRow.locator('td').first();
    // One line of 15 px text is about 22 px high; two would be over 40.
    expect((await when.locator('span').boundingBox())!.height).toBeLessThan(30);
    expect(await s.page.locator('main').innerText()).not.toMatch(/user:\d|key:[0-9a-f-]{8}/);
    await check('audit-readable');
  });

  it('lists signed-in sessions, shows a new login without a reload, and ends another session', async () => {
    await s.go('/account/security');
    const table = s.page.getByRole('region', { name: 'Active sessions, newest first' });
    const before = await table.locator('tbody tr').count();
    expect(await table.locator('tbody tr', { hasText: 'This browser' }).count()).toBe(1);
    const other = await s.server.http.post('/auth/login', { username: user.username, password: user.password });
    expect(other.status).toBe(200);
    const rows = () => table.locator('tbody tr').count();
    expect(await eventually(rows, (n) => n === before + 1, 5000)).toBe(before + 1);
    await check('account-sessions');
    const newest = table.locator('tbody tr').first();
    await newest.getByRole('button', { name: 'End session' }).click();
    await newest.getByRole('button', { name: /^End the session started/ }).click();
    expect(await eventually(rows, (n) => n === before, 5000)).toBe(before);
    expect((await s.server.http.get('/account', other.body.access_token)).status).toBe(401);
    // This browser's session goes on.
    expect(await table.locator('tbody tr', { hasText: 'This browser' }).count()).toBe(1);
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
