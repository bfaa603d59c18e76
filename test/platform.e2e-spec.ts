import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { ManualClock } from '../libs/shared/clock';
import { originTracking } from '../libs/shared/command-origin';
import { SetupDeadlineProcess } from '../libs/two-factor/application/setup-deadline.process';
import { ADMIN_TOKEN } from './support/http-client';
import { ServerProcess, startServerProcess } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

describe('command metadata from one place (e2e)', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close(true));

  const stream = async (name: string) => (await t.http.admin('GET', `/admin/streams/${name}`)).body.events as any[];

  it('the request id becomes the correlation id, with the actor and source IP; the deadline command names its cause', async () => {
    const user = await registerAndLogin(t.http);
    const res = await t.http.post('/2fa/setup', undefined, user.token, { 'x-request-id': 'req-platform-1' });
    expect(res.status).toBe(200);
    const [started] = await stream(`twofactor-${user.id}`);
    expect(started.metadata).toMatchObject({
      correlation_id: 'req-platform-1',
      actor: `user:${user.id}`,
      source_ip: '127.0.0.1',
      account_id: user.id,
    });

    clock.advance(600_000);
    expect(await t.running.app.get(SetupDeadlineProcess).runDue()).toBe(1);
    const events = await stream(`twofactor-${user.id}`);
    expect(events.map((e) => e.type)).toEqual(['TwoFactorSetupStarted', 'TwoFactorSetupExpired']);
    const pm = await stream(`pm-2fa-setup-deadline-${started.data.setup_id}`);
    const issued = pm.find((e) => e.type === 'ProcessCommandIssued');
    expect(pm[0].metadata).toMatchObject({ causation_id: started.id, correlation_id: 'req-platform-1' });
    expect(events[1].metadata).toMatchObject({
      causation_id: issued.id,
      correlation_id: 'req-platform-1',
      actor: 'system',
    });
  });
});

