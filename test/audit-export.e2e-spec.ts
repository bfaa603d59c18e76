import { parse } from 'csv-parse';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ManualClock } from '../libs/shared/clock';
import { ADMIN_TOKEN, registerAndLogin, startTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);
/** The built operator CLI (`npm test` builds first). */
const CLI = resolve(__dirname, '../dist/apps/cli/main.js');

/**
 * RFC 8785 written here, apart from the service's library (`canonicalize`), for what an
 * entry holds: objects with keys sorted by UTF-16 code units, arrays, and ECMAScript
 * serialisation of strings, finite numbers, booleans and null.
 */
function jcs(v: unknown): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('not JSON');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(jcs).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs(o[k])}`).join(',')}}`;
}
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface Exported {
  id: string;
  type: string;
  occurred_at: string;
  stream: string;
  revision: number;
  actor: string | null;
  source_ip: string | null;
  correlation_id: string | null;
  data: unknown;
  prev_hash: string | null;
  hash: string;
}
const rehash = ({ hash: _hash, ...rest }: Exported) => sha256(jcs(rest));
const jsonl = (text: string): Exported[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Exported);

const parseCsv = (text: string) =>
  new Promise<string[][]>((ok, fail) =>
    parse(text, { relax_column_count: false }, (err, records: string[][]) => (err ? fail(err) : ok(records))),
  );

const CSV_COLUMNS = [
  'id',
  'occurred_at',
  'type',
  'actor_type',
  'actor_id',
  'source_ip',
  'correlation_id',
  'data',
  'prev_hash',
  'hash',
];

