/**
 * Issue 27, "Bugs found": the dashboard edits only what the owner asked for and says what
 * the data says. Real server process, Debian's Chromium, `dig` for what the DNS server
 * answers, real uptime checks (a listening port for the up host, a refused one for the
 * down host) and the operator's nightly DMARC job. Every screen changed is scanned with
 * axe-core and photographed at 1280, 390 and 375 px (test-output/screenshots/).
 */
import { Server } from 'node:net';
import type { DnsServer, ZoneIndex } from '../libs/dns-server';
import { screenshotsAt } from './support/browser';
import { DashboardSuite, eventually, findings, SignedIn, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { enrolZone, startWorld } from './support/email-auth';
import { freePort } from './support/server-process';
import { listeningUpTarget } from './support/uptime-target';

jest.setTimeout(240_000);

const ZONE = 'safe-edits.example';
const DAY = 86_400_000;
const ZONE_FILE = [
  `$ORIGIN ${ZONE}.`,
  '$TTL 300',
  '@ IN A 192.0.2.1',
  '@ IN TXT "v=spf1 mx -all"',
  '@ IN MX 10 mail',
  'mail IN A 192.0.2.25',
  'old IN TXT "keep me"',
  '',
].join('\n');

describe('dashboard: safe edits and honest screens (issue 27)', () => {
  let s: DashboardSuite;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let upServer: Server;
  let dnsPort: number;
  let user: SignedIn;

  beforeAll(async () => {
    dnsPort = await freePort();
    const checkPort = await freePort();
    upServer = await listeningUpTarget('127.0.0.1', checkPort);
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    s = await startDashboardSuite({
      DNS_PORT: String(dnsPort),
      DDNS_ZONES: 'dyn.example.net',
      VERIFY_RESOLVER: `127.0.0.1:${w.port}`,
      UPTIME_INTERVAL_SECONDS: '1',
      UPTIME_CHECK_PORTS: String(checkPort),
      UPTIME_TIMEOUT_MS: '1000',
      // The uptime targets are loopback listeners (contract §16 refuses them by default).
      ALLOW_PRIVATE_TARGETS: 'true',
    });
    user = await s.signIn({ plan: 'pro' });
    await enrolZone(s.server.http, world, user, ZONE, { zoneFile: ZONE_FILE });
  });
  afterAll(async () => {
    await s?.close();
    await worldServer?.stop();
    await new Promise((r) => upServer?.close(r));
  });

  const main = () => s.page.locator('main').innerText();
  const answers = (name: string, type: string) => dig(dnsPort, name, type).answers.sort();
  const rrsets = async () =>
    (await s.server.http.get(`/zones/${ZONE}/records`, user.token)).body.records as {
      subname: string;
      type: string;
      records: string[];
    }[];
  const check = async (name: string) => {
    await s.checkScreen(name);
    await screenshotsAt(s.page, name, [1280, 390]);
  };
  const section = (title: string) =>
    s.page.locator('section.card', { has: s.page.getByRole('heading', { level: 2, name: title, exact: true }) });

  it('bug 1: a changed name moves the RRset in one PUT after naming what goes; no copy is left', async () => {
    await s.go(`/zones/${ZONE}`);
    await s.page.getByRole('button', { name: 'Edit old TXT' }).click();
    await s.page.getByLabel('Name', { exact: true }).fill('new');
    const puts: string[] = [];
    s.page.on('request', (r) => r.method() === 'PUT' && puts.push(r.postData() ?? ''));
    await s.page.getByRole('button', { name: 'Save records' }).click();
    const confirm = s.page.getByRole('group', { name: 'Move old TXT to new TXT? Saving removes:' });
    await confirm.getByText('"keep me"').waitFor();
    expect(puts).toEqual([]);
    // Focus is on the confirming button: a keyboard user confirms with Enter.
    const focused = () => s.page.evaluate('document.activeElement.textContent') as Promise<string>;
    expect(await eventually(focused, (t) => t === 'Move and save', 5_000)).toBe('Move and save');
    await check('zone-record-move-confirm');
    await s.page.keyboard.press('Enter');
    await s.page.locator('td code', { hasText: /^new$/ }).waitFor();
    expect(await s.page.locator('td code', { hasText: /^old$/ }).count()).toBe(0);
    expect(puts.map((p) => JSON.parse(p))).toEqual([
      {
        records: [
          { subname: 'old', type: 'TXT', ttl: 300, records: [] },
          { subname: 'new', type: 'TXT', ttl: 300, records: ['"keep me"'] },
        ],
      },
    ]);
    const txt = (await rrsets()).filter((r) => r.type === 'TXT' && ['old', 'new'].includes(r.subname));
    expect(txt).toEqual([expect.objectContaining({ subname: 'new', records: ['"keep me"'] })]);
    expect(
      await eventually(
        () => answers(`old.${ZONE}`, 'TXT'),
        (a) => a.length === 0,
      ),
    ).toEqual([]);
    expect(answers(`new.${ZONE}`, 'TXT')).toEqual(['"keep me"']);
  });

  it('bug 2 and 10: adding merges beside the apex A record; dropping one asks first; Cancel sits beside Save', async () => {
    await s.go(`/zones/${ZONE}`);
    await s.page.getByRole('button', { name: 'Add records' }).click();
    await s.page.getByLabel('Name', { exact: true }).fill('@');
    await s.page.getByLabel('Type').selectOption('A');
    await s.page.getByLabel('Records, one per line').fill('192.0.2.2');
    await check('zone-record-add');
    await s.page.getByRole('button', { name: 'Save records' }).click();
    await s.page.locator('td code', { hasText: /^192\.0\.2\.2$/ }).waitFor();
    // Added beside the imported record, which keeps its TTL (none was typed).
    expect((await rrsets()).find((r) => r.subname === '' && r.type === 'A')).toEqual({
      subname: '',
      type: 'A',
      ttl: 300,
      records: ['192.0.2.1', '192.0.2.2'],
    });
    expect(
      await eventually(
        () => answers(ZONE, 'A'),
        (a) => a.length === 2,
      ),
    ).toEqual(['192.0.2.1', '192.0.2.2']);

    // Editing away a record names it; Back keeps everything.
    await s.page.getByRole('button', { name: 'Edit @ A' }).click();
    // The form's buttons share a row, Cancel after Save and no wider than its text.
    const save = (await s.page.getByRole('button', { name: 'Save records' }).boundingBox())!;
    const cancel = (await s.page.getByRole('button', { name: 'Cancel' }).boundingBox())!;
    expect([Math.round(cancel.y), cancel.x > save.x, cancel.width < 200]).toEqual([Math.round(save.y), true, true]);
    await s.page.getByLabel('Records, one per line').fill('192.0.2.2');
    await s.page.getByRole('button', { name: 'Save records' }).click();
    const confirm = s.page.getByRole('group', { name: 'Saving removes:' });
    expect(await confirm.innerText()).toContain('192.0.2.1');
    expect(await confirm.innerText()).not.toContain('192.0.2.2');
    await check('zone-record-remove-confirm');
    await confirm.getByRole('button', { name: 'Back to editing' }).click();
    await s.page.getByRole('button', { name: 'Cancel' }).click();
    expect((await rrsets()).find((r) => r.subname === '' && r.type === 'A')!.records.sort()).toEqual([
      '192.0.2.1',
      '192.0.2.2',
    ]);
  });

  it('bug 3 and 7: the SPF form starts from the published record, saving keeps mx and -all; the event log shows the save at once', async () => {
    await s.go(`/email-auth/${ZONE}`);
    const spf = section('SPF');
    expect(await spf.innerText()).toContain('Published now: v=spf1 mx -all');
    expect(await spf.getByLabel('Mail servers (mx) of').inputValue()).toBe('@');
    expect(await spf.getByLabel('Everything else').inputValue()).toBe('-all');
    const log = s.page.getByRole('region', { name: 'Email authentication events, newest first' });
    expect(await section('Event log').innerText()).toContain('Nothing has happened for this zone yet.');
    await spf.getByLabel("Include (sending services' domains)").fill('_spf.mailer.example');
    await spf.getByLabel('IPv4 senders').fill('192.0.2.25');
    await spf.getByRole('button', { name: 'Save SPF' }).click();
    await spf.getByText('SPF saved').waitFor();
    const record = 'v=spf1 mx ip4:192.0.2.25 include:_spf.mailer.example -all';
    await s.page.getByRole('region', { name: 'Generated records' }).locator('tr', { hasText: record }).waitFor();
    expect(
      await eventually(
        () => answers(ZONE, 'TXT'),
        (a) => a.includes(`"${record}"`),
      ),
    ).toEqual([`"${record}"`]);
    // No reload: the log loaded again after the save.
    await log.getByText('Spf configured').waitFor();
    await check('email-auth-spf-from-published');

    // The API: the published record read into the fields, the new ones included.
    const settings = (await s.server.http.get(`/email-auth/domains/${ZONE}`, user.token)).body;
    expect(settings.published_spf).toEqual({
      record,
      settings: {
        include: ['_spf.mailer.example'],
        ip4: ['192.0.2.25'],
        ip6: [],
        all: '-all',
        a: [],
        mx: ['@'],
        exists: [],
        redirect: null,
      },
      unsupported: [],
    });
    expect(settings.spf).toMatchObject({ mx: ['@'], a: [], all: '-all', dns_lookups: 2 });
  });

  it('bug 3: terms the form cannot hold are named, and saving without them asks first', async () => {
    const put = await s.server.http.put(
      `/zones/${ZONE}/records`,
      { records: [{ subname: '', type: 'TXT', ttl: 300, records: ['"v=spf1 a ptr -all"'] }] },
      user.token,
    );
    expect(put.status).toBe(200);
    await s.go(`/email-auth/${ZONE}`);
    const spf = section('SPF');
    expect(await spf.innerText()).toContain('The published record has terms this form cannot keep: ptr.');
    expect(await spf.getByLabel('Addresses (a) of').inputValue()).toBe('@');
    await spf.getByRole('button', { name: 'Save SPF' }).click();
    const confirm = s.page.getByRole('group', { name: 'Remove terms from the SPF record?' });
    expect(await confirm.innerText()).toContain('Saving removes ptr from the published SPF record.');
    await check('email-auth-spf-confirm');
    await confirm.getByRole('button', { name: 'Remove and save' }).click();
    await spf.getByText('SPF saved').waitFor();
    expect(
      await eventually(
        () => answers(ZONE, 'TXT'),
        (a) => a.includes('"v=spf1 a -all"'),
      ),
    ).toEqual(['"v=spf1 a -all"']);
  });

  it('bug 4: no messages at the stage is "no data yet", not a 0 % pass rate; days are the nightly runs the API counts', async () => {
    await s.go(`/email-auth/${ZONE}`);
    await section('DMARC').getByRole('button', { name: 'Save DMARC' }).click();
    await section('DMARC').getByText('DMARC saved').waitFor();
    await s.page.getByRole('link', { name: 'Open the DMARC wizard' }).click();
    await s.h1('DMARC wizard');
    // A nightly run soon after opening: one day counted, no reported mail.
    const night = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 2) + DAY;
    expect(
      (await s.server.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: new Date(night).toISOString() })).status,
    ).toBe(200);
    // The job answers once the read models show its night (it waits for them, up to 5 s); the reloads
    // are for the page, whose figures come from its own fetches.
    const text = await eventually(
      async () => {
        await s.go(`/email-auth/${ZONE}/wizard`);
        return main();
      },
      (t) => t.includes('1 of 14 recommended days') && t.includes('No pass rate yet'),
      20_000,
    );
    expect(await s.page.locator('.empty', { hasText: 'No pass rate yet' }).count()).toBe(1);
    expect(text).toContain('DMARC pass rate\nNo data yet: no reported messages at this stage');
    expect(text).not.toMatch(/pass rate\s+0%/);
    expect(text).toContain('1 of 14 recommended days (one per nightly run at 02:00 UTC)');
    expect(text).not.toContain('The DMARC pass rate is below');
    expect(await s.page.locator('.chart canvas').count()).toBe(0);
    await check('dmarc-wizard-no-data');
  });

  it('bug 5: uptime screens refresh by themselves; a down host charts on the same x axis as its neighbour', async () => {
    const hosts: Record<string, number> = {};
    for (const [name, ip] of [
      ['up', '127.0.0.1'],
      ['down', '127.0.0.2'],
    ]) {
      const res = await s.server.http.post(
        '/api/domains',
        { fqdn: `${name}.dyn.example.net`, record_type: 'A', record_ip: ip },
        user.token,
      );
      expect(res.status).toBe(201);
      hosts[name] = res.body.id;
    }
    await s.go('/uptime');
    const row = (name: string) => s.page.locator('tr', { hasText: `${name}.dyn.example.net` });
    await row('up').getByText('Not monitored').waitFor();
    for (const id of Object.values(hosts))
      expect((await s.server.http.post(`/uptime/domain/${id}/monitor`, { enabled: true }, user.token)).status).toBe(
        200,
      );
    // No navigation from here: the screen reads again by itself.
    await row('up').getByText('Up', { exact: true }).waitFor({ timeout: 20_000 });
    await row('down').getByText('Down', { exact: true }).waitFor({ timeout: 20_000 });
    const lastCheck = () => row('up').locator('td').nth(5).innerText();
    const first = await lastCheck();
    expect(await eventually(lastCheck, (t) => t !== first, 20_000)).not.toBe(first);
    await check('uptime-refreshing');

    const ranges = async (id: number) => {
      await s.go(`/uptime/${id}`);
      await s.page.locator('.chart-canvas[data-x-range]').nth(1).waitFor();
      return s.page.locator('.chart-canvas').evaluateAll((els) => els.map((el) => el.getAttribute('data-x-range')));
    };
    const upRanges = await ranges(hosts.up);
    const downRanges = await ranges(hosts.down);
    expect(new Set([...upRanges, ...downRanges]).size).toBe(1);
    expect(await main()).toContain('No response times: the host answered no check in this window.');
    // The host screen refreshes too: its last check moves on.
    const hostLast = () => s.page.locator('dt:has-text("Last check") + dd').innerText();
    const before = await hostLast();
    expect(await eventually(hostLast, (t) => t !== before, 20_000)).not.toBe(before);
    await check('uptime-down-host');
  });

  it('bug 8: a wrong current password says so', async () => {
    await s.go('/account/security');
    const form = s.page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password').fill('another long passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('alert').filter({ hasText: 'The current password is wrong.' }).waitFor();
    expect(await form.innerText()).not.toContain('Invalid username or password');
    await check('security-wrong-password');
  });

  it('bug 9: without history the analytics banner calls nothing healthy and shows no +100 % trend', async () => {
    expect(
      await eventually(
        () => dig(dnsPort, `mail.${ZONE}`, 'A').answers,
        (a) => a.length > 0,
      ),
    ).toEqual(['192.0.2.25']);
    await eventually(
      async () => (await s.server.http.get('/dns-analytics/summary', user.token)).body.total_queries_24h as number,
      (n) => n > 0,
      20_000,
    );
    await s.go('/analytics');
    await s.page.locator('.tile', { hasText: 'trend' }).waitFor();
    const text = await main();
    expect(text).toContain('No trend yet: Not enough history to compare against yet.');
    expect(text).not.toContain('healthy');
    expect(text).not.toContain('+100%');
    await check('analytics-no-history');
  });

  it('bug 10: a short page has no scrollbar; "Not monitored" and "Add-on" badges stay on one line', async () => {
    // One line: no taller than twice the font size plus the badge's padding and border.
    // In-page code as text: this file compiles without the DOM library.
    const wrapped = () =>
      s.page.evaluate(
        `[...document.querySelectorAll('.badge, .status')].filter((el) => el.getBoundingClientRect().height > 2 ` +
          `* parseFloat(getComputedStyle(el).fontSize)).map((el) => el.textContent)`,
      );
    expect(
      (
        await s.server.http.post(
          '/api/domains',
          { fqdn: 'idle.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
          user.token,
        )
      ).status,
    ).toBe(201);
    // Without the add-on, the menu marks both email screens.
    expect(
      (
        await s.server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, {
          email_auth: { tier: 'none', domains: [] },
        })
      ).status,
    ).toBe(200);
    await s.go('/uptime');
    await s.page.locator('tr', { hasText: 'idle.dyn.example.net' }).getByText('Not monitored').waitFor();
    expect(await s.page.locator('nav .badge', { hasText: 'Add-on' }).count()).toBe(2);
    expect(await wrapped()).toEqual([]);
    await s.page.setViewportSize({ width: 390, height: 844 });
    expect(await wrapped()).toEqual([]);
    await s.page.setViewportSize({ width: 1280, height: 900 });
    await s.go('/email-reports');
    await s.page.getByRole('heading', { level: 2 }).first().waitFor();
    expect(await s.page.evaluate('document.documentElement.scrollHeight - window.innerHeight')).toBe(0);
    await check('short-page');
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