describe('routes that state their origin in the command (e2e, decision 0109)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(() => t.close(true));

  /**
   * Every route marked `@ExplicitOrigin()`, found in the running app's controllers: a route added
   * with the mark and no case here fails the test, so none skips the metadata check.
   */
  const explicitOriginRoutes = (): string[] => {
    const routes: string[] = [];
    for (const module of t.running.app.get(ModulesContainer).values()) {
      for (const { metatype } of module.controllers.values()) {
        if (typeof metatype !== 'function') continue;
        const base = [Reflect.getMetadata(PATH_METADATA, metatype) ?? ''].flat()[0] as string;
        for (const name of Object.getOwnPropertyNames(metatype.prototype)) {
          const handler = metatype.prototype[name];
          if (typeof handler !== 'function' || !Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler)) continue;
          const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown>;
          if (!config.explicitOrigin) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
          const path = [Reflect.getMetadata(PATH_METADATA, handler) ?? ''].flat()[0] as string;
          routes.push(`${method} /${[base, path].filter(Boolean).join('/')}`.replace(/\/+/g, '/'));
        }
      }
    }
    return routes.sort();
  };

  it('every such route records the request id, actor and address as every other route does', async () => {
    const user = await registerAndLogin(t.http, { plan: 'pro' });
    const key = (await t.http.post('/api-keys', { name: 'router' }, user.token)).body.key as string;
    const created = await t.http.post(
      '/api/domains',
      { fqdn: 'origin.dyn.example.net', record_type: 'A', record_ip: '192.0.2.1' },
      user.token,
      { 'x-request-id': 'req-origin-create' },
    );
    expect(created.status).toBe(201);
    const basic = `Basic ${Buffer.from(`${user.username}:${key}`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    let n = 1;
    /** Each case sends one change (a new address) and answers what the client saw. */
    const ddns = (method: 'GET' | 'POST', path: string) => async (id: string) => {
      const params = `hostname=origin.dyn.example.net&myip=192.0.2.${++n}`;
      const res =
        method === 'GET'
          ? await t.http.request('GET', `${path}?${params}`, { headers: { authorization: basic, 'x-request-id': id } })
          : await t.http.request('POST', path, { raw: params, headers: { ...form, 'x-request-id': id } });
      return { ok: res.status === 200 && res.text.includes(`192.0.2.${n}`), actor: /^ddns:key:/, text: res.text };
    };
    const cases: Record<string, (id: string) => Promise<{ ok: boolean; actor: RegExp; text: string }>> = {
      'PUT /api/domains/fqdn/:fqdn': async (id) => {
        const res = await t.http.request('PUT', '/api/domains/fqdn/origin.dyn.example.net', {
          body: { record_ip: `192.0.2.${++n}` },
          token: key,
          headers: { 'x-request-id': id },
        });
        return { ok: res.status === 200, actor: /^key:/, text: res.text };
      },
    };
    for (const path of ['nic', 'dyndns', 'v2'])
      for (const method of ['GET', 'POST'] as const)
        cases[`${method} /domains/${path}/update`] = ddns(method, `/domains/${path}/update`);

    const routes = explicitOriginRoutes();
    expect(routes).toEqual(Object.keys(cases).sort());
    const common = { version: 1, account_id: user.id, source_ip: '127.0.0.1' };
    for (const [i, route] of routes.entries()) {
      const sent = await cases[route](`req-origin-${i}`);
      expect({ route, ok: sent.ok, text: sent.text }).toMatchObject({ route, ok: true });
      const events = (await t.http.admin('GET', `/admin/streams/domain-${created.body.id}`)).body.events as any[];
      expect(events).toHaveLength(i + 2);
      expect({ route, metadata: events[i + 1].metadata }).toEqual({
        route,
        metadata: { ...common, correlation_id: `req-origin-${i}`, actor: expect.stringMatching(sent.actor) },
      });
    }
    const events = (await t.http.admin('GET', `/admin/streams/domain-${created.body.id}`)).body.events as any[];
    expect(events[0].metadata).toEqual({ ...common, correlation_id: 'req-origin-create', actor: `user:${user.id}` });

    // Every other request's scope closes with its answer: else Node's promise hooks would stay on for good.
    const deadline = Date.now() + 5_000;
    while (originTracking().open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(originTracking().open).toBe(0);
  });
});

/**
 * The roles as separate processes on one DATA_DIR: two API processes and workers.
 * (Runs the compiled service: `npm run build` first.)
 */
describe('roles in separate processes on one DATA_DIR (e2e)', () => {
  let dataDir: string;
  const processes: ServerProcess[] = [];
  // Logs stay on (LOG_REQUESTS=false silences all of them): the test reads lease and resume lines.
  const env = { LEASE_TTL_MS: '1500', SECRET_KEY: 'platform-e2e-secret' };
  const start = async (roles: string) => {
    const p = await startServerProcess(dataDir, { ...env, ROLES: roles });
    processes.push(p);
    return p;
  };
  const status = async (p: ServerProcess) =>
    (await p.http.request('GET', '/admin/projections', { headers: { 'x-admin-token': ADMIN_TOKEN } })).body
      .projections as any[];
  const until = async (what: string, condition: () => Promise<boolean>, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Whether the worker with this pid holds the lease (holder ids are host:pid:random). */
  const heldBy = (holder: string | null, p: ServerProcess) =>
    holder !== null && holder.split(':')[1] === String(p.child.pid);

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-roles-'));
  });
  afterAll(async () => {
    for (const p of processes) await p.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('API processes wait on the worker, follow its rebuilds; workers share the consumers out by lease and take over a killed one', async () => {
    // Worker B also serves the API, so the test can read the read models it builds after taking over.
    const workerA = await start('worker,dns,intake');
    const api1 = await start('api');
    const api2 = await start('api');

    // Every projection runs in worker A (the only worker): both API processes see it as the holder.
    for (const api of [api1, api2]) {
      const projections = await status(api);
      expect(projections.length).toBeGreaterThan(3);
      for (const p of projections) expect(heldBy(p.holder, workerA)).toBe(true);
    }

    // Read-your-writes across processes: API 1 answers a write once the worker has applied it,
    // so API 2 sees the worker's persisted position at or past the write at once.
    const reg = await api1.http.post('/auth/register', {
      username: 'crossproc1',
      email: 'crossproc1@example.com',
      password: 'a-long-enough-password',
    });
    const [claim] = (
      await api2.http.request('GET', '/admin/streams/username-crossproc1', {
        headers: { 'x-admin-token': ADMIN_TOKEN },
      })
    ).body.events;
    const written = BigInt(claim.position.split('/')[0]);
    const accounts = (await status(api2)).find((p) => p.name === 'accounts');
    expect(BigInt(accounts.position.split('/')[0])).toBeGreaterThanOrEqual(written);
    expect(accounts.state).toBe('live');
    expect(reg.status).toBe(201);

    // A rebuild asked of API 1 is run by the worker and switches both API processes.
    const rebuild = await api1.http.request('POST', '/admin/projections/accounts/rebuild?wait=true', {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    expect(rebuild.status).toBe(202);
    expect(rebuild.body).toMatchObject({ projection: 'accounts', generation: 2 });
    await until(
      'API 2 to follow the switch',
      async () => (await status(api2)).find((p) => p.name === 'accounts').generation === 2,
      5000,
    );
    expect((await status(api1)).find((p) => p.name === 'accounts').generation).toBe(2);

    // A second worker stands by: it runs nothing while A renews its leases.
    const workerB = await start('worker,dns,intake,api');
    await new Promise((r) => setTimeout(r, 2000)); // longer than the lease TTL
    for (const p of await status(api1)) expect(heldBy(p.holder, workerA)).toBe(true);
    expect(workerB.output()).not.toMatch(/"lease acquired"/);

    // Kill A mid-stream (writes go on meanwhile); B takes every lease over and resumes at A's checkpoints.
    const writes = (async () => {
      for (let i = 0; i < 30; i++) {
        await api1.http.post('/auth/register', {
          username: `midstream${i}`,
          email: `midstream${i}@example.com`,
          password: 'a-long-enough-password',
        });
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    await workerA.kill('SIGKILL');
    await writes;
    await until(
      'worker B to hold every projection, caught up',
      async () => (await status(api2)).every((p) => heldBy(p.holder, workerB) && p.lag === 0),
      20_000,
    );
    const resumed = workerB
      .output()
      .split('\n')
      .filter((l) => l.includes('"projection started"'))
      .map((l) => JSON.parse(l));
    expect(resumed.length).toBeGreaterThan(3);
    // Resumed from A's stored checkpoints, not replayed from the first event.
    for (const r of resumed) expect(r.from).not.toBeNull();
    // Every account written across the kill is in B's read model, once.
    for (let i = 0; i < 30; i++) {
      const [c] = (
        await workerB.http.request('GET', `/admin/streams/username-midstream${i}`, {
          headers: { 'x-admin-token': ADMIN_TOKEN },
        })
      ).body.events;
      const account = await workerB.http.request('POST', `/admin/accounts/${c.data.account_id}/enable`, {
        headers: { 'x-admin-token': ADMIN_TOKEN },
      });
      expect(account.status).toBe(200);
      expect(account.body.username).toBe(`midstream${i}`);
    }
    expect(workerB.output()).toMatch(
      /"lease acquired".*"pm:2fa-setup-deadline"|"pm:2fa-setup-deadline".*"lease acquired"/,
    );
  }, 120_000);

  it('a write answered by one API process is readable at once from the other, also right after a rebuild', async () => {
    const api1 = processes[1];
    const api2 = processes[2];
    const user = await registerAndLogin(api1.http);
    const account = await api2.http.get('/account', user.token);
    expect(account.status).toBe(200);
    expect(account.body.username).toBe(user.username);

    // A change to a document the other process has just read (and cached).
    const changed = await api2.http.post(
      '/account/password',
      { current_password: user.password, new_password: 'another-long-password' },
      user.token,
    );
    expect(changed.status).toBeLessThan(300);
    expect((await api1.http.post('/auth/login', { username: user.username, password: user.password })).status).toBe(
      401,
    );
    expect(
      (await api1.http.post('/auth/login', { username: user.username, password: 'another-long-password' })).status,
    ).toBe(200);

    // A rebuild of the accounts read model: both API processes serve the new generation at once.
    const rebuild = await api2.http.request('POST', '/admin/projections/accounts/rebuild?wait=true', {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    expect(rebuild.status).toBe(202);
    for (const api of [api1, api2]) {
      const after = await api.http.get('/account', user.token);
      expect(after.status).toBe(200);
      expect(after.body.username).toBe(user.username);
    }
  }, 60_000);

  it('one login lockout counter across API processes: of 100 wrong logins sent at once to both, at most 5 are checked', async () => {
    const api1 = processes[1];
    const api2 = processes[2];
    const user = await registerAndLogin(api1.http);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? api1 : api2).http.post('/auth/login', {
          username: i % 4 < 2 ? user.username : user.email,
          password: 'wrong-password-x',
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    for (const api of [api1, api2]) {
      const locked = await api.http.post('/auth/login', { username: user.username, password: user.password });
      expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
    }
  }, 60_000);
});

describe('DATA_DIR is private (e2e)', () => {
  let dataDir: string;
  let t: TestApp | null = null;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-modes-'));
  });
  afterAll(async () => {
    await t?.close(false);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every file and folder under DATA_DIR with its permission bits. */
  const modes = (dir = dataDir): Record<string, string> => {
    const out: Record<string, string> = {
      [dir.slice(dataDir.length) || '/']: (statSync(dir).mode & 0o777).toString(8),
    };
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) Object.assign(out, modes(path));
      else out[path.slice(dataDir.length)] = (statSync(path).mode & 0o777).toString(8);
    }
    return out;
  };
  const expectPrivate = () => {
    const all = modes();
    expect(Object.keys(all)).toEqual(
      expect.arrayContaining([
        '/',
        '/events.db',
        '/readmodels.db',
        '/coordination.db',
        '/events.db-wal',
        '/readmodels.db-wal',
      ]),
    );
    for (const [path, mode] of Object.entries(all))
      expect([path, mode]).toEqual([path, statSync(join(dataDir, path)).isDirectory() ? '700' : '600']);
  };

  it('databases and their -wal/-shm files are 0600 in a 0700 folder, after start, after writes, and an existing loose DATA_DIR is tightened', async () => {
    // A DATA_DIR as an older version left it: the folder 0755, a file 0644.
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'events.db'), '', { mode: 0o644 });
    chmodSync(join(dataDir, 'events.db'), 0o644);
    t = await startTestApp({ dataDir });
    expectPrivate();
    const user = await registerAndLogin(t.http, { plan: 'pro' });
    expect((await t.http.post('/api-keys', { name: 'k' }, user.token)).status).toBe(201);
    expect((await t.http.post('/auth/login', { username: 'nobody-here', password: 'wrong-password-x' })).status).toBe(
      401,
    );
    await t.running.deps.readStore.flush();
    expectPrivate();
    await t.close(false);
    t = null;

    // Loosened by hand while stopped: tightened again at start.
    chmodSync(dataDir, 0o755);
    for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
    t = await startTestApp({ dataDir });
    expectPrivate();
  });
});
