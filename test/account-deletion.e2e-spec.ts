import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForDns, waitForRcode } from './support/dns-client';
import { HttpClient } from './support/http-client';
import { freePort, ServerProcess, startServerProcess } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { totpAt } from './support/totp';

type User = Awaited<ReturnType<typeof registerAndLogin>>;
interface Entry {
  type: string;
  actor: string | null;
}

/** Every audit entry of an account, newest first, through the operator endpoint (it outlives the account). */
async function auditOf(http: HttpClient, accountId: number): Promise<Entry[]> {
  const all: Entry[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${cursor}` : '';
    const res = await http.admin('GET', `/admin/accounts/${accountId}/audit?limit=100${q}`);
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return all;
}

async function until<T>(what: string, probe: () => Promise<T | null | false>, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const dataRemoved = (http: HttpClient, id: number) =>
  until('AccountDataRemoved', async () => {
    const entries = await auditOf(http, id);
    return entries.some((e) => e.type === 'AccountDataRemoved') && entries;
  });

describe('DELETE /account (decision 0090)', () => {
  let app: TestApp;
  let dnsPort: number;

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' },
    });
  });
  afterAll(() => app.close());

  const del = (user: { token: string }, body: unknown) =>
    app.http.request('DELETE', '/account', { body, token: user.token });

  it('refuses a wrong or missing password with the contract’s errors, changing nothing', async () => {
    const user = await registerAndLogin(app.http);
    const wrong = await del(user, { password: 'not-the-password' });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    expect((await del(user, {})).body.error.code).toBe('validation_failed');
    expect((await del(user, { password: user.password, extra: 1 })).body.error.code).toBe('validation_failed');
    expect((await app.http.get('/account', user.token)).status).toBe(200);
  });

  it('counts wrong passwords in the login lockout: the 6th attempt is 429, and login is locked too', async () => {
    const user = await registerAndLogin(app.http);
    for (let i = 0; i < 5; i++) expect((await del(user, { password: `wrong-password-${i}` })).status).toBe(401);
    const locked = await del(user, { password: user.password });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await app.http.post('/auth/login', { username: user.username, password: user.password })).status).toBe(429);
    expect((await app.http.get('/account', user.token)).status).toBe(200);
  });

  it('deletes: sessions and keys stop at once, DNS stops serving, resources are removed, the audit log is kept', async () => {
    const user = await registerAndLogin(app.http, { plan: 'pro' });
    const second = await app.http.post('/auth/login', { username: user.username, password: user.password });
    const key = (await app.http.post('/api-keys', { name: 'router' }, user.token)).body.key as string;
    const host = await app.http.post(
      '/api/domains',
      { fqdn: 'gone.dyn.example.net', record_type: 'A', record_ip: '192.0.2.50' },
      user.token,
    );
    expect(host.status).toBe(201);
    expect((await app.http.post(`/uptime/domain/${host.body.id}/monitor`, { enabled: true }, user.token)).status).toBe(
      200,
    );
    const zone = await app.http.post(
      '/zones',
      { name: 'leaving.test', zone_file: 'www 300 IN A 192.0.2.60\n' },
      user.token,
    );
    expect(zone.status).toBe(201);
    const hook = await app.http.post(
      '/webhooks',
      { url: 'http://127.0.0.1:9/hook', event_types: ['zone.changed'] },
      user.token,
    );
    expect(hook.status).toBe(201);
    await waitForDns(dnsPort, 'www.leaving.test', 'A', ['192.0.2.60']);

    const res = await del(user, { password: user.password });
    expect(res.status).toBe(204);
    // Immediately: every session and the key are refused.
    for (const token of [user.token, second.body.access_token, key]) {
      const me = await app.http.get('/account', token);
      expect([me.status, me.body.error.code]).toEqual([401, 'unauthorized']);
    }
    const login = await app.http.post('/auth/login', { username: user.username, password: user.password });
    expect([login.status, login.body.error.code]).toEqual([401, 'invalid_credentials']);

    const entries = await dataRemoved(app.http, user.id);
    const types = entries.map((e) => e.type);
    for (const t of [
      'AccountDeleted',
      'WebhookDeleted',
      'ApiKeyDeactivated',
      'MonitorDisabled',
      'DomainDeleted',
      'ZoneDeleted',
      'AccountDataRemoved',
    ])
      expect(types).toContain(t);
    // The log is kept whole: from registration to the removal, the deletion by the user, the rest by the process.
    expect(types[types.length - 1]).toBe('AccountRegistered');
    expect(entries.find((e) => e.type === 'AccountDeleted')!.actor).toBe(`user:${user.id}`);
    expect(entries.find((e) => e.type === 'ZoneDeleted')!.actor).toBe('system:account-deletion');

    await waitForRcode(dnsPort, 'gone.dyn.example.net', 'A', 'NXDOMAIN');
    await waitForRcode(dnsPort, 'www.leaving.test', 'A', 'REFUSED');

    // The names are free again: the same username and email register a new, empty account.
    const again = await app.http.post('/auth/register', {
      username: user.username,
      email: user.email,
      password: 'another-long-password',
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(user.id);
    const fresh = await app.http.post('/auth/login', { username: user.username, password: 'another-long-password' });
    expect((await app.http.get('/domains', fresh.body.access_token)).body).toEqual([]);
    // The old account stays deleted for operators.
    expect((await app.http.admin('POST', `/admin/accounts/${user.id}/enable`)).status).toBe(404);
  });

  it('with 2FA on, asks for a TOTP code: missing or wrong is 400 invalid_code, a right one deletes', async () => {
    const user: User = await registerAndLogin(app.http);
    const setup = (await app.http.post('/2fa/setup', undefined, user.token)).body;
    const verifyCode = totpAt(setup.secret);
    expect(
      (await app.http.post('/2fa/verify', { setup_token: setup.setup_token, code: verifyCode }, user.token)).status,
    ).toBe(200);
    const missing = await del(user, { password: user.password });
    expect([missing.status, missing.body.error.code]).toEqual([400, 'invalid_code']);
    const wrong = await del(user, { password: user.password, code: '000000' });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'invalid_code']);
    // The verify step's code was accepted once: wait for the next step so the code is new.
    await until('a new TOTP step', async () => totpAt(setup.secret) !== verifyCode, 31_000);
    const ok = await del(user, { password: user.password, code: totpAt(setup.secret) });
    expect(ok.status).toBe(204);
    expect((await app.http.get('/account', user.token)).status).toBe(401);
  }, 60_000);
});

/**
 * kill -9 while the account-deletion process is removing hosts: after the restart the
 * next lease holder sends the command again and the removal finishes, each host deleted once.
 */
describe('account deletion: kill -9 midway (real server process)', () => {
  let dataDir: string;
  let server: ServerProcess;
  const env = { LEASE_TTL_MS: '1000', ALLOW_PRIVATE_TARGETS: 'true', DDNS_ZONES: 'dyn.example.net' };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-deletion-crash-'));
    server = await startServerProcess(dataDir, env);
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes and removes everything once', async () => {
    const owner = await registerAndLogin(server.http, { plan: 'elite' });
    const hosts = 120;
    for (let i = 0; i < hosts; i++) {
      const res = await server.http.post(
        '/api/domains',
        { fqdn: `h${i}.dyn.example.net`, record_type: 'A', record_ip: `192.0.2.${(i % 250) + 1}` },
        owner.token,
      );
      expect(res.status).toBe(201);
    }
    expect(
      (await server.http.request('DELETE', '/account', { body: { password: owner.password }, token: owner.token }))
        .status,
    ).toBe(204);
    await until('the first host removed', async () =>
      (await auditOf(server.http, owner.id)).some((e) => e.type === 'DomainDeleted'),
    );
    await server.kill('SIGKILL');
    server = await startServerProcess(dataDir, env);
    const atKill = (await auditOf(server.http, owner.id)).filter((e) => e.type === 'DomainDeleted').length;
    expect(atKill).toBeLessThan(hosts);

    const entries = await dataRemoved(server.http, owner.id);
    expect(entries.filter((e) => e.type === 'DomainDeleted')).toHaveLength(hosts);
    expect(entries.filter((e) => e.type === 'AccountDataRemoved')).toHaveLength(1);
  }, 120_000);
});
