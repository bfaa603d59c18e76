import { UptimeWorker } from '../libs/uptime/application/uptime.worker';
import { ManualClock } from '../libs/shared/clock';
import { AppWithUpTarget, startAppWithUpTarget } from './support/uptime-target';
import { registerAndLogin, TestApp } from './support/test-app';

/**
 * The audit log lists account state changes only (contract §15): every kind of change
 * an account makes through the API is there with actor and source IP, and the uptime
 * checks recorded meanwhile (telemetry, in `uptime-<id>` streams) are not.
 */
describe('account audit log (contract §2, §15)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let started: AppWithUpTarget;
  let worker: UptimeWorker;

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
    started = await startAppWithUpTarget(clock, { SESSION_TTL_SECONDS: String(400 * 86_400) });
    ({ app, worker } = started);
  });

  afterAll(() => started?.close());

  it('lists state changes with actor and source IP, and no uptime checks', async () => {
    const u = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/auth/login', { username: u.username, password: 'wrong-password-1' })).status).toBe(
      401,
    );
    const key = await app.http.post('/api-keys', { name: 'ci' }, u.token);
    expect(key.status).toBe(201);
    expect((await app.http.request('DELETE', `/api-keys/${key.body.id}`, { token: u.token })).status).toBe(204);
    const domain = await app.http.post(
      '/api/domains',
      { fqdn: 'audit1.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
      u.token,
    );
    expect(domain.status).toBe(201);
    expect((await app.http.post(`/uptime/domain/${domain.body.id}/monitor`, { enabled: true }, u.token)).status).toBe(
      200,
    );
    const zone = await app.http.post(
      '/zones',
      { name: 'audit-example.com', zone_file: 'www 300 IN A 192.0.2.80\n' },
      u.token,
    );
    expect(zone.status).toBe(201);
    for (let i = 0; i < 5; i++) {
      clock.advance(300_000);
      await worker.scheduler.runDue();
    }
    // Started after the clock moved on, so its deadline (and a TwoFactorSetupExpired) is not due during the test.
    expect((await app.http.post('/2fa/setup', {}, u.token)).status).toBe(200);
    const head = await app.running.deps.eventStore.headPosition();
    await app.running.deps.projections.waitFor(head);

    // The checks happened: they are in the telemetry stream.
    const checks = await app.http.admin('GET', `/admin/streams/uptime-${domain.body.id}`);
    expect(checks.status).toBe(200);
    expect(
      checks.body.events.filter((e: { type: string }) => e.type === 'CheckRecorded').length,
    ).toBeGreaterThanOrEqual(5);

    const audit = await app.http.get('/account/audit?limit=100', u.token);
    expect(audit.status).toBe(200);
    const types = audit.body.data.map((e: { type: string }) => e.type);
    expect(types).not.toContain('CheckRecorded');
    expect(new Set(types)).toEqual(
      new Set([
        'AccountRegistered',
        'SubscriptionChanged',
        'SessionStarted',
        'LoginFailed',
        'ApiKeyCreated',
        'ApiKeyDeactivated',
        'DomainCreated',
        'MonitorEnabled',
        'ZoneImported',
        'TwoFactorSetupStarted',
      ]),
    );
    for (const entry of audit.body.data) {
      expect(entry.actor).toEqual(expect.any(String));
      // Operator actions (the plan) come through the admin API; the user's own from their requests.
      if (entry.actor !== 'operator') expect(entry.source_ip).toEqual(expect.stringMatching(/127\.0\.0\.1/));
      expect(entry).toHaveProperty('correlation_id');
    }
    const byType = (t: string) => audit.body.data.find((e: { type: string }) => e.type === t);
    expect(byType('ApiKeyCreated').actor).toBe(`user:${u.id}`);
    expect(byType('SubscriptionChanged').actor).toBe('operator');
  });
});
