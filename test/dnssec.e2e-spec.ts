import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { EVENT_STORE, EventStore } from '../libs/eventstore/event-store.port';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { delv, startUnbound, type Unbound } from './support/validators';

const ZONE = 'example.test';
const DDNS = 'dyn.example.net';
const ZONE_FILE = `$ORIGIN example.test.
$TTL 300
@     IN MX 10 mail
www   IN A 192.0.2.80
mail  IN A 192.0.2.25
*.wild IN A 192.0.2.99
`;

const run = promisify(execFile);
async function digDnssec(port: number, name: string, type: string): Promise<string> {
  return (
    await run('dig', ['@127.0.0.1', '-p', String(port), '+dnssec', '+norec', '+time=2', '+tries=1', name, type], {
      encoding: 'utf8',
    })
  ).stdout;
}

/** Polls `check` every 50 ms until it holds or `ms` pass; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * DNSSEC through the API (contract §17), served by the service's DNS role and checked by
 * real validators. The parent zone (`test`, where the DS lives) is a second DNS server
 * standing in for the world, reached as VERIFY_RESOLVER.
 */
describe('DNSSEC (contract §17)', () => {
  let app: TestApp;
  let dnsPort: number;
  let parent: ZoneIndex;
  let parentServer: DnsServer;
  let owner: { token: string; id: number };
  let other: { token: string };
  let unbound: Unbound | null = null;

  beforeAll(async () => {
    parent = new ZoneIndex();
    parent.putZone({
      name: 'test',
      ownerAccountId: null,
      soa: {
        mname: 'ns.test',
        rname: 'hostmaster.test',
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 604800,
        minimum: 60,
      },
      ttl: 3600,
      nameservers: ['ns.test'],
    });
    parent.setRRset('test', 'example', 'NS', 3600, ['ns1.example.net.']);
    parentServer = new DnsServer({ host: '127.0.0.1', port: 0, index: parent });
    const { port } = await parentServer.start();
    dnsPort = await freePort();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: DDNS, VERIFY_RESOLVER: `127.0.0.1:${port}` },
    });
    owner = await registerAndLogin(app.http);
    other = await registerAndLogin(app.http);
    expect((await app.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, owner.token)).status).toBe(201);
  });
  afterAll(async () => {
    await unbound?.stop();
    await app.close();
    await parentServer.stop();
  });

  it('is off by default for an imported zone', async () => {
    const res = await app.http.get(`/zones/${ZONE}/dnssec`, owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      zone: ZONE,
      enabled: false,
      state: 'unsigned',
      algorithm: 13,
      keys: [],
      ds: [],
      dnskey: [],
      cds_published: false,
      next_rollover_at: null,
    });
    expect(await digDnssec(dnsPort, `www.${ZONE}`, 'A')).not.toMatch(/RRSIG/);
  });

  it('refuses bad input with the contract shape and changes nothing; other accounts get 404', async () => {
    for (const body of [
      { enabled: true, algorithm: 8 },
      { enabled: 'yes' },
      {},
      { enabled: true, extra: 1 },
      { enabled: true, algorithm: '13' },
    ]) {
      const res = await app.http.put(`/zones/${ZONE}/dnssec`, body, owner.token);
      expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    }
    expect((await app.http.get(`/zones/${ZONE}/dnssec`, owner.token)).body.state).toBe('unsigned');
    expect((await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, other.token)).status).toBe(404);
    expect((await app.http.get(`/zones/${ZONE}/dnssec`, other.token)).status).toBe(404);
    expect((await app.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, other.token)).status).toBe(404);
    const rollover = await app.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, owner.token);
    expect([rollover.status, rollover.body.error.code]).toEqual([409, 'dnssec_not_enabled']);
  });

  it('refuses DS at the apex, DS without a delegation and malformed DS records (400, nothing changed)', async () => {
    const put = (records: object[]) => app.http.put(`/zones/${ZONE}/records`, { records }, owner.token);
    const digest = 'A'.repeat(64);
    for (const records of [
      [{ subname: '', type: 'DS', ttl: 3600, records: [`1 13 2 ${digest}`] }],
      [{ subname: 'child', type: 'DS', ttl: 3600, records: [`1 13 2 ${digest}`] }],
      [
        { subname: 'child', type: 'NS', ttl: 3600, records: ['ns.child.example.org.'] },
        { subname: 'child', type: 'DS', ttl: 3600, records: ['1 13 2 ABC'] },
      ],
      [
        { subname: 'child', type: 'NS', ttl: 3600, records: ['ns.child.example.org.'] },
        { subname: 'child', type: 'DS', ttl: 3600, records: [`70000 13 2 ${digest}`] },
      ],
    ]) {
      const res = await put(records);
      expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    }
    expect(
      (await app.http.get(`/zones/${ZONE}/records`, owner.token)).body.records.some(
        (r: { subname: string }) => r.subname === 'child',
      ),
    ).toBe(false);
  });

  it('signs on PUT: keys, DS for the registrar, DNSKEY, and answers that unbound and delv validate', async () => {
    const res = await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      zone: ZONE,
      enabled: true,
      state: 'signed',
      algorithm: 13,
      cds_published: false,
      next_rollover_at: null,
    });
    expect(res.body.keys).toEqual([
      {
        key_tag: expect.any(Number),
        algorithm: 13,
        flags: 257,
        role: 'csk',
        state: 'active',
        created_at: expect.any(String),
      },
    ]);
    expect(res.body.ds).toEqual([
      expect.stringMatching(new RegExp(`^example\\.test\\. 3600 IN DS ${res.body.keys[0].key_tag} 13 2 [0-9A-F]{64}$`)),
    ]);
    expect(res.body.dnskey).toEqual([expect.stringMatching(/^example\.test\. 3600 IN DNSKEY 257 3 13 \S+$/)]);
    // Idempotent.
    expect((await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token)).body.keys).toEqual(
      res.body.keys,
    );

    await within(1000, async () => /RRSIG\s+A /.test(await digDnssec(dnsPort, `www.${ZONE}`, 'A')));
    const ds: string[] = res.body.ds;
    for (const [name, type] of [
      [`www.${ZONE}`, 'A'],
      [ZONE, 'DNSKEY'],
      [`nope.${ZONE}`, 'A'],
      [`www.${ZONE}`, 'TXT'],
      [`x.wild.${ZONE}`, 'A'],
    ]) {
      const result = await delv(dnsPort, ZONE, ds, name, type);
      expect([name, type, result.validated ? 'validated' : result.output]).toEqual([name, type, 'validated']);
    }
    unbound = await startUnbound(dnsPort, ZONE, ds);
    const www = await unbound.query(`www.${ZONE}`, 'A');
    expect([www.status, www.flags.includes('ad') ? 'ad' : www.output]).toEqual(['NOERROR', 'ad']);
  });

  it('answers a record change signed, validated by unbound, within a second', async () => {
    const changed = await app.http.put(
      `/zones/${ZONE}/records`,
      { records: [{ subname: 'fresh', type: 'A', ttl: 60, records: ['192.0.2.200'] }] },
      owner.token,
    );
    expect(changed.status).toBe(200);
    await within(1000, async () => {
      const answer = await unbound!.query(`fresh.${ZONE}`, 'A');
      return answer.flags.includes('ad') && answer.answers.some((a) => a.includes('192.0.2.200'));
    });
  });

  it('keeps private keys out of events (sealed), responses and logs', async () => {
    const store = app.running.app.get<EventStore>(EVENT_STORE);
    const events = await store.readStream(`dnssec-${ZONE}`);
    const generated = events.find((e) => e.type === 'DnssecKeyGenerated')!;
    const sealed = (generated.data as { private_key_sealed: string }).private_key_sealed;
    expect(sealed).toMatch(/^v1\./);
    expect(JSON.stringify(events.map((e) => [e.data, e.metadata]))).not.toMatch(/PRIVATE KEY|"d":/);
    const view = await app.http.get(`/zones/${ZONE}/dnssec`, owner.token);
    expect(view.text).not.toContain(sealed);
    expect(view.text).not.toMatch(/private/i);
    // The audit log lists the change, with the sealed key redacted.
    const audit = await app.http.get('/account/audit?limit=100', owner.token);
    expect(audit.text).not.toContain(sealed);
    const keyEvent = audit.body.data.find((e: { type: string }) => e.type === 'DnssecKeyGenerated');
    expect(keyEvent.data.private_key_sealed).toBe('[redacted]');
    expect(audit.body.data.some((e: { type: string }) => e.type === 'DnssecEnabled')).toBe(true);
  });

  it('describes the DNSSEC endpoints in /openapi.json', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    expect(Object.keys(doc.paths[`/zones/{zone}/dnssec`]).sort()).toEqual(['get', 'put']);
    expect(Object.keys(doc.paths[`/zones/{zone}/dnssec/rollover`])).toEqual(['post']);
    expect(Object.keys(doc.paths[`/admin/zones/{zone}/dnssec`]).sort()).toEqual(['get', 'put']);
  });

  it('starts a rollover: a second key is published, the state is rolling (202)', async () => {
    const res = await app.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, owner.token);
    expect(res.status).toBe(202);
    expect(res.body.state).toBe('rolling');
    expect(res.body.keys.map((k: { state: string }) => k.state)).toEqual(['active', 'published']);
    expect(res.body.dnskey).toHaveLength(2);
    const again = await app.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, owner.token);
    expect([again.status, again.body.error.code]).toEqual([409, 'dnssec_rollover_in_progress']);
    await within(
      1000,
      async () => ((await digDnssec(dnsPort, ZONE, 'DNSKEY')).match(/\sDNSKEY\s+257 3 13/g) ?? []).length === 2,
    );
    const www = await unbound!.query(`mail.${ZONE}`, 'A');
    expect([www.status, www.flags.includes('ad') ? 'ad' : www.output]).toEqual(['NOERROR', 'ad']);
  });

  it('turns off through the safe order: CDS/CDNSKEY delete while the parent has a DS, unsigned once it is gone', async () => {
    const ds: string = (await app.http.get(`/zones/${ZONE}/dnssec`, owner.token)).body.ds[0];
    parent.setRRset('test', 'example', 'DS', 3600, [ds.split(/\s+/).slice(4).join(' ')]);
    const off = await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: false }, owner.token);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, state: 'unsigning', cds_published: true, ds: [] });
    await within(1000, async () => /CDS\s+0 0 0 00/.test(await digDnssec(dnsPort, ZONE, 'CDS')));
    expect(await digDnssec(dnsPort, ZONE, 'CDNSKEY')).toMatch(/CDNSKEY\s+0 3 0 AA==/);
    expect(await digDnssec(dnsPort, `www.${ZONE}`, 'A')).toMatch(/RRSIG/); // still signed

    parent.removeRRset('test', 'example', 'DS');
    const done = await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: false }, owner.token);
    expect(done.body).toMatchObject({ enabled: false, state: 'unsigned', cds_published: false, dnskey: [] });
    expect(done.body.keys.every((k: { state: string }) => k.state === 'removed')).toBe(true);
    await within(
      1000,
      async () =>
        !/\sRRSIG\s|\sCDS\s+0/.test(
          (await digDnssec(dnsPort, `www.${ZONE}`, 'A')) + (await digDnssec(dnsPort, ZONE, 'CDS')),
        ),
    );
  });

  it('starts a zone deleted and imported again unsigned, with no trace of its old keys', async () => {
    expect((await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token)).body.state).toBe('signed');
    await within(1000, async () => /RRSIG\s+A /.test(await digDnssec(dnsPort, `www.${ZONE}`, 'A')));
    expect((await app.http.delete(`/zones/${ZONE}`, owner.token)).status).toBe(204);
    expect((await app.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, other.token)).status).toBe(201);
    const fresh = await app.http.get(`/zones/${ZONE}/dnssec`, other.token);
    expect(fresh.body).toMatchObject({ state: 'unsigned', keys: [], ds: [], dnskey: [] });
    await within(1000, async () => /192\.0\.2\.80/.test(await digDnssec(dnsPort, `www.${ZONE}`, 'A')));
    expect(await digDnssec(dnsPort, `www.${ZONE}`, 'A')).not.toMatch(/RRSIG/);
  });

  it('lets the operator sign a dynamic-DNS zone; a ddclient update is served signed, validated by unbound within a second', async () => {
    expect((await app.http.get(`/admin/zones/${DDNS}/dnssec`)).status).toBe(401);
    expect((await app.http.admin('GET', `/admin/zones/example.org/dnssec`)).status).toBe(404);
    const on = await app.http.admin('PUT', `/admin/zones/${DDNS}/dnssec`, { enabled: true, algorithm: 15 });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ zone: DDNS, state: 'signed', algorithm: 15 });
    expect((await app.http.admin('GET', `/admin/zones/${DDNS}/dnssec`)).body.ds).toEqual(on.body.ds);
    const pro = await registerAndLogin(app.http, { plan: 'pro' });
    const key = (await app.http.post('/api-keys', { name: 'ddclient' }, pro.token)).body.key;
    const host = await app.http.post(
      '/api/domains',
      { fqdn: `home.${DDNS}`, record_type: 'A', record_ip: '198.51.100.7' },
      pro.token,
    );
    expect(host.status).toBe(201);
    await within(1000, async () => /RRSIG\s+DNSKEY 15/.test(await digDnssec(dnsPort, DDNS, 'DNSKEY')));
    const validator = await startUnbound(dnsPort, DDNS, on.body.ds);
    const work = mkdtempSync(join(tmpdir(), 'dnssec-ddclient-'));
    try {
      await within(1000, async () => (await validator.query(`home.${DDNS}`, 'A')).flags.includes('ad'));
      const conf = join(work, 'ddclient.conf');
      writeFileSync(
        conf,
        [
          'use=no',
          'usev4=ipv4, ipv4=198.51.100.8',
          'daemon=0',
          'ssl=no',
          'protocol=dyndns2',
          `server=${app.url.replace('http://', '')}`,
          'script=/domains/nic/update',
          `login=${pro.username}`,
          `password=${key}`,
          `home.${DDNS}`,
          '',
        ].join('\n'),
      );
      chmodSync(conf, 0o600);
      const { stdout, stderr } = await run(
        'ddclient',
        ['-daemon=0', '-verbose', '-noquiet', '-force', '-file', conf, '-cache', join(work, 'cache')],
        { timeout: 30_000 },
      );
      expect(stdout + stderr).toMatch(/SUCCESS:\s+updating home\.dyn\.example\.net/);
      await within(1000, async () => {
        const answer = await validator.query(`home.${DDNS}`, 'A');
        return answer.flags.includes('ad') && answer.answers.some((a) => a.includes('198.51.100.8'));
      });
    } finally {
      await validator.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('DNSSEC_DDNS_ZONES=true', () => {
  let app: TestApp;
  let dnsPort: number;
  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: `${DDNS},dyn2.example.net`, DNSSEC_DDNS_ZONES: 'true' },
    });
  });
  afterAll(() => app.close());

  it('signs every dynamic-DNS zone at start', async () => {
    for (const zone of [DDNS, 'dyn2.example.net']) {
      const res = await app.http.admin('GET', `/admin/zones/${zone}/dnssec`);
      expect(res.body).toMatchObject({ zone, enabled: true, state: 'signed', algorithm: 13 });
      await within(1000, async () => /RRSIG\s+DNSKEY 13/.test(await digDnssec(dnsPort, zone, 'DNSKEY')));
    }
  });
});
