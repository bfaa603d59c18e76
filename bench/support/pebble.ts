import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/processes';

export { freePort };

/**
 * Debian's `pebble` (a real ACME server) for the certificate tests and benchmark: a TLS certificate
 * made with openssl for 127.0.0.1, a config JSON in a temp dir, `-dnsserver` at the
 * service's DNS port so DNS-01 is validated against the records the service serves,
 * and `PEBBLE_VA_NOSLEEP=1`. Nonce rejection and authorization reuse are off so every
 * order validates its challenges and counts are exact.
 */
export interface Pebble {
  directoryUrl: string;
  /** PEM file of pebble's HTTPS certificate: what ACME_CA_CERT points at. */
  caCertFile: string;
  /** The CA's root (from the management API) that issued certificates chain to. */
  root(): Promise<string>;
  /** `Valid` or `Revoked`, from the management API. */
  certStatus(serialHex: string): Promise<string>;
  /** Orders pebble has created since it started (from its log). */
  orderCount(): number;
  output(): string;
  stop(): Promise<void>;
}

export async function startPebble(dnsPort: number, env: Record<string, string> = {}): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'pebble-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  const [port, mgmt, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const config = join(dir, 'pebble-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${mgmt}`,
        certificate: cert,
        privateKey: key,
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  let out = '';
  const child: ChildProcess = spawn('pebble', ['-config', config, '-dnsserver', `127.0.0.1:${dnsPort}`], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const agent = new Agent({ ca: readFileSync(cert) });
  const get = (path: string) => httpsGet(`https://127.0.0.1:${mgmt}${path}`, agent);
  const deadline = Date.now() + 15_000;
  while (!out.includes('ACME directory available')) {
    if (child.exitCode !== null) throw new Error(`pebble exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`pebble did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    directoryUrl: `https://127.0.0.1:${port}/dir`,
    caCertFile: cert,
    root: async () => (await get('/roots/0')).body,
    certStatus: async (serial) => JSON.parse((await get(`/cert-status-by-serial/${serial}`)).body).Status,
    orderCount: () => (out.match(/Added order "/g) ?? []).length,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}

function httpsGet(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * `pebble-challtestsrv` as the world's DNS for zone verification (VERIFY_RESOLVER): the
 * test publishes the verification TXT record through its management API.
 */
export interface ChallTestSrv {
  resolver: string;
  setTxt(name: string, value: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startChallTestSrv(): Promise<ChallTestSrv> {
  const [dnsPort, mgmt] = [await freePort(), await freePort()];
  let out = '';
  const child = spawn(
    'pebble-challtestsrv',
    [
      '-dns01',
      `127.0.0.1:${dnsPort}`,
      '-management',
      `127.0.0.1:${mgmt}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const post = (path: string, body: unknown) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: mgmt, path, method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pebble-challtestsrv exited: ${out}`);
    const ok = await post('/clear-txt', { host: 'probe.invalid.' }).then(
      (s) => s === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`pebble-challtestsrv did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    resolver: `127.0.0.1:${dnsPort}`,
    async setTxt(name, value) {
      const status = await post('/set-txt', { host: name.endsWith('.') ? name : `${name}.`, value });
      if (status !== 200) throw new Error(`set-txt answered ${status}`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
