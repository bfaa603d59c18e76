import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { generatedAggregateReport } from '../bench/dmarc/generated-report';
import { ReportRetention } from '../libs/dmarc-reports/application/report-retention';
import { ProjectionEngine } from '../libs/projection-engine/projection-engine';
import { ManualClock } from '../libs/shared/clock';
import { DnsServer } from '../libs/dns-server';
import { emailAuthReadKey, enrolZone, startWorld } from './support/email-auth';
import { postRaw } from './support/report-intake';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const ZONE = 'row-pages.test';
const BASE = '/api/v1/email-auth';
const UA = 'email-auth-row-pages-e2e/1.0';
const NOW = new Date('2026-06-01T10:00:00Z');

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET over plain node:http, body as sent on the wire (fetch would inflate gzip and hide it). */
function rawGet(url: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Report-row pages as served from the page cache: gzip when the client accepts it, ETag
 * and 304, the API's rate limit and headers on every answer, and the cache forgetting
 * reports that retention removed and generations that a rebuild replaced. Real HTTP to
 * the app, reports through the operators' intake.
 */
describe('email-auth API: report-row pages (cache, gzip, ETag)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let world: DnsServer;
  let key: string;
  let accountKey: string;
  let session: string;
  let recent: string;
  let old: string;

  const auth = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'user-agent': UA, ...extra });
  const page = (id: string, query = '') => `${BASE}/dmarc/reports/${id}?limit=100${query}`;
  /** The cache's lookups by result, from /metrics. */
  const lookups = async () => {
    const text = (await app.http.get('/metrics')).text;
    const count = (result: string) =>
      Number(
        new RegExp(`^email_auth_row_page_cache_lookups\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN,
      );
    return { hit: count('hit'), miss: count('miss') };
  };
  const cacheBytes = async () =>
    Number(/^email_auth_row_page_cache_bytes (\d+)/m.exec((await app.http.get('/metrics')).text)?.[1] ?? NaN);
  const ingest = async (reportId: string, rows: number, begin: string) => {
    const res = await postRaw(
      app.url,
      '/admin/reports',
      generatedAggregateReport(rows, { reportId, domain: ZONE, begin: Date.parse(begin) / 1000 }),
      'application/xml',
    );
    if (res.status !== 201) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const caughtUp = async () =>
    app.running.app.get(ProjectionEngine).waitFor(await app.running.deps.eventStore.headPosition());

  beforeAll(async () => {
    const w = await startWorld();
    world = w.server;
    clock = new ManualClock(NOW);
    app = await startTestApp({ clock, env: { VERIFY_RESOLVER: `127.0.0.1:${w.port}` } });
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    await enrolZone(app.http, w.world, owner, ZONE);
    key = await emailAuthReadKey(app.http, owner, [ZONE], clock.now());
    accountKey = (await app.http.post('/api-keys', { name: 'account' }, owner.token)).body.key;
    session = owner.token;
    recent = await ingest('row-pages-recent', 250, '2026-05-30T00:00:00Z');
    old = await ingest('row-pages-old', 150, '2026-01-10T00:00:00Z');
    await caughtUp();
  });
  afterAll(async () => {
    await app?.close();
    await world?.stop();
  });
  beforeEach(() => clock.advance(60_000)); // a fresh rate-limit window for each test

  it('sends the same JSON gzip-compressed when Accept-Encoding allows it, first read and cached alike', async () => {
    const before = await lookups();
    const plain = await rawGet(
      app.url,
      page(recent),
      auth({ 'accept-encoding': 'identity', 'x-request-id': 'rows-plain-1' }),
    );
    const zipped = await rawGet(
      app.url,
      page(recent),
      auth({ 'accept-encoding': 'gzip, deflate, br', 'x-request-id': 'rows-gzip-1' }),
    );
    const none = await rawGet(app.url, page(recent), auth());
    const refused = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'gzip;q=0, identity' }));
    expect([plain.status, zipped.status, none.status, refused.status]).toEqual([200, 200, 200, 200]);
    expect(await lookups()).toEqual({ hit: before.hit + 3, miss: before.miss + 1 });

    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(none.body.equals(plain.body)).toBe(true);
    expect(refused.body.equals(plain.body)).toBe(true);
    const json = JSON.parse(plain.body.toString('utf8'));
    expect(json.id).toBe(recent);
    expect(json.rows.data.map((r: { index: number }) => r.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(json.rows.next_cursor).toEqual(expect.any(String));

    for (const [answer, id] of [
      [plain, 'rows-plain-1'],
      [zipped, 'rows-gzip-1'],
    ] as const) {
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(answer.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
      expect(answer.headers['cache-control']).toBe('private, no-cache');
      expect(answer.headers['x-request-id']).toBe(id);
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      expect(answer.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff'); // helmet's headers as on every answer
    }
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(Number(zipped.headers['x-ratelimit-remaining'])).toBe(Number(plain.headers['x-ratelimit-remaining']) - 1);
  });

  it('keeps the JSON of a page identity clients read, the same bytes as the gzip body inflates to', async () => {
    const metric = async (name: string, result?: string) => {
      const text = (await app.http.get('/metrics')).text;
      return Number(
        new RegExp(`^${name}${result ? `\\{result="${result}"\\}` : ''} (\\d+)`, 'm').exec(text)?.[1] ?? NaN,
      );
    };
    const second = await rawGet(app.url, page(recent, '&cursor=' + (await cursorAfter(recent, 99))), auth());
    const last = page(recent, '&cursor=' + JSON.parse(second.body.toString()).rows.next_cursor);
    const zipped = await rawGet(app.url, last, auth({ 'accept-encoding': 'gzip' })); // built, compressed and cached
    const [hits, misses, kept] = [
      await metric('email_auth_row_page_identity_lookups', 'hit'),
      await metric('email_auth_row_page_identity_lookups', 'miss'),
      await metric('email_auth_row_page_identity_bytes'),
    ];
    const inflated = await rawGet(app.url, last, auth()); // JSON inflated from the cache, then kept
    const keptAnswer = await rawGet(app.url, last, auth({ 'accept-encoding': 'identity' })); // the kept JSON
    expect([zipped.status, inflated.status, keptAnswer.status]).toEqual([200, 200, 200]);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(keptAnswer.headers['content-encoding']).toBeUndefined();
    expect(inflated.body.equals(gunzipSync(zipped.body))).toBe(true);
    expect(keptAnswer.body.equals(inflated.body)).toBe(true);
    expect(new Set([zipped.headers.etag, inflated.headers.etag, keptAnswer.headers.etag]).size).toBe(1);
    expect(JSON.parse(keptAnswer.body.toString('utf8')).rows.data.map((r: { index: number }) => r.index)).toEqual(
      Array.from({ length: 50 }, (_, i) => 200 + i),
    );
    expect(await metric('email_auth_row_page_identity_lookups', 'miss')).toBe(misses + 1);
    expect(await metric('email_auth_row_page_identity_lookups', 'hit')).toBe(hits + 1);
    expect(await metric('email_auth_row_page_identity_bytes')).toBe(kept + keptAnswer.body.length);
    expect(Number(keptAnswer.headers['x-ratelimit-remaining'])).toBe(
      Number(zipped.headers['x-ratelimit-remaining']) - 2,
    );
  });

  it('answers 304 without a body to If-None-Match naming the page, and counts it against the rate limit', async () => {
    const first = await rawGet(
      app.url,
      page(recent, '&cursor=' + (await cursorAfter(recent, 99))),
      auth({ 'accept-encoding': 'gzip' }),
    );
    expect(first.status).toBe(200);
    const etag = String(first.headers.etag);
    const again = await rawGet(
      app.url,
      page(recent, '&cursor=' + (await cursorAfter(recent, 99))),
      auth({ 'if-none-match': etag }),
    );
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
    // A strong form of the tag and a list holding it match too (weak comparison); another page's tag does not.
    const strong = await rawGet(
      app.url,
      page(recent, '&cursor=' + (await cursorAfter(recent, 99))),
      auth({ 'if-none-match': `"x", ${etag.slice(2)}` }),
    );
    expect(strong.status).toBe(304);
    const other = await rawGet(app.url, page(recent), auth({ 'if-none-match': etag }));
    expect(other.status).toBe(200);
    expect(other.headers.etag).not.toBe(etag);

    // Every answer, 304 and cached 200 included, took one request of the key's minute.
    const remaining = Number(other.headers['x-ratelimit-remaining']);
    for (let left = remaining - 1; left >= 0; left--) {
      const res = await rawGet(app.url, page(recent), auth({ 'if-none-match': String(other.headers.etag) }));
      expect([res.status, res.headers['x-ratelimit-remaining']]).toEqual([304, String(left)]);
    }
    const limited = await rawGet(
      app.url,
      page(recent),
      auth({ 'if-none-match': String(other.headers.etag), 'accept-encoding': 'gzip' }),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(limited.body.toString()).error.code).toBe('rate_limited');
  });

  it('keeps the API’s rules in front of cached pages: user agent, key, scope, parameters, each with its error body', async () => {
    const etag = String((await rawGet(app.url, page(recent), auth())).headers.etag);
    const noAgent = await rawGet(app.url, page(recent), { authorization: `Bearer ${key}`, 'if-none-match': etag });
    expect([noAgent.status, JSON.parse(noAgent.body.toString()).error.code]).toEqual([400, 'user_agent_required']);
    const badKey = await rawGet(app.url, page(recent), {
      ...auth(),
      authorization: 'Bearer ak_notakeynotakeynotakey',
      'if-none-match': etag,
    });
    expect([badKey.status, JSON.parse(badKey.body.toString()).error.message]).toEqual([
      401,
      'The API key is not valid or has expired.',
    ]);
    const accountScope = await rawGet(app.url, page(recent), {
      ...auth(),
      authorization: `Bearer ${accountKey}`,
      'if-none-match': etag,
    });
    expect([accountScope.status, JSON.parse(accountScope.body.toString()).error]).toEqual([
      403,
      { code: 'insufficient_scope', message: 'This key does not have the email_auth:read scope.' },
    ]);
    const badLimit = await rawGet(
      app.url,
      `${BASE}/dmarc/reports/${recent}?limit=101`,
      auth({ 'x-request-id': 'rows-bad-limit' }),
    );
    expect([
      badLimit.status,
      JSON.parse(badLimit.body.toString()).error.code,
      badLimit.headers['x-request-id'],
    ]).toEqual([400, 'validation_failed', 'rows-bad-limit']);
    const badCursor = await rawGet(app.url, page(recent, '&cursor=not-a-cursor'), auth());
    expect([badCursor.status, JSON.parse(badCursor.body.toString()).error.code]).toEqual([400, 'validation_failed']);
    const unknown = await rawGet(app.url, page('no-such-report'), auth());
    expect([unknown.status, JSON.parse(unknown.body.toString()).error.code]).toEqual([404, 'report_not_found']);
  });

  it('forgets the pages of a report that retention removed (404 from then on)', async () => {
    const first = await rawGet(app.url, page(old), auth({ 'accept-encoding': 'gzip' }));
    expect(first.status).toBe(200);
    const before = await lookups();
    expect((await rawGet(app.url, page(old), auth())).status).toBe(200);
    expect((await lookups()).hit).toBe(before.hit + 1);
    const held = await cacheBytes();

    // Three years after 2026-03-01: the cutoff falls between the old report and the recent one.
    await app.running.app.get(ReportRetention).apply(new Date('2029-03-01T00:00:00Z'));
    await caughtUp();
    for (const headers of [auth(), auth({ 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.etag) })]) {
      const gone = await rawGet(app.url, page(old), headers);
      expect(gone.status).toBe(404);
      expect(JSON.parse(gone.body.toString()).error).toEqual({
        code: 'report_not_found',
        message: 'No aggregate report by that id on this key.',
      });
    }
    expect(await cacheBytes()).toBeLessThan(held - first.body.length); // its page left the cache
    expect((await rawGet(app.url, page(recent), auth())).status).toBe(200);
  });

  it('starts afresh after a rebuild of the report projection, with the same pages', async () => {
    const before = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'identity' }));
    const counts = await lookups();
    const rebuilt = await app.http.admin('POST', '/admin/projections/dmarc_reports/rebuild?wait=true');
    expect(rebuilt.status).toBeLessThan(300);
    const after = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'identity' }));
    expect(after.status).toBe(200);
    expect(await lookups()).toEqual({ hit: counts.hit, miss: counts.miss + 1 }); // the new generation's first read builds the page
    expect(after.body.equals(before.body)).toBe(true);
    expect(after.headers.etag).toBe(before.headers.etag);
    expect((await rawGet(app.url, page(recent), auth())).status).toBe(200);
    expect((await lookups()).hit).toBe(counts.hit + 1);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'gzip' }));
    const head = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'gzip' }), 'HEAD');
    expect([head.status, head.body.length, head.headers.etag, head.headers['content-encoding']]).toEqual([
      200,
      0,
      get.headers.etag,
      'gzip',
    ]);
    expect(head.headers['x-ratelimit-remaining']).toBe(String(Number(get.headers['x-ratelimit-remaining']) - 1));
  });

  it('serves the dashboard mirror of a page the same way: same JSON, gzip, ETag and 304', async () => {
    const mirror = `/email-auth/domains/${ZONE}/dmarc/reports/${recent}?limit=100`;
    const owner = (extra: Record<string, string>) => ({ authorization: `Bearer ${session}`, ...extra });
    const api = await rawGet(app.url, page(recent), auth({ 'accept-encoding': 'identity' }));
    const plain = await rawGet(app.url, mirror, owner({ 'accept-encoding': 'identity' }));
    const zipped = await rawGet(app.url, mirror, owner({ 'accept-encoding': 'gzip' }));
    expect([plain.status, zipped.status, zipped.headers['content-encoding']]).toEqual([200, 200, 'gzip']);
    expect(plain.body.equals(api.body)).toBe(true);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(plain.headers.etag).toBe(api.headers.etag);
    const unchanged = await rawGet(app.url, mirror, owner({ 'if-none-match': String(plain.headers.etag) }));
    expect([unchanged.status, unchanged.body.length]).toEqual([304, 0]);
  });

  /** The cursor of the page that starts after row `index`, as the API hands it out (from the previous page). */
  async function cursorAfter(id: string, index: number): Promise<string> {
    const res = await rawGet(app.url, `${BASE}/dmarc/reports/${id}?limit=${index + 1}`, auth());
    return JSON.parse(res.body.toString()).rows.next_cursor;
  }
});
