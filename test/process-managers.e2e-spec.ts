import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { CertificateRenewalProcess } from '../libs/certificates/application/renewal.process';
import { DmarcNightlyJob } from '../libs/email-auth/application/dmarc-nightly.job';
import { DmarcNightlyProcess } from '../libs/email-auth/application/dmarc-nightly.process';
import { enrolZone, startWorld } from './support/email-auth';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'nightly-pm.test';
const START = new Date('2026-03-01T10:00:00Z');

/**
 * The daily jobs as process managers in the real app: the DMARC nightly job's schedule
 * starts with the zone's first email-authentication event, its night timer survives a
 * restart and fires after it, once; a crash between the recorded decision and the job's
 * run makes the next start run it, once.
 */
describe('daily jobs on the process-manager runtime (e2e)', () => {
  let app: TestApp | null = null;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let worldPort: number;
  let dataDir: string;
  const clock = new ManualClock(START);
  const start = async () => {
    app = await startTestApp({ clock, dataDir, env: { VERIFY_RESOLVER: `127.0.0.1:${worldPort}` } });
    return app;
  };
  const stream = async (a: TestApp, name: string) =>
    (await a.http.admin('GET', `/admin/streams/${name}`)).body.events as any[];
  const metricsRecorded = async (a: TestApp) =>
    (await stream(a, `emailauth-${ZONE}`)).filter((e) => e.type === 'DmarcStageMetricsRecorded');

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    worldPort = w.port;
  });
  afterAll(async () => {
    await app?.close(true);
    await worldServer.stop();
  });

  it('the night timer scheduled before a restart fires after it; a crash between decision and job runs the job once on the next start', async () => {
    const first = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${worldPort}` } });
    app = first;
    dataDir = first.dataDir;
    const owner = await registerAndLogin(first.http);
    await enrolZone(first.http, world, owner, ZONE, { addOnDomains: [ZONE] });
    // A DMARC record opens the zone's wizard, which the nightly job counts for.
    expect(
      (
        await first.http.put(
          `/email-auth/domains/${ZONE}/dmarc`,
          { policy: 'none', rua: [`mailto:dmarc-rua@${ZONE}`] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    expect((await first.http.get(`/email-auth/dmarc/wizard/${ZONE}`, owner.token)).status).toBe(200);
    // Caught up: the schedule's first night (02:00 after the zone's first event) is stored; nothing is due yet.
    expect(await first.running.app.get(DmarcNightlyProcess).runDue()).toBe(0);
    const schedule = await stream(first, 'pm-dmarc-nightly-schedule');
    expect(schedule.find((e) => e.type === 'ProcessTimerScheduled').data).toEqual({
      timer_id: 'night:2026-03-02',
      due_at: '2026-03-02T02:00:00.000Z',
    });
    // The certificate job has nothing to do: no certificate was issued, so no schedule.
    expect(await first.running.app.get(CertificateRenewalProcess).runDue()).toBe(0);
    expect(
      (await first.http.admin('GET', '/admin/streams/pm-certificate-renewals-schedule')).body.events ?? [],
    ).toEqual([]);
    await first.close(false);

    // Down over the night; up again after it: the stored timer fires once.
    clock.set(new Date('2026-03-02T02:30:00Z'));
    const second = await start();
    expect(await second.running.app.get(DmarcNightlyProcess).runDue()).toBe(1);
    const recorded = await metricsRecorded(second);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].data).toMatchObject({ night: '2026-03-02' });
    expect(await second.running.app.get(DmarcNightlyProcess).runDue()).toBe(0);
    const afterFirstNight = await stream(second, 'pm-dmarc-nightly-schedule');
    expect(afterFirstNight.filter((e) => e.type === 'ProcessCommandIssued').map((e) => e.data.command_id)).toEqual([
      'dmarc-nightly:2026-03-02',
    ]);
    expect(afterFirstNight.filter((e) => e.type === 'ProcessTimerScheduled').at(-1).data).toEqual({
      timer_id: 'night:2026-03-03',
      due_at: '2026-03-03T02:00:00.000Z',
    });

    // The next night: the decision is recorded, then the job dies before it writes anything.
    const job = second.running.app.get(DmarcNightlyJob);
    const run = job.run.bind(job);
    let calls = 0;
    job.run = async () => {
      calls += 1;
      throw new Error('worker died before the job ran');
    };
    clock.set(new Date('2026-03-03T02:00:00Z'));
    await second.running.app.get(DmarcNightlyProcess).runDue();
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(await metricsRecorded(second)).toHaveLength(1);
    job.run = run;
    await second.close(false);

    const third = await start();
    await third.running.app.get(DmarcNightlyProcess).runDue();
    const nights = (await metricsRecorded(third)).map((e) => e.data.night);
    expect(nights).toEqual(['2026-03-02', '2026-03-03']);
    const issued = (await stream(third, 'pm-dmarc-nightly-schedule')).filter((e) => e.type === 'ProcessCommandIssued');
    expect(issued.map((e) => e.data.command_id)).toEqual(['dmarc-nightly:2026-03-02', 'dmarc-nightly:2026-03-03']);
  }, 60_000);
});
