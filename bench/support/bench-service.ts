/**
 * The compiled service as its own process, run as `npm start` runs it (all roles, embedded
 * stores in a throw-away DATA_DIR, loopback ports), for benches that measure it through its
 * public API; and the Elite account they set up the way a user and the operator would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/processes';
import { deployedSpawn, localServiceEnv } from './start-command';

/** The operator token every bench service is started with (`x-admin-token`). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** `dist/apps/server/main.js` of this build (benches run from dist/bench/…). */
export const BUILT_MAIN = join(__dirname, '..', '..', 'apps', 'server', 'main.js');

export interface BenchService {
  child: ChildProcess;
  port: number;
  base: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts the service (`extraEnv` on top of the local settings) and answers once /health is 200. */
export async function startBenchService(name: string, extraEnv: Record<string, string> = {}): Promise<BenchService> {
  if (!existsSync(BUILT_MAIN)) throw new Error('run `npm run build` first');
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-bench-`));
  const [port, dnsPort] = [await freePort(), await freePort()];
  const deployed = deployedSpawn(BUILT_MAIN, {
    ...localServiceEnv(dataDir, port, dnsPort),
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    LOG_REQUESTS: 'false',
    ...extraEnv,
  });
  const child = spawn(process.execPath, deployed.args, { env: deployed.env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    const status = await fetch(`${base}/health`).then(
      (r) => r.arrayBuffer().then(() => r.status),
      () => 0,
    );
    if (status === 200) return { child, port, base, dataDir, stop };
    if (child.exitCode !== null || i > 600) {
      await stop();
      throw new Error(`${name} bench: the service did not start`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function json(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Registers `username`, puts it on Elite through the operator API (contract §15) and logs in: its id and token. */
export async function eliteAccount(base: string, username: string): Promise<{ id: number; token: string }> {
  const user = { username, email: `${username}@example.com`, password: 'a-long-enough-password' };
  const { id } = (await json(base, 'POST', '/auth/register', user)) as { id: number };
  await json(
    base,
    'PUT',
    `/admin/accounts/${id}/subscription`,
    { plan: 'elite' },
    { 'x-admin-token': BENCH_ADMIN_TOKEN },
  );
  const login = (await json(base, 'POST', '/auth/login', { username, password: user.password })) as {
    access_token: string;
  };
  return { id, token: login.access_token };
}

/** Nearest-rank percentile of an ascending list. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
