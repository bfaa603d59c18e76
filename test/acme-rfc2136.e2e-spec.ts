/**
 * ACME DNS-01 through RFC 2136 (contract §18, issue 25): lego's `--dns rfc2136` and
 * certbot's dns-rfc2136 plugin (Debian packages) publish the challenge TXT record with a
 * TSIG update key, and Debian's pebble validates it against the service's DNS server.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pebble, startPebble } from './support/pebble';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(180_000);
const run = promisify(execFile);

describe('ACME certificates through RFC 2136 updates: lego and certbot with pebble (§18)', () => {
  const zone = 'acme2136.example';
  let app: TestApp;
  let pebble: Pebble;
  let dnsPort: number;
  let dir: string;
  let key: { name: string; secret: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adns-acme2136-'));
    dnsPort = await freePort();
    pebble = await startPebble(dnsPort);
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DDNS_ZONES: 'dyn.example.net' } });
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/zones', { name: zone }, owner.token)).status).toBe(201);
    // Limited to the challenge records, as a CA client key should be.
    const created = await app.http.post(
      '/tsig-keys',
      {
        name: 'acme-client.example',
        purpose: 'update',
        zones: [zone],
        allow: [
          { name: '_acme-challenge', types: ['TXT'] },
          { name: '_acme-challenge.www', types: ['TXT'] },
        ],
      },
      owner.token,
    );
    expect(created.status).toBe(201);
    key = { name: 'acme-client.example', secret: created.body.secret };
  });
  afterAll(async () => {
    await app?.close();
    await pebble?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const certificateFor = (pem: string) => new X509Certificate(pem);

  it('lego --dns rfc2136 obtains a certificate', async () => {
    const path = join(dir, 'lego');
    const { stdout, stderr } = await run(
      'lego',
      [
        '--accept-tos',
        '--email',
        'admin@acme2136.example',
        '--server',
        pebble.directoryUrl,
        '--dns',
        'rfc2136',
        '--dns.resolvers',
        `127.0.0.1:${dnsPort}`,
        '--dns.disable-cp',
        '--domains',
        zone,
        '--path',
        path,
        'run',
      ],
      {
        env: {
          ...process.env,
          LEGO_CA_CERTIFICATES: pebble.caCertFile,
          RFC2136_NAMESERVER: `127.0.0.1:${dnsPort}`,
          RFC2136_TSIG_ALGORITHM: 'hmac-sha256.',
          RFC2136_TSIG_KEY: `${key.name}.`,
          RFC2136_TSIG_SECRET: key.secret,
          RFC2136_PROPAGATION_TIMEOUT: '20',
          RFC2136_POLLING_INTERVAL: '1',
        },
      },
    ).catch((e: { stdout: string; stderr: string }) => e);
    const certs = readdirSync(join(path, 'certificates')).filter(
      (f) => f.endsWith('.crt') && !f.endsWith('.issuer.crt'),
    );
    expect({ certs, log: certs.length ? '' : stdout + stderr }).toEqual({ certs: [`${zone}.crt`], log: '' });
    expect(certificateFor(readFileSync(join(path, 'certificates', `${zone}.crt`), 'utf8')).subjectAltName).toContain(
      `DNS:${zone}`,
    );
  });

  it('certbot with the dns-rfc2136 plugin obtains a certificate', async () => {
    const base = join(dir, 'certbot');
    const credentials = join(dir, 'rfc2136.ini');
    writeFileSync(
      credentials,
      [
        `dns_rfc2136_server = 127.0.0.1`,
        `dns_rfc2136_port = ${dnsPort}`,
        `dns_rfc2136_name = ${key.name}`,
        `dns_rfc2136_secret = ${key.secret}`,
        'dns_rfc2136_algorithm = HMAC-SHA256',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const domain = `www.${zone}`;
    const { stdout, stderr } = await run(
      'certbot',
      [
        'certonly',
        '--non-interactive',
        '--agree-tos',
        '-m',
        'admin@acme2136.example',
        '--server',
        pebble.directoryUrl,
        '--dns-rfc2136',
        '--dns-rfc2136-credentials',
        credentials,
        '--dns-rfc2136-propagation-seconds',
        '1',
        '--config-dir',
        join(base, 'config'),
        '--work-dir',
        join(base, 'work'),
        '--logs-dir',
        join(base, 'logs'),
        '-d',
        domain,
      ],
      { env: { ...process.env, REQUESTS_CA_BUNDLE: pebble.caCertFile } },
    ).catch((e: { stdout: string; stderr: string }) => e);
    let pem = '';
    try {
      pem = readFileSync(join(base, 'config', 'live', domain, 'cert.pem'), 'utf8');
    } catch {
      /* asserted below with the output */
    }
    expect({ issued: pem !== '', log: pem ? '' : stdout + stderr }).toEqual({ issued: true, log: '' });
    expect(certificateFor(pem).subjectAltName).toContain(`DNS:${domain}`);
  });
});
