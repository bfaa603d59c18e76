/**
 * Issue 27: the account's active sessions, and ending one (`GET /account/sessions`,
 * `DELETE /account/sessions/{id}`). Real app over real HTTP.
 */
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

describe('account sessions list and revoke', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.close());

  it('lists the active sessions newest first with the current one marked, and ends another at once', async () => {
    const alice = await registerAndLogin(app.http, { plan: 'pro' });
    const second = await app.http.post('/auth/login', { username: alice.username, password: alice.password });
    expect(second.status).toBe(200);
    const list = await app.http.get('/account/sessions', alice.token);
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(2);
    expect(list.body.sessions.map((s: { current: boolean }) => s.current)).toEqual([false, true]);
    const other = list.body.sessions[0];
    expect(Object.keys(other).sort()).toEqual(['current', 'expires_at', 'id', 'source_ip', 'started_at']);
    expect(other.source_ip).toBe('127.0.0.1');
    // No token, hash or secret in the list.
    expect(list.text).not.toContain(second.body.access_token);

    expect((await app.http.get('/account', second.body.access_token)).status).toBe(200);
    expect((await app.http.delete(`/account/sessions/${other.id}`, alice.token)).status).toBe(204);
    expect((await app.http.get('/account', second.body.access_token)).status).toBe(401);
    expect((await app.http.get('/account/sessions', alice.token)).body.sessions).toHaveLength(1);
    // Ended already: not found.
    expect((await app.http.delete(`/account/sessions/${other.id}`, alice.token)).body).toEqual({
      error: { code: 'not_found', message: 'Session not found' },
    });
  });

  it("answers 404 for another account's session and refuses API keys", async () => {
    const alice = await registerAndLogin(app.http, { plan: 'pro' });
    const bob = await registerAndLogin(app.http);
    const bobs = (await app.http.get('/account/sessions', bob.token)).body.sessions;
    const res = await app.http.delete(`/account/sessions/${bobs[0].id}`, alice.token);
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    expect((await app.http.get('/account', bob.token)).status).toBe(200);
    const key = await app.http.post('/api-keys/', { name: 'k' }, alice.token);
    expect((await app.http.get('/account/sessions', key.body.key)).status).toBe(403);
  });
});
