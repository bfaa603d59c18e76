import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerAndLogin } from './support/http-client';
import { ServerProcess, startServerProcess } from './support/server-process';
import { inOrder, WebhookReceiver } from '../bench/support/webhook-receiver';

/**
 * At least once across a crash (issue 26): the compiled service as its own process is
 * killed with SIGKILL while deliveries are in flight; after the restart the receiver has
 * seen every event, each signature valid, in order per endpoint (the deliveries under way at
 * the kill may come again, in order, with the same webhook-ids).
 */
describe('webhooks: kill -9 during deliveries (real server process)', () => {
  let dataDir: string;
  let server: ServerProcess;
  const receiver = new WebhookReceiver();
  const env = { ALLOW_PRIVATE_TARGETS: 'true', LEASE_TTL_MS: '1000' };

  beforeAll(async () => {
    await receiver.start();
    dataDir = mkdtempSync(join(tmpdir(), 'adns-webhooks-crash-'));
    server = await startServerProcess(dataDir, env);
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no event and keeps each endpoint’s order', async () => {
    const owner = await registerAndLogin(server.http, { plan: 'elite' });
    const paths = ['/one', '/two', '/three'];
    for (const path of paths) {
      const res = await server.http.post(
        '/webhooks',
        { url: receiver.url(path), event_types: ['ddns.host.address_changed'] },
        owner.token,
      );
      expect(res.status).toBe(201);
      receiver.secret(path, res.body.secret);
    }
    // Slow answers keep deliveries in flight when the kill comes.
    receiver.delayMs = 40;
    const fqdn = `crash${Date.now()}.dyn.example.net`;
    expect(
      (await server.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.1' }, owner.token)).status,
    ).toBe(201);
    const ips = Array.from({ length: 60 }, (_, i) => `198.51.100.${i + 1}`);
    for (const ip of ips)
      expect((await server.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: ip }, owner.token)).status).toBe(200);

    await receiver.until(() => receiver.received.length >= 20, 30_000, 'the first deliveries');
    await server.kill('SIGKILL');
    const atKill = receiver.received.length;
    expect(atKill).toBeLessThan(ips.length * paths.length);
    server = await startServerProcess(dataDir, env);

    await receiver.until(
      () => paths.every((p) => new Set(receiver.on(p).map((r) => r.id)).size >= ips.length),
      60_000,
      'every event after the restart',
    );
    for (const path of paths) {
      const got = receiver.on(path);
      expect(got.every((r) => r.verified)).toBe(true);
      expect(
        inOrder(
          got.map((r) => r.body.data.changes[0].after),
          ips,
        ),
      ).toBe(true);
      expect(new Set(got.map((r) => r.id)).size).toBe(ips.length);
    }
  }, 150_000);
});
