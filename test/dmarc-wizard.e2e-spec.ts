import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { waitForDns } from './support/dns-client';
import { AggregateReportSender, enrolZone, startWorld } from './support/email-auth';
import { answerChecker } from './support/openapi-answers';
import { freePort } from './support/server-process';
import { ADMIN_TOKEN, registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'wizard-example.test';
const OTHER_ZONE = 'someone-else.test';
const DAY = 86_400_000;
const START = new Date('2026-03-01T10:00:00Z');
/** 02:00 UTC on the n-th day after START. */
const nightOf = (n: number) => new Date(Date.UTC(2026, 2, 1 + n, 2, 0, 0));

/**
 * The DMARC wizard end to end: real HTTP, the nightly job over aggregate rows in a real
 * store, the `_dmarc` record read back over real DNS at every stage.
 */
describe('DMARC wizard (seed: DMARC stage progression; contract §7)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let stats: AggregateReportSender;
  let dnsPort: number;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let owner: { id: number; token: string; username: string; password: string };
  let night = 0;

  beforeAll(async () => {
    dnsPort = await freePort();
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    clock = new ManualClock(START);
    app = await startTestApp({ clock, env: { DNS_PORT: String(dnsPort), VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    stats = new AggregateReportSender(app.url);
    owner = await registerAndLogin(app.http);
    await enrolZone(app.http, world, owner, ZONE, { addOnDomains: [ZONE, OTHER_ZONE] });
  });
  afterAll(async () => {
    await app.close();
    await worldServer.stop();
  });

  const wizard = (path = '') => `/email-auth/dmarc/wizard/${ZONE}${path}`;
  const runNight = async (n: number) => {
    clock.set(nightOf(n));
    const res = await app.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: nightOf(n).toISOString() });
    expect(res.status).toBe(200);
    // Sessions last 24 h on the moved clock: log in again, as a dashboard user would.
    const login = await app.http.post('/auth/login', { username: owner.username, password: owner.password });
    owner.token = login.body.access_token;
    return res.body;
  };
  /** Runs the next `count` nights, each with one day of mail: `perDay` messages of which `passing` pass. */
  const nights = async (count: number, perDay: number, passing: number) => {
    for (let i = 0; i < count; i++) {
      night += 1;
      await stats.add(ZONE, new Date(nightOf(night).getTime() - 20 * 3600_000), perDay, passing);
      await runNight(night);
    }
  };
  const recommendation = async () => (await app.http.get(wizard('/recommendation'), owner.token)).body;
  const advance = (body: unknown) => app.http.post(wizard('/advance'), body, owner.token);

  it('answers the seed’s errors before the wizard is opened', async () => {
    const noConfig = await app.http.get(wizard(), owner.token);
    expect([noConfig.status, noConfig.body.error.message]).toEqual([
      404,
      'DMARC configuration not found for this zone',
    ]);
    const noProgression = await app.http.get(wizard('/recommendation'), owner.token);
    expect([noProgression.status, noProgression.body.error.message]).toEqual([404, 'DMARC progression not found']);
    await app.http.put(
      `/email-auth/domains/${ZONE}/dmarc`,
      { policy: 'none', rua: [`mailto:dmarc-rua@${ZONE}`] },
      owner.token,
    );
    const advanceFirst = await advance({ confirm: true });
    expect([advanceFirst.status, advanceFirst.body.error.message]).toEqual([404, 'DMARC progression not found']);
  });

  it('opens at monitoring (none, 100) with need_more_data and every blocker', async () => {
    const opened = await app.http.get(wizard(), owner.token);
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({
      zone: ZONE,
      current_stage: 'monitoring',
      policy: 'none',
      percentage: 100,
      days_at_current_stage: 0,
      recommended_min_days: 14,
      messages_at_stage: 0,
      pass_rate_at_stage: 0,
      entered_at: START.toISOString(),
      stage_history: [],
    });
    expect(await recommendation()).toMatchObject({
      recommendation: 'need_more_data',
      next_stage: 'quarantine_partial',
      next_config: { policy: 'quarantine', percentage: 10 },
      ready_to_advance: false,
      blockers: ['insufficient_data', 'low_pass_rate', 'min_days_not_met'],
    });
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [`v=DMARC1; p=none; rua=mailto:dmarc-rua@${ZONE}`]);
  });

  it('nightly: computes messages and pass rate over the last 7 days, once per night, ignoring older data', async () => {
    // Mail from before the window (8 days before the first night) and from outside the zone must not count.
    await stats.add(ZONE, new Date(nightOf(1).getTime() - 8 * DAY), 5000, 0);
    await stats.add(OTHER_ZONE, nightOf(0), 5000, 0);
    await stats.add(ZONE, new Date(nightOf(1).getTime() - 3600_000), 60, 57);
    const first = await runNight(1);
    night = 1;
    expect(first.zones).toEqual([expect.objectContaining({ zone: ZONE, recorded: true, messages: 60, passing: 57 })]);
    let p = (await app.http.get(wizard(), owner.token)).body;
    expect(p).toMatchObject({ days_at_current_stage: 1, messages_at_stage: 60, pass_rate_at_stage: 95 });

    // The same night again (a rerun, or a second worker): nothing changes.
    const rerun = await runNight(1);
    expect(rerun.zones[0].recorded).toBe(false);
    const metrics = await app.http.get('/metrics');
    expect(metrics.text).toMatch(/dmarc_nightly_zones_total\{result="recorded"\} 1\n/);
    expect(metrics.text).toMatch(/dmarc_nightly_zones_total\{result="already_recorded"\} 1\n/);
    p = (await app.http.get(wizard(), owner.token)).body;
    expect(p.days_at_current_stage).toBe(1);

    // 60 + 60 messages; 57 + 59 passing = 96.7 %: enough data, pass rate below quarantine_partial's 98.
    await nights(1, 60, 59);
    p = (await app.http.get(wizard(), owner.token)).body;
    expect(p).toMatchObject({ days_at_current_stage: 2, messages_at_stage: 120, pass_rate_at_stage: 96.7 });
    expect(await recommendation()).toMatchObject({
      recommendation: 'investigate',
      blockers: ['low_pass_rate', 'min_days_not_met'],
      ready_to_advance: false,
    });

    // Seven more clean days push the early failing day out of the window: keep_monitoring until day 14.
    await nights(7, 60, 60);
    p = (await app.http.get(wizard(), owner.token)).body;
    expect(p).toMatchObject({ days_at_current_stage: 9, messages_at_stage: 420, pass_rate_at_stage: 100 });
    expect(await recommendation()).toMatchObject({ recommendation: 'keep_monitoring', blockers: ['min_days_not_met'] });
    const notReady = await advance({ confirm: true });
    expect([notReady.status, notReady.body.error.code]).toEqual([409, 'not_ready']);
    expect(notReady.body.error.message).toMatch(/min_days_not_met/);
  });

  it('advances with confirmation and a custom percentage, through every stage to reject_full', async () => {
    await nights(5, 60, 60);
    expect(await recommendation()).toMatchObject({
      recommendation: 'ready_advance',
      ready_to_advance: true,
      blockers: [],
    });

    const noConfirm = await advance({});
    expect([noConfirm.status, noConfirm.body.error.code]).toEqual([400, 'confirmation_required']);
    expect((await advance({ confirm: 'yes' })).body.error.code).toBe('confirmation_required');
    for (const percentage of [0, 101]) {
      const bad = await advance({ confirm: true, percentage });
      expect([bad.status, bad.body.error.message]).toEqual([400, 'percentage: must be an integer from 1 to 100']);
    }

    const toQuarantine = await advance({ confirm: true, percentage: 25 });
    expect(toQuarantine.status).toBe(200);
    expect(toQuarantine.body).toMatchObject({ new_stage: 'quarantine_partial', policy: 'quarantine', percentage: 25 });
    expect(toQuarantine.body.message).toBe('Advanced to quarantine_partial: policy quarantine for 25% of messages');
    // The answer is what /openapi.json describes (the dashboard's types come from it).
    const check = answerChecker((await app.http.get('/openapi.json')).body);
    check('/email-auth/dmarc/wizard/{zone}/advance', 'post', toQuarantine);
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [
      `v=DMARC1; p=quarantine; pct=25; t=y; rua=mailto:dmarc-rua@${ZONE}`,
    ]);
    let p = (await app.http.get(wizard(), owner.token)).body;
    expect(p).toMatchObject({
      current_stage: 'quarantine_partial',
      percentage: 25,
      days_at_current_stage: 0,
      messages_at_stage: 0,
      recommended_min_days: 7,
    });
    expect(p.stage_history).toEqual([
      {
        stage: 'monitoring',
        policy: 'none',
        percentage: 100,
        entered_at: START.toISOString(),
        exited_at: nightOf(night).toISOString(),
        pass_rate: 100,
        messages: 420,
        days: 14,
      },
    ]);
    expect((await app.http.get(`/email-auth/domains/${ZONE}`, owner.token)).body.dmarc).toMatchObject({
      policy: 'quarantine',
      percentage: 25,
    });
    // The stage counters start again: the next advance needs the stage's own data.
    expect((await advance({ confirm: true })).body.error.code).toBe('not_ready');

    // quarantine_partial -> quarantine_full needs 99.0 %: 98.5 % is investigate.
    await nights(7, 200, 197);
    expect(await recommendation()).toMatchObject({
      recommendation: 'investigate',
      next_stage: 'quarantine_full',
      blockers: ['low_pass_rate'],
    });
    await nights(7, 200, 200);
    expect(await recommendation()).toMatchObject({
      recommendation: 'ready_advance',
      next_config: { policy: 'quarantine', percentage: 100 },
    });
    const percentageNotAllowed = await advance({ confirm: true, percentage: 50 });
    expect([percentageNotAllowed.status, percentageNotAllowed.body.error.message]).toEqual([
      400,
      'percentage: a custom percentage is allowed only when entering quarantine_partial or reject_partial, not quarantine_full',
    ]);
    expect((await advance({ confirm: true })).body).toMatchObject({
      new_stage: 'quarantine_full',
      policy: 'quarantine',
      percentage: 100,
    });
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [`v=DMARC1; p=quarantine; rua=mailto:dmarc-rua@${ZONE}`]);

    await nights(14, 200, 200);
    expect((await advance({ confirm: true })).body).toMatchObject({
      new_stage: 'reject_partial',
      policy: 'reject',
      percentage: 10,
    });
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [
      `v=DMARC1; p=reject; pct=10; t=y; rua=mailto:dmarc-rua@${ZONE}`,
    ]);

    // reject_full has no pass-rate threshold: data and days are what count.
    await nights(3, 200, 150);
    expect(await recommendation()).toMatchObject({
      recommendation: 'keep_monitoring',
      blockers: ['min_days_not_met'],
      next_stage: 'reject_full',
    });
    await nights(4, 200, 200);
    expect((await advance({ confirm: true })).body).toEqual({
      message: 'Advanced to reject_full: full enforcement is active',
      new_stage: 'reject_full',
      policy: 'reject',
      percentage: 100,
    });
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [`v=DMARC1; p=reject; rua=mailto:dmarc-rua@${ZONE}`]);

    expect(await recommendation()).toEqual({
      recommendation: 'full_enforcement',
      reason: expect.any(String),
      next_stage: null,
      next_config: null,
      ready_to_advance: false,
      blockers: [],
    });
    const final = await advance({ confirm: true });
    expect([final.status, final.body.error]).toEqual([
      409,
      { code: 'final_stage', message: 'Already at final policy stage' },
    ]);

    const progression = await app.http.get(wizard(), owner.token);
    check('/email-auth/dmarc/wizard/{zone}', 'get', progression);
    p = progression.body;
    expect(p.stage_history.map((h: { stage: string }) => h.stage)).toEqual([
      'monitoring',
      'quarantine_partial',
      'quarantine_full',
      'reject_partial',
    ]);
    expect(p.stage_history.length).toBeLessThanOrEqual(5);
  });

  it('records dmarc.policy.changed facts (DmarcPolicyChanged) in the zone’s stream for the event log', async () => {
    const stream = await app.http.admin('GET', `/admin/streams/emailauth-${ZONE}`);
    const changes = stream.body.events
      .filter((e: { type: string }) => e.type === 'DmarcPolicyChanged')
      .map((e: { data: unknown }) => e.data);
    expect(changes.map((c: { source: string; to: unknown }) => [c.source, c.to])).toEqual([
      ['settings', { policy: 'none', percentage: 100 }],
      ['wizard', { policy: 'quarantine', percentage: 25 }],
      ['wizard', { policy: 'quarantine', percentage: 100 }],
      ['wizard', { policy: 'reject', percentage: 10 }],
      ['wizard', { policy: 'reject', percentage: 100 }],
    ]);
    // One metrics event per night, whatever the reruns.
    const nightsRecorded = stream.body.events
      .filter((e: { type: string }) => e.type === 'DmarcStageMetricsRecorded')
      .map((e: { data: { night: string } }) => e.data.night);
    expect(new Set(nightsRecorded).size).toBe(nightsRecorded.length);
    expect(nightsRecorded).toHaveLength(night);
  });

  it('the operator CLI runs the job (jobs:dmarc-nightly) and the admin endpoint checks `now`', async () => {
    const bad = await app.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: 'yesterday' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
    const cli = join(__dirname, '..', 'dist', 'apps', 'cli', 'main.js');
    if (!existsSync(cli)) throw new Error('run `npm run build` first: the CLI test runs dist/apps/cli/main.js');
    const at = nightOf(night + 1).toISOString();
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'jobs:dmarc-nightly', '--now', at], {
      env: { ...process.env, ADMIN_URL: app.url, ADMIN_TOKEN },
    });
    expect(JSON.parse(stdout)).toMatchObject({
      night: at.slice(0, 10),
      zones: [expect.objectContaining({ zone: ZONE, recorded: true })],
    });
    expect((await app.http.get(wizard(), owner.token)).body.days_at_current_stage).toBe(1);
  });

  it('the nightly job publishes records again from the settings when the zone lost them', async () => {
    const login = await app.http.post('/auth/login', { username: owner.username, password: owner.password });
    owner.token = login.body.access_token;
    const removed = await app.http.put(
      `/zones/${ZONE}/records`,
      { records: [{ subname: '_dmarc', type: 'TXT', ttl: 3600, records: [] }] },
      owner.token,
    );
    expect(removed.status).toBe(200);
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', []);
    night += 2;
    const res = await app.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: nightOf(night).toISOString() });
    expect(res.body.republished).toBe(1);
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [`v=DMARC1; p=reject; rua=mailto:dmarc-rua@${ZONE}`]);
  });
});
