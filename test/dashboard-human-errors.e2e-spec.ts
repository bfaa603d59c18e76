/**
 * Issue 27, "Human errors" and the sign-in notices: each API validation error is said beside
 * the field it concerns, in words, with the service's text behind a details toggle; different
 * problems get different sentences; a lockout says how long it lasts; a session that ends
 * under the page says so and the next login returns to the page. Real server process,
 * Debian's Chromium; every screen scanned with axe-core and photographed at 1280 and 390 px.
 */
import { screenshotsAt } from './support/browser';
import { DashboardSuite, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { registerAndLogin } from './support/http-client';

jest.setTimeout(180_000);

describe('dashboard: errors in words, lockout and session-expired notices (issue 27)', () => {
  let s: DashboardSuite;
  let user: SignedIn;

  beforeAll(async () => {
    // No ALLOW_PRIVATE_TARGETS: a private address is refused as a host's address (contract §16).
    s = await startDashboardSuite({ DDNS_ZONES: 'dyn.example.net' });
  });
  afterAll(async () => s?.close());

  const check = async (name: string) => {
    await s.checkScreen(name);
    await screenshotsAt(s.page, name, [1280, 390]);
  };
  /** The message tied to the input labelled `label` (its aria-describedby), and whether it is marked invalid. */
  const fieldState = async (label: string) => {
    const input = s.page.getByLabel(label, { exact: true });
    const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-error'));
    const message = ids.length ? await s.page.locator(`[id="${ids[0]}"]`).innerText() : null;
    return { invalid: await input.getAttribute('aria-invalid'), message };
  };

  it('a locked login says for how long', async () => {
    const victim = await registerAndLogin(s.server.http);
    for (let i = 0; i < 5; i++)
      expect(
        (await s.server.http.post('/auth/login', { username: victim.username, password: 'wrong-password-x' })).status,
      ).toBe(401);
    await s.go('/login');
    await s.page.getByLabel('Username or email').fill(victim.username);
    await s.page.getByLabel('Password').fill(victim.password);
    await s.page.getByRole('button', { name: 'Log in' }).click();
    const alert = s.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('p').first().innerText()).toMatch(
      /^Too many wrong passwords for this account: password login is locked for 15 minutes\. Try again in 15 minutes \(at \d\d:\d\d UTC\)\.$/,
    );
    await check('login-locked');
  });

  it('the DDNS form says each problem beside its field, differently for different problems, the wire text behind Details', async () => {
    user = await s.signIn({ plan: 'pro' });
    await s.go('/ddns');
    const form = s.page.getByRole('form', { name: 'Create a DDNS host' });
    await s.page.getByLabel('Host name').fill('my host.dyn.example.net');
    await s.page.getByLabel('Address').fill('203.0.113.7');
    await form.getByRole('button', { name: 'Create host' }).click();
    await form.getByRole('alert').waitFor();
    const malformed = await fieldState('Host name');
    expect(malformed).toEqual({
      invalid: 'true',
      message:
        'Use letters, digits and hyphens in each part of the name, with dots between the parts; for example home.dyn.example.net.',
    });
    expect(await form.getByRole('alert').locator('p').allInnerTexts()).toEqual(['Check the field marked below.']);
    // Focus went to the field to correct.
    expect(await s.page.evaluate('document.activeElement.name')).toBe('fqdn');
    // The service's own words only behind the toggle.
    const details = form.getByRole('alert').locator('details');
    expect(await details.getAttribute('open')).toBeNull();
    await details.locator('summary').click();
    expect(await details.locator('code').innerText()).toBe(
      '400 invalid_fqdn: fqdn must be a host name under a dynamic-DNS zone or one of your verified zones',
    );
    await check('ddns-field-error');

    await s.page.getByLabel('Host name').fill('home.other.example');
    await form.getByRole('button', { name: 'Create host' }).click();
    await s.page.getByText('The name must end in one of').waitFor();
    expect((await fieldState('Host name')).message).toBe(
      "The name must end in one of the service's DDNS zones (for example home.dyn.example.net) or in one of your verified zones.",
    );

    await s.page.getByLabel('Host name').fill('home.dyn.example.net');
    await s.page.getByLabel('Address').fill('10.0.0.1');
    await form.getByRole('button', { name: 'Create host' }).click();
    await s.page.getByText('is a private address').waitFor();
    expect(await fieldState('Address')).toEqual({
      invalid: 'true',
      message: "10.0.0.1 is a private address, which the internet cannot reach. Enter the host's public address.",
    });
    expect((await fieldState('Host name')).invalid).toBeNull();
  });

  it('the record form puts a bad TTL and a bad record beside their fields', async () => {
    const zone = await s.server.http.post('/zones', { name: 'errors.example' }, user.token);
    expect(zone.status).toBe(201);
    await s.go('/zones/errors.example');
    await s.page.getByRole('button', { name: 'Add records' }).click();
    await s.page.getByLabel('Name', { exact: true }).fill('www');
    await s.page.getByLabel('Type').selectOption('MX');
    await s.page.getByLabel('Records, one per line').fill('mail.example.');
    await s.page.getByRole('button', { name: 'Save records' }).click();
    await s.page.getByText('is not a valid MX record').waitFor();
    expect(await fieldState('Records, one per line')).toEqual({
      invalid: 'true',
      message:
        '"mail.example." is not a valid MX record (expected preference, exchange). For example: 10 mail.example.com.',
    });
    await check('zone-record-field-error');
  });

  it('a session ended elsewhere signs the page out at once with a notice; logging in returns to the page', async () => {
    await s.go('/zones/errors.example');
    // Another session of the same account changes the password: every other session ends.
    const changed = await s.server.http.post(
      '/account/password',
      { current_password: user.password, new_password: 'another-long-password' },
      user.token,
    );
    expect(changed.status).toBe(204);
    // No click: the live stream says the session ended.
    await s.h1('Log in');
    expect(await s.page.locator('main').innerText()).toContain('Your session has ended');
    await check('login-session-ended');
    await s.page.getByLabel('Username or email').fill(user.username);
    await s.page.getByLabel('Password').fill('another-long-password');
    await s.page.getByRole('button', { name: 'Log in' }).click();
    await s.h1('errors.example');
    expect(new URL(s.page.url()).pathname).toBe('/app/zones/errors.example');
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