describe('audit export with a hash chain (contract §19)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let dir: string;
  let ann: { id: number; token: string };
  let bob: { id: number; token: string };
  /** Instants between Ann's writes: the windows of the tests. */
  const marks: string[] = [];

  const exportOf = async (token: string, query: string) => {
    const res = await app.http.get(`/account/audit/export${query}`, token);
    expect(res.status).toBe(200);
    return res;
  };
  const verify = async (file: string) => {
    try {
      const { stdout } = await run('node', [CLI, 'audit:verify', file], {
        env: { ...process.env, ADMIN_URL: app.url, ADMIN_TOKEN },
      });
      return { code: 0, out: stdout };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout + err.stderr };
    }
  };
  const fileOf = (name: string, lines: string[], header = '') => {
    const file = join(dir, name);
    writeFileSync(file, header + lines.join(''));
    return file;
  };
  const linesOf = (text: string) => text.split(/(?<=\n)/).filter((l) => l !== '');

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('run `npm run build` first: the CLI test runs dist/apps/cli/main.js');
    dir = mkdtempSync(join(tmpdir(), 'audit-export-'));
    clock = new ManualClock(new Date('2026-05-01T00:00:00Z'));
    app = await startTestApp({ clock, env: { SESSION_TTL_SECONDS: String(30 * 86_400) } });
    ann = await registerAndLogin(app.http, { plan: 'pro' });
    bob = await registerAndLogin(app.http, { plan: 'pro' });
    // Ann's and Bob's changes interleave, an hour apart, so windows cut between them.
    for (let i = 0; i < 6; i++) {
      clock.advance(3_600_000);
      marks.push(clock.now().toISOString());
      const key = await app.http.post('/api-keys', { name: `key-${i}` }, ann.token);
      expect(key.status).toBe(201);
      const bobKey = await app.http.post('/api-keys', { name: `bob-${i}` }, bob.token);
      expect(bobKey.status).toBe(201);
      expect((await app.http.request('DELETE', `/api-keys/${bobKey.body.id}`, { token: bob.token })).status).toBe(204);
      expect((await app.http.request('DELETE', `/api-keys/${key.body.id}`, { token: ann.token })).status).toBe(204);
    }
    expect(
      (
        await app.http.post(
          '/zones',
          { name: 'audit-export-example.com', zone_file: 'www 300 IN A 192.0.2.80\n' },
          ann.token,
        )
      ).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('streams every entry of the account oldest first, as /account/audit gives it, linked from null by hashes that recompute', async () => {
    const res = await exportOf(ann.token, '?format=jsonl');
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-\d+\.jsonl"$/);
    const entries = jsonl(res.text);
    const listed = (await app.http.get('/account/audit?limit=100', ann.token)).body.data as Exported[];
    expect(entries.map(({ prev_hash: _p, hash: _h, ...rest }) => rest)).toEqual([...listed].reverse());
    expect(entries.length).toBeGreaterThanOrEqual(16);
    expect(entries[0].type).toBe('AccountRegistered');
    expect(entries[0].prev_hash).toBeNull();
    for (const [i, e] of entries.entries()) {
      expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rehash(e)).toBe(e.hash);
      if (i > 0) expect(e.prev_hash).toBe(entries[i - 1].hash);
    }
    // No format: JSON Lines.
    expect((await exportOf(ann.token, '')).text).toBe(res.text);
  });

  it('never gives another account’s entries; each account’s chain starts from null', async () => {
    const annIds = new Set(jsonl((await exportOf(ann.token, '?format=jsonl')).text).map((e) => e.id));
    const bobs = jsonl((await exportOf(bob.token, '?format=jsonl')).text);
    expect(bobs.length).toBeGreaterThanOrEqual(8);
    expect(bobs[0].prev_hash).toBeNull();
    for (const e of bobs) expect(annIds.has(e.id)).toBe(false);
    const bobKeys = bobs.filter((e) => e.type === 'ApiKeyCreated').map((e) => (e.data as { name: string }).name);
    expect(bobKeys).toEqual(['bob-0', 'bob-1', 'bob-2', 'bob-3', 'bob-4', 'bob-5']);
  });

  it('exports a window (from inclusive, to exclusive) whose first entry links to the entry before it', async () => {
    const all = jsonl((await exportOf(ann.token, '?format=jsonl')).text);
    const [from, to] = [marks[1], marks[4]];
    const window = jsonl((await exportOf(ann.token, `?format=jsonl&from=${from}&to=${to}`)).text);
    const expected = all.filter((e) => e.occurred_at >= from && e.occurred_at < to);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    expect(window).toEqual(expected);
    const before = all[all.indexOf(all.find((e) => e.id === window[0].id)!) - 1];
    expect(window[0].prev_hash).toBe(before.hash);
    // An offset names the same instant; a date alone is UTC midnight; only from, only to.
    const offset = new Date(Date.parse(from) + 2 * 3_600_000).toISOString().replace('.000Z', '+02:00');
    expect(jsonl((await exportOf(ann.token, `?from=${encodeURIComponent(offset)}&to=${to}`)).text)).toEqual(expected);
    expect(jsonl((await exportOf(ann.token, `?from=${from}`)).text)).toEqual(all.filter((e) => e.occurred_at >= from));
    expect(jsonl((await exportOf(ann.token, `?to=${to}`)).text)).toEqual(all.filter((e) => e.occurred_at < to));
    expect((await exportOf(ann.token, '?from=2026-05-02')).text).toBe('');
    expect(jsonl((await exportOf(ann.token, '?to=2026-05-02')).text)).toEqual(all);
  });

  it('gives the same hashes after the audit projection is rebuilt from the events', async () => {
    const before = (await exportOf(ann.token, '?format=jsonl')).text;
    const rebuild = await app.http.admin('POST', '/admin/projections/audit/rebuild?wait=true');
    expect(rebuild.status).toBe(202);
    expect(rebuild.body).toMatchObject({ status: 'switched', generation: 2 });
    expect((await exportOf(ann.token, '?format=jsonl')).text).toBe(before);
  });

  it('gives the same entries as CSV with the contract’s columns, RFC 4180, data as JSON text', async () => {
    const all = jsonl((await exportOf(ann.token, '?format=jsonl')).text);
    const res = await exportOf(ann.token, '?format=csv');
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = await parseCsv(res.text);
    expect(header).toEqual(CSV_COLUMNS);
    expect(rows.length).toBe(all.length);
    for (const [i, row] of rows.entries()) {
      const e = all[i];
      const r = Object.fromEntries(CSV_COLUMNS.map((c, j) => [c, row[j]]));
      expect(r.id).toBe(e.id);
      expect(r.occurred_at).toBe(e.occurred_at);
      expect(r.type).toBe(e.type);
      expect(
        r.actor_type
          ? `${r.actor_type === 'api_key' ? 'key' : r.actor_type}${r.actor_id ? `:${r.actor_id}` : ''}`
          : null,
      ).toBe(e.actor);
      expect(r.source_ip || null).toBe(e.source_ip);
      expect(r.correlation_id || null).toBe(e.correlation_id);
      expect(JSON.parse(r.data)).toEqual(e.data);
      expect(r.prev_hash || null).toBe(e.prev_hash);
      expect(r.hash).toBe(e.hash);
    }
    expect(rows[0][CSV_COLUMNS.indexOf('actor_type')]).toBe('user');
    expect(rows[0][CSV_COLUMNS.indexOf('actor_id')]).toBe(String(ann.id));
  });

  it('refuses bad input with the contract’s error body', async () => {
    for (const query of [
      '?format=xml',
      '?from=yesterday',
      '?from=2026-02-30',
      '?from=2026-05-01T25:00:00Z',
      '?from=2026-05-01T10:00:00',
      `?from=${marks[3]}&to=${marks[1]}`,
      '?since=2026-05-01',
      '?format=jsonl&format=csv',
    ]) {
      const res = await app.http.get(`/account/audit/export${query}`, ann.token);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error.code).toBe('validation_failed');
      expect(typeof res.body.error.message).toBe('string');
    }
    const anonymous = await app.http.get('/account/audit/export?format=jsonl');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
  });

  it('is described in /openapi.json', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const op = doc.paths['/account/audit/export'].get;
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['format', 'from', 'to']);
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/x-ndjson', 'text/csv']);
    expect(op.responses['400']).toBeDefined();
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/admin/audit/entries'].post.security).toEqual([{ admin_token: [] }]);
  });

  it('audit:verify passes a real export (JSON Lines, CSV, a window) and one cut at either end', async () => {
    const full = (await exportOf(ann.token, '?format=jsonl')).text;
    const lines = linesOf(full);
    const ok = await verify(fileOf('full.jsonl', lines));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({
      ok: true,
      format: 'jsonl',
      entries: lines.length,
      account_id: ann.id,
      first_prev_hash: null,
    });

    const csv = await verify(fileOf('full.csv', [(await exportOf(ann.token, '?format=csv')).text]));
    expect(csv.code).toBe(0);
    expect(JSON.parse(csv.out)).toMatchObject({ ok: true, format: 'csv', entries: lines.length, account_id: ann.id });

    const window = await verify(
      fileOf('window.csv', [(await exportOf(ann.token, `?format=csv&from=${marks[2]}&to=${marks[4]}`)).text]),
    );
    expect(window.code).toBe(0);

    const cut = await verify(fileOf('cut.jsonl', lines.slice(3, -2)));
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.out)).toMatchObject({
      entries: lines.length - 5,
      first_prev_hash: JSON.parse(lines[2]).hash,
    });
  });

  it('audit:verify fails naming the first bad line: a removed line, a changed one, a re-chained file, another account’s line', async () => {
    const lines = linesOf((await exportOf(ann.token, '?format=jsonl')).text);
    const expectBad = async (name: string, content: string[], line: number, reason: RegExp) => {
      const res = await verify(fileOf(name, content));
      expect(res.code).not.toBe(0);
      expect(res.out).toMatch(new RegExp(`line ${line}: `));
      expect(res.out).toMatch(reason);
    };

    // Line 5 removed: line 5 of the file (the old line 6) no longer links.
    await expectBad('removed.jsonl', [...lines.slice(0, 4), ...lines.slice(5)], 5, /does not link to line 4/);

    // Line 4's data changed, its hashes kept.
    const changed = JSON.parse(lines[3]) as Exported;
    const tampered = [...lines];
    tampered[3] = JSON.stringify({ ...changed, data: { ...(changed.data as object), name: 'someone-else' } }) + '\n';
    await expectBad('changed.jsonl', tampered, 4, /hash does not match/);

    // Line 5 removed and every later hash recomputed so the file links: the store's chain tells.
    const rechained: Exported[] = [];
    for (const e of [...lines.slice(0, 4), ...lines.slice(5)].map((l) => JSON.parse(l) as Exported)) {
      const prev_hash = rechained.length ? rechained[rechained.length - 1].hash : null;
      const next = { ...e, prev_hash, hash: '' };
      next.hash = rehash(next);
      rechained.push(next);
    }
    await expectBad(
      'rechained.jsonl',
      rechained.map((e) => JSON.stringify(e) + '\n'),
      5,
      /store/,
    );

    // A line of Bob's export in the middle of Ann's.
    const bobLine = linesOf((await exportOf(bob.token, '?format=jsonl')).text)[2];
    await expectBad('foreign.jsonl', [...lines.slice(0, 2), bobLine, ...lines.slice(3)], 3, /./);

    // A CSV with a removed row names its file line (the header is line 1).
    const csvLines = linesOf((await exportOf(ann.token, '?format=csv')).text);
    await expectBad('removed.csv', [...csvLines.slice(0, 3), ...csvLines.slice(4)], 4, /does not link to line 3/);
  });
});
