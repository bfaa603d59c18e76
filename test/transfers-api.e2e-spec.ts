import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/** TSIG keys and per-zone secondaries through the API (contract §18). */
describe('TSIG keys and secondaries API (§18)', () => {
  let app: TestApp;
  let pro: { token: string };
  let other: { token: string };

  beforeAll(async () => {
    app = await startTestApp({ env: { DDNS_ZONES: 'dyn.example.net' } });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
    other = await registerAndLogin(app.http, { plan: 'elite' });
    expect((await app.http.post('/zones', { name: 'xfr-api.example' }, pro.token)).status).toBe(201);
    expect((await app.http.post('/zones', { name: 'second.example' }, pro.token)).status).toBe(201);
  });
  afterAll(() => app.close());

  it('needs Pro or Elite', async () => {
    const plus = await registerAndLogin(app.http, { plan: 'plus' });
    const res = await app.http.post('/tsig-keys', { name: 'k.plus', purpose: 'transfer', zones: [] }, plus.token);
    expect([res.status, res.body.error.code]).toEqual([403, 'plan_required']);
    expect((await app.http.get('/tsig-keys', plus.token)).status).toBe(403);
  });

  it('creates a key, shows its secret once, stores it sealed, keeps names unique', async () => {
    const res = await app.http.post(
      '/tsig-keys',
      { name: 'Xfr-Key.Example.', purpose: 'transfer', zones: ['xfr-api.example'] },
      pro.token,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'xfr-key.example',
      algorithm: 'hmac-sha256',
      purpose: 'transfer',
      zones: ['xfr-api.example'],
      allow: [],
    });
    expect(Buffer.from(res.body.secret, 'base64')).toHaveLength(32);
    const list = await app.http.get('/tsig-keys', pro.token);
    expect(list.body.tsig_keys).toEqual([expect.objectContaining({ id: res.body.id, name: 'xfr-key.example' })]);
    expect(list.body.tsig_keys[0].secret).toBeUndefined();
    // Encrypted at rest: the secret appears nowhere in the data directory's databases.
    const dbs = readdirSync(app.dataDir).filter((f) => f.endsWith('.db'));
    for (const db of dbs)
      expect(
        execFileSync('sqlite3', [join(app.dataDir, db), '.dump'], { encoding: 'utf8', maxBuffer: 1 << 28 }),
      ).not.toContain(res.body.secret);

    const taken = await app.http.post(
      '/tsig-keys',
      { name: 'xfr-key.example', purpose: 'update', zones: [] },
      other.token,
    );
    expect([taken.status, taken.body.error.code]).toEqual([409, 'key_name_taken']);
    const sha512 = await app.http.post(
      '/tsig-keys',
      {
        name: 'upd.example',
        algorithm: 'hmac-sha512',
        purpose: 'update',
        zones: ['second.example'],
        allow: [{ name: '*.dyn', types: ['a', 'TXT'] }],
      },
      pro.token,
    );
    expect(sha512.status).toBe(201);
    expect(sha512.body.allow).toEqual([{ name: '*.dyn', types: ['A', 'TXT'] }]);
    expect(Buffer.from(sha512.body.secret, 'base64')).toHaveLength(64);
  });

  it('refuses bad input with the error shape', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'bad name!', purpose: 'transfer', zones: [] }, /name/],
      [{ name: 'k1.example', purpose: 'copy', zones: [] }, /purpose/],
      [{ name: 'k1.example', algorithm: 'hmac-md5', purpose: 'transfer', zones: [] }, /algorithm/],
      [{ name: 'k1.example', purpose: 'transfer', zones: ['not-mine.example'] }, /zones\[0\]/],
      [{ name: 'k1.example', purpose: 'transfer', zones: [], allow: [{ name: 'www' }] }, /allow/],
      [
        { name: 'k1.example', purpose: 'update', zones: [], allow: [{ name: 'www', types: ['BOGUS'] }] },
        /allow\[0\]\.types/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await app.http.post('/tsig-keys', body, pro.token);
      expect([res.status, res.body.error.code]).toEqual([400, 'validation_failed']);
      expect(res.body.error.message).toMatch(message);
    }
    // The failed attempts did not hold the name.
    expect(
      (await app.http.post('/tsig-keys', { name: 'k1.example', purpose: 'transfer', zones: [] }, pro.token)).status,
    ).toBe(201);
  });

  it('adds, lists and removes secondaries with transfer keys only', async () => {
    const add = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: '192.0.2.53', tsig_key: 'xfr-key.example' },
      pro.token,
    );
    expect(add.status).toBe(201);
    expect(add.body).toEqual({
      id: expect.any(String),
      address: '192.0.2.53',
      tsig_key: 'xfr-key.example',
      last_notified_at: null,
      last_transfer_at: null,
      last_serial: null,
    });
    const withPort = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: '[2001:db8::53]:5353', tsig_key: 'xfr-key.example' },
      pro.token,
    );
    expect(withPort.body.address).toBe('[2001:db8::53]:5353');
    const dup = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: '192.0.2.53:53', tsig_key: 'xfr-key.example' },
      pro.token,
    );
    expect([dup.status, dup.body.error.code]).toEqual([409, 'secondary_exists']);
    const updateKey = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: '192.0.2.54', tsig_key: 'upd.example' },
      pro.token,
    );
    expect([updateKey.status, updateKey.body.error.message]).toEqual([
      400,
      'tsig_key: not a transfer key of the account',
    ]);
    const foreignKey = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: '192.0.2.54', tsig_key: 'nope.example' },
      pro.token,
    );
    expect(foreignKey.status).toBe(400);
    const badAddress = await app.http.post(
      '/zones/xfr-api.example/secondaries',
      { address: 'ns2.example.net', tsig_key: 'xfr-key.example' },
      pro.token,
    );
    expect([badAddress.status, badAddress.body.error.code]).toEqual([400, 'validation_failed']);
    expect((await app.http.get('/zones/xfr-api.example/secondaries', other.token)).status).toBe(404);
    const list = await app.http.get('/zones/xfr-api.example/secondaries', pro.token);
    expect(list.body.secondaries.map((s: { address: string }) => s.address).sort()).toEqual([
      '192.0.2.53',
      '[2001:db8::53]:5353',
    ]);
    expect((await app.http.delete(`/zones/xfr-api.example/secondaries/${withPort.body.id}`, pro.token)).status).toBe(
      204,
    );
    expect((await app.http.delete(`/zones/xfr-api.example/secondaries/${withPort.body.id}`, pro.token)).status).toBe(
      404,
    );
  });

  it('deleting a zone takes it out of its keys and drops its secondaries', async () => {
    expect((await app.http.delete('/zones/xfr-api.example', pro.token)).status).toBe(204);
    const keys = (await app.http.get('/tsig-keys', pro.token)).body.tsig_keys;
    expect(keys.find((k: { name: string }) => k.name === 'xfr-key.example').zones).toEqual([]);
    expect((await app.http.post('/zones', { name: 'xfr-api.example' }, pro.token)).status).toBe(201);
    expect((await app.http.get('/zones/xfr-api.example/secondaries', pro.token)).body.secondaries).toEqual([]);
  });

  it('deletes keys; other accounts’ keys are not found', async () => {
    const keys = (await app.http.get('/tsig-keys', pro.token)).body.tsig_keys;
    const id = keys[0].id;
    expect((await app.http.delete(`/tsig-keys/${id}`, other.token)).status).toBe(404);
    expect((await app.http.delete(`/tsig-keys/${id}`, pro.token)).status).toBe(204);
    expect((await app.http.get('/tsig-keys', pro.token)).body.tsig_keys.map((k: { id: string }) => k.id)).not.toContain(
      id,
    );
    // The name is free again.
    expect(
      (await app.http.post('/tsig-keys', { name: keys[0].name, purpose: 'transfer', zones: [] }, other.token)).status,
    ).toBe(201);
  });
});
