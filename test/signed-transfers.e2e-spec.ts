import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './support/server-process';
import { Secondary, startKnotSecondary, startNsdSecondary, TsigSpec } from './support/secondaries';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { delv } from './support/validators';
import { until } from './support/until';

const run = promisify(execFile);
const ZONE = 'signed-xfr.example';
const OPERATOR_KEY: TsigSpec = {
  name: 'ops-signed-xfr',
  algorithm: 'hmac-sha256',
  secret: randomBytes(32).toString('base64'),
};

/**
 * `dig +dnssec` as text ('' while a server is not answering: NSD swaps processes after a
 * transfer). Over TCP to the service: its TCP side is the DNS thread that serves transfers,
 * whose signatures the secondaries hold (each DNS thread signs with its own random ECDSA
 * nonces, so the UDP-only replica's signatures differ in bytes, equally valid).
 */
async function digDnssec(port: number, name: string, type: string, tcp = false): Promise<string> {
  const args = [
    '@127.0.0.1',
    '-p',
    String(port),
    '+dnssec',
    '+norec',
    '+time=2',
    '+tries=2',
    '+noall',
    '+answer',
    '+authority',
    tcp ? '+tcp' : '+notcp',
    name,
    type,
  ];
  return (await run('dig', args, { encoding: 'utf8' }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' })))
    .stdout;
}

/** The answer and authority records, sorted, with TTLs out (a secondary counts them down). */
const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) =>
      l
        .split(/\s+/)
        .filter((_, i) => i !== 1)
        .join(' '),
    )
    .sort();

/**
 * A signed zone transfers signed (issues 25 and 29): NSD and Knot as secondaries receive the
 * RRSIGs, DNSKEY and NSEC chain by AXFR and every later change by IXFR, and a validator
 * pointed at a secondary validates what it serves, positive and negative answers alike.
 */
