/** NSD (Debian package nsd) on loopback with the benchmark zone, configured to be comparable. */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_ZONE, nsdZoneFile } from './zone';
import { startProcess } from './processes';
import { nsdServerConfig } from './nsd-config';

export const nsdInstalled = (): boolean => spawnSync('nsd', ['-v']).status === 0;

/** `writeZone` false: the zone file is already in `dir` (a pre-signed one, bench:dnssec). */
export function startNsd(dir: string, port: number, serverCount: number, writeZone = true): ChildProcess {
  const root = writeZone ? join(dir, 'nsd') : dir;
  mkdirSync(root, { recursive: true });
  if (writeZone) writeFileSync(join(root, `${BENCH_ZONE}.zone`), nsdZoneFile());
  const config = join(root, 'nsd.conf');
  writeFileSync(
    config,
    [
      ...nsdServerConfig(root, port, [
        `  server-count: ${serverCount}`,
        '  reuseport: yes',
        '  verbosity: 0',
        // Same answer shape as ours (no NS in authority on positive answers).
        '  minimal-responses: yes',
        '  rrl-whitelist-ratelimit: 0',
      ]),
      'zone:',
      `  name: ${BENCH_ZONE}`,
      `  zonefile: ${BENCH_ZONE}.zone`,
      '',
    ].join('\n'),
  );
  return startProcess('nsd', ['-d', '-c', config], 'nsd');
}
