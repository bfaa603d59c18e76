import { rmSync } from 'node:fs';
import { DnsService } from '../libs/dns-role/dns.module';
import { queryDns } from './support/dns-client';
import { ADMIN_TOKEN, registerAndLogin, startTestApp, TestApp } from './support/test-app';

describe('operations (contract §13)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports health of the stores and each projection', async () => {
    await registerAndLogin(t.http);
    const res = await t.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      event_store: { kind: 'sqlite', status: 'ok' },
      read_store: { kind: 'embedded', status: 'ok' },
    });
    const names = res.body.projections.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(['accounts', 'sessions', 'api_keys', 'audit']));
    for (const p of res.body.projections)
      expect(p).toEqual({ name: expect.any(String), position: expect.any(String), lag: 0, state: 'live' });
  });

  it('exposes Prometheus metrics', async () => {
    await t.http.get('/health');
    const res = await t.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(res.text).toMatch(/^# HELP http_requests_total/m);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/health",status="200"\} \d+/);
    expect(res.text).toMatch(/projection_lag_events\{projection="accounts"\} 0/);
  });

  it('counts answered DNS queries in the metrics (each DNS thread reports them in batches)', async () => {
    const dns = t.running.app.get(DnsService);
    expect(dns.mode).toBe('thread');
    expect((await queryDns(dns.port!, 'dyn.example.net', 'SOA')).rcode).toBe('NOERROR');
    expect((await queryDns(dns.port!, 'nothing.example.org', 'A')).rcode).toBe('REFUSED');
    let text = '';
    // The two queries may reach different threads (SO_REUSEPORT), whose batches arrive apart.
    const bothCounted = /dns_answer_duration_seconds_count ([2-9]|\d\d)/;
    for (let i = 0; i < 50 && !bothCounted.test(text); i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = (await t.http.get('/metrics')).text;
    }
    expect(text).toMatch(/dns_queries_total\{transport="udp",rcode="NOERROR"\} [1-9]/);
    expect(text).toMatch(/dns_queries_total\{transport="udp",rcode="REFUSED"\} [1-9]/);
    expect(text).toMatch(/dns_answer_duration_seconds_count [1-9]/);
  });

  it('guards admin endpoints with the operator token', async () => {
    const u = await registerAndLogin(t.http);
    const none = await t.http.request('PUT', `/admin/accounts/${u.id}/subscription`, { body: { plan: 'pro' } });
    expect(none.status).toBe(401);
    const wrong = await t.http.request('PUT', `/admin/accounts/${u.id}/subscription`, {
      body: { plan: 'pro' },
      headers: { 'x-admin-token': ADMIN_TOKEN + 'x' },
    });
    expect(wrong.status).toBe(401);
    const session = await t.http.request('PUT', `/admin/accounts/${u.id}/subscription`, {
      body: { plan: 'pro' },
      token: u.token,
    });
    expect(session.status).toBe(401);
    const ok = await t.http.admin('PUT', `/admin/accounts/${u.id}/subscription`, {
      plan: 'elite',
      email_auth: { tier: 'standard', domains: ['b.example', 'a.example'] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      plan: 'elite',
      email_auth: { tier: 'standard', domains: ['a.example', 'b.example'] },
    });
    expect((await t.http.admin('PUT', `/admin/accounts/${u.id}/subscription`, { plan: 'gold' })).body.error.code).toBe(
      'validation_failed',
    );
    expect((await t.http.admin('PUT', '/admin/accounts/999999/subscription', { plan: 'pro' })).status).toBe(404);
    expect((await t.http.admin('POST', '/admin/accounts/abc/disable')).status).toBe(400);
  });

  it('replays a stream for audits, with secrets redacted', async () => {
    const u = await registerAndLogin(t.http);
    const res = await t.http.admin('GET', `/admin/streams/account-${u.id}`);
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: any) => [e.revision, e.type])).toEqual([
      [0, 'AccountRegistered'],
      [1, 'SessionStarted'],
    ]);
    expect(res.body.events[0].metadata).toMatchObject({
      actor: `user:${u.id}`,
      account_id: u.id,
      version: 1,
      source_ip: '127.0.0.1',
    });
    expect(res.body.events[0].data.password_hash).toBe('[redacted]');
    expect((await t.http.admin('GET', '/admin/streams/account-424242')).status).toBe(404);
  });

  it('rebuilds a projection without downtime into a copy equal to the live one', async () => {
    const u = await registerAndLogin(t.http, { plan: 'pro' });
    const keys: Array<{ id: string; key: string }> = [];
    for (let i = 0; i < 3; i++) keys.push((await t.http.post('/api-keys', { name: `k${i}` }, u.token)).body);
    expect((await t.http.get('/account', keys[0].key)).status).toBe(200);
    const usedBefore = (await t.http.get('/api-keys', u.token)).body.keys.find(
      (k: any) => k.id === keys[0].id,
    ).last_used_at;
    expect(usedBefore).toEqual(expect.any(String));
    const engine = t.running.deps.projections;
    const snapshot = async () => {
      const docs = await engine.collection('api_keys', 'api_keys').find({}, { sort: { _id: 1 } });
      return docs;
    };
    const before = await snapshot();
    const beforeStatus = (await t.http.admin('GET', '/admin/projections')).body.projections.find(
      (p: any) => p.name === 'api_keys',
    );
    // Readers keep working while the new generation builds.
    const rebuild = t.http.admin('POST', '/admin/projections/api_keys/rebuild?wait=true');
    expect((await t.http.get('/api-keys', u.token)).body.keys).toHaveLength(3);
    const res = await rebuild;
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ projection: 'api_keys', generation: beforeStatus.generation + 1, status: 'switched' });
    expect(await snapshot()).toEqual(before);
    const listed = (await t.http.get('/api-keys', u.token)).body.keys;
    expect(listed).toHaveLength(3);
    // last_used_at lives outside the projection, so a rebuild keeps it.
    expect(listed.find((k: any) => k.id === keys[0].id).last_used_at).toBe(usedBefore);
    expect((await t.http.admin('POST', '/admin/projections/nope/rebuild')).status).toBe(404);
  });
});

