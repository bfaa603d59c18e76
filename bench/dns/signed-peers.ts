/**
 * The signed peers of bench:dnssec: Knot DNS signing online (mod-onlinesign, ECDSA P-256)
 * and NSD serving the zone pre-signed by ldns-signzone (NSEC, ECDSA P-256), both on the
 * benchmark zone.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess } from './processes';
import { BENCH_ZONE, nsdZoneFile } from './zone';
import { startNsd } from './nsd';

export const knotInstalled = (): boolean => spawnSync('knotd', ['-V']).status === 0;
export const ldnsInstalled = (): boolean => spawnSync('ldns-signzone', ['-v']).status === 0;

export function startKnotOnlineSign(dir: string, port: number, workers: number): ChildProcess {
  const root = join(dir, 'knot');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, `${BENCH_ZONE}.zone`), nsdZoneFile());
  const config = join(root, 'knot.conf');
  writeFileSync(
    config,
    [
      'server:',
      `  listen: 127.0.0.1@${port}`,
      `  rundir: "${root}"`,
      `  udp-workers: ${workers}`,
      '  tcp-workers: 1',
      'database:',
      `  storage: "${root}"`,
      'log:',
      '  - target: stderr',
      '    any: error',
      'policy:',
      '  - id: bench',
      '    algorithm: ecdsap256sha256',
      '    single-type-signing: on',
      'mod-onlinesign:',
      '  - id: bench',
      '    policy: bench',
      'template:',
      '  - id: default',
      `    storage: "${root}"`,
      'zone:',
      `  - domain: ${BENCH_ZONE}`,
      `    file: ${BENCH_ZONE}.zone`,
      '    module: mod-onlinesign/bench',
      '',
    ].join('\n'),
  );
  return startProcess('knotd', ['-c', config], 'knot');
}

/** Signs the zone with ldns-signzone (one ECDSA P-256 CSK) and serves the result with NSD. */
export function startNsdPresigned(dir: string, port: number, serverCount: number): ChildProcess {
  const root = join(dir, 'nsd-signed');
  mkdirSync(root, { recursive: true });
  const unsigned = join(root, 'unsigned.zone');
  writeFileSync(unsigned, nsdZoneFile());
  execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', BENCH_ZONE], { cwd: root });
  const key = readdirSync(root)
    .find((f) => f.startsWith(`K${BENCH_ZONE}.`) && f.endsWith('.private'))!
    .replace(/\.private$/, '');
  execFileSync('ldns-signzone', ['-o', BENCH_ZONE, '-f', join(root, `${BENCH_ZONE}.zone`), unsigned, key], { cwd: root });
  return startNsd(root, port, serverCount, false);
}