describe('signed zones on NSD and Knot secondaries (§17, §18)', () => {
  let app: TestApp;
  let dnsPort: number;
  let dir: string;
  let nsd: Secondary;
  let knot: Secondary;
  let owner: { token: string };
  let ds: string[];
  const metric = async (pattern: RegExp) => Number(pattern.exec((await app.http.get('/metrics')).text)?.[1] ?? 0);
  const secondaries = () => [nsd, knot];
  const serial = async (port: number, tcp = false) =>
    Number(
      records(await digDnssec(port, ZONE, 'SOA', tcp))
        .find((r) => / IN SOA /.test(r))
        ?.split(' ')[5] ?? 0,
    );
  const inStep = async () => {
    // The TCP side: the DNS thread whose journal the secondaries transfer from (a UDP-only replica may be a moment behind).
    const want = await serial(dnsPort, true);
    for (const s of secondaries())
      await until(
        `${s.name} serial`,
        2000,
        () => serial(s.port),
        (v) => v === want,
      );
  };
  const validatedAt = async (port: number, name: string, type: string) => {
    const result = await delv(port, ZONE, ds, name, type);
    return result.validated ? 'validated' : result.output;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adns-signed-xfr-'));
    dnsPort = await freePort();
    const [nsdPort, knotPort] = [await freePort(), await freePort()];
    app = await startTestApp({
      env: {
        DNS_PORT: String(dnsPort),
        SECONDARIES: `127.0.0.1:${nsdPort}`,
        SECONDARY_TSIG_KEY: `${OPERATOR_KEY.name}:${OPERATOR_KEY.algorithm}:${OPERATOR_KEY.secret}`,
      },
    });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    const zoneFile = `$ORIGIN ${ZONE}.\n$TTL 300\nwww A 192.0.2.80\nmail A 192.0.2.25\n@ MX 10 mail\n*.wild A 192.0.2.99\n`;
    expect((await app.http.post('/zones', { name: ZONE, zone_file: zoneFile }, owner.token)).status).toBe(201);
    const key = await app.http.post(
      '/tsig-keys',
      { name: 'acct-signed-xfr.example', purpose: 'transfer', zones: [ZONE] },
      owner.token,
    );
    expect(key.status).toBe(201);
    const accountKey: TsigSpec = { name: 'acct-signed-xfr.example', algorithm: 'hmac-sha256', secret: key.body.secret };
    expect(
      (
        await app.http.post(
          `/zones/${ZONE}/secondaries`,
          { address: `127.0.0.1:${knotPort}`, tsig_key: accountKey.name },
          owner.token,
        )
      ).status,
    ).toBe(201);
    nsd = startNsdSecondary(dir, nsdPort, dnsPort, [{ name: ZONE, key: OPERATOR_KEY }]);
    knot = startKnotSecondary(dir, knotPort, dnsPort, [{ name: ZONE, key: accountKey }]);
    const want = await serial(dnsPort);
    for (const s of secondaries())
      await until(
        `${s.name} first transfer`,
        20_000,
        () => serial(s.port),
        (v) => v === want,
      );
  }, 60_000);

  afterAll(async () => {
    await nsd?.stop();
    await knot?.stop();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('turning signing on reaches both secondaries within 2 s, and a validator trusts what they serve', async () => {
    const res = await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token);
    expect(res.status).toBe(200);
    ds = res.body.ds;
    const signedAt = Date.now();
    for (const s of secondaries()) {
      await until(
        `${s.name} DNSKEY signed`,
        2000 - (Date.now() - signedAt),
        () => digDnssec(s.port, ZONE, 'DNSKEY'),
        (t) => /RRSIG\s+DNSKEY /.test(t),
      );
    }
    await inStep();
    for (const s of secondaries()) {
      for (const [name, type] of [
        [`www.${ZONE}`, 'A'],
        [ZONE, 'MX'],
        [`nope.${ZONE}`, 'A'],
        [`www.${ZONE}`, 'TXT'],
        [`x.wild.${ZONE}`, 'A'],
      ]) {
        expect([s.name, name, type, await validatedAt(s.port, name, type)]).toEqual([s.name, name, type, 'validated']);
        // The secondary serves the service's own signatures and NSEC records.
        expect([s.name, name, type, records(await digDnssec(s.port, name, type))]).toEqual([
          s.name,
          name,
          type,
          records(await digDnssec(dnsPort, name, type, true)),
        ]);
      }
    }
  });

  it('a record change reaches both secondaries by IXFR with its signatures and a mended NSEC chain', async () => {
    const ixfrBefore = await metric(/dns_transfers_total\{type="IXFR",style="incremental"\} (\d+)/);
    const put = await app.http.put(
      `/zones/${ZONE}/records`,
      { records: [{ subname: 'new', type: 'A', ttl: 300, records: ['192.0.2.7'] }] },
      owner.token,
    );
    expect(put.status).toBe(200);
    const changedAt = Date.now();
    for (const s of secondaries()) {
      await until(
        `${s.name} new`,
        2000 - (Date.now() - changedAt),
        () => digDnssec(s.port, `new.${ZONE}`, 'A'),
        (t) => /192\.0\.2\.7/.test(t) && /RRSIG\s+A /.test(t),
      );
    }
    await inStep();
    expect(await metric(/dns_transfers_total\{type="IXFR",style="incremental"\} (\d+)/)).toBeGreaterThanOrEqual(
      ixfrBefore + 2,
    );
    for (const s of secondaries()) {
      // The new name, a name that sorts just after it (denied by the NSEC the change rewrote), and one before.
      for (const [name, type] of [
        [`new.${ZONE}`, 'A'],
        [`new0.${ZONE}`, 'A'],
        [`mailx.${ZONE}`, 'A'],
      ]) {
        expect([s.name, name, type, await validatedAt(s.port, name, type)]).toEqual([s.name, name, type, 'validated']);
      }
    }
    // Removing a name takes its NSEC out of the chain on the secondaries too.
    expect(
      (
        await app.http.put(
          `/zones/${ZONE}/records`,
          { records: [{ subname: 'new', type: 'A', ttl: 300, records: [] }] },
          owner.token,
        )
      ).status,
    ).toBe(200);
    // The answer to the PUT waits for the read models, not for the DNS thread: the service first serves the removal.
    await until(
      'service without new',
      2000,
      () => digDnssec(dnsPort, `new.${ZONE}`, 'A', true),
      (t) => !/192\.0\.2\.7/.test(t),
    );
    await inStep();
    for (const s of secondaries())
      expect([s.name, await validatedAt(s.port, `new.${ZONE}`, 'A')]).toEqual([s.name, 'validated']);
    for (const s of secondaries())
      expect(records(await digDnssec(s.port, `new.${ZONE}`, 'A'))).toEqual(
        records(await digDnssec(dnsPort, `new.${ZONE}`, 'A', true)),
      );
  });

  it('the whole transferred zone is signed and its NSEC chain complete (ldns-verify-zone on an AXFR)', async () => {
    const { stdout } = await run(
      'dig',
      [
        '@127.0.0.1',
        '-p',
        String(dnsPort),
        '+time=3',
        '-y',
        `hmac-sha256:${OPERATOR_KEY.name}:${OPERATOR_KEY.secret}`,
        '+onesoa',
        ZONE,
        'AXFR',
      ],
      {
        encoding: 'utf8',
      },
    );
    const text = stdout
      .split('\n')
      .filter((l) => l && !l.startsWith(';') && !/\sTSIG\s/.test(l))
      .join('\n');
    expect(text).toMatch(/\sNSEC\s/);
    const file = join(dir, 'axfr.db');
    writeFileSync(file, `${text}\n`);
    const ldns = await run('ldns-verify-zone', [file], { encoding: 'utf8' }).catch(
      (e: { stdout: string; stderr: string }) => ({ stdout: `FAILED ${e.stdout}`, stderr: e.stderr }),
    );
    expect(`${ldns.stdout}${ldns.stderr}`).toMatch(/Zone is verified and complete/);
  });

  it('turning signing off reaches the secondaries: they serve the zone unsigned', async () => {
    expect((await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: false }, owner.token)).status).toBe(200);
    // Unsigning may pass through CDS/CDNSKEY delete states first; wait for the records to go.
    await until(
      'service unsigned',
      10_000,
      () => digDnssec(dnsPort, `www.${ZONE}`, 'A'),
      (t) => !/RRSIG/.test(t),
    );
    for (const s of secondaries())
      await until(
        `${s.name} unsigned`,
        2000,
        () => digDnssec(s.port, `www.${ZONE}`, 'A'),
        (t) => /192\.0\.2\.80/.test(t) && !/RRSIG/.test(t),
      );
  });
});
