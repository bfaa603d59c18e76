import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import * as dgram from 'node:dgram';
import { signMessage } from '../libs/dns-transfer/tsig';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { digAsync } from './support/dig';
import { freePort } from './support/server-process';
import { until } from './support/until';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { putWorldZone } from '../bench/support/world-dns';

/** Runs a command with `input` on stdin; resolves with its exit code and output (never rejects). */
function runWithInput(command: string, args: string[], input: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
    child.stdin.end(input);
  });
}

/**
 * RFC 2136 dynamic updates with TSIG (contract §18), driven by BIND's nsupdate and Knot's
 * knsupdate against the service's DNS port.
 */
describe('RFC 2136 UPDATE with nsupdate and knsupdate (§18)', () => {
  const zone = 'upd-test.example';
  let app: TestApp;
  let dnsPort: number;
  let owner: { token: string };
  let full: { name: string; secret: string };
  let limited: { name: string; secret: string };
  const answers = async (name: string, type: string) => (await digAsync(dnsPort, name, type)).answers.sort();
  /**
   * What DNS answers once it serves `expected`, or after 10 s what it still answers: an UPDATE is answered
   * once committed, and the DNS threads fold it a moment later (a loaded CI run queried in between).
   */
  const served = (name: string, type: string, expected: string[]) =>
    until(
      `${name} ${type}`,
      10_000,
      () => answers(name, type),
      (a) => JSON.stringify(a) === JSON.stringify(expected),
    ).catch(() => answers(name, type));
  const nsupdate = (key: { name: string; secret: string }, algorithm: string, lines: string[], tcp = false) =>
    runWithInput(
      'nsupdate',
      [...(tcp ? ['-v'] : []), '-y', `${algorithm}:${key.name}:${key.secret}`],
      [`server 127.0.0.1 ${dnsPort}`, `zone ${zone}`, ...lines, 'send', ''].join('\n'),
    );

  /** "The world" (the public view of the zone) for verification, so hosts can live in the zone. */
  const world = new ZoneIndex();
  const worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });

  beforeAll(async () => {
    dnsPort = await freePort();
    const { port } = await worldServer.start();
    app = await startTestApp({
      env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net', VERIFY_RESOLVER: `127.0.0.1:${port}` },
    });
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    expect(
      (await app.http.post('/zones', { name: zone, zone_file: 'www 300 IN A 192.0.2.1\n' }, owner.token)).status,
    ).toBe(201);
    const a = await app.http.post(
      '/tsig-keys',
      { name: 'upd-all.example', purpose: 'update', zones: [zone] },
      owner.token,
    );
    full = { name: 'upd-all.example', secret: a.body.secret };
    const b = await app.http.post(
      '/tsig-keys',
      {
        name: 'upd-acme.example',
        algorithm: 'hmac-sha512',
        purpose: 'update',
        zones: [zone],
        allow: [{ name: '*.acme', types: ['TXT'] }],
      },
      owner.token,
    );
    limited = { name: 'upd-acme.example', secret: b.body.secret };
  });
  afterAll(async () => {
    await app.close();
    await worldServer.stop();
  });

  it('nsupdate adds and deletes records with prerequisites, over UDP (sent on to TCP) and TCP', async () => {
    const add = await nsupdate(full, 'hmac-sha256', [
      'prereq nxrrset new.upd-test.example A',
      'update add new.upd-test.example 300 A 192.0.2.10',
      'update add new.upd-test.example 300 TXT "hello"',
    ]);
    expect(add).toEqual({ code: 0, output: '' });
    expect(await served(`new.${zone}`, 'A', ['192.0.2.10'])).toEqual(['192.0.2.10']);
    expect(await served(`new.${zone}`, 'TXT', ['"hello"'])).toEqual(['"hello"']);
    // The same prerequisite again: YXRRSET, nothing applied.
    const again = await nsupdate(
      full,
      'hmac-sha256',
      ['prereq nxrrset new.upd-test.example A', 'update add new.upd-test.example 300 A 192.0.2.11'],
      true,
    );
    expect(again.code).not.toBe(0);
    expect(again.output).toMatch(/YXRRSET/);
    expect(await served(`new.${zone}`, 'A', ['192.0.2.10'])).toEqual(['192.0.2.10']);
    const del = await nsupdate(
      full,
      'hmac-sha256',
      [
        'prereq yxrrset new.upd-test.example A 192.0.2.10',
        'update delete new.upd-test.example A',
        'update delete www.upd-test.example A 192.0.2.1',
      ],
      true,
    );
    expect(del).toEqual({ code: 0, output: '' });
    expect(await served(`new.${zone}`, 'A', [])).toEqual([]);
    expect((await digAsync(dnsPort, `www.${zone}`, 'A')).status).toBe('NXDOMAIN');
    // Each accepted update is one zone change, in the records API and the audit trail.
    const records = (await app.http.get(`/zones/${zone}/records`, owner.token)).body.records;
    expect(records).toEqual([{ subname: 'new', type: 'TXT', ttl: 300, records: ['"hello"'] }]);
  });

  it('knsupdate adds and deletes with prerequisites; failed prerequisites answer their RCODE', async () => {
    const knsupdate = (lines: string[]) =>
      runWithInput(
        'knsupdate',
        ['-y', `hmac-sha256:${full.name}:${full.secret}`],
        [`server 127.0.0.1 ${dnsPort}`, `zone ${zone}.`, ...lines, 'send', ''].join('\n'),
      );
    const add = await knsupdate([
      'prereq nxdomain k.upd-test.example.',
      'update add k.upd-test.example. 120 MX 10 mail.upd-test.example.',
    ]);
    expect(add.output).not.toMatch(/error|failed/i);
    expect(await served(`k.${zone}`, 'MX', ['10 mail.upd-test.example.'])).toEqual(['10 mail.upd-test.example.']);
    const exists = await knsupdate([
      'prereq nxdomain k.upd-test.example.',
      'update add k.upd-test.example. 120 A 192.0.2.30',
    ]);
    expect(exists.output).toMatch(/YXDOMAIN/);
    const missing = await knsupdate([
      'prereq yxdomain nothing.upd-test.example.',
      'update add nothing.upd-test.example. 120 A 192.0.2.30',
    ]);
    expect(missing.output).toMatch(/NXDOMAIN/);
    const del = await knsupdate(['prereq yxrrset k.upd-test.example. MX', 'update delete k.upd-test.example. MX']);
    expect(del.output).not.toMatch(/error|failed/i);
    expect(await served(`k.${zone}`, 'MX', [])).toEqual([]);
  });

  it('a limited key changes only its names and types; outside the zone, bad keys and unsigned updates are refused', async () => {
    const ok = await nsupdate(
      limited,
      'hmac-sha512',
      ['update add _challenge.acme.upd-test.example 60 TXT "token"'],
      true,
    );
    expect(ok).toEqual({ code: 0, output: '' });
    expect(await served(`_challenge.acme.${zone}`, 'TXT', ['"token"'])).toEqual(['"token"']);
    const wrongType = await nsupdate(
      limited,
      'hmac-sha512',
      ['update add x.acme.upd-test.example 60 A 192.0.2.1'],
      true,
    );
    expect(wrongType.output).toMatch(/REFUSED/);
    const atParent = await nsupdate(limited, 'hmac-sha512', ['update add acme.upd-test.example 60 TXT "no"'], true);
    expect(atParent.output).toMatch(/REFUSED/);
    const apexNs = await nsupdate(full, 'hmac-sha256', ['update add upd-test.example 60 NS ns9.example.net.'], true);
    expect(apexNs.output).toMatch(/REFUSED/);
    const outside = await nsupdate(full, 'hmac-sha256', ['update add www.other.example 60 A 192.0.2.1'], true);
    expect(outside.output).toMatch(/NOTZONE|not in zone|outside/i);
    const badSecret = await nsupdate(
      { name: full.name, secret: randomBytes(32).toString('base64') },
      'hmac-sha256',
      ['update add z.upd-test.example 60 A 192.0.2.1'],
      true,
    );
    expect(badSecret.output).toMatch(/BADSIG|NOTAUTH|tsig/i);
    expect(await served(`z.${zone}`, 'A', [])).toEqual([]);
    expect((await app.http.get('/metrics')).text).toMatch(
      /dns_transfer_refused_total\{reason="update_refused"\} [1-9]/,
    );
  });

  it('an unsigned or malformed UPDATE changes nothing', async () => {
    const client = dgram.createSocket('udp4');
    const ask = (msg: Buffer) =>
      new Promise<Buffer>((resolve) => {
        client.once('message', resolve);
        client.send(msg, dnsPort, '127.0.0.1');
      });
    const unsigned = dnsPacket.encode({
      type: 'query',
      id: 9,
      flags: 5 << 11, // opcode UPDATE
      questions: [{ name: zone, type: 'SOA' }],
      authorities: [{ name: `u.${zone}`, type: 'A', ttl: 60, data: '192.0.2.9' }],
    } as unknown as dnsPacket.Packet);
    expect((await ask(unsigned))[3] & 0x0f).toBe(5); // REFUSED
    const truncated = unsigned.subarray(0, unsigned.length - 3);
    expect((await ask(truncated))[3] & 0x0f).toBe(1); // FORMERR
    expect(await served(`u.${zone}`, 'A', [])).toEqual([]);
    // A signed update sent twice within its time window: applied once, the replay REFUSED.
    const signed = signMessage(
      unsigned,
      { name: full.name, algorithm: 'hmac-sha256', secret: Buffer.from(full.secret, 'base64') },
      { nowSeconds: Math.floor(Date.now() / 1000) },
    ).message;
    expect((await ask(signed))[3] & 0x0f).toBe(0);
    expect((await ask(signed))[3] & 0x0f).toBe(5);
    // From another socket too: steering may hand it to the other DNS thread, and the guard is shared.
    const other = dgram.createSocket('udp4');
    const fromOther = await new Promise<Buffer>((resolve) => {
      other.once('message', resolve);
      other.send(signed, dnsPort, '127.0.0.1');
    });
    other.close();
    expect(fromOther[3] & 0x0f).toBe(5);
    expect((await app.http.get('/metrics')).text).toMatch(/dns_transfer_refused_total\{reason="replayed"\} 2/);
    client.close();
    expect(await served(`u.${zone}`, 'A', ['192.0.2.9'])).toEqual(['192.0.2.9']);
  });

  it('prerequisites see the dynamic-DNS hosts in the zone, and their addresses are not the UPDATE’s to change', async () => {
    const { verification } = (await app.http.get(`/zones/${zone}`, owner.token)).body;
    putWorldZone(world, zone, ['ns1.old-provider.net']);
    world.setRRset(zone, '_account-dns-verify', 'TXT', 60, [`"${verification.record_value}"`]);
    expect((await app.http.post(`/zones/${zone}/verify`, undefined, owner.token)).body.status).toBe('verified');
    const host = await app.http.post(
      '/api/domains',
      { fqdn: `router.${zone}`, record_type: 'A', record_ip: '198.51.100.7' },
      owner.token,
    );
    expect(host.status).toBe(201);
    expect(await served(`router.${zone}`, 'A', ['198.51.100.7'])).toEqual(['198.51.100.7']);

    // The host's name is in use, its A RRset exists with its address: a TXT beside it is fine.
    const txt = await nsupdate(full, 'hmac-sha256', [
      `prereq yxrrset router.${zone} A 198.51.100.7`,
      `update add router.${zone} 300 TXT "home router"`,
    ]);
    expect(txt.output).not.toMatch(/status|failed|refused/i);
    expect(await served(`router.${zone}`, 'TXT', ['"home router"'])).toEqual(['"home router"']);
    const free = await nsupdate(full, 'hmac-sha256', [
      `prereq nxdomain router.${zone}`,
      `update add router.${zone} 300 TXT "other"`,
    ]);
    expect(free.output).toMatch(/YXDOMAIN/);
    // Its address belongs to the host (DDNS and the hosts API): REFUSED, nothing changed.
    const address = await nsupdate(full, 'hmac-sha256', [`update add router.${zone} 300 A 192.0.2.99`]);
    expect(address.output).toMatch(/REFUSED/);
    expect(await served(`router.${zone}`, 'A', ['198.51.100.7'])).toEqual(['198.51.100.7']);
  });
});
