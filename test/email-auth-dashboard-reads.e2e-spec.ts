/**
 * Session reads added for the dashboard's email-authentication screens
 * (docs/email-auth-dashboard-reads.md): liveness of the generated records asked of the
 * world's DNS (a real DNS server as VERIFY_RESOLVER), the zone's event log, and the DMARC
 * wizard's nightly series after real aggregate reports and the nightly job. Each answer is
 * checked against its description in /openapi.json.
 */
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { AggregateReportSender, enrolZone, startWorld } from './support/email-auth';
import { HttpResponse } from './support/http-client';
import { answerChecker } from './support/openapi-answers';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'reads-dash.test';
const START = new Date('2026-03-01T10:00:00Z');
const NIGHT_1 = new Date('2026-03-02T02:00:00Z');

describe('email-auth session reads for the dashboard', () => {
  let app: TestApp;
  let clock: ManualClock;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let owner: { id: number; token: string; username: string; password: string };
  let stranger: { token: string };
  const seen: Record<string, HttpResponse[]> = {};

  const get = async (path: string, token = owner.token) => {
    const res = await app.http.get(path, token);
    (seen[path.split('?')[0]] ??= []).push(res);
    return res;
  };

  beforeAll(async () => {
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    clock = new ManualClock(START);
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    owner = await registerAndLogin(app.http);
    stranger = await registerAndLogin(app.http);
    await enrolZone(app.http, world, owner, ZONE);
  });
  afterAll(async () => {
    await app?.close();
    await worldServer?.stop();
  });

  it('says whether each generated record is live in the world’s DNS', async () => {
    expect(
      (
        await app.http.put(
          `/email-auth/domains/${ZONE}/dmarc`,
          { policy: 'none', rua: [`mailto:dmarc-rua@${ZONE}`] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    const before = await get(`/email-auth/domains/${ZONE}/live`);
    expect(before.status).toBe(200);
    const value = `v=DMARC1; p=none; rua=mailto:dmarc-rua@${ZONE}`;
    expect(before.body).toEqual({
      zone: ZONE,
      all_live: false,
      records: [{ name: `_dmarc.${ZONE}`, type: 'TXT', value, live: false, found: [], error: expect.any(String) }],
    });
    // The owner publishes it at the zone's current provider: now it is live.
    world.setRRset(ZONE, '_dmarc', 'TXT', 300, [`"${value}"`]);
    const after = await get(`/email-auth/domains/${ZONE}/live`);
    expect(after.body).toEqual({
      zone: ZONE,
      all_live: true,
      records: [{ name: `_dmarc.${ZONE}`, type: 'TXT', value, live: true, found: [value], error: null }],
    });
  });

  it('lists the zone’s events newest first, limited', async () => {
    expect((await app.http.get(`/email-auth/dmarc/wizard/${ZONE}`, owner.token)).status).toBe(200);
    const log = await get(`/email-auth/domains/${ZONE}/events`);
    expect(log.status).toBe(200);
    expect(log.body.events.map((e: { type: string }) => e.type)).toEqual([
      'DmarcWizardStarted',
      'DmarcPolicyChanged',
      'DmarcConfigured',
    ]);
    expect(log.body.events[2]).toMatchObject({
      occurred_at: START.toISOString(),
      actor: expect.stringContaining(String(owner.id)),
      data: { dmarc: expect.objectContaining({ policy: 'none' }) },
    });
    expect((await get(`/email-auth/domains/${ZONE}/events?limit=1`)).body.events).toHaveLength(1);
    const bad = await get(`/email-auth/domains/${ZONE}/events?limit=0`);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('gives the nightly series behind the wizard’s pass-rate chart', async () => {
    await new AggregateReportSender(app.url).add(ZONE, new Date(NIGHT_1.getTime() - 3 * 3600_000), 200, 190);
    clock.set(NIGHT_1);
    expect((await app.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: NIGHT_1.toISOString() })).status).toBe(
      200,
    );
    const login = await app.http.post('/auth/login', { username: owner.username, password: owner.password });
    owner.token = login.body.access_token;
    const nights = await get(`/email-auth/dmarc/wizard/${ZONE}/nights`);
    expect(nights.status).toBe(200);
    expect(nights.body).toEqual({
      zone: ZONE,
      nights: [
        { night: '2026-03-02', stage: 'monitoring', messages: 200, passing: 190, pass_rate: 95, days_at_stage: 1 },
      ],
    });
  });

  it('refuses zones outside the add-on and other accounts’ zones, in the contract’s error shape', async () => {
    // Another account's zone does not exist for the caller.
    const foreign = await get(`/email-auth/domains/${ZONE}/live`, stranger.token);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    expect((await get(`/email-auth/dmarc/wizard/${ZONE}/nights`, stranger.token)).status).toBe(404);
    // The owner's zone outside the add-on: which add-on unlocks it.
    expect((await app.http.post('/zones', { name: 'plain-dash.test' }, owner.token)).status).toBe(201);
    const outside = await get('/email-auth/domains/plain-dash.test/events');
    expect([outside.status, outside.body.error]).toEqual([
      403,
      { code: 'addon_required', message: 'DMARC management requires the Email Authentication add-on' },
    ]);
    expect((await app.http.get(`/email-auth/domains/${ZONE}/events`)).status).toBe(401);
  });

  it('is described by /openapi.json, and every answer above validates against its description', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const check = answerChecker(doc);
    const paths: Record<string, string> = {
      [`/email-auth/domains/${ZONE}/live`]: '/email-auth/domains/{zone}/live',
      [`/email-auth/domains/${ZONE}/events`]: '/email-auth/domains/{zone}/events',
      [`/email-auth/dmarc/wizard/${ZONE}/nights`]: '/email-auth/dmarc/wizard/{zone}/nights',
      ['/email-auth/domains/plain-dash.test/events']: '/email-auth/domains/{zone}/events',
    };
    let checked = 0;
    for (const [path, answers] of Object.entries(seen)) {
      for (const res of answers) {
        check(paths[path], 'get', res);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});
