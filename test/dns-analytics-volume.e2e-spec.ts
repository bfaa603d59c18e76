/**
 * GET /dns-analytics/volume (docs/dns-analytics-volume.md), the series behind the
 * dashboard's volume chart: an injected clock and rows appended to the real query-log
 * store, read over real HTTP; the points add up to the summary's totals; the endpoint is
 * described by /openapi.json and its answers validate against that description.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { QUERY_LOG_STORE, QueryLogStore } from '../libs/dns-analytics/application/query-log.store';
import type { QueryRow } from '../libs/dns-analytics/domain/query-row';
import { ManualClock } from '../libs/shared/clock';
import { answerChecker } from './support/openapi-answers';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { queryRows } from '../libs/dns-analytics/infrastructure/conformance/query-row.builder';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('DNS analytics volume series (added for the dashboard)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let store: QueryLogStore;
  let owner: { id: number; token: string };
  let plus: { token: string };
  let other: { token: string };

  const row = (ts: number, over: Partial<QueryRow> = {}): QueryRow =>
    queryRows({ accountId: owner.id, domain: 'vol.test', qname: 'www.vol.test', edns: true, responseMs: 0.2 })({
      ts,
      ...over,
    });
  const rows = (n: number, ts: number, over: Partial<QueryRow> = {}) => Array.from({ length: n }, () => row(ts, over));
  const volume = (q: string, token = owner.token) => app.http.get(`/dns-analytics/volume${q}`, token);

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-20T12:30:00Z'));
    app = await startTestApp({ clock });
    store = app.running.app.get(QUERY_LOG_STORE);
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    plus = await registerAndLogin(app.http, { plan: 'plus' });
    other = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/zones', { name: 'vol.test' }, owner.token)).status).toBe(201);
    expect((await app.http.post('/zones', { name: 'second.test' }, owner.token)).status).toBe(201);
    const now = clock.now().getTime();
    const hour = now - (now % HOUR);
    await store.append([
      ...rows(5, hour + 60_000),
      ...rows(2, hour + 120_000, { rcode: 'NXDOMAIN', qname: 'nope.vol.test' }),
      ...rows(3, hour - 2 * HOUR + 1000, { rcode: 'SERVFAIL' }),
      ...rows(4, hour - 3 * DAY, { domain: 'second.test', qname: 'second.test' }),
      ...rows(6, hour - 20 * DAY),
    ]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('24h: one point per hour, oldest first, every slot present, adding up to the summary', async () => {
    const res = await volume('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ window: '24h', domain: null, bucket_seconds: 3600 });
    const points = res.body.points as { at: string; queries: number; errors: number }[];
    expect(points).toHaveLength(24);
    expect(points[0].at).toBe('2026-03-19T13:00:00Z');
    expect(points[23]).toEqual({ at: '2026-03-20T12:00:00Z', queries: 7, errors: 2 });
    expect(points[21]).toEqual({ at: '2026-03-20T10:00:00Z', queries: 3, errors: 3 });
    const summary = (await app.http.get('/dns-analytics/summary', owner.token)).body;
    expect(points.reduce((n, p) => n + p.queries, 0)).toBe(summary.total_queries_24h);
  });

  it('7d and 30d: one point per UTC day; a domain filter keeps that domain only', async () => {
    const week = (await volume('?window=7d')).body;
    expect(week.bucket_seconds).toBe(86400);
    expect(week.points.map((p: { at: string }) => p.at.slice(0, 10))).toEqual([
      '2026-03-14',
      '2026-03-15',
      '2026-03-16',
      '2026-03-17',
      '2026-03-18',
      '2026-03-19',
      '2026-03-20',
    ]);
    expect(week.points.map((p: { queries: number }) => p.queries)).toEqual([0, 0, 0, 4, 0, 0, 10]);
    const month = (await volume('?window=30d')).body;
    expect(month.points).toHaveLength(30);
    const summary = (await app.http.get('/dns-analytics/summary?window=30d', owner.token)).body;
    expect(month.points.reduce((n: number, p: { queries: number }) => n + p.queries, 0)).toBe(
      summary.total_queries_30d,
    );
    const second = (await volume('?window=7d&domain=second.test')).body;
    expect(second.domain).toBe('second.test');
    expect(second.points.map((p: { queries: number }) => p.queries)).toEqual([0, 0, 0, 4, 0, 0, 0]);
  });

  it('refuses what the plan or the input does not allow, in the contract’s error shape', async () => {
    const bad = await volume('?window=1y');
    expect([bad.status, bad.body.error]).toEqual([
      400,
      { code: 'validation_failed', message: 'window must be one of 24h, 7d, 30d' },
    ]);
    const unknown = await volume('?limit=3');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'validation_failed']);
    const gated = await volume('', plus.token);
    expect([gated.status, gated.body.error]).toEqual([
      403,
      { code: 'plan_required', message: 'DNS Analytics requires Pro or Elite' },
    ]);
    const foreign = await volume('?domain=vol.test', other.token);
    expect([foreign.status, foreign.body.error]).toEqual([404, { code: 'not_found', message: 'Domain not found' }]);
    expect((await app.http.get('/dns-analytics/volume')).status).toBe(401);
  });

  it('is described by /openapi.json, and its answers validate against the description', async () => {
    const res = await app.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    await SwaggerParser.validate(structuredClone(doc));
    const op = doc.paths['/dns-analytics/volume'].get;
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['domain', 'window']);
    const answer = answerChecker(doc);
    const check = async (status: number, q: string, token = owner.token) =>
      answer('/dns-analytics/volume', 'get', await volume(q, token), status);
    await check(200, '');
    await check(200, '?window=30d&domain=vol.test');
    await check(400, '?window=1y');
    await check(403, '', plus.token);
    await check(404, '?domain=nowhere.test');
  });
});
