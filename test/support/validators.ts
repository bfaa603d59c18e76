/**
 * Real DNSSEC validators against the service's DNS server: BIND's `delv` and a closed
 * `unbound` (trust anchor = the zone's DS, a stub zone to the server, no root hints).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process';

const run = promisify(execFile);

export interface Validated {
  /** delv said "fully validated" (positive or negative). */
  validated: boolean;
  output: string;
}

/** `ds` lines as the API gives them: `zone. 3600 IN DS tag alg 2 HEX`. */
function anchors(ds: string[]): string {
  const lines = ds.map((d) => {
    const [owner, , , , tag, alg, digestType, digest] = d.split(/\s+/);
    return `  ${owner} static-ds ${tag} ${alg} ${digestType} "${digest}";`;
  });
  return `trust-anchors {\n${lines.join('\n')}\n};\n`;
}

export async function delv(port: number, zone: string, ds: string[], name: string, type: string): Promise<Validated> {
  const dir = mkdtempSync(join(tmpdir(), 'delv-'));
  const file = join(dir, 'anchors.conf');
  writeFileSync(file, anchors(ds));
  const { stdout, stderr } = await run(
    'delv',
    ['@127.0.0.1', '-p', String(port), '-a', file, `+root=${zone}`, '+tcp', '+mtrace', name, type],
    { encoding: 'utf8' },
  ).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
  const output = `${stdout}\n${stderr}`;
  return { validated: /fully validated/.test(output), output };
}

export interface Unbound {
  port: number;
  /** `dig +dnssec` through unbound: the status, the header flags (`ad` when validated) and the answer lines. */
  query(name: string, type: string): Promise<{ status: string; flags: string[]; answers: string[]; output: string }>;
  stop(): Promise<void>;
}

/**
 * `ds` are the trust anchors (DS lines, of `zone` or of a parent given in `stubs`); `stubs`
 * are further zones unbound asks at other servers (a signed parent holding the zone's DS).
 */
export async function startUnbound(
  serverPort: number,
  zone: string,
  ds: string[],
  stubs: Array<{ zone: string; port: number }> = [],
): Promise<Unbound> {
  const dir = mkdtempSync(join(tmpdir(), 'unbound-'));
  const port = await freePort();
  const conf = join(dir, 'unbound.conf');
  writeFileSync(
    conf,
    `server:
  interface: 127.0.0.1
  port: ${port}
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "${dir}"
  pidfile: "${dir}/unbound.pid"
  use-syslog: no
  logfile: ""
  verbosity: 1
  val-log-level: 2
  do-not-query-localhost: no
  access-control: 127.0.0.0/8 allow
  module-config: "validator iterator"
  local-zone: "test." nodefault
  cache-max-ttl: 0
  cache-max-negative-ttl: 0
  val-bogus-ttl: 1
  infra-host-ttl: 1
  serve-expired: no
${ds
  .map(
    (d) =>
      `  trust-anchor: "${d
        .split(/\s+/)
        .filter((_, i) => i !== 1)
        .join(' ')}"`,
  )
  .join('\n')}
remote-control:
  control-enable: no
${[{ zone, port: serverPort }, ...stubs].map((s) => `stub-zone:\n  name: "${s.zone}"\n  stub-addr: 127.0.0.1@${s.port}\n`).join('')}`,
  );
  const child: ChildProcess = spawn('unbound', ['-d', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (c) => (log += c));
  child.stderr!.on('data', (c) => (log += c));
  const query = async (name: string, type: string) => {
    const { stdout } = await run(
      'dig',
      ['@127.0.0.1', '-p', String(port), '+dnssec', '+time=3', '+tries=1', name, type],
      { encoding: 'utf8' },
    ).catch((e: { stdout: string }) => ({
      stdout: e.stdout ?? '',
    }));
    const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'NO_ANSWER';
    const flags = (/;; flags: ([a-z ]+);/.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
    const answers =
      stdout
        .split(/;; ANSWER SECTION:\n/)[1]
        ?.split('\n\n')[0]
        .split('\n')
        .filter(Boolean) ?? [];
    return { status, flags, answers, output: `${stdout}\n--- unbound log ---\n${log}` };
  };
  for (let i = 0; i < 50; i++) {
    const probe = await query(zone, 'SOA');
    if (probe.status !== 'NO_ANSWER') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    query,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
