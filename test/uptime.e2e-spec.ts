import { ChildProcess, spawn } from 'node:child_process';
import { connect, Server, Socket } from 'node:net';
import { UptimeWorker } from '../libs/uptime/application/uptime.worker';
import { ManualClock } from '../libs/shared/clock';
import { listeningUpTarget } from './support/uptime-target';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/**
 * Uptime over real TCP on loopback: 127.0.0.1 answers on the check port (up),
 * 127.0.0.2 has no listener (refused), 127.0.0.3 has listeners whose accept queue is
 * full, so the kernel drops further SYNs and a connect times out. Time is a manual
 * clock; the test turns the timing wheel itself (`runDue`), one interval per turn.
 */
const UP_IP = '127.0.0.1';
const REFUSED_IP = '127.0.0.2';
const TIMEOUT_IP = '127.0.0.3';
const INTERVAL_MS = 300_000;
const TIMEOUT_MS = 300;

/** A process that listens with a one-connection backlog and then blocks its event loop, so it never accepts. */
async function startBlackhole(host: string, ports: number[]): Promise<{ close(): void }> {
  const script = `
    const net = require('net');
    const ports = ${JSON.stringify(ports)};
    let open = 0;
    for (const port of ports) net.createServer().listen({ host: ${JSON.stringify(host)}, port, backlog: 1 }, () => {
      if (++open < ports.length) return;
      process.stdout.write('ready\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    });`;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`blackhole exited ${code}`)));
  });
  const fillers: Socket[] = [];
  // Fill each accept queue: connections complete until it is full, then SYNs are dropped.
  for (const port of ports) {
    for (let i = 0; i < 8; i++) {
      const socket = connect({ host, port });
      fillers.push(socket);
      socket.on('error', () => undefined);
      const connected = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 200);
        socket.once('connect', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!connected) break;
    }
  }
  return {
    close() {
      for (const s of fillers) s.destroy();
      child.kill('SIGKILL');
    },
  };
}

