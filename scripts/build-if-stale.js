#!/usr/bin/env node
/**
 * `npm start`'s pre-step: builds only when the build is missing or older than a source
 * file, so a second start runs the built service at once (the full build is most of a
 * cold start). Staleness is by modification time against a stamp taken when the last
 * build began: a file saved during a build is newer than the stamp and rebuilds next time.
 */
'use strict';
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = [
  'apps',
  'libs',
  'projections',
  'bench',
  'native',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
const SKIP = new Set(['node_modules', 'build', 'dist']);

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path))
    if (!SKIP.has(entry)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const built =
  existsSync(stamp) && existsSync(join(root, 'dist', 'apps', 'server', 'main.js')) ? statSync(stamp).mtimeMs : 0;
const sources = Math.max(...SOURCES.map((s) => newestMtime(join(root, s))));
if (built > sources) {
  process.stdout.write('build is current; starting it (npm run build rebuilds by hand)\n');
} else {
  const began = new Date();
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, '');
  utimesSync(stamp, began, began);
}
