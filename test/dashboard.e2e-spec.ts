/**
 * The dashboard end to end: `npm start`'s own server process, driven through Debian's
 * Chromium with playwright-core. Each screen's main flow runs as a user would (keyboard and
 * clicks, no API shortcuts except the operator's plan change), every screen gets an
 * axe-core scan and screenshots at 1280 and 375 px (test-output/screenshots/).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { DashboardBrowser, DESKTOP, launchDashboardBrowser, PHONE } from './support/browser';
import { eventually, screenChecker } from './support/dashboard-suite';
import { ADMIN_TOKEN } from './support/http-client';
import { listeningUpTarget } from './support/uptime-target';
import { freePort, ServerProcess, startServerProcess } from './support/server-process';
import { putWorldZone } from '../bench/support/world-dns';

jest.setTimeout(120_000);

const USER = { username: 'dash_user', email: 'dash@example.com', password: 'correct horse battery staple' };

const dig = (port: number, name: string, type: string): string[] =>
  execFileSync('dig', ['@127.0.0.1', '-p', String(port), '+short', '+time=1', '+tries=1', name, type], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .filter(Boolean);

/** A TOTP code from oathtool for the step `offsetSteps` after now. */
const totp = (secret: string, offsetSteps = 0): string =>
  execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(Date.now() / 1000) + offsetSteps * 30}`, secret], {
    encoding: 'utf8',
  }).trim();

describe('dashboard in a real browser (contract §14)', () => {
  let server: ServerProcess;
  let dataDir: string;
  let dnsPort: number;
  let checkPort: number;
  let upServer: Server;
  /** "The world": the zone's current DNS provider, seen by zone verification (VERIFY_RESOLVER). */
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let b: DashboardBrowser;
  let page: Page;
  const a11y: Record<string, string[]> = {};
  /** The account key the keys screen showed once, used by the real DDNS clients. */
  let apiKey = '';
  const overflow: Record<string, string[]> = {};

  /** Scans, measures and photographs the screen on display. */
  const checkScreen = (name: string) => screenChecker(page, a11y, overflow)(name);

  const go = async (path: string) => {
    await page.goto(`${server.url}/app${path}`);
    await page.waitForSelector('h1');
    await page.waitForSelector('.loading', { state: 'detached' });
  };
  const heading = () => page.locator('h1').innerText();
  const h1 = (title: string) => page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dashboard-e2e-'));
    dnsPort = await freePort();
    checkPort = await freePort();
    upServer = await listeningUpTarget('127.0.0.1', checkPort);
    world = new ZoneIndex();
    worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
    const { port: worldPort } = await worldServer.start();
    server = await startServerProcess(dataDir, {
      DNS_PORT: String(dnsPort),
      DDNS_ZONES: 'dyn.example.net',
      VERIFY_RESOLVER: `127.0.0.1:${worldPort}`,
      UPTIME_INTERVAL_SECONDS: '1',
      UPTIME_CHECK_PORTS: String(checkPort),
      UPTIME_TIMEOUT_MS: '1000',
      // ddclient updates from 127.0.0.1 and the monitored host is a loopback listener (contract §16 refuses both by default).
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    b = await launchDashboardBrowser();
    page = b.page;
  });

  afterAll(async () => {
    await b?.close();
    await server?.kill();
    await new Promise((r) => upServer?.close(r));
    await worldServer?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is served under /app/ with a strict CSP; / redirects there; API paths are unchanged', async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/app/']);
    const deep = await fetch(`${server.url}/app/zones/example.org`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    const csp = deep.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("object-src 'none'");
    expect(deep.headers.get('x-content-type-options')).toBe('nosniff');
    expect(deep.headers.get('x-frame-options')).toBe('DENY');
    expect(deep.headers.get('referrer-policy')).toBe('no-referrer');
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // API responses get the usual headers too.
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(health.headers.get('x-frame-options')).toBe('DENY');
  });

  it('signs up, turns 2FA on with a code from oathtool, logs out and logs in with a TOTP code', async () => {
    await go('/');
    expect(await heading()).toBe('Log in');
    await checkScreen('login');
    // A wrong password shows the contract's message, not a crash.
    await page.getByLabel('Username or email').fill('nobody');
    await page.getByLabel('Password').fill('wrong password 123');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Invalid username or password');

    await page.getByRole('link', { name: 'Create an account' }).click();
    expect(await heading()).toBe('Create your account');
    await checkScreen('signup');
    await page.getByLabel('Username').fill(USER.username);
    await page.getByLabel('Email').fill(USER.email);
    await page.getByLabel('Password').fill(USER.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await h1('Overview');
    await expect(page.locator('main').innerText()).resolves.toContain('Two-factor authentication is off');
    await checkScreen('overview');

    // The session lives in an httpOnly cookie: nothing for a script to read or steal.
    const storage = (await page.evaluate(
      '({ cookies: document.cookie, local: localStorage.length, session: sessionStorage.length })',
    )) as {
      cookies: string;
      local: number;
      session: number;
    };
    expect(storage.cookies).not.toContain('ads_session');
    expect(storage.cookies).toContain('ads_csrf');
    expect([storage.local, storage.session]).toEqual([0, 0]);
    const cookies = await b.context.cookies();
    expect(cookies.find((c) => c.name === 'ads_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const secret = (await page.locator('code.secret').innerText()).trim();
    expect(await page.locator('.twofa-setup img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await checkScreen('2fa-setup');
    await page.getByLabel('6-digit code').fill(totp(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codesBlock = page.locator('.copy-block pre');
    await codesBlock.waitFor();
    const codes = (await codesBlock.innerText()).trim().split('\n');
    expect(codes).toHaveLength(10);
    // Download gives the same codes as a file.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    const file = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(file).toEqual(codes);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('.copy-status', { hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(codes.join('\n'));
    await checkScreen('2fa-backup-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await expect(page.locator('main').innerText()).resolves.toContain('10 backup codes left');
    await checkScreen('security');

    await page.getByRole('button', { name: 'Log out' }).click();
    await h1('Log in');
    expect((await b.context.cookies()).find((c) => c.name === 'ads_session')).toBeUndefined();
    // The old page cannot act any more: the account answers 401 without the cookie.
    expect(await page.evaluate(async () => (await fetch('/account')).status)).toBe(401);

    // This time by keyboard only. Focus went to the new screen's heading; then username,
    // password, Enter; the code field takes focus.
    const focused = () =>
      page.evaluate(
        'document.activeElement && (document.activeElement.getAttribute("name") || document.activeElement.textContent)',
      );
    expect(await eventually(focused, (f) => f === 'Log in')).toBe('Log in');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('username');
    await page.keyboard.type(USER.email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(USER.password);
    await page.keyboard.press('Enter');
    await page.getByLabel('Code', { exact: true }).waitFor();
    expect(await eventually(focused, (f) => f === 'code')).toBe('code');
    await checkScreen('login-2fa');
    // The code of the next step: the one used to turn 2FA on may not be replayed.
    await page.keyboard.type(totp(secret, 1));
    await page.keyboard.press('Enter');
    await h1('Overview');
    expect(await page.locator('.who').innerText()).toContain(USER.username);
  });

  it('refuses a state change carried by the cookie without the CSRF token', async () => {
    const status = await page.evaluate(
      async () =>
        (
          await fetch('/zones', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{"name":"csrf.example"}',
          })
        ).status,
    );
    expect(status).toBe(403);
    const zones = await page.evaluate(async () => (await (await fetch('/zones')).json()) as { zones: unknown[] });
    expect(zones.zones).toEqual([]);
  });

  it('shows which plan unlocks a gated screen instead of failing', async () => {
    await go('/uptime');
    await expect(page.locator('main').innerText()).resolves.toContain(
      'Uptime monitoring needs the Plus plan or higher.',
    );
    await checkScreen('uptime-plan-gate');
    await go('/keys');
    await expect(page.locator('main').innerText()).resolves.toContain('API keys need the Pro or Elite plan');
    // The operator moves the account to Pro (billing is out of scope).
    const account = await page.evaluate(async () => (await (await fetch('/account')).json()) as { id: number });
    const res = await fetch(`${server.url}/admin/accounts/${account.id}/subscription`, {
      method: 'PUT',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', email_auth: { tier: 'enterprise', domains: ['example.org'] } }),
    });
    expect(res.status).toBe(200);
  });

  it('creates an API key shown once with a copy button, and deactivates another', async () => {
    await go('/keys');
    expect(await heading()).toBe('API keys');
    await page.getByLabel('Name').fill('home router');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.copy-block pre').innerText()).trim();
    expect(key).toMatch(/^ak_/);
    apiKey = key;
    await checkScreen('api-key-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.locator('main').innerText()).resolves.not.toContain(key);
    await page.getByLabel('Name').fill('old script');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('region', { name: 'Active API keys' }).getByText('old script').waitFor();
    const row = page.locator('tr', { hasText: 'old script' });
    // By keyboard: the confirming button takes focus, Cancel gives it back, Enter confirms.
    const hasFocus = async (name: string, exact = false) =>
      (await eventually(
        () =>
          row
            .getByRole('button', { name, exact })
            .evaluate((el) => el === el.ownerDocument.activeElement)
            .catch(() => false),
        (f) => f,
      )) === true;
    await row.getByRole('button', { name: 'Deactivate' }).focus();
    await page.keyboard.press('Enter');
    expect(await hasFocus('Deactivate old script')).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Cancel
    expect(await hasFocus('Deactivate', true)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await hasFocus('Deactivate old script')).toBe(true);
    await page.keyboard.press('Enter'); // confirm
    await page.locator('tr', { hasText: 'old script' }).waitFor({ state: 'detached' });
    // An email-authentication key with its settings (Enterprise tier, 2FA on).
    await page.getByLabel('Name').fill('dmarc reader');
    await page.getByLabel('Access').selectOption('email_auth:read');
    await page.getByLabel('example.org').check();
    await page.getByLabel('Show subjects of failure reports').check();
    await page.getByLabel('Expires after (days)').fill('30');
    await checkScreen('api-key-email-auth-form');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key “dmarc reader” created' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.locator('tr', { hasText: 'dmarc reader' }).getByText('Email auth (read): example.org').waitFor();
    await checkScreen('api-keys');
    // The key shown once works for a real DDNS client request.
    const upd = await fetch(`${server.url}/domains/nic/update?hostname=nothere.dyn.example.net&myip=192.0.2.1`, {
      headers: { Authorization: `Basic ${Buffer.from(`${USER.username}:${key}`).toString('base64')}` },
    });
    expect(await upd.text()).toBe('nohost');
  });

  it('creates a DDNS host that the DNS server answers, edits its address, shows client configs', async () => {
    await go('/ddns');
    await checkScreen('ddns-empty');
    await page.getByLabel('Host name').fill('home.dyn.example.net');
    await page.getByLabel('Address').fill('203.0.113.7');
    await page.getByRole('button', { name: 'Create host' }).click();
    await h1('home.dyn.example.net');
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A'),
        (a) => a[0] === '203.0.113.7',
      ),
    ).toEqual(['203.0.113.7']);
    const configs = await page.locator('.copy-block pre').allInnerTexts();
    expect(configs[0]).toContain('protocol=dyndns2');
    expect(configs[0]).toContain(`server=127.0.0.1:${server.port}`);
    expect(configs[0]).toContain(`login=${USER.username}`);
    expect(configs[0]).toMatch(/^home\.dyn\.example\.net$/m);
    expect(configs[1]).toContain('hostname = { home.dyn.example.net }');
    expect(configs[2]).toContain(
      `http://127.0.0.1:${server.port}/domains/nic/update?hostname=home.dyn.example.net&myip=<ipaddr>`,
    );
    await checkScreen('ddns-host');

    // The pasted configurations work with the real clients (the key filled in): each sets the
    // address the service's checkip reports, here 127.0.0.1.
    const work = mkdtempSync(join(dataDir, 'clients-'));
    const ddclientConf = join(work, 'ddclient.conf');
    writeFileSync(ddclientConf, configs[0].replace('YOUR_API_KEY', apiKey) + '\n', { mode: 0o600 });
    const ddclient = execFileSync(
      'ddclient',
      ['-daemon=0', '-verbose', '-noquiet', '-force', '-file', ddclientConf, '-cache', join(work, 'cache')],
      {
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(ddclient).toMatch(/SUCCESS:\s+updating home\.dyn\.example\.net/);
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A'),
        (a) => a[0] === '127.0.0.1',
      ),
    ).toEqual(['127.0.0.1']);
    // inadyn: first move the address away so its update is a real change.
    await fetch(`${server.url}/domains/nic/update?hostname=home.dyn.example.net&myip=192.0.2.50`, {
      headers: { Authorization: `Basic ${Buffer.from(`${USER.username}:${apiKey}`).toString('base64')}` },
    });
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A'),
        (a) => a[0] === '192.0.2.50',
      ),
    ).toEqual(['192.0.2.50']);
    const inadynConf = join(work, 'inadyn.conf');
    writeFileSync(inadynConf, configs[1].replace('YOUR_API_KEY', apiKey) + '\n', { mode: 0o600 });
    // inadyn waits 600 s after a 5xx even in run-once mode: `timeout` bounds it.
    const inadyn = spawnSync(
      'timeout',
      [
        '30',
        'inadyn',
        '-1',
        '-n',
        '--no-pidfile',
        '--force',
        '-l',
        'info',
        '-f',
        inadynConf,
        '--cache-dir',
        join(work, 'icache'),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(inadyn.stdout + inadyn.stderr).toContain('Successful alias table update for home.dyn.example.net');
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A'),
        (a) => a[0] === '127.0.0.1',
      ),
    ).toEqual(['127.0.0.1']);

    await page.getByLabel('New address (IPv4 or IPv6)').fill('203.0.113.8');
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByText('Address saved').waitFor();
    expect(
      await eventually(
        () => dig(dnsPort, 'home.dyn.example.net', 'A'),
        (a) => a[0] === '203.0.113.8',
      ),
    ).toEqual(['203.0.113.8']);
    // A bad address gets the API's message in place.
    await page.getByLabel('New address (IPv4 or IPv6)').fill('not-an-ip');
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByRole('alert').waitFor();

    await go('/ddns');
    await page.getByLabel('Host name').fill('gone.dyn.example.net');
    await page.getByLabel('Address').fill('192.0.2.99');
    await page.getByRole('button', { name: 'Create host' }).click();
    await h1('gone.dyn.example.net');
    await page.getByRole('button', { name: 'Delete host' }).click();
    await page.getByRole('button', { name: 'Delete gone.dyn.example.net' }).click();
    await h1('Dynamic DNS hosts');
    expect(
      await eventually(
        () => dig(dnsPort, 'gone.dyn.example.net', 'A'),
        (a) => a.length === 0,
      ),
    ).toEqual([]);
    await page.getByRole('link', { name: 'home.dyn.example.net' }).waitFor();
    await checkScreen('ddns-hosts');
  });

  it('imports a BIND zone file, edits records and verifies the zone', async () => {
    await go('/zones');
    await checkScreen('zones-empty');
    const zoneFile = join(dataDir, 'example.org.zone');
    writeFileSync(
      zoneFile,
      [
        '$ORIGIN example.org.',
        '$TTL 300',
        'www IN A 192.0.2.80',
        '@ IN MX 10 mail.example.org.',
        'mail IN A 192.0.2.25',
        '',
      ].join('\n'),
    );
    await page.getByLabel('Zone name').fill('example.org');
    await page.getByLabel('BIND zone file (optional)').setInputFiles(zoneFile);
    // The file is read into the editable text (asynchronously) before it is sent.
    expect(
      await eventually(
        () => page.getByLabel('Zone file contents').inputValue(),
        (v) => v.includes('www IN A 192.0.2.80'),
      ),
    ).toContain('$ORIGIN example.org.');
    await page.getByRole('button', { name: 'Import zone' }).click();
    await h1('example.org');
    expect(
      await eventually(
        () => dig(dnsPort, 'www.example.org', 'A'),
        (a) => a.length > 0,
      ),
    ).toEqual(['192.0.2.80']);
    await expect(page.locator('main').innerText()).resolves.toContain('Waiting for verification');
    await checkScreen('zone-pending');
    // Before the TXT record exists at the zone's current provider, a check says why it failed.
    await page.getByRole('button', { name: 'Check verification now' }).click();
    await page.getByRole('alert').filter({ hasText: 'The zone is not verified' }).waitFor();
    await checkScreen('zone-not-verified');
    const txt = await page.locator('.copy-block pre').first().innerText();
    const value = /"([^"]+)"/.exec(txt)![1];
    expect(txt).toBe(`_account-dns-verify.example.org. 300 IN TXT "${value}"`);
    // The user adds the record at the old provider, as the screen says.
    putWorldZone(world, 'example.org', ['ns1.old-provider.net']);
    world.setRRset('example.org', '_account-dns-verify', 'TXT', 300, [`"${value}"`]);
    await page.getByRole('button', { name: 'Check verification now' }).click();
    await page.locator('.status-ok', { hasText: 'Verified' }).waitFor();

    // Add a record set with the records editor; the DNS server answers it.
    await page.getByRole('button', { name: 'Add records' }).click();
    await page.getByLabel('Name', { exact: true }).fill('_dmarc');
    await page.getByLabel('Type').selectOption('TXT');
    await page.getByLabel('Records, one per line').fill('"v=DMARC1; p=none"');
    await checkScreen('zone-record-editor');
    await page.getByRole('button', { name: 'Save records' }).click();
    await page.locator('code', { hasText: '_dmarc' }).waitFor();
    expect(
      await eventually(
        () => dig(dnsPort, '_dmarc.example.org', 'TXT'),
        (a) => a.length > 0,
      ),
    ).toEqual(['"v=DMARC1; p=none"']);

    // Edit the www A record in place: the address it replaces is named before it goes.
    await page.getByRole('button', { name: 'Edit www A' }).click();
    await page.getByLabel('Records, one per line').fill('192.0.2.81');
    await page.getByRole('button', { name: 'Save records' }).click();
    await page.getByRole('group', { name: 'Saving removes:' }).getByText('192.0.2.80').waitFor();
    await page.getByRole('button', { name: 'Remove and save' }).click();
    expect(
      await eventually(
        () => dig(dnsPort, 'www.example.org', 'A'),
        (a) => a[0] === '192.0.2.81',
      ),
    ).toEqual(['192.0.2.81']);
    // Delete the mail A record set, confirming in place.
    await page
      .locator('tr', { hasText: 'mail' })
      .filter({ hasText: '192.0.2.25' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('button', { name: 'Delete mail A' }).click();
    await page.locator('code', { hasText: /^mail$/ }).waitFor({ state: 'detached' });
    expect(
      await eventually(
        () => dig(dnsPort, 'mail.example.org', 'A'),
        (a) => a.length === 0,
      ),
    ).toEqual([]);
    await checkScreen('zone-verified');
    await go('/zones');
    await page.getByRole('link', { name: 'example.org' }).waitFor();
    await checkScreen('zones');
  });

  it('enables monitoring with the plan limit shown and draws uptime and response-time charts', async () => {
    await go('/ddns');
    await page.getByLabel('Host name').fill('web.dyn.example.net');
    await page.getByLabel('Address').fill('127.0.0.1');
    await page.getByRole('button', { name: 'Create host' }).click();
    await h1('web.dyn.example.net');
    await go('/uptime');
    await page.locator('.tile', { hasText: '0/50' }).waitFor();
    await page.getByRole('button', { name: 'Monitor web.dyn.example.net' }).click();
    await page.getByRole('button', { name: 'Stop monitoring web.dyn.example.net' }).waitFor();
    await page.locator('.tile', { hasText: '1/50' }).waitFor();
    await eventually(
      async () => {
        await go('/uptime');
        await page.waitForSelector('.loading', { state: 'detached' });
        return page.locator('tr', { hasText: 'web.dyn.example.net' }).innerText();
      },
      (t) => t.includes('Up'),
      20_000,
    );
    await checkScreen('uptime');
    await page.getByRole('link', { name: 'web.dyn.example.net' }).click();
    await h1('Uptime history');
    // Both charts load uPlot on their own; the second may draw a moment after the first.
    expect(
      await eventually(
        () => page.locator('.chart canvas').count(),
        (n) => n === 2,
        10_000,
      ),
    ).toBe(2);
    // Units in the captions and in the figures' text alternative (uPlot draws the axis labels on the canvas).
    // The last hour by the minute (issue 27: a useful resolution for the range).
    expect(await page.locator('.chart figcaption').allInnerTexts()).toEqual([
      'Uptime per minute (%)',
      'Average response time per minute (ms)',
    ]);
    const headers = await page.locator('.chart table.chart-data th').allTextContents();
    expect(headers).toEqual(['Time (UTC)', 'Uptime (%)', 'Time (UTC)', 'Response time (ms)']);
    // At least one measured point behind each chart: 100 % up, a response time in ms.
    const firstRow = await page.locator('.chart table.chart-data').first().locator('tbody tr td').allTextContents();
    expect(firstRow[1]).toBe('100');
    await expect(page.locator('.chart table.chart-data').nth(1).locator('tbody tr').count()).resolves.toBeGreaterThan(
      0,
    );
    await checkScreen('uptime-history-1h');
    await page.getByRole('button', { name: '30 days' }).click();
    await page.locator('[aria-pressed="true"]', { hasText: '30 days' }).waitFor();
    await page.locator('.chart canvas').first().waitFor();
    await checkScreen('uptime-history-30d');
    // Monitoring off again: the host shows as not monitored and the limit frees up.
    await go('/uptime');
    await page.getByRole('button', { name: 'Stop monitoring web.dyn.example.net' }).click();
    await page.getByRole('button', { name: 'Monitor web.dyn.example.net' }).waitFor();
    await page.locator('.tile', { hasText: '0/50' }).waitFor();
    await page.locator('tr', { hasText: 'web.dyn.example.net' }).getByText('Not monitored').waitFor();
  });

  it('changes the password and lists the account audit log', async () => {
    await go('/account/security');
    // A wrong current password is an error to show, not a lost session.
    await page.getByLabel('Current password', { exact: true }).last().fill('not my password');
    await page.getByLabel('New password').fill('another long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The current password is wrong.' }).waitFor();
    expect(await heading()).toBe('Security');
    await page.getByLabel('Current password', { exact: true }).last().fill(USER.password);
    await page.getByLabel('New password').fill('another long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed').waitFor();
    // New backup codes need the (new) password and are shown once.
    await page.getByLabel('Current password', { exact: true }).first().fill('another long passphrase');
    await page.getByRole('button', { name: 'New backup codes' }).click();
    await page.getByRole('heading', { name: 'Your backup codes' }).waitFor();
    expect((await page.locator('.copy-block pre').innerText()).trim().split('\n')).toHaveLength(10);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    // And 2FA off again, with the password.
    await page.getByLabel('Current password', { exact: true }).first().fill('another long passphrase');
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    expect(
      await page.evaluate(async () => (await (await fetch('/2fa/status')).json()) as { enabled: boolean }),
    ).toMatchObject({ enabled: false });
    // The current session stays; the audit log shows what happened, newest first.
    await go('/audit');
    await page.locator('table').waitFor();
    const text = await page.locator('main').innerText();
    for (const what of [
      'Password changed',
      'Zone imported',
      'Two factor enabled',
      'Two factor disabled',
      'API key created',
      'Subscription changed',
    ])
      expect(text.toLowerCase()).toContain(what.toLowerCase());
    await checkScreen('audit');
  });

  it('shows errors in place: an unknown zone, an unknown page', async () => {
    await go('/zones/not-mine.example');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/not found/i);
    await alert.getByRole('button', { name: 'Try again' }).waitFor();
    await checkScreen('error-zone-not-found');
    await go('/no/such/page');
    expect(await heading()).toBe('Page not found');
    await page.getByRole('link', { name: 'Go to the overview' }).click();
    await h1('Overview');
  });

  it('navigates with the menu at phone width', async () => {
    await page.setViewportSize(PHONE);
    await go('/');
    await expect(page.getByRole('navigation', { name: 'Main' }).isVisible()).resolves.toBe(false);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await checkScreen('menu-open');
    await page.setViewportSize(PHONE);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Zones' }).click();
    await h1('Zones');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.setViewportSize(DESKTOP);
  });

  it('has no serious or critical accessibility violations, nothing wider than 375 px, and no CSP violation', () => {
    expect(Object.keys(a11y).length).toBeGreaterThanOrEqual(20);
    expect(Object.fromEntries(Object.entries(a11y).filter(([, v]) => v.length))).toEqual({});
    expect(Object.fromEntries(Object.entries(overflow).filter(([, v]) => v.length))).toEqual({});
    expect(b.problems).toEqual([]);
  });
});
