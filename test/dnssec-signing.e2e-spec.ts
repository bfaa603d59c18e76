import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import {
  CSK_FLAGS,
  dnskeyRdata,
  dsRdata,
  dsText,
  generateKey,
  keyTag,
  signerFor,
  type Algorithm,
} from '../libs/dnssec/keys';
import { zoneSigning } from '../libs/dnssec/zone-signing';
import { delv, startUnbound, type Unbound } from './support/validators';
import { walkSignedZone } from './support/zone-walk';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedKey } from '../libs/dnssec/testing/served-key';

const ZONE = 'example.test';
const now = Math.floor(Date.now() / 1000);
const WINDOW = { inception: now - 3600, expiration: now + 14 * 86400 };

/** A signed zone in a bare index behind a real DNS server, checked by delv and unbound. */
describe.each([13, 15] as Algorithm[])('signed answers, algorithm %i (delv, unbound)', (algorithm) => {
  let index: ZoneIndex;
  let server: DnsServer;
  let port: number;
  let ds: string[];
  let unbound: Unbound;

  beforeAll(async () => {
    index = new ZoneIndex();
    index.putZone({
      name: ZONE,
      ownerAccountId: '1',
      soa: {
        mname: 'ns1.example.net',
        rname: `hostmaster.${ZONE}`,
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 604800,
        minimum: 60,
      },
      ttl: 3600,
      nameservers: ['ns1.example.net', 'ns2.example.net'],
    });
    const set = (name: string, type: string, records: string[], ttl = 300) =>
      index.setRRset(ZONE, name, type, ttl, records);
    set('', 'MX', ['10 mail.example.test.']);
    set('', 'TXT', ['"v=spf1 -all"']);
    set('www', 'A', ['192.0.2.80']);
    set('www', 'AAAA', ['2001:db8::80']);
    set('mail', 'A', ['192.0.2.25']);
    set('alias', 'CNAME', ['www.example.test.']);
    set('dangling', 'CNAME', ['nothing.example.test.']);
    set('*.wild', 'A', ['192.0.2.99']);
    set('a.b.deep', 'TXT', ['"deep"']);
    set('_443._tcp.www', 'TLSA', [`3 1 1 ${'AB'.repeat(32)}`]);
    set('www', 'HTTPS', ['1 . alpn=h2,h3 ipv4hint=192.0.2.80']);
    set('sub', 'NS', ['ns.sub.example.test.']);
    set('ns.sub', 'A', ['192.0.2.53']);
    const key = generateKey(algorithm);
    const served = [servedKey(key)];
    await index.setSigning(ZONE, zoneSigning(ZONE, served, WINDOW, { kind: 'none' }, 3600));
    ds = [dsText(ZONE, 3600, dsRdata(ZONE, dnskeyRdata(CSK_FLAGS, algorithm, key.publicKey)))];
    server = new DnsServer({ host: '127.0.0.1', port: 0, index });
    port = (await server.start()).port;
    unbound = await startUnbound(port, ZONE, ds);
  });
  afterAll(async () => {
    await unbound?.stop();
    await server?.stop();
  });

  it.each([
    ['www.example.test', 'A'],
    ['example.test', 'DNSKEY'],
    ['example.test', 'MX'],
    ['alias.example.test', 'A'],
    ['www.example.test', 'TXT'], // NODATA
    ['nope.example.test', 'A'], // NXDOMAIN
    ['b.deep.example.test', 'A'], // empty non-terminal
    ['x.wild.example.test', 'A'], // wildcard
    ['x.wild.example.test', 'MX'], // wildcard NODATA
    ['dangling.example.test', 'A'], // CNAME to a missing name
    ['sub.example.test', 'DS'], // insecure delegation
    ['_443._tcp.www.example.test', 'TLSA'],
    ['www.example.test', 'HTTPS'],
  ])('delv validates %s %s', async (name, type) => {
    const result = await delv(port, ZONE, ds, name, type);
    expect(result.validated ? 'validated' : result.output).toBe('validated');
  });

  it('unbound answers with AD, and NXDOMAIN/NODATA validated', async () => {
    const www = await unbound.query('www.example.test', 'A');
    expect([www.status, www.flags.includes('ad') ? 'ad' : www.output]).toEqual(['NOERROR', 'ad']);
    const missing = await unbound.query('nope.example.test', 'A');
    expect([missing.status, missing.flags.includes('ad') ? 'ad' : missing.output]).toEqual(['NXDOMAIN', 'ad']);
    const wild = await unbound.query('y.wild.example.test', 'A');
    expect([wild.status, wild.flags.includes('ad') ? 'ad' : wild.output]).toEqual(['NOERROR', 'ad']);
    const nodata = await unbound.query('mail.example.test', 'AAAA');
    expect([nodata.status, nodata.flags.includes('ad') ? 'ad' : nodata.output]).toEqual(['NOERROR', 'ad']);
  });

  it('serves DO=0 queries without any DNSSEC records, DO=1 ones with RRSIGs', async () => {
    const dig = async (...args: string[]) =>
      (await promisify(execFile)('dig', ['@127.0.0.1', '-p', String(port), '+norec', ...args], { encoding: 'utf8' }))
        .stdout;
    const plain = await dig('www.example.test', 'A');
    expect(plain).not.toMatch(/RRSIG/);
    expect(plain).toMatch(/192\.0\.2\.80/);
    expect(await dig('+dnssec', 'www.example.test', 'A')).toMatch(/RRSIG\s+A /);
  });

  it('keeps the NSEC chain and signatures right as records come and go (incremental)', async () => {
    index.setRRset(ZONE, 'new', 'A', 300, ['192.0.2.7']);
    index.setRRset(ZONE, 'zz.last', 'TXT', 300, ['"end"']);
    index.removeRRset(ZONE, 'mail', 'A');
    index.setRRset(ZONE, 'www', 'A', 300, ['192.0.2.81']);
    for (const [name, type] of [
      ['new.example.test', 'A'],
      ['mail.example.test', 'A'],
      ['zz.last.example.test', 'TXT'],
      ['zzz.example.test', 'A'],
      ['last.example.test', 'A'],
      ['www.example.test', 'A'],
    ]) {
      const result = await delv(port, ZONE, ds, name, type);
      expect([name, type, result.validated ? 'validated' : result.output]).toEqual([name, type, 'validated']);
    }
    expect((await delv(port, ZONE, ds, 'mail.example.test', 'A')).output).toMatch(/NXDOMAIN|ncache nxdomain/i);
  });

  it('truncates a large signed answer over UDP (TC, whole RRsets) and serves it whole over TCP', async () => {
    index.setRRset(
      ZONE,
      'big',
      'TXT',
      300,
      Array.from({ length: 6 }, (_, i) => `"${String(i).repeat(200)}"`),
    );
    const exec = promisify(execFile);
    const dig = async (...args: string[]) =>
      (
        await exec(
          'dig',
          ['@127.0.0.1', '-p', String(port), '+norec', '+dnssec', '+ignore', ...args, 'big.example.test', 'TXT'],
          { encoding: 'utf8' },
        )
      ).stdout;
    const udp = await dig('+notcp', '+bufsize=1232');
    expect(udp).toMatch(/flags: qr aa tc;/);
    expect(udp).toMatch(/ANSWER: 0,/);
    const tcp = await dig('+tcp');
    expect(tcp).not.toMatch(/ tc/);
    expect(tcp).toMatch(/RRSIG\s+TXT /);
    const result = await delv(port, ZONE, ds, 'big.example.test', 'TXT');
    expect(result.validated ? 'validated' : result.output).toBe('validated');
  });

  it('passes ldns-verify-zone and kzonecheck -d on as walked over DNS (complete NSEC chain)', async () => {
    const text = await walkSignedZone(port, ZONE);
    expect(text).toMatch(/\sNSEC\s/);
    const file = join(mkdtempSync(join(tmpdir(), 'signed-zone-')), 'zone.db');
    writeFileSync(file, text);
    const exec = promisify(execFile);
    const ldns = await exec('ldns-verify-zone', [file], { encoding: 'utf8' }).catch(
      (e: { stdout: string; stderr: string }) => ({
        stdout: `FAILED ${e.stdout}`,
        stderr: e.stderr,
      }),
    );
    expect(`${ldns.stdout}${ldns.stderr}`).toMatch(/Zone is verified and complete/);
    const knot = await exec('kzonecheck', ['-o', ZONE, '-d', 'on', file], { encoding: 'utf8' }).then(
      () => 'ok',
      (e: { stdout: string; stderr: string }) => `${e.stdout}${e.stderr}\n${text}`,
    );
    expect(knot).toBe('ok');
  });

  it('a zone signed by a key the DS does not name is bogus: unbound answers SERVFAIL', async () => {
    const other = generateKey(algorithm);
    const tag = keyTag(dnskeyRdata(CSK_FLAGS, algorithm, other.publicKey));
    await index.setSigning(
      ZONE,
      zoneSigning(
        ZONE,
        [
          {
            tag,
            algorithm,
            flags: CSK_FLAGS,
            publicKey: other.publicKey,
            sign: signerFor(algorithm, other.privateKeyDer),
          },
        ],
        WINDOW,
        { kind: 'none' },
        3600,
      ),
    );
    await new Promise((r) => setTimeout(r, 1100)); // unbound's cache-max-ttl
    const tampered = await unbound.query('mail.example.test', 'A');
    expect(tampered.status).toBe('SERVFAIL');
  });
});
