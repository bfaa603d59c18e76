import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitForDns } from './support/dns-client';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);

/**
 * The real Debian clients (ddclient 3.10, inadyn 2.10, installed by scripts/test-setup.sh)
 * with the configurations of ddns.md, against the real app; the new addresses are then
 * read back over DNS.
 */
describe('real DDNS clients', () => {
  let app: TestApp;
  let dnsPort: number;
  let work: string;
  let account: { username: string; token: string };
  let key: string;
  let server: string;

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net' } });
    server = app.url.replace('http://', '');
    work = mkdtempSync(join(tmpdir(), 'ddns-clients-'));
    account = await registerAndLogin(app.http, { plan: 'pro' });
    key = (await app.http.post('/api-keys', { name: 'clients' }, account.token)).body.key;
    for (const fqdn of ['myhost.dyn.example.net', 'other.dyn.example.net', 'inadyn.dyn.example.net']) {
      expect(
        (await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.1' }, account.token)).status,
      ).toBe(201);
    }
  });
  afterAll(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('ddclient updates two hosts through /domains/nic/update', async () => {
    const conf = join(work, 'ddclient.conf');
    writeFileSync(
      conf,
      [
        'use=no',
        'usev4=ipv4, ipv4=1.2.3.4',
        'daemon=0',
        'ssl=no',
        'protocol=dyndns2',
        `server=${server}`,
        'script=/domains/nic/update',
        `login=${account.username}`,
        `password=${key}`,
        'myhost.dyn.example.net,other.dyn.example.net',
        '',
      ].join('\n'),
    );
    chmodSync(conf, 0o600);
    const { stdout, stderr } = await run(
      'ddclient',
      ['-daemon=0', '-debug', '-verbose', '-noquiet', '-force', '-file', conf, '-cache', join(work, 'cache')],
      {
        timeout: 30_000,
      },
    );
    const output = stdout + stderr;
    expect(output).toMatch(/SUCCESS:\s+updating myhost\.dyn\.example\.net/);
    expect(output).toMatch(/SUCCESS:\s+updating other\.dyn\.example\.net/);
    await waitForDns(dnsPort, 'myhost.dyn.example.net', 'A', ['1.2.3.4']);
    await waitForDns(dnsPort, 'other.dyn.example.net', 'A', ['1.2.3.4']);
  });

  it('inadyn updates a host through its custom provider (HTTP/1.0, URL template)', async () => {
    const conf = join(work, 'inadyn.conf');
    writeFileSync(
      conf,
      [
        'allow-ipv6 = true',
        'custom local {',
        '    ssl = false',
        `    username = ${account.username}`,
        `    password = ${key}`,
        '    checkip-command = "/bin/echo 1.2.3.5"',
        `    ddns-server = ${server}`,
        '    ddns-path = "/domains/nic/update?hostname=%h&myip=%i"',
        '    ddns-response = { good, nochg }',
        '    hostname = { inadyn.dyn.example.net }',
        '}',
        '',
      ].join('\n'),
    );
    chmodSync(conf, 0o600);
    // inadyn waits 600 s after a 5xx even with -1: `timeout` bounds it.
    const { stdout, stderr } = await run(
      'timeout',
      [
        '60',
        'inadyn',
        '-1',
        '-n',
        '--no-pidfile',
        '--force',
        '-l',
        'debug',
        '-f',
        conf,
        '--cache-dir',
        join(work, 'icache'),
      ],
      {
        timeout: 70_000,
      },
    ).catch((e: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`inadyn failed (${e.code}): ${e.stdout}\n${e.stderr}`);
    });
    expect(stdout + stderr).toMatch(/Successful alias table update|Updating cache|successful/i);
    await waitForDns(dnsPort, 'inadyn.dyn.example.net', 'A', ['1.2.3.5']);
  });
});
