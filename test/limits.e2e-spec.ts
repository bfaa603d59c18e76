import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { dig } from './support/dig';
import { enrolZone, startWorld } from './support/email-auth';
import { freePort } from './support/server-process';
import { until } from './support/until';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

type Account = Awaited<ReturnType<typeof registerAndLogin>>;

/** `n` distinct IPv4 addresses for A records (zone records may be any address: only targets are checked). */
const addresses = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `10.${Math.floor((from + i) / 250)}.${(from + i) % 250}.1`);
const aRRset = (subname: string, n: number, from = 0) => ({
  subname,
  type: 'A',
  ttl: 300,
  records: addresses(n, from),
});

/** One TXT record of `strings` character-strings of 251 bytes each (252 on the wire); `tag` keeps records distinct. */
const txtRecord = (tag: string, strings: number, lastLength = 251) =>
  Array.from(
    { length: strings },
    (_, i) => `"${i === 0 ? tag.padEnd(251, 'x') : 'y'.repeat(i === strings - 1 ? lastLength : 251)}"`,
  ).join(' ');

/**
 * Contract §16: plan quotas (zones, records per zone, dynamic-DNS hosts) and the RRset
 * size limit, over real HTTP and real DNS queries (dig).
 */
describe('plan quotas and RRset size (contract §16)', () => {
  let app: TestApp;
  let dnsPort: number;
  let world: ZoneIndex;
  let worldServer: DnsServer;

  beforeAll(async () => {
    dnsPort = await freePort();
    const started = await startWorld();
    ({ world, server: worldServer } = started);
    const port = started.port;
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', VERIFY_RESOLVER: `127.0.0.1:${port}` },
    });
  });
  afterAll(async () => {
    await app.close();
    await worldServer.stop();
  });

  const setPlan = (account: Account, plan: string) =>
    app.http.admin('PUT', `/admin/accounts/${account.id}/subscription`, { plan });
  const importZone = (account: Account, name: string, zoneFile?: string) =>
    app.http.post('/zones', { name, zone_file: zoneFile }, account.token);
  const putRecords = (account: Account, zone: string, records: unknown[]) =>
    app.http.put(`/zones/${zone}/records`, { records }, account.token);

  describe('zones per account', () => {
    it('refuses the zone past the plan’s limit with limit_reached naming it', async () => {
      const free = await registerAndLogin(app.http);
      expect((await importZone(free, 'one-q.test')).status).toBe(201);
      expect((await importZone(free, 'two-q.test')).status).toBe(201);
      const third = await importZone(free, 'three-q.test');
      expect([third.status, third.body]).toEqual([
        403,
        { error: { code: 'limit_reached', message: 'Zone limit reached for your plan (2)' } },
      ]);
      // Deleting one makes room again.
      expect((await app.http.delete('/zones/one-q.test', free.token)).status).toBe(204);
      expect((await importZone(free, 'three-q.test')).status).toBe(201);
    });

    it('bounds concurrent imports: 15 at once on Plus make exactly 10 zones', async () => {
      const plus = await registerAndLogin(app.http, { plan: 'plus' });
      const results = await Promise.all(Array.from({ length: 15 }, (_, i) => importZone(plus, `burst${i}.test`)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(
        results.filter((r) => r.status === 403 && r.body.error.message === 'Zone limit reached for your plan (10)'),
      ).toHaveLength(5);
      expect((await app.http.get('/zones', plus.token)).body.zones).toHaveLength(10);
    });

    it('keeps zones above a limit lowered later working; only new zones are refused', async () => {
      const account = await registerAndLogin(app.http, { plan: 'plus' });
      for (let i = 0; i < 4; i++) expect((await importZone(account, `kept${i}.test`)).status).toBe(201);
      expect((await setPlan(account, 'free')).status).toBe(200);
      const refused = await importZone(account, 'kept9.test');
      expect([refused.status, refused.body.error.message]).toEqual([403, 'Zone limit reached for your plan (2)']);
      expect((await putRecords(account, 'kept3.test', [aRRset('www', 1)])).status).toBe(200);
      // DNS serves a change once its thread has folded it, a moment after the answer (a loaded run missed it).
      const served = await until(
        'www.kept3.test A',
        10_000,
        () => dig(dnsPort, 'www.kept3.test', 'A').answers,
        (a) => a.length > 0,
      );
      expect(served).toEqual(['10.0.0.1']);
      expect((await app.http.get('/zones', account.token)).body.zones).toHaveLength(4);
    });
  });

  describe('records per zone (all RRsets)', () => {
    it('counts records over every RRset on the records API and names the limit', async () => {
      const free = await registerAndLogin(app.http);
      expect((await importZone(free, 'records-q.test')).status).toBe(201);
      const five = [0, 1, 2, 3, 4].map((i) => aRRset(`h${i}`, 100, i * 100));
      expect((await putRecords(free, 'records-q.test', five)).status).toBe(200);
      const more = await putRecords(free, 'records-q.test', [aRRset('extra', 1, 600)]);
      expect([more.status, more.body]).toEqual([
        403,
        { error: { code: 'limit_reached', message: 'Record limit per zone reached for your plan (500)' } },
      ]);
      expect(dig(dnsPort, 'extra.records-q.test', 'A').status).toBe('NXDOMAIN');
      // Replacing records (the count does not grow) and removing them still work at the limit.
      expect((await putRecords(free, 'records-q.test', [aRRset('h0', 100, 700)])).status).toBe(200);
      expect((await putRecords(free, 'records-q.test', [{ ...aRRset('h1', 0), records: [] }])).status).toBe(200);
      expect((await putRecords(free, 'records-q.test', [aRRset('extra', 1, 600)])).status).toBe(200);
    });

    it('counts a zone-file import', async () => {
      const free = await registerAndLogin(app.http);
      const lines = addresses(501).map((ip, i) => `h${Math.floor(i / 100)} IN A ${ip}`);
      const res = await importZone(free, 'import-q.test', `$ORIGIN import-q.test.\n$TTL 300\n${lines.join('\n')}\n`);
      expect([res.status, res.body.error?.message]).toEqual([403, 'Record limit per zone reached for your plan (500)']);
      expect(
        (
          await importZone(
            free,
            'import-q.test',
            `$ORIGIN import-q.test.\n$TTL 300\n${lines.slice(0, 500).join('\n')}\n`,
          )
        ).status,
      ).toBe(201);
    });

    it('lets a zone above a lowered limit shrink or replace, never grow (the 55k-records case)', async () => {
      const account = await registerAndLogin(app.http, { plan: 'pro' });
      expect((await importZone(account, 'lowered-q.test')).status).toBe(201);
      const six = [0, 1, 2, 3, 4, 5].map((i) => aRRset(`h${i}`, 100, i * 100));
      expect((await putRecords(account, 'lowered-q.test', six)).status).toBe(200);
      expect((await setPlan(account, 'free')).status).toBe(200);
      const grow = await putRecords(account, 'lowered-q.test', [aRRset('h6', 1, 900)]);
      expect([grow.status, grow.body.error.code]).toEqual([403, 'limit_reached']);
      expect((await putRecords(account, 'lowered-q.test', [aRRset('h0', 100, 1000)])).status).toBe(200);
      expect((await putRecords(account, 'lowered-q.test', [aRRset('h1', 50, 1100)])).status).toBe(200);
      const h1 = await until(
        'h1.lowered-q.test A',
        10_000,
        () => dig(dnsPort, 'h1.lowered-q.test', 'A').answers,
        (a) => a.length === 50,
      );
      expect(h1).toHaveLength(50);
    });

    it('counts the records email authentication generates, refusing the change before its settings are stored', async () => {
      const free = await registerAndLogin(app.http);
      const lines = addresses(500).map((ip, i) => `h${Math.floor(i / 100)} IN A ${ip}`);
      await enrolZone(app.http, world, free, 'mail-q.test', {
        zoneFile: `$ORIGIN mail-q.test.\n$TTL 300\n${lines.join('\n')}\n`,
      });
      const spf = await app.http.put(
        '/email-auth/domains/mail-q.test/spf',
        { ip4: ['192.0.2.1'], all: '-all' },
        free.token,
      );
      expect([spf.status, spf.body.error?.code]).toEqual([403, 'limit_reached']);
      expect((await app.http.get('/email-auth/domains/mail-q.test', free.token)).body.spf).toBeNull();
      expect(dig(dnsPort, 'mail-q.test', 'TXT').answers).toEqual([]);
    });
  });

  describe('dynamic-DNS hosts per account', () => {
    const create = (account: Account, label: string) =>
      app.http.post(
        '/api/domains',
        { fqdn: `${label}.dyn.example.net`, record_type: 'A', record_ip: '192.0.2.1' },
        account.token,
      );

    it('refuses the host past the plan’s limit, also when ten are created at once', async () => {
      const free = await registerAndLogin(app.http);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(free, `${free.username}-h${i}`)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      const refused = results.filter((r) => r.status === 403);
      expect(refused).toHaveLength(5);
      expect(refused[0].body).toEqual({
        error: { code: 'limit_reached', message: 'Dynamic-DNS host limit reached for your plan (5)' },
      });
      expect((await app.http.get('/domains', free.token)).body).toHaveLength(5);
      // Hosts kept after a downgrade keep updating.
      const plus = await registerAndLogin(app.http, { plan: 'plus' });
      for (let i = 0; i < 6; i++) expect((await create(plus, `${plus.username}-k${i}`)).status).toBe(201);
      expect((await setPlan(plus, 'free')).status).toBe(200);
      expect((await create(plus, `${plus.username}-k6`)).status).toBe(403);
      const update = await app.http.put(
        `/api/domains/fqdn/${plus.username}-k5.dyn.example.net`,
        { record_ip: '192.0.2.9' },
        plus.token,
      );
      expect([update.status, update.body.record_ip]).toEqual([200, '192.0.2.9']);
    });
  });

  describe('RRset wire size', () => {
    it('refuses a TXT record of 72 KB in a zone file (it cannot be encoded), naming it', async () => {
      const account = await registerAndLogin(app.http);
      const huge = txtRecord('huge', 290);
      const res = await importZone(account, 'huge-q.test', `$ORIGIN huge-q.test.\n$TTL 300\nbig IN TXT ${huge}\n`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toMatch(
        /^zone_file \(TXT at big\)\.records\[0\]: cannot be served: its data is 73,080 bytes; a DNS record holds at most 65,535/,
      );
      expect((await app.http.get('/zones/huge-q.test', account.token)).status).toBe(404);
    });

    it('refuses an RRset over 60,000 bytes on the records API; one just under is served whole over TCP', async () => {
      const account = await registerAndLogin(app.http);
      expect((await importZone(account, 'size-q.test')).status).toBe(201);
      // 20 records of 15 strings (3,780 bytes of data each): 20 × (17-byte owner "big.size-q.test" + 10 + 3,780) = 76,140 bytes.
      const twenty = Array.from({ length: 20 }, (_, i) => txtRecord(`r${i}`, 15));
      const refused = await putRecords(account, 'size-q.test', [
        { subname: 'big', type: 'TXT', ttl: 300, records: twenty },
      ]);
      expect([refused.status, refused.body.error.code]).toEqual([400, 'validation_failed']);
      expect(refused.body.error.message).toBe(
        'records[0].records: the RRset is 76,140 bytes in DNS wire format; at most 60,000 fit in a DNS message',
      );
      expect(dig(dnsPort, 'big.size-q.test', 'TXT', { tcp: true }).status).toBe('NXDOMAIN');

      // 15 such records (57,105 bytes) and one of 11 full strings and a 95-byte one (2,868 bytes of data, 2,895 on the wire): exactly 60,000.
      const underRecords = [...twenty.slice(0, 15), txtRecord('last', 12, 95)];
      const under = await putRecords(account, 'size-q.test', [
        { subname: 'big', type: 'TXT', ttl: 300, records: underRecords },
      ]);
      expect(under.status).toBe(200);
      const answer = dig(dnsPort, 'big.size-q.test', 'TXT', { tcp: true });
      expect(answer.status).toBe('NOERROR');
      expect(answer.flags).not.toContain('tc');
      expect(answer.answers).toHaveLength(16);
      // One more byte of data is over.
      const over = await putRecords(account, 'size-q.test', [
        { subname: 'big', type: 'TXT', ttl: 300, records: [...twenty.slice(0, 15), txtRecord('last', 12, 96)] },
      ]);
      expect([over.status, over.body.error.code]).toEqual([400, 'validation_failed']);
    });

    it('refuses generated email-auth records that would push an RRset over, before storing the settings', async () => {
      const account = await registerAndLogin(app.http);
      // Apex TXT ("spf-q.test" is 12 bytes on the wire): 15 × 3,802 + 2,945 = 59,975 bytes; the SPF record adds 48.
      const apex = [...Array.from({ length: 15 }, (_, i) => txtRecord(`a${i}`, 15)), txtRecord('last', 12, 150)];
      const zoneFile = `$ORIGIN spf-q.test.\n$TTL 300\n${apex.map((r) => `@ IN TXT ${r}`).join('\n')}\n`;
      await enrolZone(app.http, world, account, 'spf-q.test', { zoneFile });
      const spf = await app.http.put(
        '/email-auth/domains/spf-q.test/spf',
        { ip4: ['192.0.2.1'], all: '-all' },
        account.token,
      );
      expect([spf.status, spf.body.error?.code]).toEqual([400, 'validation_failed']);
      expect(spf.body.error.message).toMatch(/the RRset is 60,023 bytes in DNS wire format/);
      expect((await app.http.get('/email-auth/domains/spf-q.test', account.token)).body.spf).toBeNull();
      // With room made, the same change goes through and is served.
      expect(
        (await putRecords(account, 'spf-q.test', [{ subname: '', type: 'TXT', ttl: 300, records: apex.slice(0, 15) }]))
          .status,
      ).toBe(200);
      expect(
        (await app.http.put('/email-auth/domains/spf-q.test/spf', { ip4: ['192.0.2.1'], all: '-all' }, account.token))
          .status,
      ).toBe(200);
      const txt = await until(
        'spf-q.test TXT',
        10_000,
        () => dig(dnsPort, 'spf-q.test', 'TXT', { tcp: true }).answers,
        (a) => a.includes('"v=spf1 ip4:192.0.2.1 -all"'),
      );
      expect(txt).toContain('"v=spf1 ip4:192.0.2.1 -all"');
    });
  });
});
