import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { digAsync, DigAnswer } from './support/dig';
import { freePort } from './support/server-process';
import { Secondary, startKnotSecondary, startNsdSecondary, TsigSpec } from './support/secondaries';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { until } from './support/until';

const run = promisify(execFile);
const OPERATOR_KEY: TsigSpec = {
  name: 'ops-xfr',
  algorithm: 'hmac-sha256',
  secret: randomBytes(32).toString('base64'),
};

const zoneFile = (zone: string) => `$ORIGIN ${zone}.
$TTL 300
@        MX 10 mail
@        TXT "v=spf1 mx -all" "second string"
@        CAA 0 issue "letsencrypt.org"
www      A 192.0.2.80
www      AAAA 2001:db8::80
mail     A 192.0.2.25
alias    CNAME www
*.wild   A 192.0.2.99
_sip._tcp SRV 10 5 5060 sip.${zone}.
sip      A 192.0.2.60
sub      NS ns.sub.${zone}.
ns.sub   A 192.0.2.53
`;
const QUESTIONS: Array<[string, string]> = [
  ['', 'SOA'],
  ['', 'NS'],
  ['', 'MX'],
  ['', 'TXT'],
  ['', 'CAA'],
  ['www', 'A'],
  ['www', 'AAAA'],
  ['mail', 'A'],
  ['alias', 'A'],
  ['alias', 'CNAME'],
  ['x.wild', 'A'],
  ['_sip._tcp', 'SRV'],
  ['sip', 'A'],
  ['missing', 'A'],
  ['www', 'TXT'],
];
/** NSD swaps in a new server process after each transfer; a query can fall into the swap, so one retry. */
async function dig(port: number, name: string, type: string): Promise<DigAnswer> {
  try {
    return await digAsync(port, name, type);
  } catch {
    return digAsync(port, name, type);
  }
}

const fqdn = (sub: string, zone: string) => (sub ? `${sub}.${zone}` : zone);

const serialAt = async (port: number, zone: string): Promise<number | null> => {
  try {
    const soa = (await dig(port, zone, 'SOA')).answers[0];
    return soa ? Number(soa.split(' ')[2]) : null;
  } catch {
    return null;
  }
};

/**
 * Zone transfers with real secondaries (contract §18, issue 25): NSD with the operator's
 * key (SECONDARIES) and Knot with an account's transfer key (per-zone secondaries), both
 * TSIG-signed, fed by AXFR, then NOTIFY + IXFR.
 */
