import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The compiled script of a worker thread that lives beside the calling module. Under
 * ts-jest modules run from their `.ts` sources, and a worker thread cannot load
 * TypeScript, so the build's copy under `dist/` is used (`npm test` builds first).
 * Null when neither exists: callers then do the work on their own thread.
 */
export function compiledWorkerScript(moduleDir: string, script: string): string | null {
  const beside = join(moduleDir, `${script}.js`);
  if (existsSync(beside)) return beside;
  const root = resolve(__dirname, '..', '..');
  const built = join(root, 'dist', relative(root, moduleDir), `${script}.js`);
  return existsSync(built) ? built : null;
}
