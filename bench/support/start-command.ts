/**
 * How `npm start` runs the service, read from package.json's `start` script so benchmarks
 * that claim to measure the service as deployed run it with the same process settings:
 * leading `NAME=value` words (or `NAME=${NAME:-value}`) are environment (e.g. glibc's
 * MALLOC_ARENA_MAX, read only at process start), `--flags` between `node` and the script are node/V8 flags (e.g. the
 * young-generation size, fixed when the heap is set up).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface StartCommand {
  env: Record<string, string>;
  nodeArgs: string[];
}

/** The repository root: the nearest directory above this file holding package.json (from `bench/` or `dist/bench/`). */
function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export function startCommand(root = repositoryRoot()): StartCommand {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]); i++) {
    const eq = words[i].indexOf('=');
    const name = words[i].slice(0, eq);
    // `${NAME:-default}`: the caller's value when set, as the shell does.
    const value = words[i]
      .slice(eq + 1)
      .replace(/^\$\{([A-Z_][A-Z0-9_]*):-(.*)\}$/, (_, v: string, fallback: string) => process.env[v] || fallback);
    env[name] = value;
  }
  if (words[i] !== 'node')
    throw new Error(`package.json start script is not "[ENV=…] node [flags] <script>": ${script}`);
  const nodeArgs: string[] = [];
  for (i++; i < words.length && words[i].startsWith('-'); i++) nodeArgs.push(words[i]);
  return { env, nodeArgs };
}

/** The repository a built `dist/apps/server/main.js` belongs to (three directories up), when it has a package.json. */
export function buildRoot(mainJs: string): string | undefined {
  const root = join(dirname(mainJs), '..', '..', '..');
  return existsSync(join(root, 'package.json')) ? root : undefined;
}

/**
 * Arguments and environment of a service process as `npm start` runs it, with a bench's own
 * settings on top. `root`: whose `start` script to follow (another build measured as a
 * baseline runs as its own package.json started it); this repository's when omitted.
 */
export function deployedSpawn(
  mainJs: string,
  env: NodeJS.ProcessEnv,
  extraNodeArgs: readonly string[] = [],
  root?: string,
): { args: string[]; env: NodeJS.ProcessEnv } {
  const deployed = startCommand(root);
  return { args: [...deployed.nodeArgs, ...extraNodeArgs, mainJs], env: { ...deployed.env, ...process.env, ...env } };
}

/** Where a bench's service keeps its data and listens: everything on loopback, report mail off unless a port is given. */
export const localServiceEnv = (
  dataDir: string,
  port: number,
  dnsPort: number,
  smtpPort = 0,
): Record<string, string> => ({
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  DNS_PORT: String(dnsPort),
  SMTP_PORT: String(smtpPort),
  // Uptime targets and DDNS addresses in benches are loopback listeners and 10.x addresses (contract §16 refuses them by default).
  ALLOW_PRIVATE_TARGETS: 'true',
});
