import { request as httpRequest } from 'node:http';
import { waitForDns } from './support/dns-client';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP/1.1 request, so the test sees the framing (Content-Length, never chunked). */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const ERROR_WORDS = /ok|good|true|updated|success/i;

describe('DDNS update endpoints (ddns.md)', () => {
  let app: TestApp;
  let dnsPort: number;
  let pro: { token: string; username: string; email: string; id: number };
  let key: string;
  let otherUser: string;

  const update = (query: string, auth = basic(pro.username, key), path = '/domains/nic/update') =>
    raw(app.url, `${path}?${query}`, { headers: { authorization: auth } });

  beforeAll(async () => {
    dnsPort = await freePort();
    // Updates come from 127.0.0.1 and set loopback addresses: allowed here only (contract §16; refusals: private-targets.e2e-spec.ts).
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' },
    });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
    key = (await app.http.post('/api-keys', { name: 'router' }, pro.token)).body.key;
    otherUser = (await registerAndLogin(app.http, { plan: 'pro' })).username;
    for (const [fqdn, type, ip] of [
      ['home.dyn.example.net', 'A', '192.0.2.1'],
      ['nas.dyn.example.net', 'A', '192.0.2.2'],
      ['busy.dyn.example.net', 'A', '192.0.2.3'],
    ]) {
      const res = await app.http.post('/api/domains', { fqdn, record_type: type, record_ip: ip }, pro.token);
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app.close());

  it('updates with Basic auth: good, then nochg; text/plain with Content-Length; served over DNS within 1 s', async () => {
    const first = await update('hostname=home.dyn.example.net&myip=198.51.100.7');
    expect([first.status, first.body]).toEqual([200, 'good 198.51.100.7']);
    expect(first.headers['content-type']).toMatch(/^text\/plain/);
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.body)));
    expect(first.headers['transfer-encoding']).toBeUndefined();
    expect(await waitForDns(dnsPort, 'home.dyn.example.net', 'A', ['198.51.100.7'])).toBeLessThan(1000);
    const again = await update('hostname=home.dyn.example.net&myip=198.51.100.7');
    expect(again.body).toBe('nochg 198.51.100.7');
  });

  it('accepts Bearer, query credentials, the email as username, POST forms and the other paths', async () => {
    expect((await update('hostname=home.dyn.example.net&myip=198.51.100.8', `Bearer ${key}`)).body).toBe(
      'good 198.51.100.8',
    );
    const viaQuery = await raw(
      app.url,
      `/domains/dyndns/update?hostname=home.dyn.example.net&myip=198.51.100.9&username=${pro.username}&password=${key}`,
    );
    expect(viaQuery.body).toBe('good 198.51.100.9');
    expect((await update('hostname=home.dyn.example.net&myip=198.51.100.10', basic(pro.email, key))).body).toBe(
      'good 198.51.100.10',
    );
    const form = await raw(app.url, '/domains/nic/update', {
      method: 'POST',
      headers: { authorization: basic('', key), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'hostname=home.dyn.example.net&myip=198.51.100.11',
    });
    expect(form.body).toBe('good 198.51.100.11');
    // The username may be the host itself, which is then the default hostname.
    expect((await update('myip=198.51.100.12', basic('home.dyn.example.net', key))).body).toBe('good 198.51.100.12');
    await waitForDns(dnsPort, 'home.dyn.example.net', 'A', ['198.51.100.12']);
  });

  it('handles dual stack: comma lists, URL-encoded IPv6, preserve, "-" and the source address', async () => {
    expect((await update('hostname=nas.dyn.example.net&myip=203.0.113.5,2001%3adb8%3a%3a5')).body).toBe(
      'good 203.0.113.5,2001:db8::5',
    );
    await waitForDns(dnsPort, 'nas.dyn.example.net', 'AAAA', ['2001:db8::5']);
    await waitForDns(dnsPort, 'nas.dyn.example.net', 'A', ['203.0.113.5']);
    expect((await update('hostname=nas.dyn.example.net&myipv6=2001:db8::6&myipv4=preserve')).body).toBe(
      'good 2001:db8::6',
    );
    expect((await update('hostname=nas.dyn.example.net&myipv6=-')).body).toBe('good 203.0.113.5');
    await waitForDns(dnsPort, 'nas.dyn.example.net', 'AAAA', []);
    // The primary family cannot be deleted.
    expect((await update('hostname=nas.dyn.example.net&myipv4=-')).body).toBe('nochg 203.0.113.5');
    // No address, or an empty myip=: the caller's own address.
    expect((await update('hostname=nas.dyn.example.net&myip=')).body).toBe('good 127.0.0.1');
    expect((await update('hostname=nas.dyn.example.net')).body).toBe('nochg 127.0.0.1');
    const domain = await app.http.get('/api/domains/fqdn/nas.dyn.example.net', pro.token);
    expect(domain.body).toMatchObject({
      record_type: 'A',
      record_ip: '127.0.0.1',
      addresses: { ipv4: '127.0.0.1', ipv6: null },
    });
  });

  it('answers per host in order, and account-level codes once', async () => {
    const many = await update(
      'hostname=home.dyn.example.net,missing.dyn.example.net,not_valid,nas.dyn.example.net&myip=127.0.0.1',
    );
    expect(many.body.split('\n')).toEqual(['good 127.0.0.1', 'nohost', 'notfqdn', 'nochg 127.0.0.1']);
    const hosts = Array.from({ length: 21 }, (_, i) => `h${i}.dyn.example.net`).join(',');
    expect((await update(`hostname=${hosts}&myip=127.0.0.1`)).body).toBe('numhost');
    expect((await update('myip=127.0.0.1')).body).toBe('notfqdn');
    expect((await update('hostname=home.dyn.example.net&offline=YES')).body).toBe('!donator');
    for (const body of ['nohost', 'notfqdn', 'numhost', 'abuse', 'dnserr', 'badauth', '911', '!donator'])
      expect(body).not.toMatch(ERROR_WORDS);
  });

  it('refuses bad credentials with badauth 401 and a Basic challenge; last_used_at moves only on success', async () => {
    const before = (await app.http.get('/api-keys', pro.token)).body.keys[0].last_used_at;
    for (const auth of [
      basic(pro.username, 'ak_wrong'),
      basic(otherUser, key),
      basic('someone.else.dyn.example.net', key),
      'Bearer nope',
      '',
    ]) {
      const res = await update('hostname=home.dyn.example.net&myip=192.0.2.200', auth);
      expect([auth, res.status, res.body]).toEqual([auth, 401, 'badauth']);
      expect(res.headers['www-authenticate']).toBe('Basic realm="ddns"');
    }
    expect((await app.http.get('/api-keys', pro.token)).body.keys[0].last_used_at).toBe(before);
    const v2 = await update('hostname=home.dyn.example.net', basic(pro.username, 'ak_wrong'), '/domains/v2/update');
    expect(v2.status).toBe(401);
    expect(JSON.parse(v2.body).error.code).toBe('badauth');
  });

  it('answers v2 in JSON', async () => {
    const res = await update(
      'hostname=nas.dyn.example.net,missing.dyn.example.net&myip=127.0.0.1,2001:db8::9',
      basic(pro.username, key),
      '/domains/v2/update',
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({
      results: [
        { hostname: 'nas.dyn.example.net', result: 'good', ipv4: '127.0.0.1', ipv6: '2001:db8::9' },
        { hostname: 'missing.dyn.example.net', result: 'nohost', ipv4: null, ipv6: null },
      ],
    });
  });

  it('tells the caller its address on checkip', async () => {
    const res = await raw(app.url, '/domains/nic/checkip');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body.trim()).toBe('127.0.0.1');
  });

  it('40 simultaneous updates of one host: exact throttle, valid answers, API, audit and DNS agree', async () => {
    const ips = Array.from({ length: 40 }, (_, i) => `10.0.0.${i + 1}`);
    const answers = await Promise.all(ips.map((ip) => update(`hostname=busy.dyn.example.net&myip=${ip}`)));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toMatch(/^(good|nochg) 10\.0\.0\.\d+$|^abuse$/);
    }
    const good = answers.filter((a) => a.body.startsWith('good'));
    expect(good).toHaveLength(10);
    expect(answers.filter((a) => a.body === 'abuse')).toHaveLength(30);

    const domain = (await app.http.get('/api/domains/fqdn/busy.dyn.example.net', pro.token)).body;
    expect(good.map((g) => g.body.slice(5))).toContain(domain.record_ip);
    await waitForDns(dnsPort, 'busy.dyn.example.net', 'A', [domain.record_ip]);

    let audit: Array<{ type: string; actor: string; data: { fqdn: string; addresses: { ipv4: string } } }> = [];
    for (let i = 0; i < 50; i++) {
      audit = (await app.http.get('/account/audit?limit=100', pro.token)).body.data.filter(
        (e: { type: string; data: { fqdn?: string } }) =>
          e.type === 'DomainAddressesChanged' && e.data.fqdn === 'busy.dyn.example.net',
      );
      if (audit.length >= 10) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(audit).toHaveLength(10);
    expect(audit[0].data.addresses.ipv4).toBe(domain.record_ip); // newest first
    const keyId = (await app.http.get('/api-keys', pro.token)).body.keys[0].id;
    for (const e of audit) expect(e.actor).toBe(`ddns:key:${keyId}`);
    // An unchanged address still answers nochg while the host is throttled.
    expect((await update(`hostname=busy.dyn.example.net&myip=${domain.record_ip}`)).body).toBe(
      `nochg ${domain.record_ip}`,
    );
    await waitForDns(dnsPort, 'busy.dyn.example.net', 'A', [domain.record_ip]);
  });
});
