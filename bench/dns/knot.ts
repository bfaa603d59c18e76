/**
 * Knot DNS (Debian package knot) on loopback with the benchmark zone: its own config, rundir,
 * storage and control socket in the benchmark's temp dir, in the foreground as a child of the
 * benchmark (never the system service), one UDP worker per core as NSD's servers and our DNS
 * threads. Knot answers minimally (no NS in authority on positive answers) and has no rate
 * limiting unless its rrl module is configured, so its answers have the shape of ours and NSD's.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_ZONE, nsdZoneFile } from './zone';
import { startProcess } from './processes';

export const knotInstalled = (): boolean => spawnSync('knotd', ['-V']).status === 0;

/**
 * Knot serving the bench zone from its file. `onlineSign`: signed as it answers (mod-onlinesign,
 * one ECDSA P-256 key), the peer of the DNSSEC bench.
 */
export function startKnot(
  dir: string,
  port: number,
  udpWorkers: number,
  options: { onlineSign?: boolean } = {},
): ChildProcess {
  const root = join(dir, `knot-${port}`);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, `${BENCH_ZONE}.zone`), nsdZoneFile());
  const config = join(root, 'knot.conf');
  writeFileSync(
    config,
    [
      'server:',
      `    rundir: "${root}"`,
      `    listen: 127.0.0.1@${port}`,
      `    udp-workers: ${udpWorkers}`,
      // TCP and zone events are idle in the benchmark: one thread each, as little as Knot allows.
      '    tcp-workers: 1',
      '    background-workers: 1',
      'database:',
      `    storage: "${root}"`,
      'control:',
      `    listen: "${join(root, 'knot.sock')}"`,
      'log:',
      '  - target: stderr',
      '    any: warning',
      ...(options.onlineSign
        ? [
            'policy:',
            '  - id: bench',
            '    algorithm: ecdsap256sha256',
            '    single-type-signing: on',
            'mod-onlinesign:',
            '  - id: bench',
            '    policy: bench',
          ]
        : []),
      'template:',
      '  - id: default',
      `    storage: "${root}"`,
      // Serve the file as loaded: no journal, never written back.
      '    journal-content: none',
      '    zonefile-sync: -1',
      'zone:',
      `  - domain: ${BENCH_ZONE}`,
      `    file: "${join(root, `${BENCH_ZONE}.zone`)}"`,
      ...(options.onlineSign ? ['    module: mod-onlinesign/bench'] : []),
      '',
    ].join('\n'),
  );
  return startProcess('knotd', ['-c', config], 'knot');
}
