import { createServer, Server } from 'node:net';
import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../libs/shared/clock';
import { UptimeWorker } from '../libs/uptime/application/uptime.worker';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/** Refused by default (contract §16), in the forms the issue reported and a few disguises. */
const REFUSED = [
  '0.0.0.0',
  '255.255.255.255',
  '224.0.0.1',
  '127.0.0.1',
  '::',
  '::1',
  '169.254.169.254',
  '10.0.0.1',
  '100.64.0.1',
  'fd00::1',
  '::ffff:127.0.0.1',
  '64:ff9b::a9fe:a9fe',
];

function raw(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

/**
 * Uptime targets and DDNS addresses in loopback, link-local, private, CGNAT, multicast,
 * broadcast and unspecified ranges are refused under the production default; the app here
 * runs without ALLOW_PRIVATE_TARGETS. The test client's own address is 127.0.0.1, which
 * is itself refused: only a trusted proxy's X-Forwarded-For gives it a public one.
 */
describe('private targets (contract §16)', () => {
  let app: TestApp;
  let pro: Awaited<ReturnType<typeof registerAndLogin>>;
  let key: string;
  const fqdn = 'target.dyn.example.net';

  beforeAll(async () => {
    app = await startTestApp({
      env: { DNS_PORT: String(await freePort()), DDNS_ZONES: 'dyn.example.net', TRUSTED_PROXIES: '127.0.0.1' },
    });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
    key = (await app.http.post('/api-keys', { name: 'router' }, pro.token)).body.key;
    expect(
      (await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.1' }, pro.token)).status,
    ).toBe(201);
  });
  afterAll(() => app.close());

  const update = (query: string, path = '/domains/nic/update', headers: Record<string, string> = {}) =>
    raw(app.url, `${path}?${query}`, { authorization: basic(pro.username, key), ...headers });
  const stored = async () => (await app.http.get(`/api/domains/fqdn/${fqdn}`, pro.token)).body.addresses;

  it('refuses them as record_ip on POST and PUT /api/domains with validation_failed naming the field', async () => {
    for (const ip of REFUSED) {
      const v6 = ip.includes(':') && !ip.startsWith('::ffff:');
      const created = await app.http.post(
        '/api/domains',
        { fqdn: 'new.dyn.example.net', record_type: v6 ? 'AAAA' : 'A', record_ip: ip },
        pro.token,
      );
      expect([ip, created.status, created.body.error.code]).toEqual([ip, 400, 'validation_failed']);
      expect(created.body.error.message).toMatch(/^record_ip: /);
      const updated = await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: ip }, pro.token);
      expect([ip, updated.status, updated.body.error.code]).toEqual([ip, 400, 'validation_failed']);
    }
    const loopback = await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '127.0.0.1' }, pro.token);
    expect(loopback.body.error.message).toBe(
      "record_ip: 127.0.0.1 is a loopback address, which is not accepted as a host's address",
    );
    expect((await app.http.get('/api/domains/fqdn/new.dyn.example.net', pro.token)).status).toBe(404);
    expect(await stored()).toEqual({ ipv4: '192.0.2.1', ipv6: null });
    // Documentation and public addresses are fine.
    expect((await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '203.0.113.7' }, pro.token)).status).toBe(200);
  });

  it('answers badip (HTTP 400) on dyndns2 and result badip on v2, changing nothing', async () => {
    const before = await stored();
    for (const ip of REFUSED) {
      const res = await update(`hostname=${fqdn}&myip=${encodeURIComponent(ip)}`);
      expect([ip, res.status, res.body]).toEqual([ip, 400, 'badip']);
      const v2 = await update(`hostname=${fqdn}&myip=${encodeURIComponent(ip)}`, '/domains/v2/update');
      expect([ip, v2.status, JSON.parse(v2.body)]).toEqual([
        ip,
        200,
        { results: [{ hostname: null, result: 'badip', ipv4: null, ipv6: null }] },
      ]);
    }
    // One refused family refuses the whole request.
    expect((await update(`hostname=${fqdn}&myip=198.51.100.4,fe80::1`)).body).toBe('badip');
    expect(await stored()).toEqual(before);
  });

  it('answers badip for a malformed myip instead of using the caller’s address', async () => {
    const before = await stored();
    for (const myip of ['garbage', '1.2.3', '999.1.1.1', '198.51.100.4,nonsense']) {
      const res = await update(`hostname=${fqdn}&myip=${encodeURIComponent(myip)}`, '/domains/nic/update', {
        'x-forwarded-for': '198.51.100.77',
      });
      expect([myip, res.status, res.body]).toEqual([myip, 400, 'badip']);
    }
    expect(await stored()).toEqual(before);
  });

  it('uses the caller’s address when none is given, only if it passes the same check', async () => {
    // The test client is 127.0.0.1: refused.
    expect(await update(`hostname=${fqdn}`)).toEqual({ status: 400, body: 'badip' });
    expect(await update(`hostname=${fqdn}&myip=`)).toEqual({ status: 400, body: 'badip' });
    // Through a trusted proxy the caller is a public address: used.
    const viaProxy = await update(`hostname=${fqdn}`, '/domains/nic/update', { 'x-forwarded-for': '198.51.100.77' });
    expect([viaProxy.status, viaProxy.body]).toEqual([200, 'good 198.51.100.77']);
    expect((await stored()).ipv4).toBe('198.51.100.77');
  });
});

