import { digAsync } from './support/dig';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/** dig's answer lines for one name and type as `[ttl, data]`, from Debian's dig over UDP. */
async function digRecords(port: number, name: string, type: string): Promise<[number, string][]> {
  const { records } = await digAsync(port, name, type);
  return records.filter((r) => r.type === type).map((r) => [r.ttl, r.data]);
}

/** Polls dig until it answers `expected`; the time it took (the contract's 1 s is asserted by the caller). */
async function digUntil(port: number, name: string, type: string, expected: [number, string][]): Promise<number> {
  const started = Date.now();
  for (;;) {
    const got = await digRecords(port, name, type);
    if (JSON.stringify(got) === JSON.stringify(expected)) return Date.now() - started;
    if (Date.now() - started > 3000) throw new Error(`dig ${name} ${type}: ${JSON.stringify(got)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('host TTL edit and removing an address family (decision 0091)', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: { token: string; username: string; id: number };
  let other: { token: string };
  const fqdn = 'edit.dyn.example.net';
  const path = `/api/domains/fqdn/${fqdn}`;

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' },
    });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    other = await registerAndLogin(app.http);
    const created = await app.http.post(
      '/api/domains',
      { fqdn, record_type: 'A', record_ip: '192.0.2.10' },
      owner.token,
    );
    expect(created.status).toBe(201);
  });
  afterAll(() => app.close());

  let beforeEdits = '';

  it('changes the TTL: dig answers it within 1 s, addresses unchanged', async () => {
    const dual = await app.http.put(path, { ipv6: '2001:db8::10' }, owner.token);
    expect(dual.body.addresses).toEqual({ ipv4: '192.0.2.10', ipv6: '2001:db8::10' });
    await digUntil(dnsPort, fqdn, 'AAAA', [[60, '2001:db8::10']]);
    await sleep(5);
    beforeEdits = new Date().toISOString();
    await sleep(5);

    const put = await app.http.put(path, { ttl: 300 }, owner.token);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      ttl: 300,
      record_ip: '192.0.2.10',
      addresses: { ipv4: '192.0.2.10', ipv6: '2001:db8::10' },
    });
    expect(await digUntil(dnsPort, fqdn, 'A', [[300, '192.0.2.10']])).toBeLessThan(1000);
    expect(await digRecords(dnsPort, fqdn, 'AAAA')).toEqual([[300, '2001:db8::10']]);
  });

  it('removes the IPv6 address: dig stops answering AAAA within 1 s', async () => {
    const put = await app.http.put(path, { ipv6: null }, owner.token);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ record_type: 'A', addresses: { ipv4: '192.0.2.10', ipv6: null } });
    expect(await digUntil(dnsPort, fqdn, 'AAAA', [])).toBeLessThan(1000);
    expect(await digRecords(dnsPort, fqdn, 'A')).toEqual([[300, '192.0.2.10']]);
  });

  it('refuses removing the only address, bad TTLs, null TTL and empty bodies, changing nothing', async () => {
    const cases: [object, RegExp][] = [
      [{ ipv4: null }, /at least one address/],
      [{ ttl: 59 }, /ttl must be a whole number of seconds from 60 to 86400/],
      [{ ttl: 86_401 }, /ttl/],
      [{ ttl: '300' }, /ttl/],
      [{ ttl: null }, /ttl must not be null/],
      [{ ipv4: '2001:db8::1' }, /ipv4 must be an IPv4 address/],
      [{}, /at least one of record_ip, ipv4, ipv6 or ttl/],
      [{ record_ip: '192.0.2.1', ipv4: '192.0.2.2' }, /record_ip and ipv4/],
      // All or nothing: a good address with a bad TTL stores neither.
      [{ ipv6: '2001:db8::99', ttl: 5 }, /ttl/],
    ];
    for (const [body, message] of cases) {
      const res = await app.http.put(path, body, owner.token);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'validation_failed']);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await app.http.get(path, owner.token)).body).toMatchObject({
      ttl: 300,
      addresses: { ipv4: '192.0.2.10', ipv6: null },
    });
    expect((await app.http.put(path, { ttl: 120 }, other.token)).status).toBe(404);
  });

  it('removes the record type’s family when the other remains: the other becomes the record type', async () => {
    await app.http.put(path, { ipv6: '2001:db8::20' }, owner.token);
    const put = await app.http.put(path, { ipv4: null }, owner.token);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      record_type: 'AAAA',
      record_ip: '2001:db8::20',
      addresses: { ipv4: null, ipv6: '2001:db8::20' },
    });
    expect(await digUntil(dnsPort, fqdn, 'A', [])).toBeLessThan(1000);
  });

  it('keeps DDNS updates working, with the edited TTL', async () => {
    const key = (await app.http.post('/api-keys', { name: 'router' }, owner.token)).body.key as string;
    const auth = `Basic ${Buffer.from(`${owner.username}:${key}`).toString('base64')}`;
    const res = await fetch(`${app.url}/domains/nic/update?hostname=${fqdn}&myip=192.0.2.30`, {
      headers: { authorization: auth },
    });
    expect((await res.text()).trim()).toBe('good 192.0.2.30');
    await digUntil(dnsPort, fqdn, 'A', [[300, '192.0.2.30']]);
  });

  it('lists TTL and family changes in the host history, and restore brings back addresses and TTL', async () => {
    const history = await app.http.get(`${path}/history`, owner.token);
    const rows = history.body.data.map((c: { type: string; changes: unknown }) => [c.type, c.changes]);
    expect(rows.slice(0, 5)).toEqual([
      ['address_updated', [{ field: 'ipv4', before: null, after: '192.0.2.30' }]],
      ['address_updated', [{ field: 'ipv4', before: '192.0.2.10', after: null }]],
      ['address_updated', [{ field: 'ipv6', before: null, after: '2001:db8::20' }]],
      ['address_updated', [{ field: 'ipv6', before: '2001:db8::10', after: null }]],
      ['ttl_updated', [{ field: 'ttl', before: 60, after: 300 }]],
    ]);

    const restored = await app.http.post(`${path}/restore`, { as_of: beforeEdits }, owner.token);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ ttl: 60, addresses: { ipv4: '192.0.2.10', ipv6: '2001:db8::10' } });
    await digUntil(dnsPort, fqdn, 'A', [[60, '192.0.2.10']]);
    await digUntil(dnsPort, fqdn, 'AAAA', [[60, '2001:db8::10']]);
    const [latest] = (await app.http.get(`${path}/history?limit=2`, owner.token)).body.data;
    expect(latest.type).toBe('restored');
  });
});
