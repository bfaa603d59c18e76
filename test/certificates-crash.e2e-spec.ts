import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerData, queryDns } from './support/dns-client';
import { verifiedZone, waitForStatus } from './support/certificates';
import { ChallTestSrv, Pebble, startChallTestSrv, startPebble } from './support/pebble';
import { freePort, runCli, ServerProcess, startServerProcess } from './support/server-process';
import { registerAndLogin } from './support/test-app';

jest.setTimeout(180_000);

/**
 * kill -9 while a certificate is validating (order placed, challenge records served,
 * propagation delay running): after a restart on the same data the process manager
 * resumes from the certificate's stream and the certificate ends issued, with exactly
 * one order at pebble, the TXT record added once, and nothing left in DNS.
 */
describe('certificates: SIGKILL while validating', () => {
  let pebble: Pebble;
  let world: ChallTestSrv;
  let server: ServerProcess | null = null;
  let dataDir: string;
  let dnsPort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-cert-crash-'));
    dnsPort = await freePort();
    world = await startChallTestSrv();
    pebble = await startPebble(dnsPort);
    env = {
      DNS_PORT: String(dnsPort),
      VERIFY_RESOLVER: world.resolver,
      ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_CERT: pebble.caCertFile,
      ACME_PROPAGATION_DELAY_MS: '4000',
      SECRET_KEY: 'crash-test-secret',
    };
  });
  afterAll(async () => {
    await server?.kill();
    await pebble?.stop();
    await world?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes after restart: issued, one order, one TXT add, no challenge record left', async () => {
    server = await startServerProcess(dataDir, env);
    const owner = await registerAndLogin(server.http, { plan: 'elite' });
    await verifiedZone(server.http, world, owner.token, 'crash.example');
    const created = await server.http.post('/certificates', { zone: 'crash.example', domain: 'crash.example', sans: ['www.crash.example'] }, owner.token);
    expect(created.status).toBe(202);
    const id = created.body.id;

    // Validating, and the challenge record is live in the service's DNS: kill it now.
    const txt = (name: string) =>
      queryDns(dnsPort, `_acme-challenge.${name}`, 'TXT').then(
        (r) => answerData(r, 'TXT'),
        () => [] as string[],
      );
    const deadline = Date.now() + 30_000;
    while ((await txt('www.crash.example')).length === 0) {
      if (Date.now() > deadline) throw new Error(`challenge record never served: ${server.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await server.http.get(`/certificates/${id}`, owner.token)).body.status).toBe('validating');
    await server.kill('SIGKILL');
    expect(pebble.orderCount()).toBe(1);

    server = await startServerProcess(dataDir, env);
    const issued = await waitForStatus(server.http, owner.token, id, ['issued', 'failed'], 60_000);
    if (issued.status !== 'issued') throw new Error(JSON.stringify((await server.http.get(`/certificates/${id}/logs`, owner.token)).body));
    expect(issued.status).toBe('issued');
    expect(pebble.orderCount()).toBe(1);

    const removedBy = Date.now() + 5000;
    while (((await txt('crash.example')).length || (await txt('www.crash.example')).length) && Date.now() < removedBy) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await txt('crash.example')).toEqual([]);
    expect(await txt('www.crash.example')).toEqual([]);

    // The zone's own history: each challenge value was added once and removed once.
    const zone = (await server.http.get('/zones/crash.example', owner.token)).body;
    expect(zone.records.filter((r: any) => r.subname.startsWith('_acme-challenge'))).toEqual([]);
    const stream = await server.http.admin('GET', `/admin/streams/zone-${zone.id}`);
    const challengeChanges = stream.body.events
      .filter((e: any) => e.type === 'ZoneRRsetsChanged')
      .flatMap((e: any) => e.data.rrsets)
      .filter((r: any) => r.subname.startsWith('_acme-challenge'));
    const adds = challengeChanges.filter((r: any) => r.records.length > 0);
    expect(adds.map((r: any) => r.subname).sort()).toEqual(['_acme-challenge', '_acme-challenge.www']);
    expect(challengeChanges.filter((r: any) => r.records.length === 0)).toHaveLength(2);

    const logs = (await server.http.get(`/certificates/${id}/logs`, owner.token)).body.logs.map((l: any) => l.message);
    expect(logs.filter((m: string) => m.startsWith('ACME order placed'))).toHaveLength(1);

    // The operator CLI runs the renewal job against the restarted service.
    const job = await runCli(server.url, ['jobs:certificate-renewals', '--now', new Date(Date.parse(issued.expires_at) + 1000).toISOString()]);
    expect(job.code).toBe(0);
    expect(JSON.parse(job.stdout).expired).toEqual([id]);
  });

  it('a certificate deleted while validating stops and still removes its challenge records', async () => {
    const owner = await registerAndLogin(server!.http, { plan: 'elite' });
    await verifiedZone(server!.http, world, owner.token, 'deleted.example');
    const created = await server!.http.post('/certificates', { zone: 'deleted.example', domain: 'www.deleted.example' }, owner.token);
    const txt = () =>
      queryDns(dnsPort, '_acme-challenge.www.deleted.example', 'TXT').then(
        (r) => answerData(r, 'TXT'),
        () => [] as string[],
      );
    const deadline = Date.now() + 30_000;
    while ((await txt()).length === 0) {
      if (Date.now() > deadline) throw new Error('challenge record never served');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await server!.http.delete(`/certificates/${created.body.id}`, owner.token)).status).toBe(204);
    expect((await server!.http.get(`/certificates/${created.body.id}`, owner.token)).status).toBe(404);
    const removedBy = Date.now() + 10_000;
    while ((await txt()).length && Date.now() < removedBy) await new Promise((r) => setTimeout(r, 50));
    expect(await txt()).toEqual([]);
    const zone = (await server!.http.get('/zones/deleted.example', owner.token)).body;
    expect(zone.records.filter((r: any) => r.subname.startsWith('_acme-challenge'))).toEqual([]);
    // The domain is free for a new certificate at once.
    expect((await server!.http.post('/certificates', { zone: 'deleted.example', domain: 'www.deleted.example' }, owner.token)).status).toBe(202);
  });
});
