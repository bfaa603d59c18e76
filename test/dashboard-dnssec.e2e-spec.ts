/**
 * The DNSSEC part of the zone screen in a real browser: turn signing on, see the DS to copy
 * and the registrar's fields, start a rollover, turn signing off (contract §17, issue 29).
 */
import { DashboardSuite, findings, startDashboardSuite } from './support/dashboard-suite';
import { startSignedParent, type SignedParent } from './support/signed-parent';

jest.setTimeout(120_000);

const ZONE = 'example.test';

describe('dashboard: DNSSEC', () => {
  let s: DashboardSuite;
  let parent: SignedParent;

  beforeAll(async () => {
    parent = await startSignedParent(ZONE);
    s = await startDashboardSuite({ VERIFY_RESOLVER: `127.0.0.1:${parent.port}` });
  });
  afterAll(async () => {
    await s?.close();
    await parent?.stop();
  });

  const card = () => s.page.locator('section[aria-labelledby="dnssec"]');

  it('turns DNSSEC on, shows the DS for the registrar, starts a rollover and turns it off', async () => {
    const user = await s.signIn();
    expect(
      (await s.server.http.post('/zones', { name: ZONE, zone_file: 'www 300 IN A 192.0.2.1' }, user.token)).status,
    ).toBe(201);
    await s.go(`/zones/${ZONE}`);
    await card().getByText('Not signed').waitFor();
    await s.checkScreen('zone-dnssec-unsigned');

    await card().getByLabel('Algorithm').selectOption('15');
    await card().getByRole('button', { name: 'Turn on DNSSEC' }).click();
    await card().getByText('Signed', { exact: true }).waitFor();
    const api = (await s.server.http.get(`/zones/${ZONE}/dnssec`, user.token)).body;
    expect(api.algorithm).toBe(15);
    const text = await card().innerText();
    expect(text).toContain(api.ds[0]);
    expect(text).toContain(String(api.keys[0].key_tag));
    expect(text).toMatch(/Digest type\s+2/);
    await s.checkScreen('zone-dnssec-signed');

    await card().getByRole('button', { name: 'Start key rollover' }).click();
    await card().getByText('Key rollover in progress').waitFor();
    expect(await card().innerText()).toContain('A new key is being published');
    await s.checkScreen('zone-dnssec-rolling');

    parent.setChildDs(api.ds);
    await card().getByRole('button', { name: 'Turn off DNSSEC' }).click();
    await card()
      .getByRole('button', { name: `Turn off DNSSEC for ${ZONE}` })
      .click();
    await card().getByText('Turning off: waiting for the DS to be removed').waitFor();
    expect(await card().innerText()).toContain('Remove the DS record');
    await s.checkScreen('zone-dnssec-unsigning');

    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
