import { answerData, queryDns, waitForDns } from './support/dns-client';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

describe('domains (contract §4)', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: { token: string; id: number };
  let other: { token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net' } });
    owner = await registerAndLogin(app.http);
    other = await registerAndLogin(app.http);
  });
  afterAll(() => app.close());

  it('creates a host, serves it over DNS within 1 s, and lists it', async () => {
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'Home.Dyn.Example.Net.', record_type: 'A', record_ip: '192.0.2.10' },
      owner.token,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      fqdn: 'home.dyn.example.net',
      record_type: 'A',
      record_ip: '192.0.2.10',
      ttl: 60,
      monitor_enabled: false,
      addresses: { ipv4: '192.0.2.10', ipv6: null },
    });
    expect(Number.isInteger(created.body.id)).toBe(true);
    expect(created.body.created_at).toMatch(/Z$/);
    expect(await waitForDns(dnsPort, 'home.dyn.example.net', 'A', ['192.0.2.10'])).toBeLessThan(1000);

    const list = await app.http.get('/domains', owner.token);
    expect(list.status).toBe(200);
    expect(list.body.map((d: { fqdn: string }) => d.fqdn)).toEqual(['home.dyn.example.net']);
    expect((await app.http.get('/domains', other.token)).body).toEqual([]);
  });

  it('refuses names outside the dynamic-DNS and verified zones, and bad addresses', async () => {
    for (const fqdn of [
      'dyn.example.net',
      'x.example.org',
      'bad_name.dyn.example.net',
      '-a.dyn.example.net',
      `${'a'.repeat(64)}.dyn.example.net`,
    ]) {
      const res = await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.1' }, owner.token);
      expect([fqdn, res.status, res.body.error?.code]).toEqual([fqdn, 400, 'invalid_fqdn']);
    }
    const v6asA = await app.http.post(
      '/api/domains',
      { fqdn: 'v.dyn.example.net', record_type: 'A', record_ip: '2001:db8::1' },
      owner.token,
    );
    expect(v6asA.status).toBe(400);
    expect(v6asA.body.error.code).toBe('validation_failed');
    const badType = await app.http.post(
      '/api/domains',
      { fqdn: 'v.dyn.example.net', record_type: 'MX', record_ip: '192.0.2.1' },
      owner.token,
    );
    expect(badType.body.error.code).toBe('validation_failed');
    const extra = await app.http.post(
      '/api/domains',
      { fqdn: 'v.dyn.example.net', record_type: 'A', record_ip: '192.0.2.1', x: 1 },
      owner.token,
    );
    expect(extra.body.error.code).toBe('validation_failed');
    // The refused address did not keep the name.
    const ok = await app.http.post(
      '/api/domains',
      { fqdn: 'v.dyn.example.net', record_type: 'AAAA', record_ip: '2001:db8::7' },
      owner.token,
    );
    expect(ok.status).toBe(201);
    await waitForDns(dnsPort, 'v.dyn.example.net', 'AAAA', ['2001:db8::7']);
  });

  it('guards fqdn uniqueness across accounts, also under concurrency', async () => {
    const taken = await app.http.post(
      '/api/domains',
      { fqdn: 'home.dyn.example.net', record_type: 'A', record_ip: '192.0.2.1' },
      other.token,
    );
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('fqdn_taken');
    const racers = await Promise.all(
      [owner, other, owner, other].map((a) =>
        app.http.post(
          '/api/domains',
          { fqdn: 'race.dyn.example.net', record_type: 'A', record_ip: '192.0.2.2' },
          a.token,
        ),
      ),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('updates both families with PUT; other accounts get 404', async () => {
    const put = await app.http.put(
      '/api/domains/fqdn/home.dyn.example.net',
      { record_ip: '2001:db8::10' },
      owner.token,
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      record_type: 'A',
      record_ip: '192.0.2.10',
      addresses: { ipv4: '192.0.2.10', ipv6: '2001:db8::10' },
    });
    await waitForDns(dnsPort, 'home.dyn.example.net', 'AAAA', ['2001:db8::10']);
    const put4 = await app.http.put('/api/domains/fqdn/home.dyn.example.net', { record_ip: '192.0.2.11' }, owner.token);
    expect(put4.body.record_ip).toBe('192.0.2.11');
    await waitForDns(dnsPort, 'home.dyn.example.net', 'A', ['192.0.2.11']);

    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { record_ip: '192.0.2.99' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await app.http.request(method, '/api/domains/fqdn/home.dyn.example.net', {
        body,
        token: other.token,
      });
      expect([method, res.status, res.body.error.code]).toEqual([method, 404, 'not_found']);
    }
    const bad = await app.http.put('/api/domains/fqdn/home.dyn.example.net', { record_ip: 'nope' }, owner.token);
    expect(bad.body.error.code).toBe('validation_failed');
    expect((await app.http.get('/api/domains/fqdn/missing.dyn.example.net', owner.token)).status).toBe(404);
  });

  it('records actor and source IP on every change', async () => {
    const audit = await app.http.get('/account/audit?limit=100', owner.token);
    const changes = audit.body.data.filter((e: { type: string }) => e.type.startsWith('Domain'));
    expect(changes.length).toBeGreaterThanOrEqual(4);
    for (const e of changes) expect(e).toMatchObject({ actor: `user:${owner.id}`, source_ip: '127.0.0.1' });
  });

  it('deletes a host: NXDOMAIN, and the name is free again', async () => {
    expect((await app.http.delete('/api/domains/fqdn/v.dyn.example.net', owner.token)).status).toBe(204);
    const started = Date.now();
    for (;;) {
      const res = await queryDns(dnsPort, 'v.dyn.example.net', 'AAAA');
      if (res.rcode === 'NXDOMAIN') break;
      if (Date.now() - started > 1000) throw new Error(`still served: ${answerData(res, 'AAAA')}`);
    }
    const again = await app.http.post(
      '/api/domains',
      { fqdn: 'v.dyn.example.net', record_type: 'A', record_ip: '192.0.2.3' },
      other.token,
    );
    expect(again.status).toBe(201);
  });

  it('answers the dynamic-DNS zone apex with SOA and NS from NAMESERVERS', async () => {
    const ns = await queryDns(dnsPort, 'dyn.example.net', 'NS');
    expect(answerData(ns, 'NS').sort()).toEqual(['ns1.example.net', 'ns2.example.net']);
    const soa = await queryDns(dnsPort, 'nothing.dyn.example.net', 'A');
    expect(soa.rcode).toBe('NXDOMAIN');
    expect(soa.authorities?.[0].type).toBe('SOA');
  });
});
