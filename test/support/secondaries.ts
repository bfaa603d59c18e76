/**
 * Real secondary servers for the transfer tests: Debian's NSD and Knot, each on a free
 * loopback port with its own config and state directory, configured to transfer zones
 * from the service with TSIG. Started and stopped by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nsdServerConfig } from '../../bench/dns/nsd-config';

export interface TsigSpec {
  name: string;
  algorithm: 'hmac-sha256' | 'hmac-sha512';
  secret: string;
}

export interface Secondary {
  name: 'nsd' | 'knot';
  port: number;
  dir: string;
  child: ChildProcess;
  /** What the server logged so far (NSD's log file, Knot's stderr). */
  log(): string;
  stop(): Promise<void>;
}

export interface SecondaryZone {
  name: string;
  key: TsigSpec;
}

function started(
  name: Secondary['name'],
  port: number,
  dir: string,
  child: ChildProcess,
  log: () => string,
): Secondary {
  return {
    name,
    port,
    dir,
    child,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** NSD as a secondary of the service at `primaryPort` for `zones`. */
export function startNsdSecondary(dir: string, port: number, primaryPort: number, zones: SecondaryZone[]): Secondary {
  const root = join(dir, 'nsd');
  mkdirSync(root, { recursive: true });
  const keys = [...new Map(zones.map((z) => [z.key.name, z.key])).values()];
  const config = join(root, 'nsd.conf');
  writeFileSync(
    config,
    [
      ...nsdServerConfig(root, port, ['  server-count: 1', '  verbosity: 2', '  minimal-responses: yes']),
      ...keys.flatMap((k) => ['key:', `  name: "${k.name}"`, `  algorithm: ${k.algorithm}`, `  secret: "${k.secret}"`]),
      ...zones.flatMap((z) => [
        'zone:',
        `  name: ${z.name}`,
        `  zonefile: "${z.name}.zone"`,
        `  allow-notify: 127.0.0.1 ${z.key.name}`,
        `  request-xfr: 127.0.0.1@${primaryPort} ${z.key.name}`,
        '  allow-axfr-fallback: yes',
      ]),
      '',
    ].join('\n'),
  );
  const child = spawn('nsd', ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const logFile = join(root, 'nsd.log');
  return started('nsd', port, root, child, () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''));
}

/** Knot DNS as a secondary of the service at `primaryPort` for `zones`. */
export function startKnotSecondary(dir: string, port: number, primaryPort: number, zones: SecondaryZone[]): Secondary {
  const root = join(dir, 'knot');
  mkdirSync(root, { recursive: true });
  const keys = [...new Map(zones.map((z) => [z.key.name, z.key])).values()];
  const config = join(root, 'knot.conf');
  writeFileSync(
    config,
    [
      'server:',
      `  rundir: "${root}"`,
      `  listen: 127.0.0.1@${port}`,
      'log:',
      '  - target: stderr',
      '    any: info',
      'database:',
      `  storage: "${root}"`,
      'key:',
      ...keys.flatMap((k) => [`  - id: ${k.name}`, `    algorithm: ${k.algorithm}`, `    secret: ${k.secret}`]),
      'remote:',
      ...keys.flatMap((k) => [
        `  - id: primary-${k.name}`,
        `    address: 127.0.0.1@${primaryPort}`,
        `    key: ${k.name}`,
      ]),
      'acl:',
      ...keys.flatMap((k) => [
        `  - id: notify-${k.name}`,
        '    address: 127.0.0.1',
        `    key: ${k.name}`,
        '    action: notify',
      ]),
      'template:',
      '  - id: default',
      `    storage: "${root}"`,
      '    zonefile-sync: -1',
      '    journal-content: changes',
      'zone:',
      ...zones.flatMap((z) => [
        `  - domain: ${z.name}`,
        `    master: primary-${z.key.name}`,
        `    acl: notify-${z.key.name}`,
      ]),
      '',
    ].join('\n'),
  );
  const child = spawn('knotd', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  return started('knot', port, root, child, () => output);
}
