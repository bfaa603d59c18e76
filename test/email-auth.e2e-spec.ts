import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { answerData, queryDns, waitForDns } from './support/dns-client';
import { enrolZone, startWorld } from './support/email-auth';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'mail-example.test';

/** fetch() sets Host from the URL; the policy is chosen by Host, so this uses node:http. */
function getWithHost(
  base: string,
  path: string,
  host: string,
): Promise<{ status: number; text: string; headers: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          text,
          headers: new Map(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
const ZONE_FILE = `@ 300 IN TXT "google-site-verification=abc"
@ 300 IN TXT "v=spf1 a -all"
@ 300 IN MX 10 mx1
mx1 300 IN A 192.0.2.25
`;

/** Email-authentication settings end to end (contract §7): real HTTP in, real DNS packets out. */
describe('email-authentication settings (contract §7)', () => {
  let app: TestApp;
  let dnsPort: number;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let owner: { id: number; token: string };
  let other: { id: number; token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    owner = await registerAndLogin(app.http);
    other = await registerAndLogin(app.http);
    await enrolZone(app.http, world, owner, ZONE, { zoneFile: ZONE_FILE, addOnDomains: [ZONE, 'pending.test'] });
    // A zone the service serves whose SPF record costs 9 lookups, for the include count.
    await app.http.post(
      '/zones',
      {
        name: 'heavy-sender.test',
        zone_file:
          '_spf 300 IN TXT "v=spf1 a mx ptr exists:x.heavy-sender.test include:one.heavy-sender.test ' +
          'a:b.heavy-sender.test mx:c.heavy-sender.test -all"\none 300 IN TXT "v=spf1 a mx -all"\n',
      },
      other.token,
    );
  });
  afterAll(async () => {
    await app.close();
    await worldServer.stop();
  });

  const dmarc = { policy: 'none', rua: ['mailto:dmarc-rua@reports.example.net'] };

  it('needs the caller’s zone (404), the add-on (403 addon_required) and a verified zone (409)', async () => {
    const foreign = await app.http.put(`/email-auth/domains/${ZONE}/dmarc`, dmarc, other.token);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    await app.http.post('/zones', { name: 'other-addon.test' }, other.token);
    const noAddon = await app.http.put('/email-auth/domains/other-addon.test/dmarc', dmarc, other.token);
    expect(noAddon.status).toBe(403);
    expect(noAddon.body.error).toEqual({
      code: 'addon_required',
      message: 'DMARC management requires the Email Authentication add-on',
    });
    expect((await app.http.get('/email-auth/dmarc/wizard/other-addon.test', other.token)).body.error.message).toBe(
      'DMARC management requires the Email Authentication add-on',
    );
    await app.http.post('/zones', { name: 'pending.test' }, owner.token);
    const unverified = await app.http.put('/email-auth/domains/pending.test/dmarc', dmarc, owner.token);
    expect([unverified.status, unverified.body.error.code]).toEqual([409, 'zone_not_verified']);
    expect((await app.http.put(`/email-auth/domains/${ZONE}/dmarc`, dmarc)).status).toBe(401);
  });

  it('publishes _dmarc through the DNS server within a second, and refuses bad fields with 400s naming them', async () => {
    const res = await app.http.put(
      `/email-auth/domains/${ZONE}/dmarc`,
      {
        policy: 'quarantine',
        subdomain_policy: 'reject',
        percentage: 100,
        rua: ['mailto:dmarc-rua@reports.example.net'],
        ruf: ['mailto:ruf@reports.example.net'],
        adkim: 's',
        aspf: 'r',
        fo: '1:d',
      },
      owner.token,
    );
    expect(res.status).toBe(200);
    const expected =
      'v=DMARC1; p=quarantine; sp=reject; rua=mailto:dmarc-rua@reports.example.net; ruf=mailto:ruf@reports.example.net; adkim=s; fo=1:d';
    expect(res.body.dmarc).toMatchObject({ policy: 'quarantine', subdomain_policy: 'reject', percentage: 100 });
    expect(res.body.records).toContainEqual({ name: `_dmarc.${ZONE}`, type: 'TXT', value: expected });
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [expected]);

    const partial = await app.http.put(
      `/email-auth/domains/${ZONE}/dmarc`,
      { policy: 'reject', percentage: 30 },
      owner.token,
    );
    expect(partial.status).toBe(200);
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', ['v=DMARC1; p=reject; pct=30; t=y']);

    const bad: Array<[unknown, RegExp]> = [
      [{ policy: 'block' }, /policy must be none, quarantine or reject/],
      [{ policy: 'none', percentage: 0 }, /percentage: must be an integer from 1 to 100/],
      [{ policy: 'none', percentage: 50.5 }, /percentage must be an integer/],
      [{ policy: 'none', rua: ['http://reports.example.net/x'] }, /rua\[0\]: .* must be a mailto: URI/],
      [{ policy: 'none', rua: ['mailto:not-an-address'] }, /rua\[0\]: .* not a mailto: URI with one email address/],
      [{ policy: 'none', ruf: ['mailto:a@b.example,mailto:c@d.example'] }, /ruf\[0\]: .* must not contain commas/],
      [{ policy: 'none', fo: 'x' }, /fo: must be 0, 1, d or s/],
      [{ policy: 'none', adkim: 'relaxed' }, /adkim must be r or s/],
      [{ policy: 'none', pct: 10 }, /pct: unknown field/],
    ];
    for (const [body, message] of bad) {
      const r = await app.http.put(`/email-auth/domains/${ZONE}/dmarc`, body, owner.token);
      expect([r.status, r.body.error.code]).toEqual([400, 'validation_failed']);
      expect(r.body.error.message).toMatch(message);
    }
    // Refused writes changed nothing.
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', ['v=DMARC1; p=reject; pct=30; t=y']);
  });

  it('replaces the apex SPF record (keeping other apex TXT data) and counts DNS lookups through served includes', async () => {
    const res = await app.http.put(
      `/email-auth/domains/${ZONE}/spf`,
      {
        ip4: ['192.0.2.0/24', '198.51.100.7'],
        ip6: ['2001:db8::/32'],
        include: ['_spf.heavy-sender.test'],
        all: '-all',
      },
      owner.token,
    );
    expect(res.status).toBe(200);
    const spf = 'v=spf1 ip4:192.0.2.0/24 ip4:198.51.100.7 ip6:2001:db8::/32 include:_spf.heavy-sender.test -all';
    await waitForDns(dnsPort, ZONE, 'TXT', ['google-site-verification=abc', spf]);

    // 1 (include) + 7 in _spf.heavy-sender.test + 2 in one.heavy-sender.test = 10: allowed. One more is not.
    const over = await app.http.put(
      `/email-auth/domains/${ZONE}/spf`,
      { include: ['_spf.heavy-sender.test', 'spf.mailer.example'], all: '~all' },
      owner.token,
    );
    expect([over.status, over.body.error.code]).toEqual([400, 'validation_failed']);
    expect(over.body.error.message).toMatch(/needs 11 DNS lookups; at most 10/);

    const bad: Array<[unknown, RegExp]> = [
      [{ ip4: ['192.0.2.300'] }, /ip4\[0\]: "192.0.2.300" is not an IPv4 address/],
      [{ ip4: ['192.0.2.0/33'] }, /ip4\[0\]/],
      [{ ip6: ['192.0.2.1'] }, /ip6\[0\]: .* not an IPv6/],
      [{ include: ['bad_domain..example'] }, /include\[0\]/],
      [{ all: '+all' }, /all must be -all, ~all or \?all/],
    ];
    for (const [body, message] of bad) {
      const r = await app.http.put(`/email-auth/domains/${ZONE}/spf`, body, owner.token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    await waitForDns(dnsPort, ZONE, 'TXT', ['google-site-verification=abc', spf]);
  });

  it('generates RSA 2048 DKIM keys, returning the private key once and storing it nowhere', async () => {
    const res = await app.http.put(`/email-auth/domains/${ZONE}/dkim/mail2026`, { generate: true }, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.generated_key.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.generated_key.key_bits).toBe(2048);
    const record = `v=DKIM1; k=rsa; p=${res.body.generated_key.public_key}`;
    await waitForDns(dnsPort, `mail2026._domainkey.${ZONE}`, 'TXT', [record]);
    // Served as several character-strings of at most 255 bytes.
    const answer = await queryDns(dnsPort, `mail2026._domainkey.${ZONE}`, 'TXT');
    const strings = (answer.answers![0] as { data: Buffer[] }).data;
    expect(strings.length).toBeGreaterThan(1);
    expect(Math.max(...strings.map((s) => s.length))).toBeLessThanOrEqual(255);

    const settings = await app.http.get(`/email-auth/domains/${ZONE}`, owner.token);
    expect(settings.text).not.toContain('PRIVATE');
    expect(settings.body.dkim).toEqual([
      expect.objectContaining({ selector: 'mail2026', key_bits: 2048, generated: true }),
    ]);
    const stream = await app.http.admin('GET', `/admin/streams/emailauth-${ZONE}`);
    expect(stream.status).toBe(200);
    const privateBody = res.body.generated_key.private_key.split('\n')[1];
    expect(stream.text).not.toContain(privateBody);
    expect(stream.text).not.toContain('PRIVATE');
  });

  it('accepts a given public key and refuses bad selectors, short keys and non-keys; deletes keys', async () => {
    const { publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const given = await app.http.put(
      `/email-auth/domains/${ZONE}/dkim/legacy`,
      { public_key: publicKey.toString('base64') },
      owner.token,
    );
    expect(given.status).toBe(200);
    await waitForDns(dnsPort, `legacy._domainkey.${ZONE}`, 'TXT', [
      `v=DKIM1; k=rsa; p=${publicKey.toString('base64')}`,
    ]);

    const short = generateKeyPairSync('rsa', {
      modulusLength: 512,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const cases: Array<[string, unknown, RegExp]> = [
      ['short', { public_key: short.publicKey.toString('base64') }, /1024 to 4096 bits \(this one has 512\)/],
      ['junk', { public_key: 'bm90IGEga2V5' }, /not a DER SubjectPublicKeyInfo/],
      ['bad_selector', { generate: true }, /selector: must be DNS labels/],
      ['both', { generate: true, public_key: publicKey.toString('base64') }, /either public_key or "generate": true/],
      ['neither', {}, /either public_key or "generate": true/],
    ];
    for (const [selector, body, message] of cases) {
      const r = await app.http.put(`/email-auth/domains/${ZONE}/dkim/${selector}`, body, owner.token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }

    expect((await app.http.delete(`/email-auth/domains/${ZONE}/dkim/legacy`, owner.token)).status).toBe(204);
    await waitForDns(dnsPort, `legacy._domainkey.${ZONE}`, 'TXT', []);
    const again = await app.http.delete(`/email-auth/domains/${ZONE}/dkim/legacy`, owner.token);
    expect([again.status, again.body.error.message]).toEqual([404, 'DKIM key not found']);
  });

  it('serves the MTA-STS policy by Host header with an id that changes on every policy change', async () => {
    const first = await app.http.put(
      `/email-auth/domains/${ZONE}/mta-sts`,
      { mode: 'testing', mx: ['mx1.mail-example.test', '*.backup.example.net'], max_age: 86400 },
      owner.token,
    );
    expect(first.status).toBe(200);
    const id1 = first.body.mta_sts.id;
    expect(id1).toMatch(/^[A-Za-z0-9]{1,32}$/);
    await waitForDns(dnsPort, `_mta-sts.${ZONE}`, 'TXT', [`v=STSv1; id=${id1}`]);
    const policy = await getWithHost(app.url, '/.well-known/mta-sts.txt', `mta-sts.${ZONE}`);
    expect(policy.status).toBe(200);
    expect(policy.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(policy.text).toBe(
      'version: STSv1\r\nmode: testing\r\nmx: mx1.mail-example.test\r\nmx: *.backup.example.net\r\nmax_age: 86400\r\n',
    );

    const same = await app.http.put(
      `/email-auth/domains/${ZONE}/mta-sts`,
      { mode: 'testing', mx: ['mx1.mail-example.test', '*.backup.example.net'], max_age: 86400 },
      owner.token,
    );
    expect(same.body.mta_sts.id).toBe(id1); // no change, no new id
    const second = await app.http.put(
      `/email-auth/domains/${ZONE}/mta-sts`,
      { mode: 'enforce', mx: ['mx1.mail-example.test'], max_age: 604800 },
      owner.token,
    );
    const id2 = second.body.mta_sts.id;
    expect(id2).not.toBe(id1);
    await waitForDns(dnsPort, `_mta-sts.${ZONE}`, 'TXT', [`v=STSv1; id=${id2}`]);
    expect((await getWithHost(app.url, '/.well-known/mta-sts.txt', `mta-sts.${ZONE}`)).text).toContain(
      'mode: enforce\r\n',
    );
    expect((await getWithHost(app.url, '/.well-known/mta-sts.txt', 'mta-sts.unknown.test')).status).toBe(404);
    expect((await getWithHost(app.url, '/.well-known/mta-sts.txt', ZONE)).status).toBe(404);

    const bad: Array<[unknown, RegExp]> = [
      [{ mode: 'enforce', mx: [] }, /mx: at least one MX host/],
      [{ mode: 'enforce', mx: ['mx..example'] }, /mx\[0\]/],
      [{ mode: 'enforce', mx: ['mx*.example.net'] }, /mx\[0\]/],
      [
        { mode: 'enforce', mx: ['mx1.example.net'], max_age: 40000000 },
        /max_age: must be an integer from 0 to 31557600/,
      ],
      [{ mode: 'strict', mx: ['mx1.example.net'] }, /mode must be enforce, testing or none/],
    ];
    for (const [body, message] of bad) {
      const r = await app.http.put(`/email-auth/domains/${ZONE}/mta-sts`, body, owner.token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('publishes TLS-RPT and BIMI records, refusing bad URIs', async () => {
    const tls = await app.http.put(
      `/email-auth/domains/${ZONE}/tls-rpt`,
      { rua: ['mailto:tls-rpt@reports.example.net', 'https://reports.example.net/tlsrpt'] },
      owner.token,
    );
    expect(tls.status).toBe(200);
    await waitForDns(dnsPort, `_smtp._tls.${ZONE}`, 'TXT', [
      'v=TLSRPTv1; rua=mailto:tls-rpt@reports.example.net,https://reports.example.net/tlsrpt',
    ]);
    const bimi = await app.http.put(
      `/email-auth/domains/${ZONE}/bimi`,
      { logo_url: 'https://brand.example.net/logo.svg', vmc_url: 'https://brand.example.net/vmc.pem' },
      owner.token,
    );
    expect(bimi.status).toBe(200);
    await waitForDns(dnsPort, `default._bimi.${ZONE}`, 'TXT', [
      'v=BIMI1; l=https://brand.example.net/logo.svg; a=https://brand.example.net/vmc.pem',
    ]);

    const bad: Array<[string, unknown, RegExp]> = [
      ['tls-rpt', { rua: ['ftp://reports.example.net/x'] }, /rua\[0\]: .* must be a mailto: or https: URI/],
      ['tls-rpt', { rua: [] }, /rua: at least one/],
      ['bimi', { logo_url: 'http://brand.example.net/logo.svg' }, /logo_url: .* must be a https: URI/],
      ['bimi', { logo_url: 'https://brand.example.net/logo.png' }, /logo_url: must point to an SVG/],
    ];
    for (const [path, body, message] of bad) {
      const r = await app.http.put(`/email-auth/domains/${ZONE}/${path}`, body, owner.token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('takes account API keys as well as sessions', async () => {
    await app.http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, { plan: 'pro' });
    const key = await app.http.post('/api-keys/', { name: 'automation' }, owner.token);
    expect(key.status).toBe(201);
    const res = await app.http.get(`/email-auth/domains/${ZONE}`, key.body.key);
    expect([res.status, res.body.zone]).toEqual([200, ZONE]);
  });

  it('shows every setting and generated record, and leaves zone records the owner set alone', async () => {
    const res = await app.http.get(`/email-auth/domains/${ZONE}`, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.records.map((r: { name: string }) => r.name).sort()).toEqual(
      [
        `${ZONE}`,
        `_dmarc.${ZONE}`,
        `_mta-sts.${ZONE}`,
        `_smtp._tls.${ZONE}`,
        `default._bimi.${ZONE}`,
        `mail2026._domainkey.${ZONE}`,
      ].sort(),
    );
    expect(res.body.spf.dns_lookups).toBe(10);
    // DMARC is at reject for 30 %: BIMI will not show; no rua was set in the last DMARC change.
    expect(res.body.warnings).toEqual([
      'dmarc.rua: no aggregate report address, so the DMARC wizard receives no data',
      'bimi: mailbox providers show the logo only with DMARC at p=quarantine or p=reject for 100% of messages',
    ]);
    const mx = await queryDns(dnsPort, ZONE, 'MX');
    expect(answerData(mx, 'MX')).toHaveLength(1);
    const zone = await app.http.get(`/zones/${ZONE}/records`, owner.token);
    const apexTxt = zone.body.records.find(
      (r: { subname: string; type: string }) => r.subname === '' && r.type === 'TXT',
    );
    expect(apexTxt.records).toContain('"google-site-verification=abc"');
  });

  it('ends with the newest settings in DNS when changes race', async () => {
    const puts = [
      app.http.put(`/email-auth/domains/${ZONE}/dmarc`, { policy: 'quarantine', percentage: 50 }, owner.token),
      app.http.put(`/email-auth/domains/${ZONE}/dmarc`, { policy: 'reject', percentage: 20 }, owner.token),
      app.http.put(`/email-auth/domains/${ZONE}/spf`, { ip4: ['203.0.113.0/24'], all: '-all' }, owner.token),
      app.http.put(`/email-auth/domains/${ZONE}/dmarc`, { policy: 'quarantine', percentage: 70 }, owner.token),
      app.http.put(`/email-auth/domains/${ZONE}/tls-rpt`, { rua: ['mailto:tls@reports.example.net'] }, owner.token),
    ];
    for (const r of await Promise.all(puts)) expect(r.status).toBe(200);
    const settings = (await app.http.get(`/email-auth/domains/${ZONE}`, owner.token)).body;
    const value = (name: string) => settings.records.find((r: { name: string }) => r.name === name).value;
    await waitForDns(dnsPort, `_dmarc.${ZONE}`, 'TXT', [value(`_dmarc.${ZONE}`)]);
    await waitForDns(dnsPort, ZONE, 'TXT', ['google-site-verification=abc', 'v=spf1 ip4:203.0.113.0/24 -all']);
    await waitForDns(dnsPort, `_smtp._tls.${ZONE}`, 'TXT', ['v=TLSRPTv1; rua=mailto:tls@reports.example.net']);
  });
});
