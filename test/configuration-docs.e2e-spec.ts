import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every setting the service reads is in `.env.example` and in the README's configuration
 * table, and nothing is documented that the service does not read (issue 30: a newcomer
 * found four settings missing). The settings are found in the code itself: `env.NAME` in the
 * typed config (libs/shared/config.ts), other readers and `process.env.NAME` anywhere the service runs.
 */
const ROOT = join(__dirname, '..');
/** Read by the operator CLI, documented in the README's CLI section, not a service setting. */
const CLI_ONLY = new Set(['ADMIN_URL']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

function settingsRead(): Set<string> {
  const names = new Set<string>();
  for (const file of [...sourceFiles(join(ROOT, 'libs')), ...sourceFiles(join(ROOT, 'apps/server'))]) {
    const text = readFileSync(file, 'utf8');
    // `process.env.NAME`, and `env.NAME` where an environment object is passed in (the typed config, thread-priority.ts).
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
  }
  return names;
}

const envExample = () =>
  new Set(
    readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((n): n is string => !!n),
  );

function readmeConfigurationTable(): Set<string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const names = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const firstCell = row.split('|')[1];
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]);
  }
  return names;
}

describe('configuration documentation (issue 30)', () => {
  const read = [...settingsRead()].filter((n) => !CLI_ONLY.has(n)).sort();

  it('finds the settings the service reads', () => {
    expect(read).toEqual(
      expect.arrayContaining(['PORT', 'DATA_DIR', 'DNS_PORT', 'QUERY_LOG_THREAD', 'HEAP_GROWING_PERCENT']),
    );
  });

  it('lists every setting in .env.example, and only those', () => {
    const listed = envExample();
    expect(read.filter((n) => !listed.has(n))).toEqual([]);
    expect([...listed].filter((n) => !read.includes(n))).toEqual([]);
  });

  it("lists every setting in the README's configuration table, and only those", () => {
    const table = readmeConfigurationTable();
    expect(read.filter((n) => !table.has(n))).toEqual([]);
    expect([...table].filter((n) => !read.includes(n))).toEqual([]);
  });

  it('can be loaded by a shell as it is (set -a; . ./.env.example)', () => {
    const out = execFileSync('bash', ['-c', 'set -a; . ./.env.example; printf %s "$TOTP_ISSUER"'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out).toBe('Account DNS');
  });
});
