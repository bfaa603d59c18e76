/**
 * The HTTP edge (contract §1 and §16, issue 24): inputs the framework meets before any
 * controller — deep JSON, ill-formed Unicode, long names in paths, oversized or broken
 * requests, `null` fields — are answered in the contract's error shape, never a 500 or a
 * framework body.
 */
import { connect } from 'node:net';
import { ADMIN_TOKEN, registerAndLogin, startTestApp, TestApp } from './support/test-app';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends bytes as they are (what fetch refuses to send) and reads the answer until the server closes. */
function rawRequest(url: string, request: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      let body: any = rest.join('\r\n\r\n');
      try {
        body = JSON.parse(body);
      } catch {
        /* keep the text: the assertion shows it */
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

const expectErrorShape = (res: { status: number; body: any }, status: number, code?: string | RegExp) => {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
  expect(res.body.error.code).toMatch(code ?? /^[a-z]+(_[a-z0-9]+)*$/);
  expect(typeof res.body.error.message).toBe('string');
};

describe('the HTTP edge (contract §1, §16)', () => {
  let app: TestApp;
  let pro: { token: string; id: number };

  beforeAll(async () => {
    app = await startTestApp({ env: { DDNS_ZONES: 'dyn.example.net' } });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
  });
  afterAll(() => app.close());

  /** `levels` arrays one inside the other. */
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it('refuses JSON nested deeper than 64 levels with 400 validation_failed, on every JSON endpoint, before authentication', async () => {
    const deep = `{"username": ${nested(3000)}, "password": "x"}`;
    for (const [path, token] of [
      ['/auth/login', undefined],
      ['/auth/register', undefined],
      ['/api/domains', pro.token],
      ['/zones', pro.token],
      ['/api-keys', pro.token],
    ] as const) {
      const res = await app.http.request('POST', path, { raw: deep, token });
      expectErrorShape(res, 400, 'validation_failed');
      expect(res.body.error.message).toMatch(/nested deeper than 64/);
    }
    // Brackets inside strings are text, not nesting.
    const text = await app.http.post('/auth/login', { username: '['.repeat(200), password: 'wrong-password-x' });
    expectErrorShape(text, 401, 'invalid_credentials');
    expect(text.body.error.message).not.toMatch(/nested/);
    // 64 levels are parsed (then refused by validation, naming the field); 65 are not.
    const at64 = await app.http.request('POST', '/auth/login', {
      raw: `{"username": ${nested(63)}, "password": "wrong-password-x"}`,
    });
    expectErrorShape(at64, 400, 'validation_failed');
    expect(at64.body.error.message).toMatch(/username/);
    const at65 = await app.http.request('POST', '/auth/login', {
      raw: `{"username": ${nested(64)}, "password": "wrong-password-x"}`,
    });
    expect(at65.body.error.message).toMatch(/nested deeper than 64/);
  });

  it('refuses strings with lone surrogates (ill-formed Unicode) in any field with 400 naming the field', async () => {
    const lone = await app.http.request('POST', '/auth/register', {
      raw: '{"username": "lone_one", "email": "\\ud800@x.test", "password": "long-password-1"}',
    });
    expectErrorShape(lone, 400, 'validation_failed');
    expect(lone.body.error.message).toMatch(/^email/);
    const login = await app.http.request('POST', '/auth/login', {
      raw: '{"username": "a\\udfffb", "password": "long-password-1"}',
    });
    expectErrorShape(login, 400, 'validation_failed');
    expect(login.body.error.message).toMatch(/^username/);
    const records = await app.http.request('PUT', '/zones/lone.example.org/records', {
      raw: '{"records": [{"subname": "", "type": "TXT", "ttl": 60, "records": ["\\"ok\\"", "\\"\\udc00\\""]}]}',
      token: pro.token,
    });
    expectErrorShape(records, 400, 'validation_failed');
    expect(records.body.error.message).toMatch(/^records\[0\]\.records\[1\]/);
    const key = await app.http.request('POST', '/auth/login', { raw: '{"\\ud800": 1}' });
    expectErrorShape(key, 400, 'validation_failed');
    // A well-formed pair is text like any other.
    const pair = await app.http.request('POST', '/auth/login', {
      raw: '{"username": "x\\ud83d\\ude00", "password": "long-password-1"}',
    });
    expectErrorShape(pair, 401, 'invalid_credentials');
  });

  /** A valid host name of exactly `length` characters under dyn.example.net, its labels as even as can be. */
  const hostOf = (length: number, prefix: string) => {
    const suffix = '.dyn.example.net';
    const body = length - suffix.length;
    const count = Math.ceil((body + 1) / 64);
    const chars = body - (count - 1);
    const labels = Array.from({ length: count }, (_, i) =>
      'a'.repeat(Math.floor(chars / count) + (i < chars % count ? 1 : 0)),
    );
    labels[0] = prefix + labels[0].slice(prefix.length);
    return labels.join('.') + suffix;
  };

  it('serves every name the API accepts (up to 253 characters) in every path', async () => {
    for (const length of [139, 253]) {
      const fqdn = hostOf(length, `h${length}`);
      expect(fqdn.length).toBe(length);
      const created = await app.http.post(
        '/api/domains',
        { fqdn, record_type: 'A', record_ip: '192.0.2.10' },
        pro.token,
      );
      expect([length, created.status, created.text]).toEqual([length, 201, created.text]);
      const path = `/api/domains/fqdn/${fqdn}`;
      expect((await app.http.get(path, pro.token)).body.fqdn).toBe(fqdn);
      expect((await app.http.put(path, { record_ip: '192.0.2.11' }, pro.token)).body.record_ip).toBe('192.0.2.11');
      expect((await app.http.delete(path, pro.token)).status).toBe(204);
      expectErrorShape(await app.http.get(path, pro.token), 404, 'not_found');
    }

    const zone = `${'z'.repeat(63)}.${'y'.repeat(63)}.${'x'.repeat(55)}.example.org`;
    expect(zone.length).toBe(195);
    expect((await app.http.post('/zones', { name: zone }, pro.token)).status).toBe(201);
    expect((await app.http.get(`/zones/${zone}`, pro.token)).body.name).toBe(zone);
    expect((await app.http.get(`/zones/${zone}/records`, pro.token)).status).toBe(200);
    const put = await app.http.put(
      `/zones/${zone}/records`,
      { records: [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] }] },
      pro.token,
    );
    expect([put.status, put.text]).toEqual([200, put.text]);
    expectErrorShape(await app.http.post(`/zones/${zone}/verify`, {}, pro.token), 400, 'not_verified');
    // Routes of contexts the account has not subscribed to answer their refusal, not 414.
    for (const [method, path] of [
      ['GET', `/email-auth/domains/${zone}`],
      ['DELETE', `/email-auth/domains/${zone}/dkim/${'s'.repeat(63)}`],
      ['GET', `/email-auth/domains/${zone}/live`],
      ['GET', `/email-auth/dmarc/wizard/${zone}`],
      ['GET', `/api/v1/email-auth/domains/${zone}`],
      ['GET', `/email-auth/domains/${zone}/dmarc/summary`],
    ]) {
      const res = await app.http.request(method, path, { token: pro.token });
      expect([path, res.status]).toEqual([path, expect.any(Number)]);
      expect(res.status).not.toBe(414);
      expectErrorShape(res, res.status);
      expect(res.body.error.message).not.toBe('No such endpoint'); // the route was found
    }
    expect((await app.http.delete(`/zones/${zone}`, pro.token)).status).toBe(204);
  });

  it('answers framework-level refusals in the error shape, with a request id', async () => {
    // A path parameter far beyond any name: 414 in the error shape.
    const long = await app.http.get(`/zones/${'a'.repeat(5000)}`, pro.token);
    expectErrorShape(long, 414, 'uri_too_long');
    expect(long.headers.get('x-request-id')).toBeTruthy();
    // Malformed percent-encoding in the path.
    const badUrl = await app.http.get('/api/domains/fqdn/%E0%A4%A', pro.token);
    expectErrorShape(badUrl, 400);
    expect(badUrl.headers.get('x-request-id')).toBeTruthy();
    // A percent-encoded lone surrogate (CESU-style bytes) is no UTF-8 either.
    expectErrorShape(
      await app.http.get('/api/domains/fqdn/%ED%A0%80.dyn.example.net', pro.token),
      400,
      'malformed_url',
    );
    // Bodies: not JSON, empty JSON, a media type nobody reads, broken JSON.
    expectErrorShape(
      await app.http.request('POST', '/auth/login', { raw: 'PNG', headers: { 'content-type': 'image/png' } }),
      415,
      'unsupported_media_type',
    );
    expectErrorShape(
      await app.http.request('POST', '/auth/login', { raw: 'username=x', headers: { 'content-type': 'text/plain' } }),
      400,
      'validation_failed',
    );
    expectErrorShape(
      await app.http.request('POST', '/auth/login', { raw: '', headers: { 'content-type': 'application/json' } }),
      400,
      'validation_failed',
    );
    expectErrorShape(
      await app.http.request('POST', '/auth/login', { raw: '{"username": "x", "__proto__": {"a": 1}}' }),
      400,
      'validation_failed',
    );
    expectErrorShape(
      await app.http.request('POST', '/auth/login', { raw: '{"username": tru' }),
      400,
      'validation_failed',
    );

    // Below the HTTP parser: headers too large, NUL in a header, a broken request line.
    const port = new URL(app.url).port;
    const big = await rawRequest(
      app.url,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    expectErrorShape(big, 431, 'request_header_fields_too_large');
    expect(big.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(big.headers['content-type']).toMatch(/application\/json/);
    const nul = await rawRequest(
      app.url,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Nul: a\0b\r\nConnection: close\r\n\r\n`,
    );
    expectErrorShape(nul, 400, 'bad_request');
    const garbage = await rawRequest(app.url, 'GARBAGE\r\n\r\n');
    expectErrorShape(garbage, 400, 'bad_request');
    const longUrl = await rawRequest(
      app.url,
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expectErrorShape(longUrl, 431);
  });

  it('refuses a field sent as null where null means nothing, naming the field', async () => {
    const cases: Array<[string, string, unknown, RegExp, string?]> = [
      ['POST', '/api-keys', { name: 'k', access: null }, /^access/, pro.token],
      ['POST', '/api-keys', { name: 'k', expires_in_days: null }, /^expires_in_days/, pro.token],
      ['POST', '/zones', { name: 'nulls.example.org', zone_file: null }, /^zone_file/, pro.token],
      ['PUT', `/admin/accounts/${pro.id}/subscription`, { plan: null }, /^plan/],
      ['PUT', `/admin/accounts/${pro.id}/subscription`, { email_auth: null }, /^email_auth/],
      ['POST', '/auth/login', { username: null, password: 'x' }, /^username/],
    ];
    for (const [method, path, body, field, token] of cases) {
      const res = await app.http.request(method, path, {
        body,
        token,
        headers: token ? {} : { 'x-admin-token': ADMIN_TOKEN },
      });
      expectErrorShape(res, 400, 'validation_failed');
      expect([path, res.body.error.message]).toEqual([path, expect.stringMatching(field)]);
    }
    // Nothing happened: no key, no zone, the plan unchanged.
    expect((await app.http.get('/api-keys', pro.token)).body.keys).toEqual([]);
    expectErrorShape(await app.http.get('/zones/nulls.example.org', pro.token), 404);
    expect((await app.http.get('/account', pro.token)).body.plan).toBe('pro');
  });
});
