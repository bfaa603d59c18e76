import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { dig, DigAnswer } from './support/dig';
import { answerChecker } from './support/openapi-answers';
import { waitForDns } from './support/dns-client';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { putWorldZone } from '../bench/support/world-dns';

const ZONE = 'history.test';
const ZONE_FILE = `$ORIGIN history.test.
$TTL 300
@       IN MX  10 mail
www     IN A   192.0.2.1
mail    IN A   192.0.2.25
alias   IN CNAME www
`;
/** The questions asked of dig at every instant, and then of resolve for that instant. */
const QUESTIONS: Array<[string, string]> = [
  ['www.history.test', 'A'],
  ['alias.history.test', 'A'],
  ['mail.history.test', 'A'],
  ['new.history.test', 'A'],
  ['www.history.test', 'TXT'],
  ['history.test', 'MX'],
];

interface Instant {
  at: string;
  records: unknown;
  answers: DigAnswer[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Flattened answer data, as dig prints it. */
const answerTexts = (body: { answer: Array<{ records: string[] }> }) => body.answer.flatMap((r) => r.records);

/**
 * History and time travel end to end (contract §19): the zone is changed several times and
 * what `dig` answered is recorded at each instant; then `as_of` and `resolve` are asked
 * about each instant and must agree, and restores must bring back exactly the old answers.
 */
describe('history and time travel (contract §19)', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: { token: string; username: string };
  let other: { token: string };
  const instants: Instant[] = [];
  /** "The world" the zone verification asks (VERIFY_RESOLVER): hosts need a verified zone. */
  const world = new ZoneIndex();
  const worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });

  async function record(): Promise<Instant> {
    // The instant after every change so far (as_of is inclusive), before any later one.
    await sleep(5);
    const at = new Date().toISOString();
    await sleep(5);
    const records = (await app.http.get(`/zones/${ZONE}`, owner.token)).body.records;
    const instant = { at, records, answers: QUESTIONS.map(([name, type]) => dig(dnsPort, name, type)) };
    instants.push(instant);
    return instant;
  }

