/**
 * The service as deployed, for the DNS benchmark: `node dist/apps/server/main.js` with
 * every role, as `npm start` runs it (embedded stores in a throw-away DATA_DIR), and the
 * benchmark zone imported through the API as a user would (register, the elite plan by the operator API, log in,
 * POST /zones with the master file). Answers come from what the projections built, through
 * the DNS thread the service runs.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess, stopProcess } from './processes';
import { BENCH_ZONE, nsdZoneFile } from './zone';
import { deployedSpawn } from '../support/start-command';

const ADMIN_TOKEN = 'dns-bench-admin-token-0123456789';

async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function waitForHttp(base: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('service did not answer /health');
}

/** Starts the service with its DNS role on `dnsPort` and imports the benchmark zone through the API; `extraEnv` on top (e.g. QUERY_LOG=off). */
export async function startDeployedService(
  mainJs: string,
  dnsPort: number,
  extraEnv: NodeJS.ProcessEnv = {},
  options: { dnssec?: boolean } = {},
): Promise<ChildProcess> {
  const httpPort = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'dns-bench-service-')),
    HOST: '127.0.0.1',
    PORT: String(httpPort),
    DNS_HOST: '127.0.0.1',
    DNS_PORT: String(dnsPort),
    ADMIN_TOKEN,
    SECRET_KEY: 'dns-bench-secret-key',
    LOG_REQUESTS: 'false',
    SMTP_PORT: '0',
    ...extraEnv,
  };
  return startWithEnv(mainJs, env, `http://127.0.0.1:${httpPort}`, options);
}

async function startWithEnv(
  mainJs: string,
  env: NodeJS.ProcessEnv,
  base: string,
  options: { dnssec?: boolean } = {},
): Promise<ChildProcess> {
  const deployed = deployedSpawn(mainJs, env);
  const child = startProcess(process.execPath, deployed.args, 'service', deployed.env);
  child.stdout!.resume();
  try {
    await waitForHttp(base, child);
    const user = { username: 'dnsbench', email: 'dnsbench@example.com', password: 'a-long-enough-password' };
    const { id } = await api(base, 'POST', '/auth/register', user);
    // ~13,500 records in one zone: past every plan's per-zone limit but elite's (contract §16).
    await api(base, 'PUT', `/admin/accounts/${id}/subscription`, { plan: 'elite' }, undefined, {
      'x-admin-token': ADMIN_TOKEN,
    });
    const { access_token: token } = await api(base, 'POST', '/auth/login', {
      username: user.username,
      password: user.password,
    });
    const started = Date.now();
    await api(base, 'POST', '/zones', { name: BENCH_ZONE, zone_file: nsdZoneFile() }, token);
    console.log(`service: zone ${BENCH_ZONE} imported through the API in ${Date.now() - started} ms`);
    // DNSSEC (bench:dnssec): signing turned on as a user would; the zone is signed in the DNS thread.
    if (options.dnssec) await api(base, 'PUT', `/zones/${BENCH_ZONE}/dnssec`, { enabled: true }, token);
    return child;
  } catch (e) {
    await stopProcess(child);
    throw e;
  }
}
