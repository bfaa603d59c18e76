#!/usr/bin/env node
/**
 * Compiles the addon with node-gyp when it is missing or older than its sources; run by the
 * project's `build` script, so `npm ci && npm test` / `npm start` build it on a fresh clone.
 * Only Linux has recvmmsg/sendmmsg: elsewhere there is nothing to build and the DNS server
 * uses node:dgram. A failed compile on Linux fails the build rather than silently costing
 * the DNS server its throughput.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const here = __dirname;
const product = join(here, 'build', 'Release', 'udp_batch.node');
const sources = [join(here, 'binding.gyp'), join(here, 'src', 'udp_batch.c')];

if (process.platform !== 'linux') {
  console.log('udp-batch: not Linux, skipped (the DNS server uses node:dgram)');
  process.exit(0);
}
const upToDate = existsSync(product) && sources.every((s) => statSync(s).mtimeMs <= statSync(product).mtimeMs);
if (upToDate) process.exit(0);

// Inside an npm script npm names its bundled node-gyp; outside one, node-gyp must be on PATH.
const bundled = process.env.npm_config_node_gyp;
const [command, args] = bundled ? [process.execPath, [bundled]] : ['node-gyp', []];
const result = spawnSync(command, [...args, 'rebuild', '--silent'], { cwd: here, stdio: 'inherit' });
if (result.status !== 0) {
  console.error(`udp-batch: node-gyp failed (${result.error?.message ?? `exit ${result.status}`})`);
  process.exit(1);
}
