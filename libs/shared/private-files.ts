import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Files under DATA_DIR: read and written by the service's user only (like secret.key). */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes DATA_DIR private: created 0700 when missing, and an existing one tightened, with
 * every file below it 0600 and every folder 0700 (a DATA_DIR made by an older version, or
 * by hand, with the default 0644/0755). Symbolic links are left alone: what they point at
 * is not ours to change. Returns the paths it may not change (owned by another user): the
 * caller warns, rather than refusing to start on a volume it can use.
 */
export function makeDirectoryPrivate(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const refused: string[] = [];
  const tighten = (path: string, mode: number) => {
    try {
      chmodSync(path, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
      refused.push(path);
    }
  };
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    tighten(current, PRIVATE_DIR_MODE);
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) tighten(path, PRIVATE_FILE_MODE);
    }
  }
  return refused;
}

/**
 * Creates `file` 0600 (its folder 0700) when missing, and makes an existing one 0600,
 * before SQLite opens it: SQLite creates a database 0644 (less the umask), and gives the
 * `-wal`, `-shm` and `-journal` files it makes later the mode of the database file, so
 * they follow.
 */
export function preparePrivateFile(file: string): void {
  if (file === ':memory:' || file === '') return;
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  if ((lstatSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
  for (const suffix of ['-wal', '-shm', '-journal']) {
    try {
      chmodSync(file + suffix, PRIVATE_FILE_MODE);
    } catch {
      // Not there (yet): SQLite creates it with the database's mode.
    }
  }
}
