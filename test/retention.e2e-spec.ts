import { Server } from 'node:net';
import { ManualClock } from '../libs/shared/clock';
import { UptimeWorker } from '../libs/uptime/application/uptime.worker';
import { ALL_PROJECTIONS } from '../projections';
import { listeningUpTarget } from './support/uptime-target';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const DAY_MS = 86_400_000;
const INTERVAL_MS = 300_000;

/**
 * Retention (contract §15) with an injected clock: raw uptime checks leave the event
 * store after 31 days, expired read-store documents leave on the same pass; the app
 * restarts after pruning with every read model intact, and a rebuild of each
 * projection from the pruned store equals the live model.
 */
describe('retention pruning', () => {
  let app: TestApp;
  let clock: ManualClock;
  let upServer: Server;
  let env: Record<string, string>;

  beforeAll(async () => {
    const checkPort = await freePort();
    upServer = await listeningUpTarget('127.0.0.1', checkPort);
    clock = new ManualClock(new Date());
    // The uptime target is a loopback listener: allowed here only (contract §16).
    env = {
      UPTIME_INTERVAL_SECONDS: String(INTERVAL_MS / 1000),
      UPTIME_CHECK_PORTS: String(checkPort),
      SESSION_TTL_SECONDS: String(400 * 86_400),
      ALLOW_PRIVATE_TARGETS: 'true',
    };
    app = await startTestApp({ clock, env });
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((r) => upServer?.close(r));
  });

  async function checkIntervals(n: number): Promise<void> {
    const worker = app.running.app.get(UptimeWorker);
    worker.stopTimer();
    for (let i = 0; i < n; i++) {
      clock.advance(INTERVAL_MS);
      await worker.scheduler.runDue();
    }
    await caughtUp();
  }

  const caughtUp = async () =>
    app.running.deps.projections.waitFor(await app.running.deps.eventStore.headPosition(), 20_000);

  /** Every document of every projection's live collections, by projection and collection. */
  async function readModels(): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const p of ALL_PROJECTIONS) {
      for (const c of p.collections) {
        const docs = await app.running.deps.projections.collection(p.name, c).find({}, { sort: { _id: 1 } });
        out[`${p.name}/${c}`] = docs;
      }
    }
    return out;
  }

  const checksIn = async (stream: string) =>
    (await app.running.deps.eventStore.readAll({ maxCount: 100_000 })).filter(
      (e) => e.streamId === stream && e.type === 'CheckRecorded',
    );

  it('prunes checks past 31 days, keeps read models through restart and rebuild', async () => {
    const u = await registerAndLogin(app.http, { plan: 'pro' });
    const domain = await app.http.post(
      '/api/domains',
      { fqdn: 'keep1.dyn.example.net', record_type: 'A', record_ip: '127.0.0.1' },
      u.token,
    );
    expect(domain.status).toBe(201);
    expect((await app.http.post(`/uptime/domain/${domain.body.id}/monitor`, { enabled: true }, u.token)).status).toBe(
      200,
    );
    const stream = `uptime-${domain.body.id}`;
    await checkIntervals(6);
    const early = (await checksIn(stream)).length;
    expect(early).toBeGreaterThanOrEqual(6);
    // Nothing is old enough yet.
    const first = await app.http.admin('POST', '/admin/retention/run');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ events_pruned: 0, documents_pruned: 0 });

    // 32 days later, a few more checks: the early ones are past retention.
    clock.advance(32 * DAY_MS);
    await checkIntervals(3);
    const pruned = await app.http.admin('POST', '/admin/retention/run');
    expect(pruned.body.events_pruned).toBe(early);
    expect((await checksIn(stream)).length).toBe(3);

    const uptime = await app.http.get(`/uptime/domain/${domain.body.id}`, u.token);
    expect(uptime.status).toBe(200);
    const audit = (await app.http.get('/account/audit?limit=100', u.token)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(audit).toEqual(expect.arrayContaining(['AccountRegistered', 'DomainCreated', 'MonitorEnabled']));
    const live = await readModels();

    // Restart after pruning: every read model as it was.
    const dataDir = app.dataDir;
    await app.close(false);
    app = await startTestApp({ clock, env, dataDir });
    await caughtUp();
    expect(await readModels()).toEqual(live);
    expect((await app.http.get(`/uptime/domain/${domain.body.id}`, u.token)).body).toEqual(uptime.body);

    // A rebuild of each projection from the pruned store equals the live model.
    for (const p of ALL_PROJECTIONS) {
      const res = await app.http.admin('POST', `/admin/projections/${p.name}/rebuild?wait=true`);
      expect([p.name, res.status]).toEqual([p.name, 202]);
    }
    expect(await readModels()).toEqual(live);
    expect((await app.http.get(`/uptime/domain/${domain.body.id}`, u.token)).body).toEqual(uptime.body);
  });
});
