/**
 * The DNS analytics screen in a real browser: `dig` queries to the service's own DNS
 * server, then the counts on the screen (totals, response codes, query types, NXDOMAIN
 * names, recent queries, the volume chart's figures), the domain filter, and the export
 * (gated below Elite, then a real CSV download).
 */
import { readFileSync } from 'node:fs';
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { freePort } from './support/server-process';

jest.setTimeout(180_000);

const ZONE = 'stats-dash.example';
const OTHER = 'quiet-dash.example';

describe('dashboard: DNS analytics (contract §12, §14) from real dig queries', () => {
  let s: DashboardSuite;
  let dnsPort: number;
  let user: SignedIn;
  /** Queries the service answered for the account's zones (REFUSED ones are no one's). */
  let counted = 0;

  const ask = (name: string, type: string, tcp = false) => {
    const answer = dig(dnsPort, name, type, { tcp });
    if (answer.status !== 'REFUSED') counted += 1;
    return answer;
  };
  const main = () => s.page.locator('main').innerText();
  const tile = (label: string) => s.page.locator('.tile', { hasText: label }).locator('.tile-figure').innerText();
  const row = (table: string, name: string) =>
    s.page.getByRole('region', { name: table }).locator('tr', { hasText: name }).locator('td').allInnerTexts();

  beforeAll(async () => {
    dnsPort = await freePort();
    s = await startDashboardSuite({ DNS_PORT: String(dnsPort) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('says which plan unlocks analytics', async () => {
    user = await s.signIn({ plan: 'plus' });
    await s.go('/analytics');
    expect(await main()).toContain('DNS analytics needs the Pro plan or higher.');
    await s.checkScreen('analytics-plan-gate');
    expect((await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, { plan: 'pro' })).status).toBe(
      200,
    );
    for (const [zone, file] of [
      [ZONE, '$TTL 300\nwww IN A 192.0.2.80\n@ IN MX 10 mail.stats-dash.example.\nmail IN A 192.0.2.25\n'],
      [OTHER, 'www IN A 192.0.2.90\n'],
    ])
      expect((await s.server.http.post('/zones', { name: zone, zone_file: file }, user.token)).status).toBe(201);
  });

  it('counts dig queries on the screen: totals, codes, types, NXDOMAIN names, recent queries and the volume chart', async () => {
    // The zone is served once the DNS index caught up with the import.
    expect(
      (
        await eventually(
          () => ask(`www.${ZONE}`, 'A'),
          (a) => a.status === 'NOERROR',
        )
      ).answers,
    ).toEqual(['192.0.2.80']);
    for (let i = 0; i < 4; i++) ask(`www.${ZONE}`, 'A');
    ask(`www.${ZONE}`, 'A', true);
    for (let i = 0; i < 3; i++) expect(ask(`missing.${ZONE}`, 'A').status).toBe('NXDOMAIN');
    expect(ask(ZONE, 'MX').answers).toEqual([`10 mail.${ZONE}.`]);
    ask(ZONE, 'MX');
    expect(counted).toBe(11);

    // Rollups are written about every 2 seconds: the screen's Refresh shows them.
    await s.go('/analytics');
    const total = await eventually(
      async () => {
        await s.page.getByRole('button', { name: 'Refresh' }).click();
        await s.page.waitForSelector('.loading', { state: 'detached' });
        return tile('queries, 24 h');
      },
      (t) => t === String(counted),
      20_000,
    );
    expect(total).toBe(String(counted));
    expect(await tile('error answers')).toBe(`${Math.round((3 / 11) * 1000) / 10}%`);
    expect(await main()).toContain('Not enough history to compare against yet');
    expect(await row('Response code by queries', 'NXDOMAIN')).toEqual(['NXDOMAIN', '3', '27.3%']);
    expect(await row('Response code by queries', 'NOERROR')).toEqual(['NOERROR', '8', '72.7%']);
    expect(await row('Type by queries', 'MX')).toEqual(['MX', '2', '18.2%']);
    expect(await row('Name by queries', `missing.${ZONE}`)).toEqual([`missing.${ZONE}`, '3', '100%']);
    expect(await s.page.locator('dt:has-text("Over TCP") + dd').innerText()).toBe(
      `${Math.round((1 / 11) * 10000) / 100}%`,
    );
    // The volume chart: axes with units are drawn by uPlot; its figures are in the hidden table.
    await s.page.locator('.chart canvas').first().waitFor();
    expect(await s.page.locator('.chart figcaption').allInnerTexts()).toEqual([
      'Queries per hour',
      'Error answers (NXDOMAIN, SERVFAIL, REFUSED) per hour',
    ]);
    expect(await s.page.locator('.chart table.chart-data').first().locator('th').allTextContents()).toEqual([
      'Time (UTC)',
      'Queries (queries)',
    ]);
    const hourly = (
      await s.page.locator('.chart table.chart-data').first().locator('tbody td:nth-child(2)').allTextContents()
    ).map(Number);
    expect(hourly).toHaveLength(24);
    expect(hourly.reduce((a, b) => a + b, 0)).toBe(counted);
    // Recent queries, newest first, 25 rows by default; the limit chooser asks for 10.
    const recent = s.page.getByRole('region', { name: 'Recent queries, newest first' });
    expect(await recent.locator('tbody tr').count()).toBe(11);
    expect(await recent.locator('tbody tr').first().innerText()).toContain(ZONE);
    await s.page.getByRole('group', { name: 'Rows to show' }).getByRole('button', { name: '10', exact: true }).focus();
    await s.page.keyboard.press('Enter');
    await eventually(
      () => recent.locator('tbody tr').count(),
      (n) => n === 10,
    );
    expect(await recent.locator('tbody tr').count()).toBe(10);
    expect(await main()).toContain('Data export needs the Elite plan; you are on Pro.');
    await s.checkScreen('analytics');
  });

  it('filters by domain and switches the window to days', async () => {
    await s.page.getByLabel('Domain', { exact: true }).selectOption(OTHER);
    await eventually(
      () => tile('queries, 24 h'),
      (t) => t === '0',
    );
    expect(await tile('queries, 24 h')).toBe('0');
    await s.page.getByRole('region', { name: 'Recent queries, newest first' }).waitFor({ state: 'detached' });
    expect(await main()).toContain('No queries this month yet.');
    await s.page.getByLabel('Domain', { exact: true }).selectOption(ZONE);
    await eventually(
      () => tile('queries, 24 h'),
      (t) => t === String(counted),
    );
    await s.page.getByRole('group', { name: 'Breakdown window' }).getByRole('button', { name: '7 days' }).click();
    await s.page.locator('.chart figcaption', { hasText: 'Queries per day' }).waitFor();
    const daily = (
      await s.page.locator('.chart table.chart-data').first().locator('tbody td:nth-child(2)').allTextContents()
    ).map(Number);
    expect(daily).toHaveLength(7);
    expect(daily[6]).toBe(counted);
    await s.checkScreen('analytics-7d-filtered');
  });

  it('exports the query log as CSV on Elite', async () => {
    expect(
      (await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, { plan: 'elite' })).status,
    ).toBe(200);
    await s.go('/analytics');
    await s.page.getByLabel('Format').selectOption('csv');
    const [file] = await Promise.all([
      s.page.waitForEvent('download'),
      s.page.getByRole('link', { name: /Download CSV/ }).click(),
    ]);
    const csv = readFileSync((await file.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toContain('qname');
    expect(csv.slice(1)).toHaveLength(counted);
    expect(csv.filter((l) => l.includes(`missing.${ZONE}`))).toHaveLength(3);
    // A range over 90 days is refused in place, before asking the service.
    await s.page.getByLabel('From (UTC day)').fill('2020-01-01');
    await s.page.getByText('At most 90 days at a time.').waitFor();
    await s.checkScreen('analytics-export');
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
