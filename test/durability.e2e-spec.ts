import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerAndLogin } from './support/http-client';
import { runCli, ServerProcess, startServerProcess } from './support/server-process';

/** The compiled service as a real process: crashes, restarts and the operator CLI. */
describe('durability and operator CLI (real server process)', () => {
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-durability-'));
    server = await startServerProcess(dataDir);
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged write to kill -9, and keeps last_used_at exact across the restart', async () => {
    const owner = await registerAndLogin(server.http, { plan: 'pro' });
    const { body: key } = await server.http.post('/api-keys', { name: 'crash-test' }, owner.token);
    // 40 concurrent acknowledged writes across many streams.
    const registrations = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        server.http.post('/auth/register', {
          username: `crash${i}`,
          email: `crash${i}@example.com`,
          password: 'long-password-1',
        }),
      ),
    );
    expect(registrations.every((r) => r.status === 201)).toBe(true);
    const before = Date.now();
    expect((await server.http.get('/account', key.key)).status).toBe(200);
    const after = Date.now();

    await server.kill('SIGKILL');
    server = await startServerProcess(dataDir);

    for (const r of registrations) {
      const login = await server.http.post('/auth/login', { username: r.body.username, password: 'long-password-1' });
      expect(login.status).toBe(200);
    }
    const keys = await server.http.get(
      '/api-keys',
      (await server.http.post('/auth/login', { username: owner.username, password: owner.password })).body.access_token,
    );
    const lastUsed = Date.parse(keys.body.keys.find((k: any) => k.id === key.id).last_used_at);
    expect(lastUsed).toBeGreaterThanOrEqual(before - 5);
    expect(lastUsed).toBeLessThanOrEqual(after + 5);
  });

  it('runs the operator CLI against the running service', async () => {
    const u = await registerAndLogin(server.http);
    const sub = await runCli(server.url, ['accounts:subscription', String(u.id), '--plan', 'elite']);
    expect(sub.code).toBe(0);
    expect(JSON.parse(sub.stdout)).toMatchObject({ id: u.id, plan: 'elite' });

    const replay = await runCli(server.url, ['streams:replay', `account-${u.id}`]);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).events.map((e: any) => e.type)).toEqual([
      'AccountRegistered',
      'SessionStarted',
      'SubscriptionChanged',
    ]);

    const disable = await runCli(server.url, ['accounts:disable', String(u.id)]);
    expect(JSON.parse(disable.stdout).disabled).toBe(true);
    expect((await server.http.get('/account', u.token)).status).toBe(401);

    const rebuild = await runCli(server.url, ['projections:rebuild', 'accounts', '--wait']);
    expect(JSON.parse(rebuild.stdout)).toMatchObject({ projection: 'accounts', status: 'switched' });
    const status = await runCli(server.url, ['projections:status']);
    const accounts = JSON.parse(status.stdout).projections.find((p: any) => p.name === 'accounts');
    expect(accounts).toMatchObject({ lag: 0, state: 'live' });

    const bad = await runCli(server.url, ['accounts:disable', '99999999']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/404: Account not found/);
  });
});
