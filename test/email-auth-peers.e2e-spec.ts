import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { ManualClock } from '../libs/shared/clock';
import { AggregateReportSender, enrolZone, startWorld } from './support/email-auth';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/**
 * Real receivers read what the service publishes, through its DNS server:
 * `opendkim-testkey` (opendkim-tools), `spfquery` (spf-tools-perl, Mail::SPF) and
 * `dmarc-lookup` (go-msgauth). The last two resolve through /etc/resolv.conf on port 53
 * only, so the service's DNS server listens on port 53 of a random 127/8 address and
 * each tool runs in its own mount namespace (`unshare -m`, root) where resolv.conf names
 * that address; the host's resolv.conf is untouched. opendkim's libunbound takes a
 * forwarder with a port (`Nameservers addr@port`) from its own config file.
 * Zone names avoid `.test`: unbound answers that TLD locally (RFC 6761) without asking.
 */
const ZONE = 'peer-mail-example.net';
const START = new Date('2026-05-01T10:00:00Z');
const nightOf = (n: number) => new Date(Date.UTC(2026, 4, 1 + n, 2, 0, 0));

interface Run {
  code: number;
  out: string;
}

function run(cmd: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : -1
        : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

describe('real peers read the published records (opendkim-testkey, spfquery, dmarc-lookup)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let stats: AggregateReportSender;
  let world: ZoneIndex;
  let worldServer: DnsServer;
  let owner: { id: number; token: string; username: string; password: string };
  let dir: string;
  let dnsHost: string;
  let resolvConf: string;

  /** Runs a resolver-using tool with /etc/resolv.conf pointing at the service's DNS server. */
  const withResolver = (cmd: string, args: string[]) =>
    run('unshare', ['-m', 'sh', '-c', 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf, cmd, ...args]);

  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error('these tests run the peers in a mount namespace and bind port 53: run them as root');
    dir = mkdtempSync(join(tmpdir(), 'ea-peers-'));
    dnsHost = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
    resolvConf = join(dir, 'resolv.conf');
    writeFileSync(resolvConf, `nameserver ${dnsHost}\noptions timeout:2 attempts:2\n`);
    const w = await startWorld();
    world = w.world;
    worldServer = w.server;
    clock = new ManualClock(START);
    app = await startTestApp({
      clock,
      env: { DNS_HOST: dnsHost, DNS_PORT: '53', VERIFY_RESOLVER: `127.0.0.1:${w.port}` },
    });
    stats = new AggregateReportSender(app.url);
    owner = await registerAndLogin(app.http);
    await enrolZone(app.http, world, owner, ZONE);
  });
  afterAll(async () => {
    await app?.close();
    await worldServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opendkim-testkey accepts a generated RSA 2048 key against the published selector', async () => {
    const res = await app.http.put(`/email-auth/domains/${ZONE}/dkim/peer2026`, { generate: true }, owner.token);
    expect(res.status).toBe(200);
    const keyFile = join(dir, 'peer2026.pem');
    writeFileSync(keyFile, res.body.generated_key.private_key, { mode: 0o600 });
    const conf = join(dir, 'opendkim.conf');
    writeFileSync(conf, `Nameservers ${dnsHost}@53\n`);
    const result = await run('opendkim-testkey', ['-x', conf, '-d', ZONE, '-s', 'peer2026', '-k', keyFile, '-vvv']);
    expect(result.out).toMatch(/key OK/);
    expect(result.code).toBe(0);
    // A key that is not the published one is refused by the same tool.
    const other = join(dir, 'other.pem');
    const { generateKeyPairSync } = await import('node:crypto');
    writeFileSync(
      other,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
    const mismatch = await run('opendkim-testkey', ['-x', conf, '-d', ZONE, '-s', 'peer2026', '-k', other, '-vvv']);
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.out).toMatch(/keys do not match/);
  });

  it('spfquery passes an allowed IP and fails a forbidden one with the generated SPF record', async () => {
    const res = await app.http.put(
      `/email-auth/domains/${ZONE}/spf`,
      { ip4: ['192.0.2.0/24'], ip6: ['2001:db8:25::/48'], all: '-all' },
      owner.token,
    );
    expect(res.status).toBe(200);
    const allowed = await withResolver('spfquery', [
      '--scope',
      'mfrom',
      '--id',
      `bounce@${ZONE}`,
      '--ip',
      '192.0.2.25',
    ]);
    expect(allowed.out.split('\n')[0]).toBe('pass');
    const allowed6 = await withResolver('spfquery', [
      '--scope',
      'mfrom',
      '--id',
      `bounce@${ZONE}`,
      '--ip',
      '2001:db8:25::7',
    ]);
    expect(allowed6.out.split('\n')[0]).toBe('pass');
    const forbidden = await withResolver('spfquery', [
      '--scope',
      'mfrom',
      '--id',
      `bounce@${ZONE}`,
      '--ip',
      '203.0.113.9',
    ]);
    expect(forbidden.out.split('\n')[0]).toBe('fail');
    expect(forbidden.out).toMatch(/mechanism '-all' matched/);
  });

  it('dmarc-lookup parses the _dmarc record at every wizard stage', async () => {
    const rua = `mailto:dmarc-rua@${ZONE}`;
    expect(
      (await app.http.put(`/email-auth/domains/${ZONE}/dmarc`, { policy: 'none', rua: [rua] }, owner.token)).status,
    ).toBe(200);
    expect((await app.http.get(`/email-auth/dmarc/wizard/${ZONE}`, owner.token)).body.current_stage).toBe('monitoring');

    const lookup = async (policy: string, partial: boolean) => {
      const result = await withResolver('dmarc-lookup', [ZONE]);
      expect(result.code).toBe(0);
      expect(result.out).toContain(`Policy:"${policy}"`);
      expect(result.out).toContain(`ReportURIAggregate:[]string{"${rua}"}`);
      // go-msgauth keeps pct as a pointer: set at partial stages, absent (nil) at full ones.
      if (partial) expect(result.out).toMatch(/Percent:\(\*int\)\(0x[0-9a-f]+\)/);
      else expect(result.out).toContain('Percent:(*int)(nil)');
    };
    await lookup('none', false);

    let night = 0;
    const stages: Array<[string, string, boolean, number]> = [
      ['quarantine_partial', 'quarantine', true, 14],
      ['quarantine_full', 'quarantine', false, 7],
      ['reject_partial', 'reject', true, 14],
      ['reject_full', 'reject', false, 7],
    ];
    for (const [stage, policy, partial, days] of stages) {
      for (let i = 0; i < days; i++) {
        night += 1;
        await stats.add(ZONE, new Date(nightOf(night).getTime() - 20 * 3600_000), 100, 100);
        clock.set(nightOf(night));
        expect(
          (await app.http.admin('POST', '/admin/jobs/dmarc-nightly', { now: nightOf(night).toISOString() })).status,
        ).toBe(200);
      }
      const login = await app.http.post('/auth/login', { username: owner.username, password: owner.password });
      owner.token = login.body.access_token;
      const advanced = await app.http.post(`/email-auth/dmarc/wizard/${ZONE}/advance`, { confirm: true }, owner.token);
      expect(advanced.body).toMatchObject({ new_stage: stage, policy });
      const record = partial ? `v=DMARC1; p=${policy}; pct=10; t=y; rua=${rua}` : `v=DMARC1; p=${policy}; rua=${rua}`;
      await waitForDnsAt(dnsHost, `_dmarc.${ZONE}`, record);
      await lookup(policy, partial);
    }
  });
});

/** Polls with dig until the record is served (the support client speaks to 127.0.0.1 only). */
async function waitForDnsAt(host: string, name: string, value: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const r = await run('dig', ['+short', `@${host}`, '-p', '53', name, 'TXT']);
    const text = r.out.trim().replace(/" "/g, '').replace(/^"|"$/g, '');
    if (text === value) return;
    if (Date.now() - started > 1000) throw new Error(`${name}: expected ${value}, saw ${text}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