describe('uptime monitoring (seed "Uptime", contract §6)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let upServer: Server;
  let blackhole: { close(): void };
  let checkPort: number;
  let closedPort: number;
  let worker: UptimeWorker;

  beforeAll(async () => {
    checkPort = await freePort();
    closedPort = await freePort();
    upServer = await listeningUpTarget(UP_IP, checkPort);
    blackhole = await startBlackhole(TIMEOUT_IP, [closedPort, checkPort]);
    clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
    app = await startTestApp({
      clock,
      env: {
        UPTIME_INTERVAL_SECONDS: String(INTERVAL_MS / 1000),
        // The closed port first: every check also exercises "each port in turn".
        UPTIME_CHECK_PORTS: `${closedPort},${checkPort}`,
        UPTIME_TIMEOUT_MS: String(TIMEOUT_MS),
        SESSION_TTL_SECONDS: String(400 * 86_400),
        // The checked hosts are loopback listeners: refused by default (contract §16).
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    worker = app.running.app.get(UptimeWorker);
    worker.stopTimer();
  });

  afterAll(async () => {
    await app?.close();
    blackhole?.close();
    await new Promise((r) => upServer?.close(r));
  });

  /** One interval later: every due domain is checked, and the read models have the results. */
  async function nextInterval(): Promise<number> {
    clock.advance(INTERVAL_MS);
    const started = await worker.scheduler.runDue();
    await app.running.deps.projections.waitFor(await app.running.deps.eventStore.headPosition());
    return started;
  }

  let counter = 0;
  async function createDomain(token: string, ip: string): Promise<{ id: number; fqdn: string }> {
    counter += 1;
    const res = await app.http.post(
      '/api/domains',
      { fqdn: `up${counter}.dyn.example.net`, record_type: 'A', record_ip: ip },
      token,
    );
    expect(res.status).toBe(201);
    return { id: res.body.id, fqdn: res.body.fqdn };
  }

  const monitor = (token: string, id: number | string, enabled: unknown) =>
    app.http.post(`/uptime/domain/${id}/monitor`, { enabled }, token);

  it('refuses every endpoint on Free with plan_required', async () => {
    const free = await registerAndLogin(app.http);
    for (const [method, path] of [
      ['POST', '/uptime/domain/1/monitor'],
      ['GET', '/uptime/dashboard'],
      ['GET', '/uptime/domain/1'],
      ['GET', '/uptime/status/realtime/'],
    ]) {
      const res = await app.http.request(method, path, {
        token: free.token,
        body: method === 'POST' ? { enabled: true } : undefined,
      });
      expect([path, res.status, res.body]).toEqual([
        path,
        403,
        { error: { code: 'plan_required', message: 'Uptime API access requires Plus or higher' } },
      ]);
    }
    expect((await app.http.get('/uptime/dashboard')).status).toBe(401);
  });

  it('answers 404 for foreign, missing and malformed ids, and validates `enabled`', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'plus' });
    const other = await registerAndLogin(app.http, { plan: 'plus' });
    const d = await createDomain(owner.token, UP_IP);
    for (const res of [
      await monitor(other.token, d.id, true),
      await app.http.get(`/uptime/domain/${d.id}`, other.token),
      await monitor(owner.token, 999_999, true),
      await app.http.get('/uptime/domain/abc', owner.token),
    ]) {
      expect([res.status, res.body]).toEqual([404, { error: { code: 'not_found', message: 'Domain not found' } }]);
    }
    for (const body of [{ enabled: 'yes' }, {}, { enabled: true, interval: 5 }]) {
      const res = await app.http.post(`/uptime/domain/${d.id}/monitor`, body, owner.token);
      expect([res.status, res.body.error.code]).toEqual([400, 'validation_failed']);
    }
    // The foreign attempt changed nothing.
    expect((await app.http.get(`/api/domains/fqdn/${d.fqdn}`, owner.token)).body.monitor_enabled).toBe(false);
  });

  it('checks up, refused and timeout hosts over TCP and reports them', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const up = await createDomain(owner.token, UP_IP);
    const refused = await createDomain(owner.token, REFUSED_IP);
    const timeout = await createDomain(owner.token, TIMEOUT_IP);
    const idle = await createDomain(owner.token, UP_IP);

    const enabled = await monitor(owner.token, up.id, true);
    expect([enabled.status, enabled.body]).toEqual([
      200,
      { success: true, monitor_enabled: true, domain_id: up.id, fqdn: up.fqdn },
    ]);
    for (const d of [refused, timeout]) expect((await monitor(owner.token, d.id, true)).status).toBe(200);
    expect((await app.http.get(`/api/domains/fqdn/${up.fqdn}`, owner.token)).body.monitor_enabled).toBe(true);

    const pending = await app.http.get(`/uptime/domain/${up.id}`, owner.token);
    expect(pending.body).toEqual({
      domain_id: up.id,
      fqdn: up.fqdn,
      is_up: false,
      uptime_percentage_24h: null,
      uptime_percentage_7d: null,
      uptime_percentage_30d: null,
      last_check_time: null,
      last_response_time_ms: null,
      current_status: 'pending',
      error: null,
      monitor_enabled: true,
      has_ip: true,
    });
    expect((await app.http.get(`/uptime/domain/${idle.id}`, owner.token)).body.current_status).toBe('disabled');

    const started = Date.now();
    await nextInterval();
    // Two ports per host, the timeout host waits out both: the checks ran, not a shortcut.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * TIMEOUT_MS);
    const checkedAt = clock.now().toISOString();

    const upRecord = (await app.http.get(`/uptime/domain/${up.id}`, owner.token)).body;
    expect(upRecord).toMatchObject({
      is_up: true,
      current_status: 'operational',
      error: null,
      uptime_percentage_24h: 100,
      uptime_percentage_7d: 100,
      uptime_percentage_30d: 100,
      last_check_time: checkedAt,
    });
    expect(Number.isInteger(upRecord.last_response_time_ms)).toBe(true);
    expect(upRecord.last_response_time_ms).toBeLessThan(TIMEOUT_MS);

    for (const [d, error] of [
      [refused, 'connection refused'],
      [timeout, 'connection timeout'],
    ] as const) {
      expect((await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body).toMatchObject({
        is_up: false,
        current_status: 'down',
        error,
        last_response_time_ms: null,
        uptime_percentage_24h: 0,
        last_check_time: checkedAt,
      });
    }

    const realtime = await app.http.get('/uptime/status/realtime', owner.token);
    expect(realtime.body).toEqual([
      { domain_id: up.id, fqdn: up.fqdn, is_up: true, last_check_time: checkedAt },
      { domain_id: refused.id, fqdn: refused.fqdn, is_up: false, last_check_time: checkedAt },
      { domain_id: timeout.id, fqdn: timeout.fqdn, is_up: false, last_check_time: checkedAt },
    ]);
    expect((await app.http.get('/uptime/dashboard', owner.token)).body).toEqual({
      overall_uptime_24h: 33.33,
      overall_uptime_7d: 33.33,
      overall_uptime_30d: 33.33,
      domains_monitored: 3,
      domains_up: 1,
      domains_down: 2,
      average_response_time_ms: upRecord.last_response_time_ms,
    });

    // Each check is an event on the domain's uptime stream, by the worker, expiring after 31 days.
    const events = await app.running.deps.eventStore.readStream(`uptime-${timeout.id}`);
    expect(events.map((e) => [e.type, e.metadata.actor, e.metadata.account_id])).toEqual([
      ['CheckRecorded', 'worker:0', owner.id],
    ]);
    expect(events[0].data).toMatchObject({
      is_up: false,
      error: 'connection timeout',
      ip: TIMEOUT_IP,
      response_time_ms: null,
    });
    // The idle domain (monitoring never enabled) was never checked.
    expect(await app.running.deps.eventStore.readStream(`uptime-${idle.id}`)).toEqual([]);
  });

  it('computes 24h/7d/30d from recorded checks, follows DDNS address changes, and keeps history when disabled', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'plus' });
    const d = await createDomain(owner.token, UP_IP);
    const other = await createDomain(owner.token, UP_IP);
    expect((await monitor(owner.token, d.id, true)).status).toBe(200);
    const setIp = async (ip: string) =>
      expect((await app.http.put(`/api/domains/fqdn/${d.fqdn}`, { record_ip: ip }, owner.token)).status).toBe(200);
    const checks = async (n: number) => {
      for (let i = 0; i < n; i++) await nextInterval();
    };

    // 20+ days before "now": 4 checks up (in the 30-day window only).
    await checks(4);
    clock.advance(17 * 86_400_000);
    // About 3 days before: the address moves to a dead host (DDNS), 2 checks down (7 and 30 days).
    await setIp(REFUSED_IP);
    await checks(2);
    expect((await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body).toMatchObject({
      current_status: 'down',
      error: 'connection refused',
    });
    clock.advance(3 * 86_400_000);
    // The last hours: back up for 3 checks, then 1 down (all three windows).
    await setIp(UP_IP);
    await checks(3);
    await setIp(REFUSED_IP);
    await checks(1);

    const record = (await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body;
    expect(record).toMatchObject({
      uptime_percentage_24h: 75,
      uptime_percentage_7d: 50,
      uptime_percentage_30d: 70,
      current_status: 'down',
      is_up: false,
    });
    const events = await app.running.deps.eventStore.readStream(`uptime-${d.id}`);
    expect(events.map((e) => e.data.ip)).toEqual([
      UP_IP,
      UP_IP,
      UP_IP,
      UP_IP,
      REFUSED_IP,
      REFUSED_IP,
      UP_IP,
      UP_IP,
      UP_IP,
      REFUSED_IP,
    ]);
    expect((await app.http.get('/uptime/dashboard', owner.token)).body).toMatchObject({
      overall_uptime_24h: 75,
      overall_uptime_7d: 50,
      overall_uptime_30d: 70,
      domains_monitored: 1,
      domains_up: 0,
      domains_down: 1,
      average_response_time_ms: null,
    });

    // Turned off: no more checks, history kept, and it counts toward nothing on the dashboard.
    const off = await monitor(owner.token, d.id, false);
    expect(off.body).toEqual({ success: true, monitor_enabled: false, domain_id: d.id, fqdn: d.fqdn });
    await checks(1);
    const disabled = (await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body;
    expect(disabled).toMatchObject({
      current_status: 'disabled',
      monitor_enabled: false,
      uptime_percentage_30d: 70,
      last_check_time: record.last_check_time,
    });
    expect((await app.http.get('/uptime/dashboard', owner.token)).body).toEqual({
      overall_uptime_24h: null,
      overall_uptime_7d: null,
      overall_uptime_30d: null,
      domains_monitored: 0,
      domains_up: 0,
      domains_down: 0,
      average_response_time_ms: null,
    });
    expect((await app.http.get('/uptime/status/realtime', owner.token)).body).toEqual([]);
    expect((await app.http.get(`/api/domains/fqdn/${d.fqdn}`, owner.token)).body.monitor_enabled).toBe(false);

    // Back on: pending until its next check, the old history still counts.
    await setIp(UP_IP);
    expect((await monitor(owner.token, d.id, true)).status).toBe(200);
    expect((await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body).toMatchObject({
      current_status: 'pending',
      uptime_percentage_30d: 70,
    });
    await checks(1);
    expect((await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body).toMatchObject({
      current_status: 'operational',
      uptime_percentage_30d: 72.73,
    });
    // A month later without checks, every window is empty.
    expect((await monitor(owner.token, d.id, false)).status).toBe(200);
    clock.advance(31 * 86_400_000);
    expect((await app.http.get(`/uptime/domain/${d.id}`, owner.token)).body).toMatchObject({
      uptime_percentage_24h: null,
      uptime_percentage_7d: null,
      uptime_percentage_30d: null,
    });
    expect((await app.http.get(`/uptime/domain/${other.id}`, owner.token)).body.current_status).toBe('disabled');
  });

  it('enforces the plan limit on the write side, also under concurrency', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'plus' });
    const domains = [];
    for (let i = 0; i < 7; i++) domains.push(await createDomain(owner.token, UP_IP));

    // Six enables at once on Plus (limit 5): exactly five win.
    const results = await Promise.all(domains.slice(0, 6).map((d) => monitor(owner.token, d.id, true)));
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(1);
    expect([refused[0].status, refused[0].body]).toEqual([
      403,
      { error: { code: 'limit_reached', message: 'Monitoring limit reached for your plan' } },
    ]);
    const monitored = (await app.http.get('/uptime/status/realtime', owner.token)).body;
    expect(monitored).toHaveLength(5);
    const loser = domains.slice(0, 6).find((d) => !monitored.some((m: { domain_id: number }) => m.domain_id === d.id))!;

    // Enabling an already monitored domain again is fine and changes nothing.
    expect((await monitor(owner.token, monitored[0].domain_id, true)).status).toBe(200);
    // Disabling one frees a slot.
    expect((await monitor(owner.token, monitored[0].domain_id, false)).status).toBe(200);
    expect((await monitor(owner.token, loser.id, true)).status).toBe(200);
    expect((await monitor(owner.token, domains[6].id, true)).status).toBe(403);
    // Deleting a monitored domain frees its slot too.
    const [gone] = (await app.http.get('/uptime/status/realtime', owner.token)).body;
    expect((await app.http.delete(`/api/domains/fqdn/${gone.fqdn}`, owner.token)).status).toBe(204);
    expect((await monitor(owner.token, domains[6].id, true)).status).toBe(200);
    expect((await app.http.get(`/uptime/domain/${gone.domain_id}`, owner.token)).status).toBe(404);
    expect((await app.http.get('/uptime/dashboard', owner.token)).body.domains_monitored).toBe(5);

    // Pro allows 50.
    const extra = await createDomain(owner.token, UP_IP);
    expect((await monitor(owner.token, extra.id, true)).status).toBe(403);
    expect((await app.http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, { plan: 'pro' })).status).toBe(200);
    expect((await monitor(owner.token, extra.id, true)).status).toBe(200);
    // Back to Free: the API is closed again.
    expect((await app.http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, { plan: 'free' })).status).toBe(
      200,
    );
    expect((await app.http.get('/uptime/dashboard', owner.token)).status).toBe(403);
  });
});

describe('uptime worker timer (real time)', () => {
  let app: TestApp;
  let upServer: Server;

  beforeAll(async () => {
    const port = await freePort();
    upServer = await listeningUpTarget(UP_IP, port);
    app = await startTestApp({
      env: {
        UPTIME_INTERVAL_SECONDS: '1',
        UPTIME_CHECK_PORTS: String(port),
        UPTIME_TIMEOUT_MS: '500',
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((r) => upServer?.close(r));
  });

  it('checks an enabled domain once per interval from its own timer', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'plus' });
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'timer.dyn.example.net', record_type: 'A', record_ip: UP_IP },
      owner.token,
    );
    const id = created.body.id;
    expect((await app.http.post(`/uptime/domain/${id}/monitor`, { enabled: true }, owner.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3500));
    const record = (await app.http.get(`/uptime/domain/${id}`, owner.token)).body;
    expect(record.current_status).toBe('operational');
    // About one check a second (sync within a second of enabling, then one per interval).
    const checks = await app.running.deps.eventStore.readStream(`uptime-${id}`);
    expect(checks.length).toBeGreaterThanOrEqual(2);
    expect(checks.length).toBeLessThanOrEqual(4);
  });
});
