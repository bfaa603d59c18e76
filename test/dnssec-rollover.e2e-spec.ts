import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnssecProcess } from '../libs/dnssec/application/dnssec.process';
import { ManualClock } from '../libs/shared/clock';
import { freePort, startServerProcess } from './support/server-process';
import { startSignedParent, type SignedParent } from './support/signed-parent';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { startUnbound, type Unbound } from './support/validators';

const ZONE = 'example.test';
const ZONE_FILE = `$ORIGIN example.test.\n$TTL 300\nwww IN A 192.0.2.80\nmail IN A 192.0.2.25\n`;
const run = promisify(execFile);
const digDnssec = async (port: number, name: string, type: string) =>
  (
    await run('dig', ['@127.0.0.1', '-p', String(port), '+dnssec', '+norec', '+time=2', '+tries=1', name, type], {
      encoding: 'utf8',
    })
  ).stdout;

async function until<T>(ms: number, what: string, check: () => Promise<T | false | null | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rrsigExpiration = (dig: string): string | undefined => /RRSIG\s+A \d+ \d+ \d+ (\d{14})/.exec(dig)?.[1];

describe('DNSSEC signature refresh (fast clock)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let dnsPort: number;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    dnsPort = await freePort();
    app = await startTestApp({ clock, env: { DNS_PORT: String(dnsPort) } });
  });
  afterAll(() => app.close());

  it('re-signs a week before expiry, on the process manager, and the new signatures are served', async () => {
    const owner = await registerAndLogin(app.http);
    expect((await app.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, owner.token)).status).toBe(201);
    expect((await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token)).status).toBe(200);
    const first = await until(1000, 'signed answer', async () =>
      rrsigExpiration(await digDnssec(dnsPort, `www.${ZONE}`, 'A')),
    );
    const process = app.running.app.get(DnssecProcess);
    clock.advance(6 * 86400_000);
    await process.runDue();
    expect(rrsigExpiration(await digDnssec(dnsPort, `www.${ZONE}`, 'A'))).toBe(first);
    clock.advance(86400_000 + 1000);
    await process.runDue();
    const second = await until(1000, 'refreshed signatures', async () => {
      const exp = rrsigExpiration(await digDnssec(dnsPort, `www.${ZONE}`, 'A'));
      return exp !== first && exp;
    });
    // 14 days from the refresh, 7 days later than the first window.
    const days =
      (Date.parse(second.replace(/(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6Z')) -
        Date.parse(first.replace(/(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6Z'))) /
      86400_000;
    expect(Math.round(days)).toBe(7);
  });
});

describe('DNSSEC rollover end to end (short waits), watched by unbound', () => {
  let app: TestApp;
  let parent: SignedParent;
  let unbound: Unbound;
  let dnsPort: number;

  beforeAll(async () => {
    parent = await startSignedParent(ZONE);
    dnsPort = await freePort();
    app = await startTestApp({
      env: {
        DNS_PORT: String(dnsPort),
        VERIFY_RESOLVER: `127.0.0.1:${parent.port}`,
        DNSSEC_PUBLISH_WAIT_SECONDS: '2',
        DNSSEC_RETIRE_WAIT_SECONDS: '2',
        DNSSEC_DS_CHECK_SECONDS: '1',
        DNSSEC_TIMER_POLL_MS: '100',
      },
    });
  });
  afterAll(async () => {
    await unbound?.stop();
    await app.close();
    await parent.stop();
  });

  it('rolls the CSK with CDS/CDNSKEY at the right times, and unbound validates at every instant', async () => {
    const owner = await registerAndLogin(app.http);
    expect((await app.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, owner.token)).status).toBe(201);
    const on = await app.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token);
    const [oldTag] = on.body.keys.map((k: { key_tag: number }) => k.key_tag);
    parent.setChildDs(on.body.ds);
    await until(1000, 'signed zone', async () => /RRSIG\s+DNSKEY/.test(await digDnssec(dnsPort, ZONE, 'DNSKEY')));
    unbound = await startUnbound(dnsPort, ZONE, parent.anchor, [{ zone: 'test', port: parent.port }]);
    expect((await unbound.query(`www.${ZONE}`, 'A')).flags).toContain('ad');

    // Watch continuously: every answer through unbound must validate, and note when CDS is served.
    const failures: string[] = [];
    const cdsSeen: Array<{ at: number; tags: string[] }> = [];
    let checks = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const answer = await unbound.query(`www.${ZONE}`, 'A');
        checks++;
        if (answer.status !== 'NOERROR' || !answer.flags.includes('ad')) failures.push(answer.output);
        const cds = await digDnssec(dnsPort, ZONE, 'CDS');
        cdsSeen.push({ at: Date.now(), tags: [...cds.matchAll(/\sCDS\s+(\d+) 13 2/g)].map((m) => m[1]) });
      }
    })();

    const started = Date.now();
    const rolling = await app.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, owner.token);
    expect([rolling.status, rolling.body.state]).toEqual([202, 'rolling']);
    const newTag = rolling.body.keys.find((k: { state: string }) => k.state === 'published').key_tag;
    // No CDS while the new key is only published; after the publish wait the new key signs and CDS asks for its DS.
    const active = await until(6000, 'new key active', async () => {
      const view = (await app.http.get(`/zones/${ZONE}/dnssec`, owner.token)).body;
      return view.cds_published && view;
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(active.keys.map((k: { key_tag: number; state: string }) => [k.key_tag, k.state])).toEqual([
      [oldTag, 'active'],
      [newTag, 'active'],
    ]);
    await until(1000, 'CDS for the new key', async () => cdsSeen.some((c) => c.tags.includes(String(newTag))));
    expect(cdsSeen.filter((c) => c.at < started + 1900).every((c) => c.tags.length === 0)).toBe(true);

    // The registrar acts on the CDS (or the user copies the new DS): the parent's DS names the new key only.
    parent.setChildDs(active.ds);
    const done = await until(8000, 'rollover completed', async () => {
      const view = (await app.http.get(`/zones/${ZONE}/dnssec`, owner.token)).body;
      return view.state === 'signed' && view;
    });
    expect(done.keys.map((k: { key_tag: number; state: string }) => [k.key_tag, k.state])).toEqual([
      [oldTag, 'removed'],
      [newTag, 'active'],
    ]);
    expect(done.cds_published).toBe(false);
    await until(
      1000,
      'old DNSKEY gone',
      async () => (await digDnssec(dnsPort, ZONE, 'DNSKEY')).match(/\sDNSKEY\s+257/g)?.length === 1,
    );
    await new Promise((r) => setTimeout(r, 500));
    watching = false;
    await watcher;
    expect(cdsSeen[cdsSeen.length - 1].tags).toEqual([]);
    expect(failures).toEqual([]);
    // Sampled through every phase (each sample is two dig runs; fewer on a loaded machine).
    expect(checks).toBeGreaterThan(5);
  });
});

