import { randomUUID } from 'node:crypto';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { EVENT_STORE, EventStore } from '../libs/eventstore/event-store.port';
import { RRset, zoneNameStream, zoneStream } from '../libs/zones/domain/zone.events';
import { dig } from './support/dig';
import { startWorld } from './support/email-auth';
import { freePort, runCli } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/**
 * Zone ownership end to end (contract §4, issue 24): every attack of the issue over real
 * HTTP and real DNS (dig against the service's DNS port).
 */
type Account = { id: number; token: string };

const ALICE_ZONE = `$ORIGIN alice-zone.test.
$TTL 300
@        IN MX 10 mx.mail
www      IN A  192.0.2.80
mx.mail  IN A  192.0.2.25
`;

/** What dig answered: the status and the data (its header flags are not what these tests are about). */
const answerOf = (port: number, name: string, type: string, options?: Parameters<typeof dig>[3]) => {
  const { status, answers } = dig(port, name, type, options);
  return { status, answers };
};

/** Polls dig until the answer (status and data) is the expected one; DNS follows the events within a second. */
async function digUntil(
  port: number,
  name: string,
  type: string,
  expected: { status: string; answers?: string[] },
  timeoutMs = 2000,
) {
  const started = Date.now();
  for (;;) {
    const seen = answerOf(port, name, type);
    if (
      seen.status === expected.status &&
      (!expected.answers || JSON.stringify(seen.answers) === JSON.stringify(expected.answers))
    )
      return seen;
    if (Date.now() - started > timeoutMs) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const importZone = (app: TestApp, who: Account, name: string, zoneFile?: string) =>
  app.http.post('/zones', { name, zone_file: zoneFile }, who.token);

describe('zone ownership: imports (contract §4)', () => {
  let app: TestApp;
  let dnsPort: number;
  let world: { world: ZoneIndex; server: DnsServer; port: number };
  let alice: Account;
  let bob: Account;
  let carol: Account;

  beforeAll(async () => {
    dnsPort = await freePort();
    world = await startWorld();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', VERIFY_RESOLVER: `127.0.0.1:${world.port}` },
    });
    [alice, bob, carol] = [
      await registerAndLogin(app.http, { plan: 'pro' }),
      await registerAndLogin(app.http, { plan: 'pro' }),
      await registerAndLogin(app.http, { plan: 'pro' }),
    ];
    expect((await importZone(app, alice, 'alice-zone.test', ALICE_ZONE)).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
    await world.server.stop();
  });

  it('refuses a zone under another account’s zone (409 zone_conflict naming it): her names keep answering, her changes stay visible', async () => {
    const res = await importZone(app, bob, 'mail.alice-zone.test', 'mx IN A 203.0.113.66\n');
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      code: 'zone_conflict',
      message: 'mail.alice-zone.test is under alice-zone.test, a zone of another account',
    });
    expect(answerOf(dnsPort, 'mx.mail.alice-zone.test', 'A')).toEqual({ status: 'NOERROR', answers: ['192.0.2.25'] });
    const put = await app.http.put(
      '/zones/alice-zone.test/records',
      { records: [{ subname: 'mx.mail', type: 'A', ttl: 300, records: ['192.0.2.26'] }] },
      alice.token,
    );
    expect(put.status).toBe(200);
    expect(
      await digUntil(dnsPort, 'mx.mail.alice-zone.test', 'A', { status: 'NOERROR', answers: ['192.0.2.26'] }),
    ).toEqual({ status: 'NOERROR', answers: ['192.0.2.26'] });
    // Equal to her zone is a conflict too; bob's zone list stays empty.
    const equal = await importZone(app, bob, 'alice-zone.test');
    expect([equal.status, equal.body.error.code, equal.body.error.message]).toEqual([
      409,
      'zone_conflict',
      'alice-zone.test is a zone of another account',
    ]);
    expect((await app.http.get('/zones', bob.token)).body.zones).toEqual([]);
  });

  it('refuses a zone above another account’s zone', async () => {
    expect((await importZone(app, carol, 'x.alice2.test', 'www IN A 192.0.2.7\n')).status).toBe(201);
    const res = await importZone(app, bob, 'alice2.test', 'x IN A 203.0.113.1\n');
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
      409,
      'zone_conflict',
      'alice2.test is above x.alice2.test, a zone of another account',
    ]);
    expect(answerOf(dnsPort, 'www.x.alice2.test', 'A')).toEqual({ status: 'NOERROR', answers: ['192.0.2.7'] });
    expect(answerOf(dnsPort, 'alice2.test', 'SOA').status).toBe('REFUSED');
  });

  it('refuses zones at, under or above a dynamic-DNS zone or a name-server host of the service', async () => {
    const cases: Array<[string, string]> = [
      ['example.net', "example.net is above the service's dynamic-DNS zone dyn.example.net"],
      ['dyn.example.net', "dyn.example.net is the service's dynamic-DNS zone dyn.example.net"],
      ['x.dyn.example.net', "x.dyn.example.net is under the service's dynamic-DNS zone dyn.example.net"],
      ['ns1.example.net', "ns1.example.net is the service's name server ns1.example.net"],
      ['a.ns2.example.net', "a.ns2.example.net is under the service's name server ns2.example.net"],
    ];
    for (const [name, message] of cases) {
      const res = await importZone(app, bob, name, '@ IN A 203.0.113.53\n');
      expect([name, res.status, res.body.error]).toEqual([name, 409, { code: 'zone_conflict', message }]);
    }
    expect(answerOf(dnsPort, 'ns1.example.net', 'A').status).toBe('REFUSED');
    expect(answerOf(dnsPort, 'dyn.example.net', 'SOA').status).toBe('NOERROR');
  });

  it('keeps delegation inside one account: the child zone serves its names', async () => {
    expect((await importZone(app, alice, 'sub.alice-zone.test', 'www IN A 192.0.2.99\n')).status).toBe(201);
    expect(
      await digUntil(dnsPort, 'www.sub.alice-zone.test', 'A', { status: 'NOERROR', answers: ['192.0.2.99'] }),
    ).toEqual({ status: 'NOERROR', answers: ['192.0.2.99'] });
    expect(answerOf(dnsPort, 'sub.alice-zone.test', 'NS').answers).toEqual(['ns1.example.net.', 'ns2.example.net.']);
    expect(answerOf(dnsPort, 'www.alice-zone.test', 'A').answers).toEqual(['192.0.2.80']);
  });

  it('never lets two accounts both win a parent and a child imported at the same moment', async () => {
    const pairs = Array.from({ length: 8 }, (_, i) => `race${i}.test`);
    const results = await Promise.all(
      pairs.flatMap((parent) => [importZone(app, bob, parent), importZone(app, carol, `c.${parent}`)]),
    );
    for (let i = 0; i < pairs.length; i++) {
      const [parent, child] = [results[2 * i], results[2 * i + 1]];
      expect([pairs[i], parent.status, child.status]).not.toEqual([pairs[i], 201, 201]);
      for (const r of [parent, child]) expect([201, 409]).toContain(r.status);
    }
    // What the accounts hold agrees with the refusals: no zone of bob's has carol's below it.
    const bobs = (await app.http.get('/zones', bob.token)).body.zones.map((z: { name: string }) => z.name);
    const carols = (await app.http.get('/zones', carol.token)).body.zones.map((z: { name: string }) => z.name);
    for (const c of carols) expect(bobs.filter((b: string) => c.endsWith(`.${b}`))).toEqual([]);
  });

  it('lets an operator allow an overlap (HTTP and CLI); the more specific zone then serves its names', async () => {
    const path = '/admin/zones/mail.alice-zone.test/allow-overlap';
    expect((await app.http.post(path, { account_id: bob.id })).status).toBe(401); // no admin token
    expect((await app.http.admin('POST', path, { account_id: 999999 })).status).toBe(404);
    expect((await app.http.admin('POST', path, { account_id: 'x' })).body.error.code).toBe('validation_failed');
    // The service's own dynamic-DNS zone is never an account's, allowance or not.
    const ddns = await app.http.admin('POST', '/admin/zones/dyn.example.net/allow-overlap', { account_id: bob.id });
    expect([ddns.status, ddns.body.error.code]).toEqual([400, 'validation_failed']);
    const allowed = await app.http.admin('POST', path, { account_id: bob.id });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ zone: 'mail.alice-zone.test', account_id: bob.id });
    const audit = await app.http.get('/account/audit', bob.token);
    expect(audit.body.data[0]).toMatchObject({
      type: 'ZoneOverlapAllowed',
      actor: 'operator',
      data: { zone: 'mail.alice-zone.test', account_id: bob.id },
    });
    expect((await importZone(app, bob, 'mail.alice-zone.test', 'mx IN A 203.0.113.66\n')).status).toBe(201);
    expect(
      await digUntil(dnsPort, 'mx.mail.alice-zone.test', 'A', { status: 'NOERROR', answers: ['203.0.113.66'] }),
    ).toEqual({ status: 'NOERROR', answers: ['203.0.113.66'] });

    const cli = await runCli(app.url, ['zones:allow-overlap', 'other.alice-zone.test', String(bob.id)]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ zone: 'other.alice-zone.test', account_id: bob.id });
    expect((await importZone(app, bob, 'other.alice-zone.test')).status).toBe(201);
    // Allowed overlaps are not conflicts in the report.
    expect((await app.http.admin('GET', '/admin/zones/conflicts')).body).toEqual({ conflicts: [] });
  });
});

