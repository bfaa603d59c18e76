import { DnsServer } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { AggregateReportSender, emailAuthReadKey, enrolZone, startWorld } from './support/email-auth';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'alerts-restart.test';
const UA = { 'user-agent': 'email-auth-alerts-restart-e2e/1.0' };

/**
 * A day's evaluation is a timer of the daily-alerts process manager: it survives a restart
 * of the service, fires once when due, and a rerun after another restart adds nothing.
 */
describe('email-auth daily alerts across restarts (contract §9: raise once)', () => {
  let app: TestApp;
  let world: DnsServer;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  const start = (dataDir?: string) =>
    startTestApp({ clock, dataDir, env: { VERIFY_RESOLVER: `127.0.0.1:${worldPort}` } });
  let worldPort = 0;
  let key: string;

  const runJob = async () => {
    const res = await app.http.admin('POST', '/admin/jobs/email-auth-alerts', {});
    expect(res.status).toBe(200);
    return res.body.days_evaluated as number;
  };
  const alerts = async () => {
    const { eventStore, projections } = app.running.deps;
    expect(await projections.waitFor(await eventStore.headPosition(), 10_000, ['email_auth_events'])).toBe(true);
    const res = await app.http.get('/api/v1/email-auth/events?type=alert.raised&type=alert.resolved', key, UA);
    expect(res.status).toBe(200);
    return res.body.data as Array<{ type: string; data: { rule: string; observed: string } }>;
  };

  beforeAll(async () => {
    const w = await startWorld();
    world = w.server;
    worldPort = w.port;
    app = await start();
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, w.world, owner, ZONE);
    key = await emailAuthReadKey(app.http, owner, [ZONE], clock.now());
  });
  afterAll(async () => {
    await app?.close();
    await world?.stop();
  });

  it('judges a day once, after its evaluation time, whatever restarts come between', async () => {
    // 2026-06-01 is still going on: 50 of 200 messages passing, judged from 2026-06-03T00:00Z.
    await new AggregateReportSender(app.url).add(ZONE, '2026-06-01T00:00:00Z', 200, 50);
    expect(await runJob()).toBe(0);
    expect(await alerts()).toEqual([]);

    const dataDir = app.dataDir;
    await app.close(false);
    clock.set('2026-06-03T00:05:00Z');
    app = await start(dataDir);
    expect(await runJob()).toBe(1);
    expect((await alerts()).map((a) => [a.type, a.data.rule, a.data.observed])).toEqual([
      ['alert.raised', 'dmarc_pass_rate', '2026-06-01'],
    ]);

    await app.close(false);
    clock.advance(3_600_000);
    app = await start(dataDir);
    expect(await runJob()).toBe(0);
    expect(await alerts()).toHaveLength(1);
  });
});
