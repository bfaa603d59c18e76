import { EVENT_STORE, EventStore } from '../libs/eventstore/event-store.port';
import { webhooksStream } from '../libs/webhooks/domain/webhook.events';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver, withoutRepeats } from '../bench/support/webhook-receiver';

/**
 * Signed webhooks (contract §19, issue 26): the API's rules, and deliveries to a real
 * receiver on loopback that checks every signature with the `standardwebhooks` package.
 * The longest wait between retries is lowered to 4 s (config `webhookMaxRetryMs`, tests
 * only) so the 60 s outage is followed by a retry within seconds.
 */
describe('webhooks (contract §19)', () => {
  let app: TestApp;
  let store: EventStore;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    app = await startTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true' }, config: { webhookMaxRetryMs: 4_000 } });
    store = app.running.app.get(EVENT_STORE);
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  const create = async (token: string, path: string, eventTypes: string[]) => {
    const res = await app.http.post(
      '/webhooks',
      { url: receiver.url(path), event_types: eventTypes, description: path },
      token,
    );
    expect(res.status).toBe(201);
    receiver.secret(path, res.body.secret);
    return res.body;
  };

  const patch = (path: string, body: object, token: string) => app.http.request('PATCH', path, { body, token });
  const deliveries = async (token: string, id: string, query = '') =>
    (await app.http.get(`/webhooks/${id}/deliveries?limit=100${query}`, token)).body.data as any[];
  // The delivery log is a read model: it shows an attempt shortly after the receiver saw it.
  const loggedDeliveries = async (token: string, id: string, query: string, shown = (log: any[]) => log.length > 0) => {
    let log: any[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      log = await deliveries(token, id, query);
      if (shown(log)) break;
    }
    return log;
  };

  it('registers endpoints with a secret shown once and kept sealed; Pro and Elite only, within the plan’s limit', async () => {
    const free = await registerAndLogin(app.http);
    const refused = await app.http.post('/webhooks', { url: receiver.url('/free'), event_types: ['*'] }, free.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('plan_required');
    expect((await app.http.get('/webhooks', free.token)).status).toBe(403);

    const pro = await registerAndLogin(app.http, { plan: 'pro' });
    const first = await create(pro.token, '/limit/0', ['*']);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first).toMatchObject({
      url: receiver.url('/limit/0'),
      event_types: ['*'],
      enabled: true,
      disabled_reason: null,
      description: '/limit/0',
    });
    for (let i = 1; i < 5; i++) await create(pro.token, `/limit/${i}`, ['zone.changed']);
    const sixth = await app.http.post(
      '/webhooks',
      { url: receiver.url('/limit/5'), event_types: ['zone.changed'] },
      pro.token,
    );
    expect(sixth.status).toBe(403);
    expect(sixth.body.error).toEqual({
      code: 'limit_reached',
      message: 'Webhook endpoint limit reached for your plan (5)',
    });

    const listed = (await app.http.get('/webhooks', pro.token)).body.webhooks;
    expect(listed).toHaveLength(5);
    expect(listed.every((w: any) => w.secret === undefined)).toBe(true);
    const stored = JSON.stringify((await store.readStream(webhooksStream(pro.id))).map((e) => e.data));
    expect(stored).not.toContain(first.secret.slice(6));

    // A deleted endpoint frees its place.
    expect((await app.http.delete(`/webhooks/${first.id}`, pro.token)).status).toBe(204);
    expect(
      (await app.http.post('/webhooks', { url: receiver.url('/limit/5'), event_types: ['uptime.down'] }, pro.token))
        .status,
    ).toBe(201);
  });

  it('refuses unknown event types, bad URLs and null fields with 400; other accounts’ webhooks are 404', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'elite' });
    const bad = async (body: object) => {
      const res = await app.http.post('/webhooks', body, owner.token);
      expect(res.status).toBe(400);
      return res.body.error.message as string;
    };
    expect(await bad({ url: receiver.url('/x'), event_types: ['zone.changed', 'zone.renamed'] })).toMatch(
      /unknown event type "zone.renamed"/,
    );
    expect(await bad({ url: receiver.url('/x'), event_types: [] })).toMatch(/event_types/);
    expect(await bad({ url: 'not a url', event_types: ['*'] })).toMatch(/url/);
    expect(await bad({ url: 'ftp://127.0.0.1/x', event_types: ['*'] })).toMatch(/https/);
    expect(await bad({ url: 'http://user:pw@127.0.0.1/x', event_types: ['*'] })).toMatch(/credentials/);
    expect(await bad({ url: receiver.url('/x'), event_types: null })).toMatch(/event_types/);

    const hook = await create(owner.token, '/owned', ['zone.changed']);
    const other = await registerAndLogin(app.http, { plan: 'elite' });
    expect((await app.http.get(`/webhooks/${hook.id}`, other.token)).status).toBe(404);
    expect((await patch(`/webhooks/${hook.id}`, { enabled: false }, other.token)).status).toBe(404);
    expect((await app.http.delete(`/webhooks/${hook.id}`, other.token)).status).toBe(404);
    expect((await app.http.post(`/webhooks/${hook.id}/test`, {}, other.token)).status).toBe(404);
    expect((await app.http.get(`/webhooks/${hook.id}/deliveries`, other.token)).status).toBe(404);
    expect((await app.http.get('/webhooks/not-an-id', owner.token)).status).toBe(404);
    expect((await patch(`/webhooks/${hook.id}`, { event_types: ['nope'] }, owner.token)).status).toBe(400);
  });

  it('delivers zone and host changes, signed, in order, with webhook-id the event’s id (its audit entry)', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const hook = await create(owner.token, '/changes', ['zone.changed', 'ddns.host.address_changed']);
    const zone = `wh${Date.now()}.example`;
    expect((await app.http.post('/zones', { name: zone }, owner.token)).status).toBe(201);
    expect(
      (
        await app.http.put(
          `/zones/${zone}/records`,
          { records: [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] }] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await app.http.put(
          `/zones/${zone}/records`,
          { records: [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.2'] }] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    const fqdn = `wh${Date.now()}.dyn.example.net`;
    expect(
      (await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.10' }, owner.token)).status,
    ).toBe(201);
    for (const ip of ['192.0.2.11', '192.0.2.12', '192.0.2.13'])
      expect((await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: ip }, owner.token)).status).toBe(200);

    const got = () => receiver.on('/changes');
    await receiver.until(() => got().length >= 5, 20_000, 'five deliveries');
    expect(got().every((r) => r.verified)).toBe(true);
    const bodies = got().map((r) => r.body);
    expect(bodies.map((b) => b.type)).toEqual([
      'zone.changed',
      'zone.changed',
      'ddns.host.address_changed',
      'ddns.host.address_changed',
      'ddns.host.address_changed',
    ]);
    // The zone's creation (an empty import) changed no record: no delivery.
    expect(bodies[0].data).toEqual({
      zone,
      changes: [{ subname: 'www', type: 'A', before: null, after: ['192.0.2.1'], before_ttl: null, after_ttl: 300 }],
    });
    expect(bodies[1].data.changes[0]).toMatchObject({ before: ['192.0.2.1'], after: ['192.0.2.2'] });
    expect(bodies.slice(2).map((b) => b.data)).toEqual(
      ['192.0.2.11', '192.0.2.12', '192.0.2.13'].map((ip, i) => ({
        fqdn,
        changes: [{ field: 'ipv4', before: i === 0 ? '192.0.2.10' : `192.0.2.1${i}`, after: ip }],
      })),
    );
    for (const [i, r] of got().entries()) {
      expect(r.id).toBe(bodies[i].id);
      expect(bodies[i]).toMatchObject({ account_id: owner.id, occurred_at: expect.any(String) });
    }
    const audit = (await app.http.get('/account/audit?limit=100', owner.token)).body.data.map((e: any) => e.id);
    for (const b of bodies) expect(audit).toContain(b.id);

    const log = await deliveries(owner.token, hook.id);
    expect(log).toHaveLength(5);
    expect(log.every((d) => d.status === 'succeeded' && d.attempt === 1 && d.response_status === 204)).toBe(true);
    expect(log.map((d) => d.event_id)).toEqual(bodies.map((b) => b.id).reverse());
  });

  it('sends webhook.test whatever the event types; 409 when disabled; events while disabled are never sent', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const hook = await create(owner.token, '/switch', ['ddns.host.address_changed']);
    const sent = await app.http.post(`/webhooks/${hook.id}/test`, {}, owner.token);
    expect(sent.status).toBe(202);
    await receiver.until(() => receiver.on('/switch').length === 1, 10_000, 'the test delivery');
    expect(receiver.on('/switch')[0]).toMatchObject({
      verified: true,
      id: sent.body.event_id,
      body: { type: 'webhook.test', data: { webhook_id: hook.id } },
    });

    expect((await patch(`/webhooks/${hook.id}`, { enabled: false }, owner.token)).body).toMatchObject({
      enabled: false,
      disabled_reason: null,
    });
    const refused = await app.http.post(`/webhooks/${hook.id}/test`, {}, owner.token);
    expect(refused.status).toBe(409);
    const fqdn = `sw${Date.now()}.dyn.example.net`;
    await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.20' }, owner.token);
    await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '192.0.2.21' }, owner.token);
    expect((await patch(`/webhooks/${hook.id}`, { enabled: true }, owner.token)).body.enabled).toBe(true);
    await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '192.0.2.22' }, owner.token);
    await receiver.until(() => receiver.on('/switch').length === 2, 10_000, 'the change after enabling');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.on('/switch').map((r) => r.body.data?.changes?.[0]?.after ?? r.body.type)).toEqual([
      'webhook.test',
      '192.0.2.22',
    ]);
  });

  it('does not follow redirects; redelivers on request with the same webhook-id as the next attempt', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const hook = await create(owner.token, '/moving', ['*']);
    receiver.answer('/moving', 'redirect');
    const test = (await app.http.post(`/webhooks/${hook.id}/test`, {}, owner.token)).body.event_id;
    await receiver.until(() => receiver.hits.includes('/moving'), 10_000, 'the first attempt');
    const log = await loggedDeliveries(owner.token, hook.id, '&status=failed');
    expect(log[0]).toMatchObject({ event_id: test, attempt: 1, status: 'failed', response_status: 302 });
    // The first retry is due within 5 s of the failure.
    expect(Date.parse(log[0].next_attempt_at) - Date.parse(log[0].attempted_at)).toBeLessThanOrEqual(5_000);
    expect(receiver.hits).not.toContain('/moving/moved');

    receiver.answer('/moving', 'ok');
    await receiver.until(() => receiver.on('/moving').length === 1, 15_000, 'the retry');
    const succeeded = (await loggedDeliveries(owner.token, hook.id, '&status=succeeded'))[0];
    expect(succeeded).toMatchObject({ event_id: test, attempt: 2 });
    expect(
      (await app.http.post(`/webhooks/${hook.id}/deliveries/${succeeded.id}/redeliver`, {}, owner.token)).status,
    ).toBe(202);
    await receiver.until(() => receiver.on('/moving').length === 2, 10_000, 'the redelivery');
    expect(receiver.on('/moving').map((r) => r.id)).toEqual([test, test]);
    expect(receiver.on('/moving').every((r) => r.verified)).toBe(true);
    const attempts = (await loggedDeliveries(owner.token, hook.id, '', (log) => log[0]?.attempt === 3)).map(
      (d) => d.attempt,
    );
    expect(attempts[0]).toBe(3);
    expect((await app.http.post(`/webhooks/${hook.id}/deliveries/nope/redeliver`, {}, owner.token)).status).toBe(404);
  });

  it('a receiver down for 60 s gets every event after, in order per endpoint, first retry within 5 s', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'elite' });
    const outage = new WebhookReceiver();
    await outage.start();
    const paths = ['/a', '/b'];
    const hooks = [];
    for (const path of paths) {
      const res = await app.http.post(
        '/webhooks',
        { url: outage.url(path), event_types: ['ddns.host.address_changed'] },
        owner.token,
      );
      outage.secret(path, res.body.secret);
      hooks.push(res.body);
    }
    const fqdn = `out${Date.now()}.dyn.example.net`;
    await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.100' }, owner.token);
    await outage.stop();
    const down = Date.now();
    const ips: string[] = [];
    for (let i = 1; i <= 10; i++) {
      ips.push(`192.0.2.${100 + i}`);
      await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: ips[ips.length - 1] }, owner.token);
      await new Promise((r) => setTimeout(r, 5_000));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 60_000 - (Date.now() - down))));
    await outage.start(outage.port);
    const back = Date.now();
    await outage.until(
      () => paths.every((p) => new Set(outage.on(p).map((r) => r.id)).size >= 10),
      30_000,
      'every event after the outage',
    );
    // The longest wait between tries is 4 s here (webhookMaxRetryMs), so all arrive within a few seconds of the receiver's return.
    expect(Date.now() - back).toBeLessThan(15_000);
    for (const path of paths) {
      const got = outage.on(path);
      expect(got.every((r) => r.verified)).toBe(true);
      expect(withoutRepeats(got.map((r) => r.body.data.changes[0].after))).toEqual(ips);
    }
    const log = await deliveries(owner.token, hooks[0].id);
    const firstEvent = log.filter((d) => d.event_id === log[log.length - 1].event_id).reverse();
    expect(firstEvent.length).toBeGreaterThan(5);
    expect(Date.parse(firstEvent[1].attempted_at) - Date.parse(firstEvent[0].attempted_at)).toBeLessThanOrEqual(5_000);
    expect(firstEvent.slice(0, -1).every((d) => d.status === 'failed' && d.response_status === null)).toBe(true);
    expect(firstEvent[firstEvent.length - 1].status).toBe('succeeded');
    await outage.stop();
  }, 240_000);
});

describe('webhooks: SSRF guard without ALLOW_PRIVATE_TARGETS (contract §16, §19)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses http, and URLs whose host is or resolves to a private, loopback or link-local address (400)', async () => {
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const refused = async (url: string, message: RegExp) => {
      const res = await app.http.post('/webhooks', { url, event_types: ['*'] }, owner.token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toMatch(message);
    };
    await refused('http://192.0.2.1/hook', /must be https/);
    await refused('https://127.0.0.1/hook', /loopback/);
    await refused('https://localhost:8443/hook', /loopback/);
    await refused('https://10.1.2.3/hook', /private/);
    await refused('https://169.254.169.254/latest', /link-local/);
    await refused('https://[::ffff:127.0.0.1]/hook', /loopback/);
    await refused('https://[fd00::1]/hook', /unique local/);
    // A documentation address is public for the rule (it reaches nothing): accepted.
    expect(
      (await app.http.post('/webhooks', { url: 'https://192.0.2.1/hook', event_types: ['*'] }, owner.token)).status,
    ).toBe(201);
  });
});