describe('admin endpoints without ADMIN_TOKEN', () => {
  it('do not exist', async () => {
    const t = await startTestApp({ env: { ADMIN_TOKEN: '' } });
    try {
      const res = await t.http.admin('GET', '/admin/projections');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await t.close();
    }
  });
});

describe('health when a store is down', () => {
  it('answers 503 with the same shape', async () => {
    const t = await startTestApp();
    try {
      await t.running.deps.readStore.close();
      const res = await t.http.get('/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: 'degraded',
        event_store: { kind: 'sqlite', status: 'ok' },
        read_store: { kind: 'embedded', status: 'unavailable' },
        projections: expect.any(Array),
      });
    } finally {
      // The projections cannot save their checkpoints into a closed read store: shutdown
      // says so, and still closes everything else.
      expect(
        await t.close(false).then(
          () => 'closed cleanly',
          () => 'failure reported',
        ),
      ).toBe('failure reported');
      rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});

describe('DNS role on the main thread (DNS_THREAD=off)', () => {
  it('answers and counts queries at once', async () => {
    const t = await startTestApp({ env: { DNS_THREAD: 'off' } });
    try {
      const dns = t.running.app.get(DnsService);
      expect(dns.mode).toBe('inline');
      expect((await queryDns(dns.port!, 'dyn.example.net', 'SOA')).rcode).toBe('NOERROR');
      const res = await t.http.get('/metrics');
      expect(res.text).toMatch(/dns_queries_total\{transport="udp",rcode="NOERROR"\} 1/);
    } finally {
      await t.close();
    }
  });
});