describe('zone ownership: verification with the service as its own resolver', () => {
  let app: TestApp;
  let dnsPort: number;
  let alice: Account;
  let mallory: Account;

  beforeAll(async () => {
    dnsPort = await freePort();
    // The worst case of the issue: the resolver is this very service.
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', VERIFY_RESOLVER: `127.0.0.1:${dnsPort}` },
    });
    alice = await registerAndLogin(app.http, { plan: 'pro' });
    mallory = await registerAndLogin(app.http, { plan: 'pro' });
  });
  afterAll(() => app.close());

  type Planting = (token: string) => Array<{ subname: string; type: string; ttl: number; records: string[] }>;
  const atTheName: Planting = (token) => [
    { subname: '_account-dns-verify', type: 'TXT', ttl: 60, records: [`"${token}"`] },
  ];

  const plantToken = async (zone: string, plant: Planting = atTheName) => {
    const created = await importZone(app, mallory, zone);
    expect(created.status).toBe(201);
    const token = created.body.verification.record_value;
    const put = await app.http.put(`/zones/${zone}/records`, { records: plant(token) }, mallory.token);
    expect(put.status).toBe(200);
    // The service does answer the planted token, so a resolver that is (or asks) it sees it.
    const started = Date.now();
    while (
      !dig(dnsPort, `_account-dns-verify.${zone}`, 'TXT').answers.includes(`"${token}"`) &&
      Date.now() - started < 2000
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(answerOf(dnsPort, `_account-dns-verify.${zone}`, 'TXT').answers).toContain(`"${token}"`);
  };

  it('does not accept a TXT token the claimant planted in its own records here', async () => {
    await plantToken('victim.test');
    const res = await app.http.post('/zones/victim.test/verify', undefined, mallory.token);
    expect([res.status, res.body.error.code]).toEqual([400, 'not_verified']);
    expect(res.body.error.message).toMatch(
      /_account-dns-verify\.victim\.test is in this zone's own records here.*remove it here and publish it at the zone's current DNS provider/,
    );
    // Nothing verification unlocks: no DDNS host under it.
    const host = await app.http.post(
      '/api/domains',
      { fqdn: 'www.victim.test', record_type: 'A', record_ip: '203.0.113.5' },
      mallory.token,
    );
    expect(host.body.error.code).toBe('invalid_fqdn');
  });

  it('does not accept the token served here through a wildcard or a CNAME of the claimant’s own', async () => {
    const plantings: Array<[string, Planting]> = [
      ['victim3.test', (token) => [{ subname: '*', type: 'TXT', ttl: 60, records: [`"${token}"`] }]],
      [
        'victim4.test',
        (token) => [
          { subname: '_account-dns-verify', type: 'CNAME', ttl: 60, records: ['holder.victim4.test.'] },
          { subname: 'holder', type: 'TXT', ttl: 60, records: [`"${token}"`] },
        ],
      ],
    ];
    for (const [zone, plant] of plantings) {
      await plantToken(zone, plant);
      const res = await app.http.post(`/zones/${zone}/verify`, undefined, mallory.token);
      expect([zone, res.status, res.body.error.code]).toEqual([zone, 400, 'not_verified']);
      expect(res.body.error.message).toMatch(/is in this zone's own records here/);
    }
  });

  it('does not accept the zone’s own apex NS (the service’s name servers) as a delegation', async () => {
    expect((await importZone(app, mallory, 'victim2.test')).status).toBe(201);
    expect(
      await digUntil(dnsPort, 'victim2.test', 'NS', {
        status: 'NOERROR',
        answers: ['ns1.example.net.', 'ns2.example.net.'],
      }),
    ).toMatchObject({
      answers: ['ns1.example.net.', 'ns2.example.net.'],
    });
    const res = await app.http.post('/zones/victim2.test/verify', undefined, mallory.token);
    expect([res.status, res.body.error.code]).toEqual([400, 'not_verified']);
    expect(res.body.error.message).toMatch(
      /^The zone is not verified: the parent zone of victim2\.test could not be found/,
    );
  });

  it('does not verify an allowed overlap under a zone hosted here, by TXT or by NS', async () => {
    expect((await importZone(app, alice, 'alice-zone.test', ALICE_ZONE)).status).toBe(201);
    expect(
      (await app.http.admin('POST', '/admin/zones/mail.alice-zone.test/allow-overlap', { account_id: mallory.id }))
        .status,
    ).toBe(200);
    await plantToken('mail.alice-zone.test');
    const res = await app.http.post('/zones/mail.alice-zone.test/verify', undefined, mallory.token);
    expect([res.status, res.body.error.code]).toEqual([400, 'not_verified']);
    expect(res.body.error.message).toMatch(/alice-zone\.test/);
    expect((await app.http.get('/zones/mail.alice-zone.test', mallory.token)).body.status).toBe('pending_verification');
  });
});

