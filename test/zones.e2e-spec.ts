import { delegateInWorld, putWorldZone } from '../bench/support/world-dns';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { answerData, queryDns, waitForDns, waitForRcode } from './support/dns-client';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE_FILE = `$ORIGIN example.com.
$TTL 300
@       IN SOA ns1.old-provider.net. hostmaster ( 1 7200 3600 1209600 300 )
@       IN NS  ns1.old-provider.net.
@       IN MX  10 mail
www     IN A   192.0.2.80
        IN AAAA 2001:db8::80
mail    IN A   192.0.2.25
alias   IN CNAME www
@       IN TXT "v=spf1 mx -all"
`;

/**
 * Zones end to end. Verification goes through VERIFY_RESOLVER, here a second real DNS
 * server standing in for "the world" (the public view of the zone), fed by the test.
 */
describe('zones (contract §4)', () => {
  let app: TestApp;
  let dnsPort: number;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let owner: { token: string };
  let other: { token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    world = new ZoneIndex();
    worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
    const { port } = await worldServer.start();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', VERIFY_RESOLVER: `127.0.0.1:${port}` },
    });
    owner = await registerAndLogin(app.http);
    other = await registerAndLogin(app.http);
  });
  afterAll(async () => {
    await app.close();
    await worldServer.stop();
  });

  it('imports a BIND master file and serves it at once, with its own SOA/NS', async () => {
    const res = await app.http.post('/zones', { name: 'Example.COM.', zone_file: ZONE_FILE }, owner.token);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'example.com',
      status: 'pending_verification',
      verification: { record_name: '_account-dns-verify.example.com' },
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      verified_at: null,
    });
    await waitForDns(dnsPort, 'www.example.com', 'A', ['192.0.2.80']);
    await waitForDns(dnsPort, 'example.com', 'NS', ['ns1.example.net', 'ns2.example.net']);
    const alias = await queryDns(dnsPort, 'alias.example.com', 'A');
    expect(answerData(alias, 'CNAME')).toEqual(['www.example.com']);
    expect(answerData(alias, 'A')).toEqual(['192.0.2.80']);
    const zone = await app.http.get('/zones/example.com', owner.token);
    expect(zone.body.records).toEqual([
      { subname: '', type: 'MX', ttl: 300, records: ['10 mail.example.com.'] },
      { subname: '', type: 'TXT', ttl: 300, records: ['"v=spf1 mx -all"'] },
      { subname: 'alias', type: 'CNAME', ttl: 300, records: ['www.example.com.'] },
      { subname: 'mail', type: 'A', ttl: 300, records: ['192.0.2.25'] },
      { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.80'] },
      { subname: 'www', type: 'AAAA', ttl: 300, records: ['2001:db8::80'] },
    ]);
    expect((await app.http.get('/zones', owner.token)).body.zones.map((z: { name: string }) => z.name)).toEqual([
      'example.com',
    ]);
  });

  it('keeps zone names unique and other accounts’ zones invisible', async () => {
    // Contract §4: a zone equal to, under or above another account's zone, or a DDNS zone, is 409 zone_conflict.
    const taken = await app.http.post('/zones', { name: 'example.com' }, other.token);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'zone_conflict']);
    const again = await app.http.post('/zones', { name: 'example.com' }, owner.token);
    expect([again.status, again.body.error.code]).toEqual([409, 'zone_taken']);
    expect((await app.http.get('/zones/example.com', other.token)).status).toBe(404);
    expect((await app.http.put('/zones/example.com/records', { records: [] }, other.token)).status).toBe(404);
    const ddns = await app.http.post('/zones', { name: 'x.dyn.example.net' }, other.token);
    expect([ddns.status, ddns.body.error.code]).toEqual([409, 'zone_conflict']);
    const badFile = await app.http.post('/zones', { name: 'bad.org', zone_file: 'www IN A 999.1.1.1' }, other.token);
    expect(badFile.body.error).toMatchObject({ code: 'validation_failed' });
    expect((await app.http.post('/zones', { name: 'bad.org' }, other.token)).status).toBe(201); // the bad file did not hold the name
  });

  it('upserts and deletes RRsets of every type, validating presentation format', async () => {
    const records = [
      { subname: 'www', type: 'A', ttl: 600, records: ['192.0.2.81', '192.0.2.82'] },
      { subname: 'mail', type: 'A', ttl: 300, records: [] },
      { subname: '_sip._tcp', type: 'SRV', ttl: 300, records: ['10 5 5060 sip.example.com'] },
      { subname: '', type: 'CAA', ttl: 3600, records: ['0 issue "letsencrypt.org"'] },
      { subname: 'sub', type: 'NS', ttl: 3600, records: ['ns.elsewhere.net'] },
      { subname: 'txt', type: 'TXT', ttl: 60, records: ['"hello world" "two"'] },
    ];
    const put = await app.http.put('/zones/example.com/records', { records }, owner.token);
    expect(put.status).toBe(200);
    await waitForDns(dnsPort, 'www.example.com', 'A', ['192.0.2.81', '192.0.2.82']);
    await waitForRcode(dnsPort, 'mail.example.com', 'A', 'NXDOMAIN');
    expect(answerData(await queryDns(dnsPort, 'txt.example.com', 'TXT'), 'TXT')).toEqual(['hello worldtwo']);
    for (const bad of [
      { subname: 'x', type: 'A', ttl: 300, records: ['not-an-ip'] },
      { subname: 'x', type: 'A', ttl: 30, records: ['192.0.2.1'] },
      { subname: 'x', type: 'HINFO', ttl: 300, records: ['"cpu" "os"'] },
      { subname: '', type: 'NS', ttl: 300, records: ['ns.evil.net'] },
      { subname: 'www', type: 'CNAME', ttl: 300, records: ['other.example.org'] },
      { subname: 'x', type: 'MX', ttl: 300, records: ['mail.example.com'] },
    ]) {
      const res = await app.http.put('/zones/example.com/records', { records: [bad] }, owner.token);
      expect([bad.type, res.status, res.body.error.code]).toEqual([bad.type, 400, 'validation_failed']);
    }
  });

  it('verifies through the resolver (TXT token or NS delegation), then allows hosts under the zone', async () => {
    const zone = (await app.http.get('/zones/example.com', owner.token)).body;
    const early = await app.http.post('/zones/example.com/verify', undefined, owner.token);
    expect([early.status, early.body.error.code]).toEqual([400, 'not_verified']);
    const refused = await app.http.post(
      '/api/domains',
      { fqdn: 'home.example.com', record_type: 'A', record_ip: '192.0.2.5' },
      owner.token,
    );
    expect(refused.body.error.code).toBe('invalid_fqdn');

    putWorldZone(world, 'example.com', ['ns1.old-provider.net']);
    world.setRRset('example.com', '_account-dns-verify', 'TXT', 60, [`"${zone.verification.record_value}"`]);
    const ok = await app.http.post('/zones/example.com/verify', undefined, owner.token);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('verified');
    expect(ok.body.verified_at).toMatch(/Z$/);

    // NS delegation works too: the parent (org, in the world) delegates the zone to the service.
    await app.http.post('/zones', { name: 'delegated.org' }, owner.token);
    delegateInWorld(world, 'delegated.org', ['ns1.example.net', 'ns2.example.net']);
    expect((await app.http.post('/zones/delegated.org/verify', undefined, owner.token)).body.status).toBe('verified');

    const host = await app.http.post(
      '/api/domains',
      { fqdn: 'home.example.com', record_type: 'A', record_ip: '192.0.2.5' },
      owner.token,
    );
    expect(host.status).toBe(201);
    await waitForDns(dnsPort, 'home.example.com', 'A', ['192.0.2.5']);
    expect(
      (
        await app.http.post(
          '/api/domains',
          { fqdn: 'x.example.com', record_type: 'A', record_ip: '192.0.2.5' },
          other.token,
        )
      ).body.error.code,
    ).toBe('invalid_fqdn');
  });

  it('deletes a zone: no longer served, name free again', async () => {
    expect((await app.http.delete('/zones/delegated.org', owner.token)).status).toBe(204);
    const started = Date.now();
    while ((await queryDns(dnsPort, 'delegated.org', 'SOA')).rcode !== 'REFUSED') {
      if (Date.now() - started > 1000) throw new Error('zone still served');
    }
    expect((await app.http.post('/zones', { name: 'delegated.org' }, other.token)).status).toBe(201);
  });

  it('exports a zone as a BIND master file that imports back unchanged (§18)', async () => {
    const zone = 'export-me.org';
    const file =
      `${ZONE_FILE.replace(/example\.com/g, zone)}wild 600 IN CAA 0 issue "letsencrypt.org"\n*.dyn 60 ` +
      `IN A 192.0.2.9\n_sip._tcp 120 IN SRV 1 2 5060 sip.${zone}.\nlong 60 IN TXT "a \\"quoted\\" word; not a ` +
      `comment" "second"\n`;
    expect((await app.http.post('/zones', { name: zone, zone_file: file }, owner.token)).status).toBe(201);
    const res = await app.http.get(`/zones/${zone}/export`, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/dns/);
    expect(res.text).toMatch(new RegExp(`^\\$ORIGIN ${zone}\\.$`, 'm'));
    expect(res.text).toMatch(/^@ 3600 IN SOA ns1\.example\.net\. /m);
    expect(res.text).toContain('@ 3600 IN NS ns2.example.net.');
    const before = (await app.http.get(`/zones/${zone}/records`, owner.token)).body.records;
    expect(before.length).toBeGreaterThan(6);
    // Round trip: delete, import the export, same records.
    expect((await app.http.delete(`/zones/${zone}`, owner.token)).status).toBe(204);
    expect((await app.http.post('/zones', { name: zone, zone_file: res.text }, owner.token)).status).toBe(201);
    expect((await app.http.get(`/zones/${zone}/records`, owner.token)).body.records).toEqual(before);
    // Another account's zone is not found.
    const foreign = await app.http.get(`/zones/${zone}/export`, other.token);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
  });
});