describe('DNSSEC rollover resumes after kill -9', () => {
  let parent: SignedParent;
  const dataDir = mkdtempSync(join(tmpdir(), 'adns-dnssec-kill-'));
  afterAll(async () => {
    await parent?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('picks the rollover up at the step it was in', async () => {
    parent = await startSignedParent(ZONE);
    const dnsPort = await freePort();
    const env = {
      DNS_PORT: String(dnsPort),
      VERIFY_RESOLVER: `127.0.0.1:${parent.port}`,
      DNSSEC_PUBLISH_WAIT_SECONDS: '3',
      DNSSEC_RETIRE_WAIT_SECONDS: '1',
      DNSSEC_DS_CHECK_SECONDS: '1',
      DNSSEC_TIMER_POLL_MS: '100',
      SECRET_KEY: 'kill-test-secret',
      LEASE_TTL_MS: '1000',
    };
    let server = await startServerProcess(dataDir, env);
    const owner = await registerAndLogin(server.http);
    expect((await server.http.post('/zones', { name: ZONE, zone_file: ZONE_FILE }, owner.token)).status).toBe(201);
    const on = await server.http.put(`/zones/${ZONE}/dnssec`, { enabled: true }, owner.token);
    parent.setChildDs(on.body.ds);
    expect((await server.http.post(`/zones/${ZONE}/dnssec/rollover`, undefined, owner.token)).status).toBe(202);
    await server.kill('SIGKILL');

    server = await startServerProcess(dataDir, env);
    try {
      const login = await server.http.post('/auth/login', { username: owner.username, password: owner.password });
      const token = login.body.access_token;
      const active = await until(10000, 'new key active after restart', async () => {
        const view = (await server.http.get(`/zones/${ZONE}/dnssec`, token)).body;
        return view.cds_published && view;
      });
      expect(active.state).toBe('rolling');
      // The restarted DNS role replayed the history and serves the zone signed by both keys.
      await until(
        5000,
        'signed answers after restart',
        async () => ((await digDnssec(dnsPort, `www.${ZONE}`, 'A')).match(/\sRRSIG\s+A /g) ?? []).length === 2,
      );
      await server.kill('SIGKILL');
      parent.setChildDs(active.ds);
      server = await startServerProcess(dataDir, env);
      const token2 = (await server.http.post('/auth/login', { username: owner.username, password: owner.password }))
        .body.access_token;
      const done = await until(10000, 'rollover completed after restart', async () => {
        const view = (await server.http.get(`/zones/${ZONE}/dnssec`, token2)).body;
        return view.state === 'signed' && view;
      });
      expect(done.keys.map((k: { state: string }) => k.state)).toEqual(['removed', 'active']);
    } finally {
      await server.kill();
    }
  });
});
