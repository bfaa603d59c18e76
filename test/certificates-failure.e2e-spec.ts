import { answerData, queryDns } from './support/dns-client';
import { verifiedZone, waitForStatus } from './support/certificates';
import { ChallTestSrv, Pebble, startChallTestSrv, startPebble } from './support/pebble';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

/**
 * A challenge that cannot validate: pebble here resolves through pebble-challtestsrv
 * (which never sees the service's challenge records), so the TXT record is withheld
 * from the CA. The certificate must end failed with the CA's own error in its logs and
 * nothing left published.
 */
describe('certificates: a challenge that cannot validate', () => {
  let app: TestApp;
  let pebble: Pebble;
  let world: ChallTestSrv;
  let dnsPort: number;
  let owner: { token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    world = await startChallTestSrv();
    pebble = await startPebble(Number(world.resolver.split(':')[1]));
    app = await startTestApp({
      env: {
        DNS_PORT: String(dnsPort),
        VERIFY_RESOLVER: world.resolver,
        ACME_DIRECTORY_URL: pebble.directoryUrl,
        ACME_CA_CERT: pebble.caCertFile,
        ACME_PROPAGATION_DELAY_MS: '100',
      },
    });
    owner = await registerAndLogin(app.http, { plan: 'elite' });
    await verifiedZone(app.http, world, owner.token, 'withheld.com');
  });
  afterAll(async () => {
    await app?.close();
    await pebble?.stop();
    await world?.stop();
  });

  it('ends failed with the CA error in the logs, removes the challenge records; renew from failed re-runs the order', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'withheld.com', domain: 'www.withheld.com', auto_renew: true },
      owner.token,
    );
    expect(created.status).toBe(202);
    const failed = await waitForStatus(app.http, owner.token, created.body.id, ['failed', 'issued']);
    expect(failed.status).toBe('failed');
    expect(failed.issued_at).toBeNull();

    const logs = (await app.http.get(`/certificates/${created.body.id}/logs`, owner.token)).body.logs;
    const error = logs.find((l: any) => l.level === 'error');
    // Pebble's own words: the problem type and its detail about the missing TXT record.
    expect(error.message).toMatch(
      /^Issuance failed at authorization: www\.withheld\.com: invalid: urn:ietf:params:acme:error:unauthorized: .*TXT/,
    );

    const deadline = Date.now() + 5000;
    const txt = () => queryDns(dnsPort, '_acme-challenge.www.withheld.com', 'TXT').then((r) => answerData(r, 'TXT'));
    while ((await txt()).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await txt()).toEqual([]);
    // The log line is the step's own event, appended after the records' removal: a moment later on a busy machine.
    const messages = async () =>
      (await app.http.get(`/certificates/${created.body.id}/logs`, owner.token)).body.logs.map((l: any) => l.message);
    let seen = await messages();
    while (!seen.includes('Challenge TXT records removed') && Date.now() < deadline + 5000) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await messages();
    }
    expect(seen).toContain('Challenge TXT records removed');

    const download = await app.http.get(`/certificates/${created.body.id}/download`, owner.token);
    expect([download.status, download.body.error.code]).toEqual([409, 'not_issued']);
    const metrics = await app.http.get('/metrics');
    expect(metrics.text).toMatch(/acme_orders_total\{outcome="failed"\} 1/);

    // Recovery out of failed: a renewal places a new order (and fails again here, for the same reason).
    expect(pebble.orderCount()).toBe(1);
    const retry = await app.http.post(`/certificates/${created.body.id}/renew`, undefined, owner.token);
    expect([retry.status, retry.body.status]).toEqual([202, 'validating']);
    await waitForStatus(app.http, owner.token, created.body.id, ['failed']);
    expect(pebble.orderCount()).toBe(2);
    // A failed certificate still holds its plan slot (contract §10).
    expect((await app.http.get('/certificates', owner.token)).body.limits.current_count).toBe(1);
  });
});
