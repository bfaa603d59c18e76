import { join } from 'node:path';

/**
 * The part of an nsd.conf every NSD started by the benches and tests shares: loopback only,
 * everything (state, log, zones) under `root`, no privilege drop or chroot, no response rate
 * limiting (traffic from one address would trip Debian's default), no remote control.
 * `settings` are more `server:` lines; keys and zones follow the returned lines.
 */
export function nsdServerConfig(root: string, port: number, settings: string[] = []): string[] {
  return [
    'server:',
    '  ip-address: 127.0.0.1',
    `  port: ${port}`,
    '  username: ""',
    '  chroot: ""',
    `  zonesdir: "${root}"`,
    `  zonelistfile: "${join(root, 'zone.list')}"`,
    '  database: ""',
    `  pidfile: "${join(root, 'nsd.pid')}"`,
    `  xfrdfile: "${join(root, 'xfrd.state')}"`,
    `  xfrdir: "${root}"`,
    `  logfile: "${join(root, 'nsd.log')}"`,
    '  rrl-ratelimit: 0',
    ...settings,
    'remote-control:',
    '  control-enable: no',
  ];
}
