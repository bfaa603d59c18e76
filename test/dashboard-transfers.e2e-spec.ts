/**
 * The transfer screens in a real browser (contract §14, §18): TSIG keys (secret shown
 * once), a zone's secondaries, the zone-file download.
 */
import { readFileSync } from 'node:fs';
import { DashboardSuite, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';

jest.setTimeout(120_000);

const ZONE = 'xfr-dash.example';

describe('dashboard: TSIG keys, secondaries, export (§18)', () => {
  let s: DashboardSuite;
  let user: SignedIn;

  beforeAll(async () => {
    s = await startDashboardSuite();
    user = await s.signIn({ plan: 'pro' });
    const zone = await s.server.http.post('/zones', { name: ZONE, zone_file: 'www 300 IN A 192.0.2.80\n' }, user.token);
    expect(zone.status).toBe(201);
  });
  afterAll(() => s?.close());

  it('creates a transfer key for a zone and shows its secret once', async () => {
    await s.go('/tsig-keys');
    await s.h1('TSIG keys');
    await s.page.getByLabel('Key name').fill('dash-xfr.example');
    await s.page.getByLabel(ZONE).check();
    await s.checkScreen('tsig-keys');
    await s.page.getByRole('button', { name: 'Create TSIG key' }).click();
    await s.page.getByRole('heading', { name: 'TSIG key “dash-xfr.example” created' }).waitFor();
    const listed = (await s.server.http.get('/tsig-keys', user.token)).body.tsig_keys;
    expect(listed).toEqual([expect.objectContaining({ name: 'dash-xfr.example', purpose: 'transfer', zones: [ZONE] })]);
    await s.checkScreen('tsig-key-created');
    await s.page.getByRole('button', { name: 'Done' }).click();
    await s.page.getByRole('table', { name: 'TSIG keys' }).getByText('dash-xfr.example').waitFor();
  });

  it('adds and removes a secondary on the zone screen, and downloads the zone file', async () => {
    await s.go(`/zones/${ZONE}`);
    await s.page.getByLabel('Address').fill('192.0.2.53');
    await s.page.getByRole('button', { name: 'Add secondary' }).click();
    await s.page
      .getByRole('table', { name: `Secondaries of ${ZONE}` })
      .getByText('192.0.2.53')
      .waitFor();
    await s.checkScreen('zone-secondaries');
    const [file] = await Promise.all([
      s.page.waitForEvent('download'),
      s.page.getByRole('link', { name: 'Download zone file' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe(`${ZONE}.zone`);
    expect(readFileSync((await file.path())!, 'utf8')).toContain('www 300 IN A 192.0.2.80');
    await s.page.getByRole('button', { name: 'Remove' }).click();
    await s.page.getByRole('button', { name: 'Remove 192.0.2.53' }).click();
    await s.page.getByText('No secondaries.').waitFor();
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