describe('private targets allowed by the operator (ALLOW_PRIVATE_TARGETS=true), then refused at check time', () => {
  const INTERVAL_MS = 60_000;
  let target: Server;
  let connections = 0;
  let checkPort: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'adns-private-'));
  const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
  const start = (allow: boolean) =>
    startTestApp({
      dataDir,
      clock,
      env: {
        DDNS_ZONES: 'dyn.example.net',
        UPTIME_INTERVAL_SECONDS: String(INTERVAL_MS / 1000),
        UPTIME_CHECK_PORTS: String(checkPort),
        UPTIME_TIMEOUT_MS: '500',
        ...(allow ? { ALLOW_PRIVATE_TARGETS: 'true' } : {}),
      },
    }).then((app) => {
      // Checks run when the test says so (the injected clock), not on the worker's timer.
      app.running.app.get(UptimeWorker).stopTimer();
      return app;
    });

  beforeAll(async () => {
    checkPort = await freePort();
    target = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => target.listen({ host: '127.0.0.1', port: checkPort }, resolve));
  });
  afterAll(() => new Promise((r) => target.close(r)));

  async function nextInterval(app: TestApp): Promise<void> {
    const worker = app.running.app.get(UptimeWorker);
    clock.advance(INTERVAL_MS);
    await worker.scheduler.runDue();
    await app.running.deps.projections.waitFor(await app.running.deps.eventStore.headPosition());
  }

  it('accepts loopback addresses when allowed; once the switch is off, checks record why and never connect', async () => {
    let app = await start(true);
    const owner = await registerAndLogin(app.http, { plan: 'plus' });
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'loop.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
      owner.token,
    );
    expect(created.status).toBe(201);
    expect(
      (await app.http.post(`/uptime/domain/${created.body.id}/monitor`, { enabled: true }, owner.token)).status,
    ).toBe(200);
    await nextInterval(app);
    expect(connections).toBe(1);
    expect((await app.http.get(`/uptime/domain/${created.body.id}`, owner.token)).body).toMatchObject({
      is_up: true,
      current_status: 'operational',
    });
    await app.close(false);

    // The address was stored before the switch went off (or before the rule existed).
    app = await start(false);
    try {
      const login = await app.http.post('/auth/login', { username: owner.username, password: owner.password });
      await nextInterval(app);
      expect(connections).toBe(1);
      const status = (await app.http.get(`/uptime/domain/${created.body.id}`, login.body.access_token)).body;
      expect(status).toMatchObject({
        is_up: false,
        current_status: 'down',
        error: 'target refused: 127.0.0.1 is a loopback address',
      });
    } finally {
      await app.close();
    }
  });
});