describe('zone transfers to NSD and Knot secondaries (§18)', () => {
  // The third zone is large: its transfer takes several 64 KiB messages, owners compressed within them, each signed.
  const zones = ['alpha-xfr.example', 'beta-xfr.example', 'gamma-xfr.example'];
  const big = { zone: zones[2], names: 90, perName: 100 };
  const bigName = (i: number) => `h${i}.${big.zone}`;
  const bigValues = (i: number) => Array.from({ length: big.perName }, (_, j) => `10.20.${i}.${j + 1}`);
  let app: TestApp;
  let dnsPort: number;
  let dir: string;
  let nsd: Secondary;
  let knot: Secondary;
  let owner: { token: string };
  let accountKey: TsigSpec;
  const metric = async (pattern: RegExp) => Number(pattern.exec((await app.http.get('/metrics')).text)?.[1] ?? 0);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adns-xfr-'));
    dnsPort = await freePort();
    const nsdPort = await freePort();
    const knotPort = await freePort();
    app = await startTestApp({
      env: {
        DNS_PORT: String(dnsPort),
        DDNS_ZONES: 'dyn.example.net',
        SECONDARIES: `127.0.0.1:${nsdPort}`,
        SECONDARY_TSIG_KEY: `${OPERATOR_KEY.name}:${OPERATOR_KEY.algorithm}:${OPERATOR_KEY.secret}`,
      },
    });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    for (const zone of zones)
      expect((await app.http.post('/zones', { name: zone, zone_file: zoneFile(zone) }, owner.token)).status).toBe(201);
    const bigRecords = Array.from({ length: big.names }, (_, i) => ({
      subname: `h${i}`,
      type: 'A',
      ttl: 300,
      records: bigValues(i),
    }));
    expect((await app.http.put(`/zones/${big.zone}/records`, { records: bigRecords }, owner.token)).status).toBe(200);
    const key = await app.http.post(
      '/tsig-keys',
      { name: 'acct-xfr.example', algorithm: 'hmac-sha512', purpose: 'transfer', zones },
      owner.token,
    );
    expect(key.status).toBe(201);
    accountKey = { name: 'acct-xfr.example', algorithm: 'hmac-sha512', secret: key.body.secret };
    for (const zone of zones) {
      const added = await app.http.post(
        `/zones/${zone}/secondaries`,
        { address: `127.0.0.1:${knotPort}`, tsig_key: 'acct-xfr.example' },
        owner.token,
      );
      expect(added.status).toBe(201);
    }
    nsd = startNsdSecondary(
      dir,
      nsdPort,
      dnsPort,
      zones.map((name) => ({ name, key: OPERATOR_KEY })),
    );
    knot = startKnotSecondary(
      dir,
      knotPort,
      dnsPort,
      zones.map((name) => ({ name, key: accountKey })),
    );
    for (const zone of zones) {
      const serial = await serialAt(dnsPort, zone);
      for (const s of [nsd, knot])
        await until(
          `${s.name} serial of ${zone}`,
          20_000,
          () => serialAt(s.port, zone),
          (v) => v === serial,
        );
    }
  }, 60_000);

  afterAll(async () => {
    await nsd?.stop();
    await knot?.stop();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each secondary answers every name and type of every zone exactly as the service does', async () => {
    for (const zone of zones) {
      for (const [sub, type] of QUESTIONS) {
        const name = fqdn(sub, zone);
        // The three servers asked at once: the comparison is of answers, not of timing.
        const [want, ...got] = await Promise.all([dnsPort, nsd.port, knot.port].map((port) => dig(port, name, type)));
        want.answers.sort();
        [nsd, knot].forEach((s, i) => {
          got[i].answers.sort();
          expect({ server: s.name, name, type, ...got[i] }).toEqual({ server: s.name, name, type, ...want });
        });
      }
    }
  });

  it('transfers a zone of several 64 KiB messages whole to both secondaries', async () => {
    const { stdout } = await run(
      'dig',
      [
        '@127.0.0.1',
        '-p',
        String(dnsPort),
        '-y',
        `hmac-sha256:${OPERATOR_KEY.name}:${OPERATOR_KEY.secret}`,
        big.zone,
        'AXFR',
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    // dig checks every message's TSIG; a failure shows as "tsig verify failure" or "Transfer failed".
    expect(stdout).not.toMatch(/failed|failure/i);
    const size = /XFR size: (\d+) records \(messages (\d+), bytes (\d+)\)/.exec(stdout)!;
    expect(Number(size[1])).toBeGreaterThan(big.names * big.perName);
    expect(Number(size[2])).toBeGreaterThanOrEqual(2);
    expect(Number(size[3]) / Number(size[2])).toBeGreaterThan(40_000);
    for (let i = 0; i < big.names; i += 11) {
      const [want, ...got] = await Promise.all(
        [dnsPort, nsd.port, knot.port].map((port) => dig(port, bigName(i), 'A')),
      );
      expect(want.answers.sort()).toEqual(bigValues(i).sort());
      for (const g of got) expect(g.answers.sort()).toEqual(want.answers);
    }
  });

  it('a change reaches both secondaries within 2 s through NOTIFY and IXFR', async () => {
    const ixfrBefore = await metric(/dns_transfers_total\{type="IXFR",style="incremental"\} (\d+)/);
    const zone = zones[0];
    const put = await app.http.put(
      `/zones/${zone}/records`,
      { records: [{ subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.81', '192.0.2.82'] }] },
      owner.token,
    );
    expect(put.status).toBe(200);
    const changedAt = Date.now();
    for (const s of [nsd, knot]) {
      await until(
        `${s.name} www`,
        2000 - (Date.now() - changedAt),
        async () => (await dig(s.port, `www.${zone}`, 'A')).answers.sort(),
        (a) => a.join() === '192.0.2.81,192.0.2.82',
      );
    }
    expect(await serialAt(nsd.port, zone)).toBe(await serialAt(dnsPort, zone));
    expect(await metric(/dns_transfers_total\{type="IXFR",style="incremental"\} (\d+)/)).toBeGreaterThanOrEqual(
      ixfrBefore + 2,
    );
    await until(
      'knot log',
      2000,
      () => knot.log(),
      (log) => /IXFR, incoming.*finished/.test(log) || /IXFR.*incoming.*finished/.test(log),
    );
    // The zone's secondaries list shows what was sent and transferred.
    const listed = (await app.http.get(`/zones/${zone}/secondaries`, owner.token)).body.secondaries[0];
    expect(listed).toMatchObject({
      last_notified_at: expect.any(String),
      last_transfer_at: expect.any(String),
      last_serial: await serialAt(dnsPort, zone),
    });
  });

  it('a secondary that was down catches up when it returns', async () => {
    await knot.stop();
    const zone = zones[1];
    await app.http.put(
      `/zones/${zone}/records`,
      { records: [{ subname: 'late', type: 'TXT', ttl: 300, records: ['"missed while down"'] }] },
      owner.token,
    );
    knot = startKnotSecondary(
      dir,
      knot.port,
      dnsPort,
      zones.map((name) => ({ name, key: accountKey })),
    );
    await until(
      'knot catches up',
      10_000,
      // Knot refuses queries until it has started: that is "not caught up yet", not a failure.
      async () => (await dig(knot.port, `late.${zone}`, 'TXT').catch(() => ({ answers: [] as string[] }))).answers,
      (a) => a.join() === '"missed while down"',
    );
  });

  it('refuses unsigned, unknown, wrongly signed and unauthorised transfers, and counts them', async () => {
    const refusedBefore = await metric(/dns_transfer_refused_total\{reason="unsigned"\} (\d+)/);
    const digAxfr = async (...extra: string[]) =>
      (
        await run('dig', ['@127.0.0.1', '-p', String(dnsPort), '+time=5', '+tries=2', ...extra, zones[0], 'AXFR'], {
          encoding: 'utf8',
        }).catch((e: { stdout: string }) => e)
      ).stdout;
    expect(await digAxfr()).toMatch(/Transfer failed/);
    expect(await metric(/dns_transfer_refused_total\{reason="unsigned"\} (\d+)/)).toBe(refusedBefore + 1);
    // A key that is not known: NOTAUTH (BADKEY).
    expect(await digAxfr('-y', `hmac-sha256:nobody:${randomBytes(32).toString('base64')}`)).toMatch(
      /NOTAUTH|BADKEY|Transfer failed/,
    );
    // The operator key name with a wrong secret: BADSIG.
    expect(await digAxfr('-y', `hmac-sha256:${OPERATOR_KEY.name}:${randomBytes(32).toString('base64')}`)).toMatch(
      /NOTAUTH|BADSIG|Transfer failed/,
    );
    expect(await metric(/dns_transfer_refused_total\{reason="bad_tsig"\} (\d+)/)).toBeGreaterThanOrEqual(2);
    // A valid transfer key of the account that no secondary of the zone uses: REFUSED.
    const other = await app.http.post(
      '/tsig-keys',
      { name: 'unused-xfr.example', purpose: 'transfer', zones },
      owner.token,
    );
    expect(await digAxfr('-y', `hmac-sha256:unused-xfr.example:${other.body.secret}`)).toMatch(/Transfer failed/);
    expect(await metric(/dns_transfer_refused_total\{reason="not_allowed"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    // The right key: the whole zone, signed (dig verifies every message).
    const axfr = await digAxfr('-y', `hmac-sha256:${OPERATOR_KEY.name}:${OPERATOR_KEY.secret}`);
    expect(axfr).not.toMatch(/failed|failure/i);
    expect(axfr).toMatch(
      new RegExp(`^www\\.${zones[0].replace('.', '\\.')}\\.\\s+300\\s+IN\\s+A\\s+192\\.0\\.2\\.81`, 'm'),
    );
  });

  it('the secondaries keep serving when the service is stopped', async () => {
    const zone = zones[0];
    const before = (await dig(dnsPort, `www.${zone}`, 'A')).answers.sort();
    await app.close(false);
    for (const s of [nsd, knot]) expect((await dig(s.port, `www.${zone}`, 'A')).answers.sort()).toEqual(before);
    app = await startTestApp({ dataDir: app.dataDir, env: { DNS_PORT: String(dnsPort), DNS_THREAD: 'off' } });
  });
});
