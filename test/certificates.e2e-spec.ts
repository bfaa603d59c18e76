import { createPrivateKey, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { AcmeClientAdapter } from '../libs/certificates/application/acme-client.adapter';
import { answerData, queryDns } from './support/dns-client';
import { answerChecker } from './support/openapi-answers';
import { openssl, verifiedZone, waitForStatus } from './support/certificates';
import { ChallTestSrv, Pebble, startChallTestSrv, startPebble } from './support/pebble';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

/**
 * Certificates end to end against a real ACME server (Debian's pebble), which validates
 * DNS-01 by asking the service's own DNS server. Zones are verified through a real DNS
 * peer (pebble-challtestsrv as VERIFY_RESOLVER).
 */
describe('certificates (contract §10) against pebble', () => {
  let app: TestApp;
  let pebble: Pebble;
  let world: ChallTestSrv;
  let dnsPort: number;
  let elite: { id: number; token: string };
  let pro: { id: number; token: string };
  let plus: { id: number; token: string };
  let free: { id: number; token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    world = await startChallTestSrv();
    pebble = await startPebble(dnsPort);
    app = await startTestApp({
      env: {
        DNS_PORT: String(dnsPort),
        VERIFY_RESOLVER: world.resolver,
        ACME_DIRECTORY_URL: pebble.directoryUrl,
        ACME_CA_CERT: pebble.caCertFile,
        ACME_PROPAGATION_DELAY_MS: '300',
      },
    });
    elite = await registerAndLogin(app.http, { plan: 'elite' });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
    plus = await registerAndLogin(app.http, { plan: 'plus' });
    free = await registerAndLogin(app.http, { plan: 'free' });
    await verifiedZone(app.http, world, elite.token, 'example.com');
    await verifiedZone(app.http, world, pro.token, 'pro-zone.org');
    await verifiedZone(app.http, world, plus.token, 'plus-zone.net');
  });
  afterAll(async () => {
    await app?.close();
    await pebble?.stop();
    await world?.stop();
  });

  const challengeTxt = async (name: string) =>
    answerData(await queryDns(dnsPort, `_acme-challenge.${name}`, 'TXT'), 'TXT');

  it('issues a certificate with two SANs: chain verifies against pebble root, RSA 2048 key matches, SANs right, no challenge left', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'example.com', domain: 'example.com', sans: ['www.example.com', 'api.example.com'] },
      elite.token,
    );
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      domain: 'example.com',
      sans: ['www.example.com', 'api.example.com'],
      is_wildcard: false,
      auto_renew: false,
      status: 'pending',
      issued_at: null,
    });
    const id = created.body.id;

    const issued = await waitForStatus(app.http, elite.token, id, ['issued', 'failed']);
    expect(issued.status).toBe('issued');
    expect(issued.issued_at).toMatch(/Z$/);
    expect(Date.parse(issued.expires_at)).toBeGreaterThan(Date.parse(issued.issued_at));
    expect(issued.next_renewal_at).toBeNull();

    const pem = await app.http.get(`/certificates/${id}/download`, elite.token);
    expect(pem.status).toBe(200);
    const { certificate_pem, chain_pem, private_key_pem } = pem.body;
    const root = await pebble.root();
    const verify = openssl(
      (d) => ['verify', '-CAfile', join(d, 'root.pem'), '-untrusted', join(d, 'chain.pem'), join(d, 'cert.pem')],
      {
        'root.pem': root,
        'chain.pem': chain_pem,
        'cert.pem': certificate_pem,
      },
    );
    expect(verify.trim()).toMatch(/cert\.pem: OK$/);

    const x509 = new X509Certificate(certificate_pem);
    expect(x509.subjectAltName!.split(', ').sort()).toEqual([
      'DNS:api.example.com',
      'DNS:example.com',
      'DNS:www.example.com',
    ]);
    const key = createPrivateKey(private_key_pem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(x509.checkPrivateKey(key)).toBe(true);
    const keyText = openssl((d) => ['rsa', '-in', join(d, 'key.pem'), '-noout', '-text'], {
      'key.pem': private_key_pem,
    });
    expect(keyText).toMatch(/Private-Key: \(2048 bit/);

    // The challenge records were served while validating and are gone now.
    for (const name of ['example.com', 'www.example.com', 'api.example.com']) {
      const deadline = Date.now() + 5000;
      while ((await challengeTxt(name)).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await challengeTxt(name)).toEqual([]);
    }
    const records = await app.http.get('/zones/example.com/records', elite.token);
    expect(records.body.records.filter((r: any) => r.subname.startsWith('_acme-challenge'))).toEqual([]);

    const logs = await app.http.get(`/certificates/${id}/logs`, elite.token);
    const messages = logs.body.logs.map((l: any) => l.message).join('\n');
    expect(messages).toMatch(/ACME order placed/);
    expect(messages).toMatch(/Challenge TXT records published/);
    expect(messages).toMatch(/Certificate issued \(serial/);
    expect(messages).toMatch(/Challenge TXT records removed/);

    // The private key is sealed at rest: not in the events, not in the read model.
    const events = JSON.stringify(
      (await app.running.deps.eventStore.readStream(`certificate-${id}`)).map((e) => e.data),
    );
    expect(events).toContain('sealed_private_key');
    expect(events).not.toContain('PRIVATE KEY');
    expect(events).not.toContain(private_key_pem.split('\n')[1]);
    const doc = await app.running.deps.projections.collection('certificates', 'certificates').findOne({ _id: id });
    expect(JSON.stringify(doc)).not.toContain('PRIVATE KEY');

    const metrics = await app.http.get('/metrics');
    expect(metrics.text).toMatch(/acme_orders_total\{outcome="issued"\} [1-9]/);
    expect(metrics.text).toMatch(/acme_issuance_duration_seconds_count [1-9]/);
  });

  it('issues a wildcard certificate on Elite (both names share the _acme-challenge owner)', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'example.com', domain: 'shop.example.com', wildcard: true },
      elite.token,
    );
    expect(created.status).toBe(202);
    expect(created.body.is_wildcard).toBe(true);
    await waitForStatus(app.http, elite.token, created.body.id, ['issued']);
    const pem = await app.http.get(`/certificates/${created.body.id}/download`, elite.token);
    const x509 = new X509Certificate(pem.body.certificate_pem);
    expect(x509.subjectAltName!.split(', ').sort()).toEqual(['DNS:*.shop.example.com', 'DNS:shop.example.com']);
  });

  it('renews with new dates and a new serial; revoke on delete shows the certificate revoked at the CA', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'pro-zone.org', domain: 'www.pro-zone.org', auto_renew: true },
      pro.token,
    );
    const first = await waitForStatus(app.http, pro.token, created.body.id, ['issued']);
    expect(first.next_renewal_at).toBe(new Date(Date.parse(first.expires_at) - 30 * 86_400_000).toISOString());
    await new Promise((r) => setTimeout(r, 1100)); // certificate dates have one-second resolution

    const renew = await app.http.post(`/certificates/${created.body.id}/renew`, undefined, pro.token);
    expect(renew.status).toBe(202);
    expect(renew.body.status).toBe('validating');
    const again = await app.http.post(`/certificates/${created.body.id}/renew`, undefined, pro.token);
    expect([again.status, again.body.error.code]).toEqual([409, 'issuance_in_progress']);
    const second = await waitForStatus(app.http, pro.token, created.body.id, ['issued']);
    expect(second.serial).not.toBe(first.serial);
    expect(Date.parse(second.issued_at)).toBeGreaterThan(Date.parse(first.issued_at));
    expect(Date.parse(second.expires_at)).toBeGreaterThan(Date.parse(first.expires_at));
    expect(second.next_renewal_at).toBe(new Date(Date.parse(second.expires_at) - 30 * 86_400_000).toISOString());
    expect(await pebble.certStatus(second.serial)).toBe('Valid');

    const del = await app.http.delete(`/certificates/${created.body.id}?revoke=true`, pro.token);
    expect(del.status).toBe(204);
    expect(await pebble.certStatus(second.serial)).toBe('Revoked');
    expect((await app.http.get(`/certificates/${created.body.id}`, pro.token)).status).toBe(404);
    // The domain is free again.
    const reissue = await app.http.post(
      '/certificates',
      { zone: 'pro-zone.org', domain: 'www.pro-zone.org' },
      pro.token,
    );
    expect(reissue.status).toBe(202);
    await waitForStatus(app.http, pro.token, reissue.body.id, ['issued']);
  });

  it('the daily job renews what is due and expires what has passed; renew from expired re-runs the order', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'pro-zone.org', domain: 'job.pro-zone.org', auto_renew: true },
      pro.token,
    );
    const first = await waitForStatus(app.http, pro.token, created.body.id, ['issued']);

    const today = await app.http.admin('POST', '/admin/jobs/certificate-renewals');
    expect([today.status, today.body.renewals_started, today.body.expired]).toEqual([200, [], []]);
    expect(
      (await app.http.admin('POST', '/admin/jobs/certificate-renewals', { now: 'yesterday' })).body.error.code,
    ).toBe('validation_failed');
    expect((await app.http.post('/admin/jobs/certificate-renewals', {}, pro.token)).status).toBe(401);
    const early = await app.http.admin('POST', '/admin/jobs/certificate-renewals', {
      now: new Date(Date.parse(first.next_renewal_at) - 1000).toISOString(),
    });
    expect(early.status).toBe(200);
    expect(early.body.renewals_started).not.toContain(created.body.id);

    const due = await app.http.admin('POST', '/admin/jobs/certificate-renewals', {
      now: new Date(Date.parse(first.next_renewal_at) + 1000).toISOString(),
    });
    expect(due.body.renewals_started).toContain(created.body.id);
    const renewed = await waitForStatus(app.http, pro.token, created.body.id, ['issued']);
    expect(renewed.serial).not.toBe(first.serial);
    const logs = await app.http.get(`/certificates/${created.body.id}/logs`, pro.token);
    expect(logs.body.logs.map((l: any) => l.message)).toContain('Automatic renewal requested (attempt 2)');

    // Auto-renew off: past its expiry the certificate only expires.
    expect(
      (await app.http.put(`/certificates/${created.body.id}/auto-renew`, { auto_renew: false }, pro.token)).body,
    ).toMatchObject({ auto_renew: false, next_renewal_at: null });
    const after = await app.http.admin('POST', '/admin/jobs/certificate-renewals', {
      now: new Date(Date.parse(renewed.expires_at) + 1000).toISOString(),
    });
    expect(after.body.expired).toContain(created.body.id);
    expect((await app.http.get(`/certificates/${created.body.id}`, pro.token)).body.status).toBe('expired');
    const list = await app.http.get('/certificates', pro.token);
    expect(list.body.certificates.find((c: any) => c.id === created.body.id).status).toBe('expired');

    const recover = await app.http.post(`/certificates/${created.body.id}/renew`, undefined, pro.token);
    expect([recover.status, recover.body.status]).toEqual([202, 'validating']);
    const back = await waitForStatus(app.http, pro.token, created.body.id, ['issued']);
    expect(back.serial).not.toBe(renewed.serial);
  });

  it('plan, zone and name rules with the seed messages; list limits', async () => {
    const err = async (token: string, body: object) => {
      const res = await app.http.post('/certificates', body, token);
      return [res.status, res.body.error?.code, res.body.error?.message];
    };
    expect(await err(free.token, { zone: 'plus-zone.net', domain: 'plus-zone.net' })).toEqual([
      403,
      'plan_required',
      'Certificate management requires paid subscription',
    ]);
    expect((await app.http.get('/certificates', free.token)).status).toBe(403);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'plus-zone.net', wildcard: true })).toEqual([
      403,
      'plan_required',
      'Wildcard certificates require Elite plan',
    ]);
    expect(await err(pro.token, { zone: 'pro-zone.org', domain: 'w.pro-zone.org', wildcard: true })).toEqual([
      403,
      'plan_required',
      'Wildcard certificates require Elite plan',
    ]);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'plus-zone.net', auto_renew: true })).toEqual([
      403,
      'plan_required',
      'Auto-renewal requires Pro or Elite plan',
    ]);
    expect(await err(plus.token, { zone: 'example.com', domain: 'example.com' })).toEqual([
      404,
      'not_found',
      'Zone not found or no permission',
    ]);
    expect(await err(plus.token, { zone: 'nowhere.net', domain: 'nowhere.net' })).toEqual([
      404,
      'not_found',
      'Zone not found or no permission',
    ]);
    await app.http.post('/zones', { name: 'unverified.net' }, plus.token);
    expect(await err(plus.token, { zone: 'unverified.net', domain: 'unverified.net' })).toEqual([
      404,
      'not_found',
      'Zone not found or no permission',
    ]);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'other.org' })).toEqual([
      400,
      'domain_not_under_zone',
      'Domain not under zone',
    ]);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'plus-zone.net', sans: ['www.other.org'] })).toEqual([
      400,
      'domain_not_under_zone',
      'Domain not under zone',
    ]);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'bad_name.plus-zone.net' })).toEqual([
      400,
      'validation_failed',
      'domain: "bad_name.plus-zone.net" is not a valid host name',
    ]);
    expect((await err(plus.token, { zone: 'plus-zone.net', domain: 'plus-zone.net', extra: 1 }))[0]).toBe(400);
    expect((await err(plus.token, { zone: 'plus-zone.net' }))[0]).toBe(400);

    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.http.post(
        '/certificates',
        { zone: 'plus-zone.net', domain: `h${i}.plus-zone.net` },
        plus.token,
      );
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'h0.plus-zone.net' })).toEqual([
      409,
      'certificate_exists',
      'Certificate already exists for domain',
    ]);
    expect(await err(plus.token, { zone: 'plus-zone.net', domain: 'h9.plus-zone.net' })).toEqual([
      403,
      'limit_reached',
      'Certificate limit reached for plan',
    ]);
    const list = await app.http.get('/certificates', plus.token);
    expect(list.body.limits).toEqual({
      max_certificates: 5,
      current_count: 5,
      wildcard_enabled: false,
      auto_renew_enabled: false,
    });
    expect(list.body.certificates.map((c: any) => c.id)).toEqual(ids);

    // Other accounts' certificates do not exist for you.
    for (const path of [
      `/certificates/${ids[0]}`,
      `/certificates/${ids[0]}/logs`,
      `/certificates/${ids[0]}/download`,
    ]) {
      expect((await app.http.get(path, elite.token)).status).toBe(404);
    }
    expect((await app.http.post(`/certificates/${ids[0]}/renew`, undefined, elite.token)).status).toBe(404);
    expect((await app.http.delete(`/certificates/${ids[0]}`, elite.token)).status).toBe(404);
    expect((await app.http.get('/certificates/not-a-uuid', plus.token)).status).toBe(404);
    expect(
      (await app.http.put(`/certificates/${ids[0]}/auto-renew`, { auto_renew: true }, plus.token)).body.error.message,
    ).toBe('Auto-renewal requires Pro or Elite plan');

    for (const id of ids) await waitForStatus(app.http, plus.token, id, ['issued', 'failed']);
    const early = await app.http.get(`/certificates/${ids[0]}/download`, plus.token);
    expect(early.status).toBe(200);
    // Delete without revoke frees the slot.
    expect((await app.http.delete(`/certificates/${ids[4]}`, plus.token)).status).toBe(204);
    expect((await app.http.get('/certificates', plus.token)).body.limits.current_count).toBe(4);
  });

  it("refuses the CA's 6th duplicate of the week locally with 429 ca_rate_limited and Retry-After", async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'example.com', domain: 'dup.example.com' },
      elite.token,
    );
    await waitForStatus(app.http, elite.token, created.body.id, ['issued']);
    for (let i = 0; i < 4; i++) {
      expect((await app.http.post(`/certificates/${created.body.id}/renew`, undefined, elite.token)).status).toBe(202);
      await waitForStatus(app.http, elite.token, created.body.id, ['issued']);
    }
    const orders = pebble.orderCount();
    const sixth = await app.http.post(`/certificates/${created.body.id}/renew`, undefined, elite.token);
    expect([sixth.status, sixth.body.error.code]).toEqual([429, 'ca_rate_limited']);
    expect(sixth.body.error.message).toBe(
      "The certificate authority's limit of 5 duplicate certificates per week is reached",
    );
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(7 * 86_400 - 120);
    expect(retryAfter).toBeLessThanOrEqual(7 * 86_400);
    expect(pebble.orderCount()).toBe(orders); // refused before the CA was asked
    expect((await app.http.get(`/certificates/${created.body.id}`, elite.token)).body.status).toBe('issued');
    expect((await app.http.get('/metrics')).text).toMatch(/acme_orders_total\{outcome="rate_limited"\} 1/);
  });

  it('finds an order the CA created but the service never recorded (crash between newOrder and the append)', async () => {
    const key = AcmeClientAdapter.createAccountKey();
    const adapter = new AcmeClientAdapter(pebble.directoryUrl, pebble.caCertFile, () => key);
    expect(await adapter.findOpenOrder(['lost.example.com'])).toBeNull();
    const placed = await adapter.placeOrder(['lost.example.com', 'www.lost.example.com']);
    const found = await adapter.findOpenOrder(['www.lost.example.com', 'lost.example.com']);
    const byName = (o: typeof placed | null) => ({
      ...o,
      authorizations: [...(o?.authorizations ?? [])].sort((a, b) => a.identifier.localeCompare(b.identifier)),
    });
    expect(byName(found)).toEqual(byName(placed));
    expect(await adapter.findOpenOrder(['lost.example.com'])).toBeNull();
  });

  it('download before issuance is 409 not_issued', async () => {
    const created = await app.http.post(
      '/certificates',
      { zone: 'example.com', domain: 'early.example.com' },
      elite.token,
    );
    const early = await app.http.get(`/certificates/${created.body.id}/download`, elite.token);
    expect([early.status, early.body.error.code]).toEqual([409, 'not_issued']);
    await waitForStatus(app.http, elite.token, created.body.id, ['issued']);
  });

  it('answers what /openapi.json describes, an issued certificate and its PEMs included (issue 30, ajv)', async () => {
    const check = answerChecker((await app.http.get('/openapi.json')).body);
    const created = await app.http.post(
      '/certificates',
      { zone: 'example.com', domain: 'openapi.example.com' },
      elite.token,
    );
    expect(created.status).toBe(202);
    check('/certificates', 'post', created);
    const id: string = created.body.id;
    await waitForStatus(app.http, elite.token, id, ['issued']);
    const path = `/certificates/${id}`;
    const answers = {
      get: await app.http.get(path, elite.token),
      list: await app.http.get('/certificates', elite.token),
      logs: await app.http.get(`${path}/logs`, elite.token),
      download: await app.http.get(`${path}/download`, elite.token),
      autoRenew: await app.http.put(`${path}/auto-renew`, { auto_renew: true }, elite.token),
      renew: await app.http.post(`${path}/renew`, undefined, elite.token),
    };
    expect(Object.values(answers).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 202]);
    expect(answers.get.body.status).toBe('issued');
    check('/certificates/{id}', 'get', answers.get);
    check('/certificates', 'get', answers.list);
    check('/certificates/{id}/logs', 'get', answers.logs);
    check('/certificates/{id}/download', 'get', answers.download);
    check('/certificates/{id}/auto-renew', 'put', answers.autoRenew);
    check('/certificates/{id}/renew', 'post', answers.renew);
    await waitForStatus(app.http, elite.token, id, ['issued']);
  });
});