describe('zone ownership: existing data that breaks the rules', () => {
  let app: TestApp;
  let dnsPort: number;
  let alice: Account;
  let bob: Account;
  const zoneIds = new Map<string, string>();

  /** A zone as the service stored it before the rules (the event it appended then), with its name reservation. */
  const legacyZone = async (store: EventStore, name: string, accountId: number, rrsets: RRset[]) => {
    const id = randomUUID();
    zoneIds.set(name, id);
    await store.appendToStream(
      zoneNameStream(name),
      [{ type: 'ZoneNameReserved', data: { zone_id: id, account_id: accountId } }],
      'no_stream',
    );
    const data = {
      zone_id: id,
      account_id: accountId,
      name,
      verification_token: 'legacy',
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      rrsets,
      created_at: new Date().toISOString(),
    };
    await store.appendToStream(zoneStream(id), [{ type: 'ZoneImported', data }], 'no_stream');
  };
  const a = (subname: string, ip: string): RRset => ({ subname, type: 'A', ttl: 300, records: [ip] });

  beforeAll(async () => {
    dnsPort = await freePort();
    const env = { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net' };
    const first = await startTestApp({ env });
    alice = await registerAndLogin(first.http, { plan: 'pro' });
    bob = await registerAndLogin(first.http, { plan: 'pro' });
    expect((await importZone(first, alice, 'alice-zone.test', ALICE_ZONE)).status).toBe(201);
    const store = first.running.app.get<EventStore>(EVENT_STORE);
    await legacyZone(store, 'mail.alice-zone.test', bob.id, [a('mx', '203.0.113.66'), a('www', '203.0.113.67')]);
    // Verified back then (by the resolver that was this service): bob could create DDNS hosts under it.
    const verified = {
      zone_id: zoneIds.get('mail.alice-zone.test'),
      account_id: bob.id,
      name: 'mail.alice-zone.test',
      method: 'ns',
      at: new Date().toISOString(),
    };
    await store.appendToStream(
      zoneStream(zoneIds.get('mail.alice-zone.test')!),
      [{ type: 'ZoneVerified', data: verified }],
      0,
    );
    await legacyZone(store, 'dyn.example.net', bob.id, [a('www', '203.0.113.68')]);
    await legacyZone(store, 'ns1.example.net', bob.id, [a('', '203.0.113.69')]);
    await first.close(false);
    app = await startTestApp({ env, dataDir: first.dataDir });
  });
  afterAll(() => app.close());

  it('serves each name from the zone allowed to serve it, not from the later conflicting zone', () => {
    expect(answerOf(dnsPort, 'mx.mail.alice-zone.test', 'A')).toEqual({ status: 'NOERROR', answers: ['192.0.2.25'] });
    expect(answerOf(dnsPort, 'www.mail.alice-zone.test', 'A').status).toBe('NXDOMAIN');
    expect(answerOf(dnsPort, 'www.dyn.example.net', 'A').status).toBe('NXDOMAIN');
    expect(answerOf(dnsPort, 'dyn.example.net', 'SOA').answers[0]).toMatch(
      /^ns1\.example\.net\. hostmaster\.dyn\.example\.net\./,
    );
    expect(answerOf(dnsPort, 'ns1.example.net', 'A').status).toBe('REFUSED');
    expect(answerOf(dnsPort, 'ns1.example.net', 'A', { tcp: true }).status).toBe('REFUSED');
  });

  it('does not serve a host of the held zone inside the zone it would shadow', async () => {
    const host = await app.http.post(
      '/api/domains',
      { fqdn: 'h.mail.alice-zone.test', record_type: 'A', record_ip: '203.0.113.70' },
      bob.token,
    );
    expect(host.status).toBe(201);
    // The DNS index applies events in order: once alice's later change is served, bob's host was placed (or not).
    await app.http.put(
      '/zones/alice-zone.test/records',
      { records: [{ subname: 'probe', type: 'A', ttl: 300, records: ['192.0.2.1'] }] },
      alice.token,
    );
    expect(
      await digUntil(dnsPort, 'probe.alice-zone.test', 'A', { status: 'NOERROR', answers: ['192.0.2.1'] }),
    ).toMatchObject({ answers: ['192.0.2.1'] });
    expect(answerOf(dnsPort, 'h.mail.alice-zone.test', 'A').status).toBe('NXDOMAIN');
  });

  it('reports every conflicting pair at start-up (/metrics, the CLI), deleting nothing', async () => {
    const started = Date.now();
    let metrics = '';
    while (!/^zone_ownership_conflicts 3$/m.test(metrics) && Date.now() - started < 10_000) {
      metrics = (await app.http.get('/metrics')).text;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(metrics).toMatch(/^zone_ownership_conflicts 3$/m);
    const cli = await runCli(app.url, ['zones:conflicts']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).conflicts).toEqual([
      {
        zone: 'dyn.example.net',
        account_id: bob.id,
        relation: 'equal',
        with: { kind: 'ddns_zone', name: 'dyn.example.net', account_id: null },
      },
      {
        zone: 'mail.alice-zone.test',
        account_id: bob.id,
        relation: 'under',
        with: { kind: 'zone', name: 'alice-zone.test', account_id: alice.id },
      },
      {
        zone: 'ns1.example.net',
        account_id: bob.id,
        relation: 'equal',
        with: { kind: 'nameserver', name: 'ns1.example.net', account_id: null },
      },
    ]);
    const bobs = (await app.http.get('/zones', bob.token)).body.zones.map((z: { name: string }) => z.name);
    expect(bobs).toEqual(['dyn.example.net', 'mail.alice-zone.test', 'ns1.example.net']);
  });

  it('serves a held zone once an operator allows its overlap', async () => {
    expect(
      (await app.http.admin('POST', '/admin/zones/ns1.example.net/allow-overlap', { account_id: bob.id })).status,
    ).toBe(200);
    expect(await digUntil(dnsPort, 'ns1.example.net', 'A', { status: 'NOERROR', answers: ['203.0.113.69'] })).toEqual({
      status: 'NOERROR',
      answers: ['203.0.113.69'],
    });
    const listed = (await app.http.admin('GET', '/admin/zones/conflicts')).body.conflicts.map(
      (c: { zone: string }) => c.zone,
    );
    expect(listed).toEqual(['dyn.example.net', 'mail.alice-zone.test']);
    expect((await app.http.get('/metrics')).text).toMatch(/^zone_ownership_conflicts 2$/m);
  });

  it('serves the later zone once the earlier one is gone', async () => {
    expect((await app.http.delete('/zones/alice-zone.test', alice.token)).status).toBe(204);
    expect(
      await digUntil(dnsPort, 'mx.mail.alice-zone.test', 'A', { status: 'NOERROR', answers: ['203.0.113.66'] }),
    ).toEqual({ status: 'NOERROR', answers: ['203.0.113.66'] });
    expect(answerOf(dnsPort, 'h.mail.alice-zone.test', 'A')).toEqual({ status: 'NOERROR', answers: ['203.0.113.70'] });
    expect(answerOf(dnsPort, 'www.dyn.example.net', 'A').status).toBe('NXDOMAIN');
  });
});