  async function put(records: unknown[]) {
    const res = await app.http.put(`/zones/${ZONE}/records`, { records }, owner.token);
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    dnsPort = await freePort();
    const { port: worldPort } = await worldServer.start();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.history.net', VERIFY_RESOLVER: `127.0.0.1:${worldPort}` },
    });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    other = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, owner.token)).status).toBe(201);
    await waitForDns(dnsPort, 'www.history.test', 'A', ['192.0.2.1']);
    await record();
    // 1: an address changes and a name appears.
    await put([
      { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.2'] },
      { subname: 'new', type: 'A', ttl: 60, records: ['192.0.2.77'] },
    ]);
    await waitForDns(dnsPort, 'new.history.test', 'A', ['192.0.2.77']);
    await record();
    // 2: a name goes, a TXT appears beside the A, the alias moves.
    await put([
      { subname: 'mail', type: 'A', ttl: 300, records: [] },
      { subname: 'www', type: 'TXT', ttl: 120, records: ['"hello world"'] },
      { subname: 'alias', type: 'CNAME', ttl: 300, records: ['new.history.test.'] },
    ]);
    await waitForDns(dnsPort, 'mail.history.test', 'A', []);
    await waitForDns(dnsPort, 'alias.history.test', 'A', ['192.0.2.77']);
    await record();
    // 3: a bulk edit that removes most of the zone (the mistake to undo).
    await put([
      { subname: 'www', type: 'A', ttl: 300, records: [] },
      { subname: 'www', type: 'TXT', ttl: 120, records: [] },
      { subname: 'new', type: 'A', ttl: 60, records: [] },
      { subname: '', type: 'MX', ttl: 300, records: [] },
    ]);
    await waitForDns(dnsPort, 'www.history.test', 'A', []);
    await record();
  });
  afterAll(async () => {
    await app?.close();
    await worldServer.stop();
  });

  it('answers as_of each instant with the records the zone had then', async () => {
    for (const instant of instants) {
      const res = await app.http.get(`/zones/${ZONE}?as_of=${encodeURIComponent(instant.at)}`, owner.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: ZONE, status: 'pending_verification' });
      expect(res.body.records).toEqual(instant.records);
    }
    // An offset instead of Z names the same instant.
    const first = new Date(instants[1].at);
    const withOffset = new Date(first.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(
      (await app.http.get(`/zones/${ZONE}?as_of=${encodeURIComponent(withOffset)}`, owner.token)).body.records,
    ).toEqual(instants[1].records);
  });

  it('resolves each question at each instant as dig answered it then', async () => {
    for (const instant of instants) {
      for (const [i, [name, type]] of QUESTIONS.entries()) {
        const res = await app.http.get(
          `/zones/${ZONE}/resolve?name=${name}&type=${type}&as_of=${encodeURIComponent(instant.at)}`,
          owner.token,
        );
        expect(res.status).toBe(200);
        const seen = instant.answers[i];
        expect({ q: `${name} ${type} @ ${instant.at}`, rcode: res.body.rcode, answer: answerTexts(res.body) }).toEqual({
          q: `${name} ${type} @ ${instant.at}`,
          rcode: seen.status,
          answer: seen.answers,
        });
        if (seen.answers.length === 0)
          expect(res.body.authority.map((r: { name: string; type: string }) => `${r.name} ${r.type}`)).toEqual([
            `${ZONE} SOA`,
          ]);
      }
    }
    // A CNAME chain names each RRset by its owner.
    const chain = await app.http.get(
      `/zones/${ZONE}/resolve?name=alias.history.test&type=A&as_of=${encodeURIComponent(instants[0].at)}`,
      owner.token,
    );
    expect(chain.body.answer).toEqual([
      { name: 'alias.history.test', type: 'CNAME', ttl: 300, records: ['www.history.test.'] },
      { name: 'www.history.test', type: 'A', ttl: 300, records: ['192.0.2.1'] },
    ]);
    // Without as_of: now, as the server answers now.
    const now = await app.http.get(`/zones/${ZONE}/resolve?name=mail.history.test&type=A`, owner.token);
    expect(now.body.rcode).toBe(dig(dnsPort, 'mail.history.test', 'A').status);
  });

  it('lists the changes newest first with actor, source and diff, page by page', async () => {
    const seen: Array<{ id: string; type: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await app.http.get(
        `/zones/${ZONE}/history?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        owner.token,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen.map((c) => c.type)).toEqual(['records_changed', 'records_changed', 'records_changed', 'zone_imported']);
    expect(new Set(seen.map((c) => c.id)).size).toBe(4);
    const [latest] = (await app.http.get(`/zones/${ZONE}/history?limit=1`, owner.token)).body.data;
    expect(latest).toMatchObject({
      type: 'records_changed',
      actor: { type: 'user', name: owner.username },
      source_ip: '127.0.0.1',
      correlation_id: expect.any(String),
    });
    expect(latest.changes).toContainEqual({
      subname: 'www',
      type: 'A',
      before: ['192.0.2.2'],
      after: null,
      before_ttl: 300,
      after_ttl: null,
    });
    expect(Date.parse(latest.occurred_at)).toBeGreaterThan(Date.parse(instants[2].at));
    expect((await app.http.get(`/zones/${ZONE}/history?limit=0`, owner.token)).status).toBe(400);
    expect((await app.http.get(`/zones/${ZONE}/history?cursor=bogus`, owner.token)).status).toBe(400);
  });

  it('restores the records of an instant by one change (dig serves them), and the restore is itself undoable', async () => {
    const beforeRestore = instants[3];
    const res = await app.http.post(`/zones/${ZONE}/restore`, { as_of: instants[0].at }, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.records).toEqual(instants[0].records);
    await waitForDns(dnsPort, 'www.history.test', 'A', ['192.0.2.1']);
    for (const [i, [name, type]] of QUESTIONS.entries())
      expect([name, type, dig(dnsPort, name, type)]).toEqual([name, type, instants[0].answers[i]]);
    const [restore] = (await app.http.get(`/zones/${ZONE}/history?limit=1`, owner.token)).body.data;
    expect(restore).toMatchObject({ type: 'restored', restored_from: instants[0].at, actor: { type: 'user' } });

    // Nothing differs: nothing appended.
    expect(
      (await app.http.post(`/zones/${ZONE}/restore`, { as_of: new Date().toISOString() }, owner.token)).status,
    ).toBe(200);
    expect((await app.http.get(`/zones/${ZONE}/history?limit=1`, owner.token)).body.data[0].id).toBe(restore.id);

    // Undo the restore: back to the instant just before it.
    const undo = await app.http.post(`/zones/${ZONE}/restore`, { as_of: beforeRestore.at }, owner.token);
    expect(undo.body.records).toEqual(beforeRestore.records);
    await waitForDns(dnsPort, 'www.history.test', 'A', []);
    for (const [i, [name, type]] of QUESTIONS.entries())
      expect([name, type, dig(dnsPort, name, type)]).toEqual([name, type, beforeRestore.answers[i]]);
    expect(
      (await app.http.get(`/zones/${ZONE}/history`, owner.token)).body.data
        .map((c: { type: string }) => c.type)
        .slice(0, 2),
    ).toEqual(['restored', 'restored']);
  });

  it('refuses bad instants: before the zone existed 404, in the future or malformed 400; a name outside the zone 400', async () => {
    const before = await app.http.get(`/zones/${ZONE}?as_of=2020-01-01T00:00:00Z`, owner.token);
    expect([before.status, before.body.error.code]).toEqual([404, 'not_found']);
    const future = await app.http.get(
      `/zones/${ZONE}?as_of=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`,
      owner.token,
    );
    expect([future.status, future.body.error.code]).toEqual([400, 'validation_failed']);
    for (const bad of ['yesterday', '2026-01-01', '2026-13-01T00:00:00Z', '2026-01-01T00:00:00']) {
      expect([
        bad,
        (await app.http.get(`/zones/${ZONE}?as_of=${encodeURIComponent(bad)}`, owner.token)).status,
      ]).toEqual([bad, 400]);
    }
    expect((await app.http.post(`/zones/${ZONE}/restore`, { as_of: '2020-01-01T00:00:00Z' }, owner.token)).status).toBe(
      404,
    );
    expect((await app.http.post(`/zones/${ZONE}/restore`, {}, owner.token)).status).toBe(400);
    expect((await app.http.get(`/zones/${ZONE}/resolve?name=www.example.org&type=A`, owner.token)).status).toBe(400);
    expect((await app.http.get(`/zones/${ZONE}/resolve?name=www.history.test&type=BOGUS`, owner.token)).status).toBe(
      400,
    );
    expect((await app.http.get(`/zones/${ZONE}/resolve?type=A`, owner.token)).status).toBe(400);
  });

  it('hides other accounts’ zones: history, as_of, resolve and restore are 404', async () => {
    const at = encodeURIComponent(instants[0].at);
    expect((await app.http.get(`/zones/${ZONE}/history`, other.token)).status).toBe(404);
    expect((await app.http.get(`/zones/${ZONE}?as_of=${at}`, other.token)).status).toBe(404);
    expect(
      (await app.http.get(`/zones/${ZONE}/resolve?name=www.history.test&type=A&as_of=${at}`, other.token)).status,
    ).toBe(404);
    expect((await app.http.post(`/zones/${ZONE}/restore`, { as_of: instants[0].at }, other.token)).status).toBe(404);
  });

  it('answers as_of for a deleted zone while it lived, 404 after its deletion', async () => {
    expect(
      (await app.http.post('/zones', { name: 'gone.test', zone_file: 'www 300 IN A 192.0.2.9\n' }, owner.token)).status,
    ).toBe(201);
    await sleep(5);
    const alive = new Date().toISOString();
    await sleep(5);
    expect((await app.http.delete('/zones/gone.test', owner.token)).status).toBe(204);
    await sleep(5);
    const after = new Date().toISOString();
    const then = await app.http.get(`/zones/gone.test?as_of=${encodeURIComponent(alive)}`, owner.token);
    expect([then.status, then.body.records]).toEqual([
      200,
      [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.9'] }],
    ]);
    expect((await app.http.get(`/zones/gone.test?as_of=${encodeURIComponent(after)}`, owner.token)).status).toBe(404);
    expect(
      (await app.http.get('/zones/gone.test/history', owner.token)).body.data.map((c: { type: string }) => c.type),
    ).toEqual(['zone_deleted', 'zone_imported']);
    // A deleted zone cannot be restored (restores change records of a live zone).
    expect((await app.http.post('/zones/gone.test/restore', { as_of: alive }, owner.token)).status).toBe(404);
  });

  it('keeps a host’s history and restores its addresses (dig serves them)', async () => {
    const fqdn = 'home.dyn.history.net';
    expect(
      (await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.10' }, owner.token)).status,
    ).toBe(201);
    await waitForDns(dnsPort, fqdn, 'A', ['192.0.2.10']);
    await sleep(5);
    const first = new Date().toISOString();
    await sleep(5);
    expect((await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '192.0.2.11' }, owner.token)).status).toBe(
      200,
    );
    expect((await app.http.put(`/api/domains/fqdn/${fqdn}`, { record_ip: '2001:db8::11' }, owner.token)).status).toBe(
      200,
    );
    await waitForDns(dnsPort, fqdn, 'AAAA', ['2001:db8::11']);

    const history = await app.http.get(`/api/domains/fqdn/${fqdn}/history`, owner.token);
    expect(history.body.data.map((c: { type: string; changes: unknown }) => [c.type, c.changes])).toEqual([
      ['address_updated', [{ field: 'ipv6', before: null, after: '2001:db8::11' }]],
      ['address_updated', [{ field: 'ipv4', before: '192.0.2.10', after: '192.0.2.11' }]],
      [
        'host_created',
        [
          { field: 'ipv4', before: null, after: '192.0.2.10' },
          { field: 'ttl', before: null, after: 60 },
        ],
      ],
    ]);
    const paged = await app.http.get(`/api/domains/fqdn/${fqdn}/history?limit=1`, owner.token);
    expect(paged.body.next_cursor).toEqual(expect.any(String));
    expect(
      (await app.http.get(`/api/domains/fqdn/${fqdn}/history?limit=1&cursor=${paged.body.next_cursor}`, owner.token))
        .body.data[0].changes[0].field,
    ).toBe('ipv4');

    const restored = await app.http.post(`/api/domains/fqdn/${fqdn}/restore`, { as_of: first }, owner.token);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({
      fqdn,
      record_ip: '192.0.2.10',
      ttl: 60,
      addresses: { ipv4: '192.0.2.10', ipv6: null },
    });
    await waitForDns(dnsPort, fqdn, 'A', ['192.0.2.10']);
    await waitForDns(dnsPort, fqdn, 'AAAA', []);
    const [latest] = (await app.http.get(`/api/domains/fqdn/${fqdn}/history?limit=1`, owner.token)).body.data;
    expect(latest).toMatchObject({ type: 'restored', restored_from: first });

    expect((await app.http.get(`/api/domains/fqdn/${fqdn}/history`, other.token)).status).toBe(404);
    expect((await app.http.post(`/api/domains/fqdn/${fqdn}/restore`, { as_of: first }, other.token)).status).toBe(404);
    expect(
      (await app.http.post(`/api/domains/fqdn/${fqdn}/restore`, { as_of: '2020-01-01T00:00:00Z' }, owner.token)).status,
    ).toBe(404);
  });

  it('resolves a host under a verified zone as the server placed it then', async () => {
    const zone = (
      await app.http.post('/zones', { name: 'hosts.test', zone_file: 'www 300 IN A 192.0.2.1\n' }, owner.token)
    ).body;
    putWorldZone(world, 'hosts.test', ['ns1.elsewhere.test']);
    world.setRRset('hosts.test', '_account-dns-verify', 'TXT', 60, [`"${zone.verification.record_value}"`]);
    expect((await app.http.post('/zones/hosts.test/verify', undefined, owner.token)).body.status).toBe('verified');
    expect(
      (
        await app.http.post(
          '/api/domains',
          { fqdn: 'home.hosts.test', record_type: 'A', record_ip: '192.0.2.5' },
          owner.token,
        )
      ).status,
    ).toBe(201);
    await waitForDns(dnsPort, 'home.hosts.test', 'A', ['192.0.2.5']);
    await sleep(5);
    const first = { at: new Date().toISOString(), dig: dig(dnsPort, 'home.hosts.test', 'A') };
    await sleep(5);
    expect(
      (await app.http.put('/api/domains/fqdn/home.hosts.test', { record_ip: '192.0.2.6' }, owner.token)).status,
    ).toBe(200);
    await waitForDns(dnsPort, 'home.hosts.test', 'A', ['192.0.2.6']);
    await sleep(5);
    const second = { at: new Date().toISOString(), dig: dig(dnsPort, 'home.hosts.test', 'A') };
    for (const { at, dig: seen } of [first, second]) {
      const res = await app.http.get(
        `/zones/hosts.test/resolve?name=home.hosts.test&type=A&as_of=${encodeURIComponent(at)}`,
        owner.token,
      );
      expect([res.body.rcode, answerTexts(res.body)]).toEqual([seen.status, seen.answers]);
    }
    expect(first.dig.answers).toEqual(['192.0.2.5']);
    expect(
      (await app.http.get(`/zones/hosts.test?as_of=${encodeURIComponent(second.at)}`, owner.token)).body.status,
    ).toBe('verified');
  });

  it('keeps an API key’s history (created, deactivated), secrets left out; other accounts 404', async () => {
    const created = await app.http.post('/api-keys', { name: 'ci' }, owner.token);
    expect(created.status).toBe(201);
    expect((await app.http.delete(`/api-keys/${created.body.id}`, owner.token)).status).toBe(204);
    const history = await app.http.get(`/api-keys/${created.body.id}/history`, owner.token);
    expect(history.status).toBe(200);
    expect(history.body.data.map((c: { type: string }) => c.type)).toEqual(['api_key_deactivated', 'api_key_created']);
    expect(history.body.data[0].changes).toEqual([{ field: 'is_active', before: true, after: false }]);
    expect(history.body.data[1].changes).toContainEqual({ field: 'name', before: null, after: 'ci' });
    expect(JSON.stringify(history.body)).not.toContain(created.body.key);
    expect(JSON.stringify(history.body)).not.toContain('key_hash');
    expect((await app.http.get(`/api-keys/${created.body.id}/history`, other.token)).status).toBe(404);
    expect((await app.http.get('/certificates/nope/history', owner.token)).status).toBe(404);
    expect((await app.http.get(`/email-auth/domains/${ZONE}/history`, owner.token)).status).toBe(404);
  });

  it('is described in /openapi.json, and the answers match the published schemas', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const check = answerChecker(doc);
    check('/zones/{zone}/history', 'get', await app.http.get(`/zones/${ZONE}/history`, owner.token));
    check(
      '/api/domains/fqdn/{fqdn}/history',
      'get',
      await app.http.get('/api/domains/fqdn/home.dyn.history.net/history', owner.token),
    );
    check(
      '/zones/{zone}/resolve',
      'get',
      await app.http.get(
        `/zones/${ZONE}/resolve?name=alias.history.test&type=A&as_of=${encodeURIComponent(instants[0].at)}`,
        owner.token,
      ),
    );
    check(
      '/zones/{zone}/resolve',
      'get',
      await app.http.get(`/zones/${ZONE}/resolve?name=x.example.org&type=A`, owner.token),
    );
    check(
      '/api-keys/{id}/history',
      'get',
      await app.http.get(
        `/api-keys/${(await app.http.post('/api-keys', { name: 'doc' }, owner.token)).body.id}/history`,
        owner.token,
      ),
    );
    check(
      '/zones/{zone}/restore',
      'post',
      await app.http.post(`/zones/${ZONE}/restore`, { as_of: instants[1].at }, owner.token),
    );
    expect(doc.paths['/zones/{zone}'].get.parameters.map((p: { name: string }) => p.name)).toContain('as_of');
    expect(doc.paths['/api/domains/fqdn/{fqdn}/restore'].post.requestBody).toBeDefined();
  });

  it('answers the same after the history projection is rebuilt from the events (its stored shape changed in 0122)', async () => {
    const fqdn = 'home.dyn.history.net';
    const asOf = (at: string) => encodeURIComponent(at);
    const answers = async () => {
      const placed = (await app.http.get('/api/domains/fqdn/home.hosts.test/history?limit=100', owner.token)).body;
      const out: unknown[] = [
        (await app.http.get(`/zones/${ZONE}/history?limit=100`, owner.token)).body,
        (await app.http.get(`/api/domains/fqdn/${fqdn}/history?limit=100`, owner.token)).body,
        placed,
      ];
      // A host as resolve places it at each of its changes (the host's fields at an instant).
      for (const { occurred_at: at } of placed.data as { occurred_at: string }[])
        out.push(
          (await app.http.get(`/zones/hosts.test/resolve?name=home.hosts.test&type=A&as_of=${asOf(at)}`, owner.token))
            .body,
        );
      for (const instant of instants) {
        out.push((await app.http.get(`/zones/${ZONE}?as_of=${asOf(instant.at)}`, owner.token)).body.records);
        for (const [name, type] of QUESTIONS)
          out.push(
            (
              await app.http.get(
                `/zones/${ZONE}/resolve?name=${name}&type=${type}&as_of=${asOf(instant.at)}`,
                owner.token,
              )
            ).body,
          );
      }
      return out;
    };
    const before = await answers();
    // The host's pages hold a change of each kind (created, address updates, a restore); resolve placed the host.
    expect((before[1] as { data: { type: string }[] }).data.map((c) => c.type)).toContain('restored');
    expect([before[3], before[4]]).toMatchObject([
      { answer: [{ records: ['192.0.2.6'] }] },
      { answer: [{ records: ['192.0.2.5'] }] },
    ]);
    const rebuild = await app.http.admin('POST', '/admin/projections/history/rebuild?wait=true');
    expect(rebuild.status).toBe(202);
    expect(rebuild.body).toMatchObject({ status: 'switched' });
    expect(await answers()).toEqual(before);
  });
});
