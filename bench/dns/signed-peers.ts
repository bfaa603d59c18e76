/**
 * The pre-signed peer of bench:dnssec: NSD serving the benchmark zone signed by ldns-signzone
 * (NSEC, ECDSA P-256). Knot signing online is `startKnot(…, { onlineSign: true })` (knot.ts).
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_ZONE, nsdZoneFile } from './zone';
import { startNsd } from './nsd';

export const ldnsInstalled = (): boolean => spawnSync('ldns-signzone', ['-v']).status === 0;

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
  execFileSync('ldns-signzone', ['-o', BENCH_ZONE, '-f', join(root, `${BENCH_ZONE}.zone`), unsigned, key], {
    cwd: root,
  });
  return startNsd(root, port, serverCount, false);
}
