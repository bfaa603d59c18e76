import Database from 'better-sqlite3';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

/**
 * Decision 0117: the embedded read store keeps indexed values in columns of their own. A
 * DATA_DIR written before keeps its indexes over expressions of the document; the first
 * start of this release moves them to value columns, keeping every document, and the
 * service answers from them at once.
 */

/** The read-model tables' indexes (name → SQL) and value columns, read from the file itself. */
function layout(file: string): { indexes: Record<string, string>; columns: Record<string, string[]> } {
  const db = new Database(file, { readonly: true });
  try {
    const indexes = Object.fromEntries(
      (
        db
          .prepare(
            `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name GLOB 'c*'`,
          )
          .all() as { name: string; sql: string }[]
      ).map((r) => [r.name, r.sql]),
    );
    const tables = db.prepare(`SELECT 'c' || id FROM rs_collections`).pluck().all() as string[];
    const columns = Object.fromEntries(
      tables.map((t) => [
        t,
        (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]).filter((c) =>
          c.startsWith('$.'),
        ),
      ]),
    );
    return { indexes, columns };
  } finally {
    db.close();
  }
}

/** Rows whose value column does not hold what the document holds (0 everywhere when the columns are right). */
function staleValues(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    let stale = 0;
    for (const [table, paths] of Object.entries(layout(file).columns))
      for (const path of paths)
        stale += db
          .prepare(`SELECT count(*) FROM ${table} WHERE "${path}" IS NOT json_extract(doc, '${path}')`)
          .pluck()
          .get() as number;
    return stale;
  } finally {
    db.close();
  }
}

/** Turns the file back into the layout of the releases before 0117: expression indexes, no value columns. */
function toExpressionIndexes(file: string): number {
  const { indexes, columns } = layout(file);
  const db = new Database(file);
  try {
    let moved = 0;
    db.transaction(() => {
      for (const [name, sql] of Object.entries(indexes)) {
        db.exec(`DROP INDEX ${name}`);
        db.exec(sql.replace(/"(\$\.[A-Za-z0-9_.-]+)"/g, `json_extract(doc, '$1')`));
        moved++;
      }
      for (const [table, paths] of Object.entries(columns))
        for (const path of paths) db.exec(`ALTER TABLE ${table} DROP COLUMN "${path}"`);
    })();
    return moved;
  } finally {
    db.close();
  }
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function ddnsUpdate(url: string, query: string, auth: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/domains/nic/update?${query}`, { headers: { authorization: auth } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('read store: indexed values in columns of their own, data directories of earlier releases moved at start (e2e)', () => {
  const env = { DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' };
  let app: TestApp | null = null;
  afterAll(async () => {
    await app?.close(true);
  });

  it('serves, updates and finds by indexed values after the move, every document kept, a second start changing nothing', async () => {
    app = await startTestApp({ env });
    const user = await registerAndLogin(app.http, { plan: 'pro' });
    const key = (await app.http.post('/api-keys', { name: 'router' }, user.token)).body.key;
    const auth = basic(user.username, key);
    for (const [fqdn, ip] of [
      ['home.dyn.example.net', '192.0.2.1'],
      ['nas.dyn.example.net', '192.0.2.2'],
    ]) {
      expect((await app.http.post('/api/domains', { fqdn, record_type: 'A', record_ip: ip }, user.token)).status).toBe(
        201,
      );
    }
    expect(await ddnsUpdate(app.url, 'hostname=home.dyn.example.net&myip=192.0.2.10', auth)).toBe('good 192.0.2.10');
    const file = join(app.dataDir, 'readmodels.db');
    // Written by this release: indexes on value columns only, every column as its document says.
    const fresh = layout(file);
    expect(Object.values(fresh.indexes).some((sql) => sql.includes('json_extract'))).toBe(false);
    expect(Object.values(fresh.columns).flat()).toEqual(expect.arrayContaining(['$.fqdn', '$.account_id']));
    expect(staleValues(file)).toBe(0);
    const dataDir = app.dataDir;
    await app.close(false);
    app = null;

    expect(toExpressionIndexes(file)).toBe(Object.keys(fresh.indexes).length);
    expect(Object.values(layout(file).columns).flat()).toEqual([]);

    app = await startTestApp({ dataDir, env });
    const moved = layout(file);
    expect(moved.indexes).toEqual(fresh.indexes);
    expect(staleValues(file)).toBe(0);
    // Found by fqdn (the value column's index), with what was stored before the move.
    const home = await app.http.get('/api/domains/fqdn/home.dyn.example.net', user.token);
    expect(home.status).toBe(200);
    expect(home.body.record_ip).toBe('192.0.2.10');
    expect(((await app.http.get('/domains', user.token)).body as { fqdn: string }[]).map((d) => d.fqdn).sort()).toEqual(
      ['home.dyn.example.net', 'nas.dyn.example.net'],
    );
    // Updates keep the columns right: an address (the fqdn's value column unchanged) and a new host (new values).
    expect(await ddnsUpdate(app.url, 'hostname=nas.dyn.example.net&myip=192.0.2.20', auth)).toBe('good 192.0.2.20');
    expect(
      (
        await app.http.post(
          '/api/domains',
          { fqdn: 'cam.dyn.example.net', record_type: 'A', record_ip: '192.0.2.3' },
          user.token,
        )
      ).status,
    ).toBe(201);
    expect(await ddnsUpdate(app.url, 'hostname=cam.dyn.example.net&myip=192.0.2.30', auth)).toBe('good 192.0.2.30');
    expect((await app.http.get('/api/domains/fqdn/nas.dyn.example.net', user.token)).body.record_ip).toBe('192.0.2.20');
    await app.close(false);
    app = null;
    expect(staleValues(file)).toBe(0);

    // A second start finds nothing to move.
    app = await startTestApp({ dataDir, env });
    expect(layout(file).indexes).toEqual(fresh.indexes);
    expect(staleValues(file)).toBe(0);
    expect((await app.http.get('/api/domains/fqdn/cam.dyn.example.net', user.token)).body.record_ip).toBe('192.0.2.30');
  });
});
