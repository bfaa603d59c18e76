import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../bench/dns/processes';
import { ADMIN_TOKEN, HttpClient } from './http-client';

const ROOT = join(__dirname, '..', '..');
export const SERVER_MAIN = join(ROOT, 'dist', 'apps', 'server', 'main.js');
export const CLI_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'main.js');

/** A loopback port free for both UDP and TCP (a DNS port needs both). */
export { freePort };

export interface ServerProcess {
  url: string;
  port: number;
  http: HttpClient;
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs the compiled service (`npm run build` output) as its own process, as `npm start` does.
 * A port found free can be taken by another test process before the service binds it: that
 * start is tried again on other ports (a few times), since it says nothing about the service.
 */
export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(dataDir, env);
    } catch (e) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(e))) throw e;
    }
  }
}

async function startOnFreePorts(dataDir: string, env: Record<string, string>): Promise<ServerProcess> {
  if (!existsSync(SERVER_MAIN))
    throw new Error(`${SERVER_MAIN} is missing: run \`npm run build\` first (npm test does)`);
  const port = await freePort();
  const dnsPort = await freePort();
  let out = '';
  const child = spawn(process.execPath, [SERVER_MAIN], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DNS_PORT: String(dnsPort),
      SMTP_PORT: '0',
      ADMIN_TOKEN,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const http = new HttpClient(url);
  const deadline = Date.now() + 30_000;
  // A process without the api role serves no HTTP: its start is the "service started" log line.
  const serves = env.ROLES === undefined || env.ROLES.split(',').includes('api');
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out}`);
    try {
      if (serves ? (await http.get('/health')).status === 200 : out.includes('"service started"')) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    http,
    child,
    output: () => out,
    kill: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

export async function runCli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI_MAIN, ...args], {
      env: { ...process.env, ADMIN_URL: url, ADMIN_TOKEN },
    });
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
