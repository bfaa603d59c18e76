import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerData, queryDns } from './support/dns-client';
import { verifiedZone, waitForStatus } from './support/certificates';
import { ChallTestSrv, Pebble, startChallTestSrv, startPebble } from './support/pebble';
import { freePort, runCli, ServerProcess, startServerProcess } from './support/server-process';
import { registerAndLogin } from './support/test-app';

jest.setTimeout(180_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * kill -9 at each step of an issuance: the order created at the CA, the challenge
 * records served, the propagation wait, the finalization, just issued. After a restart
 * on the same data the `certificate-issuance-steps` process manager resumes from the
 * event log (the certificate's stream, its own stream and its timers): nothing reads a
 * read model to find the work. Each certificate ends issued, with exactly one order at
 * pebble, each TXT value added once and removed, and nothing left in DNS.
 */
describe('certificates: SIGKILL at each step of issuance', () => {
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

  /** The zone's own history: each challenge owner added once and removed once, nothing left. */
  async function expectChallengesCleanedUp(token: string, zoneName: string, owners: string[]): Promise<void> {
    const txt = (owner: string) =>
      queryDns(dnsPort, `${owner}.${zoneName}`, 'TXT').then(
        (r) => answerData(r, 'TXT'),
        () => [] as string[],
      );
    // Killed after issued, the cleanup runs once the restarted worker holds the lease (the dead one's lapses first).
    const challengeRecords = async () =>
      ((await server!.http.get(`/zones/${zoneName}`, token)).body.records as any[]).filter((r) =>
        r.subname.startsWith('_acme-challenge'),
      );
    const removedBy = Date.now() + 60_000;
    while ((await challengeRecords()).length && Date.now() < removedBy) await sleep(100);
    const live = async () => (await Promise.all(owners.map((o) => txt(o)))).flat();
    while ((await live()).length && Date.now() < removedBy) await sleep(50);
    expect(await live()).toEqual([]);
    const zone = (await server!.http.get(`/zones/${zoneName}`, token)).body;
    expect(zone.records.filter((r: any) => r.subname.startsWith('_acme-challenge'))).toEqual([]);
    const stream = await server!.http.admin('GET', `/admin/streams/zone-${zone.id}`);
    const changes = stream.body.events
      .filter((e: any) => e.type === 'ZoneRRsetsChanged')
      .flatMap((e: any) => e.data.rrsets)
      .filter((r: any) => r.subname.startsWith('_acme-challenge'));
    expect(
      changes
        .filter((r: any) => r.records.length > 0)
        .map((r: any) => r.subname)
        .sort(),
    ).toEqual([...owners].sort());
    expect(changes.filter((r: any) => r.records.length === 0)).toHaveLength(owners.length);
  }

  const certificateEvents = async (id: string): Promise<string[]> =>
    ((await server!.http.admin('GET', `/admin/streams/certificate-${id}`)).body.events ?? []).map((e: any) => e.type);

  /**
   * Requests a certificate, kills the service with SIGKILL the moment `reached` says so,
   * restarts it on the same data, and checks the certificate ends issued from the one order.
   */
  async function crashAt(
    zoneName: string,
    sans: string[],
    reached: (id: string, ordersBefore: number) => Promise<boolean>,
  ): Promise<{ id: string; token: string }> {
    server ??= await startServerProcess(dataDir, env);
    const owner = await registerAndLogin(server.http, { plan: 'elite' });
    await verifiedZone(server.http, world, owner.token, zoneName);
    const ordersBefore = pebble.orderCount();
    const created = await server.http.post('/certificates', { zone: zoneName, domain: zoneName, sans }, owner.token);
    expect(created.status).toBe(202);
    const id = created.body.id;
    const deadline = Date.now() + 30_000;
    while (!(await reached(id, ordersBefore))) {
      if (Date.now() > deadline) throw new Error(`kill point never reached: ${await certificateEvents(id)}`);
      await sleep(2);
    }
    await server.kill('SIGKILL');
    server = await startServerProcess(dataDir, env);
    const issued = await waitForStatus(server.http, owner.token, id, ['issued', 'failed'], 60_000);
    if (issued.status !== 'issued')
      throw new Error(JSON.stringify((await server.http.get(`/certificates/${id}/logs`, owner.token)).body));
    expect(pebble.orderCount()).toBe(ordersBefore + 1);
    const events = await certificateEvents(id);
    expect(events.filter((t) => t === 'AcmeOrderPlaced')).toHaveLength(1);
    expect(events.filter((t) => t === 'CertificateIssued')).toHaveLength(1);
    await expectChallengesCleanedUp(owner.token, zoneName, [
      '_acme-challenge',
      ...sans.map((n) => `_acme-challenge.${n.slice(0, -zoneName.length - 1)}`),
    ]);
    const pem = await server.http.get(`/certificates/${id}/download`, owner.token);
    expect(pem.body.certificate_pem).toMatch(/BEGIN CERTIFICATE/);
    return { id, token: owner.token };
  }
  const recorded = (type: string) => async (id: string) => (await certificateEvents(id)).includes(type);

  it('killed once the CA has created the order (before or as it is recorded): the order is adopted, not placed again', async () => {
    await crashAt('order.example', [], async (_id, before) => pebble.orderCount() > before);
  });

  it('killed in the propagation wait: the wait is a timer in the process stream, and it fires after the restart', async () => {
    const { id } = await crashAt('propagation.example', [], recorded('ChallengeRecordsPublished'));
    const pm = (await server!.http.admin('GET', `/admin/streams/pm-certificate-issuance-steps-${id}`)).body.events;
    const scheduled = pm.filter((e: any) => e.type === 'ProcessTimerScheduled').map((e: any) => e.data.timer_id);
    const fired = pm.filter((e: any) => e.type === 'ProcessTimerFired').map((e: any) => e.data.timer_id);
    expect(scheduled.length).toBeGreaterThanOrEqual(1);
    expect(fired).toContain(scheduled[0]);
    // The wait ended by its timer, not by a step deferring itself.
    expect(await certificateEvents(id)).not.toContain('IssuanceStepDeferred');
  });

  it('killed as the order is finalized: the finalization is recognised, one certificate', async () => {
    await crashAt('finalize.example', [], recorded('CertificateKeyGenerated'));
  });

  it('killed right after issued: the challenge cleanup still happens after the restart', async () => {
    await crashAt('issued.example', [], recorded('CertificateIssued'));
  });

  it('killed with the challenge records served: issued, one order, one TXT add per owner, no challenge record left', async () => {
    const txt = (name: string) =>
      queryDns(dnsPort, `_acme-challenge.${name}`, 'TXT').then(
        (r) => answerData(r, 'TXT'),
        () => [] as string[],
      );
    const { id, token } = await crashAt(
      'crash.example',
      ['www.crash.example'],
      async () => (await txt('www.crash.example')).length > 0,
    );
    const logs = (await server!.http.get(`/certificates/${id}/logs`, token)).body.logs.map((l: any) => l.message);
    expect(logs.filter((m: string) => m.startsWith('ACME order placed'))).toHaveLength(1);

    // The operator CLI runs the renewal job against the restarted service.
    const issued = (await server!.http.get(`/certificates/${id}`, token)).body;
    const job = await runCli(server!.url, [
      'jobs:certificate-renewals',
      '--now',
      new Date(Date.parse(issued.expires_at) + 1000).toISOString(),
    ]);
    expect(job.code).toBe(0);
    expect(JSON.parse(job.stdout).expired).toContain(id);
  });

  it('a certificate deleted while validating stops and still removes its challenge records', async () => {
    const owner = await registerAndLogin(server!.http, { plan: 'elite' });
    await verifiedZone(server!.http, world, owner.token, 'deleted.example');
    const created = await server!.http.post(
      '/certificates',
      { zone: 'deleted.example', domain: 'www.deleted.example' },
      owner.token,
    );
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
    expect(
      (
        await server!.http.post(
          '/certificates',
          { zone: 'deleted.example', domain: 'www.deleted.example' },
          owner.token,
        )
      ).status,
    ).toBe(202);
  });
});
