/**
 * Drives the clocked service (bench/soak/clocked-service.ts) the way the soak does: start it
 * as `npm start` runs the app, set up accounts and DDNS hosts through the API, send a day's
 * DDNS updates. Shared by the soak and the history-growth bench so both load the service
 * with the same requests.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../dns/processes';
import { startCommand } from '../support/start-command';

export const ADMIN_TOKEN = 'soak-admin-token-0123456789';

export interface Account {
  id: number;
  session: string;
  key: string;
}

export interface Host {
  fqdn: string;
  account: Account;
  id: number;
}

export async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text.startsWith('{') ? JSON.parse(text) : text;
}

export async function pool<T>(
  items: T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/** Sends an IPC message to the service and resolves with its reply of type `reply`. */
export function request(child: ChildProcess, message: object, reply: string): Promise<any> {
  return new Promise((resolve) => {
    const on = (m: { op: string }) => {
      if (m.op !== reply) return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send(message);
  });
}

export const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] : NaN);

export interface ClockedService {
  child: ChildProcess;
  base: string;
}

/**
 * Forks the clocked service on `dataDir` with the node flags and environment of `npm start`
 * and resolves once it listens. `checkPort`: where uptime checks connect.
 */
export async function startClockedService(
  dataDir: string,
  checkPort: number,
  extraNodeFlags: string[] = [],
  stdout: 'ignore' | 'inherit' = 'ignore',
  /** Another build's clocked-service.js (a bench comparing builds side by side); default this build's. */
  script = join(__dirname, 'clocked-service.js'),
): Promise<ClockedService> {
  const httpPort = await freePort();
  const deployed = startCommand();
  const child = fork(script, [], {
    execArgv: ['--expose-gc', ...deployed.nodeArgs, ...extraNodeFlags],
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
    env: {
      ...deployed.env,
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(httpPort),
      DNS_PORT: String(await freePort()),
      ADMIN_TOKEN,
      SECRET_KEY: 'soak-secret-key',
      LOG_REQUESTS: 'false',
      SMTP_PORT: '0',
      UPTIME_INTERVAL_SECONDS: '300',
      UPTIME_CHECK_PORTS: String(checkPort),
      UPTIME_TIMEOUT_MS: '1000',
      SESSION_TTL_SECONDS: String(400 * 86_400),
      // The hosts are 127.0.0.1 (checked against a local listener) and DDNS days set 10.x addresses.
      ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
  await new Promise((resolve) => child.once('message', resolve)); // {op:'ready'}
  return { child, base: `http://127.0.0.1:${httpPort}` };
}

/** Registers Elite accounts with a key each, then DDNS hosts spread over them; the first `monitored` are monitored. */
export async function setUpInstallation(
  base: string,
  accountCount: number,
  hostCount: number,
  monitored: number,
): Promise<{ accounts: Account[]; hosts: Host[] }> {
  const accounts: Account[] = [];
  await pool(
    Array.from({ length: accountCount }, (_, i) => i),
    8,
    async (i) => {
      const user = { username: `soak${i}`, email: `soak${i}@example.com`, password: 'a-long-enough-password' };
      const reg = await call(base, 'POST', '/auth/register', {}, user);
      await call(
        base,
        'PUT',
        `/admin/accounts/${reg.id}/subscription`,
        { 'x-admin-token': ADMIN_TOKEN },
        { plan: 'elite' },
      );
      const session = (
        await call(base, 'POST', '/auth/login', {}, { username: user.username, password: user.password })
      ).access_token;
      const key = (await call(base, 'POST', '/api-keys', { authorization: `Bearer ${session}` }, { name: 'soak' })).key;
      accounts[i] = { id: reg.id, session, key };
    },
  );
  const hosts: Host[] = Array.from({ length: hostCount }, (_, i) => ({
    fqdn: `s${i}.dyn.example.net`,
    account: accounts[i % accountCount],
    id: 0,
  }));
  await pool(hosts, 16, async (h, i) => {
    const created = await call(
      base,
      'POST',
      '/api/domains',
      { authorization: `Bearer ${h.account.session}` },
      { fqdn: h.fqdn, record_type: 'A', record_ip: '127.0.0.1' },
    );
    h.id = created.id;
    if (i < monitored)
      await call(
        base,
        'POST',
        `/uptime/domain/${h.id}/monitor`,
        { authorization: `Bearer ${h.account.session}` },
        { enabled: true },
      );
  });
  return { accounts, hosts };
}

/** Day `day`'s address change of every host (dyndns2 with its account's key), `concurrency` in flight; each request's latency in ms. */
export async function ddnsDay(base: string, hosts: Host[], day: number, concurrency = 16): Promise<number[]> {
  const latencies: number[] = [];
  await pool(hosts, concurrency, async (h, i) => {
    const ip = `10.${day}.${(i >> 8) & 255}.${i & 255}`;
    const t = performance.now();
    await call(base, 'GET', `/domains/nic/update?hostname=${h.fqdn}&myip=${ip}`, {
      authorization: `Bearer ${h.account.key}`,
    });
    latencies.push(performance.now() - t);
  });
  return latencies;
}

/** The service's CPU time (all threads) and read counters (/proc/<pid>/io). */
export async function usage(svc: ClockedService): Promise<{ cpuMs: number; syscr: number; rchar: number }> {
  const u = await request(svc.child, { op: 'usage' }, 'usage');
  return { cpuMs: (u.cpu.user + u.cpu.system) / 1000, syscr: u.io.syscr ?? NaN, rchar: u.io.rchar ?? NaN };
}

/** Waits until the service has gone (nearly) idle: projections caught up after a fill. */
export async function untilIdle(svc: ClockedService): Promise<void> {
  for (let last = await usage(svc); ;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await usage(svc);
    if (now.cpuMs - last.cpuMs < 50) return;
    last = now;
  }
}

/** Stops the service as `npm start`'s would stop on SIGTERM (projections checkpointed) and waits for its exit. */
export async function stopService(svc: ClockedService): Promise<void> {
  const exited = new Promise((r) => svc.child.once('exit', r));
  svc.child.send({ op: 'stop' });
  await exited;
}
