/**
 * DNS analytics over time, with an injected clock and history seeded into the query-log
 * store: the trend and health signal against the 7-day daily average, the 24h/7d/30d
 * windows, recent queries across a month boundary, and retention.
 */
import { QUERY_LOG_STORE, QueryLogStore } from '../libs/dns-analytics/application/query-log.store';
import { QueryLogRetention } from '../libs/dns-analytics/application/query-log-retention';
import type { QueryRow } from '../libs/dns-analytics/domain/query-row';
import { ManualClock } from '../libs/shared/clock';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { queryRows } from '../libs/dns-analytics/infrastructure/conformance/query-row.builder';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('DNS analytics history (injected clock, seeded store)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let store: QueryLogStore;
  let owner: { id: number; token: string } & Acct;

  const row = (accountId: number, ts: number, over: Partial<QueryRow> = {}): QueryRow =>
    queryRows({ accountId, domain: 'hist.test', qname: 'www.hist.test', edns: true, responseMs: 0.2 })({ ts, ...over });

  /** `n` queries spread over [from, from + span). */
  const spread = (accountId: number, n: number, from: number, span: number, over: Partial<QueryRow> = {}) =>
    Array.from({ length: n }, (_, i) => row(accountId, from + Math.floor((i * span) / n), over));

  type Acct = { username: string; password: string };
  /** Sessions last 24 h of the injected clock: each request logs in afresh at the clock's time. */
  const get = async (acct: Acct, path: string) => {
    const login = await app.http.post('/auth/login', { username: acct.username, password: acct.password });
    return app.http.get(path, login.body.access_token);
  };
  const summary = async (acct: Acct, q = '') => {
    const r = await get(acct, `/dns-analytics/summary${q}`);
    expect(r.status).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-20T12:30:00Z'));
    app = await startTestApp({ clock });
    store = app.running.app.get(QUERY_LOG_STORE);
    owner = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/zones', { name: 'hist.test' }, owner.token)).status).toBe(201);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('compares the last 24 h with the daily average of the 7 days before: stable, drop, spike', async () => {
    const now = clock.now().getTime();
    const hour = now - (now % HOUR);
    const first24 = hour - 23 * HOUR;
    // 100 a day for the 7 days before the last 24 h.
    await store.append(spread(owner.id, 700, first24 - 7 * DAY, 7 * DAY));
    await store.append(
      spread(owner.id, 103, first24, 24 * HOUR - HOUR, { rcode: 'NXDOMAIN', qname: 'nope.hist.test' }),
    );
    let s = await summary(owner);
    expect(s.total_queries_24h).toBe(103);
    expect(s.query_trend).toBe('stable');
    expect(s.trend_percent).toBe(3);
    expect(s.health_signal.status).toBe('normal');
    expect(s.error_rate).toBe(1);
    expect(s.top_nxdomain).toEqual([{ qname: 'nope.hist.test', query_count: 103 }]);

    // A day later, with nothing new: the last 24 h are almost empty.
    clock.advance(DAY);
    s = await summary(owner);
    expect(s.total_queries_24h).toBe(0);
    expect(s.query_trend).toBe('down');
    expect(s.trend_percent).toBeLessThan(-50);
    expect(s.health_signal.status).toBe('drop');
    expect(s.health_signal.message).toMatch(/dropped/);

    // Then a burst three times the usual day.
    const later = clock.now().getTime();
    await store.append(
      spread(owner.id, 400, later - 2 * HOUR, HOUR, { transport: 'tcp', clientIp: '2001:db8::1', dnssecOk: true }),
    );
    s = await summary(owner);
    expect(s.total_queries_24h).toBe(400);
    expect(s.query_trend).toBe('up');
    expect(s.health_signal.status).toBe('spike');
    expect(s.protocol_posture).toMatchObject({
      dnssec_pct: 100,
      ipv6_pct: 100,
      tcp_fallback_pct: 100,
      edns_pct: 100,
      p95_ms: 0.25,
      p99_ms: 0.25,
    });
    expect(s.avg_response_ms).toBe(0.2);
  });

  it('sums daily rollups for the 7d and 30d windows', async () => {
    const acct = await registerAndLogin(app.http, { plan: 'elite' });
    const now = clock.now().getTime();
    const day = now - (now % DAY);
    await store.append([
      ...spread(acct.id, 5, day, HOUR),
      ...spread(acct.id, 7, day - 6 * DAY, HOUR, { qtype: 'AAAA' }),
      ...spread(acct.id, 11, day - 7 * DAY, HOUR, { qtype: 'MX' }),
      ...spread(acct.id, 13, day - 29 * DAY, HOUR, { qtype: 'TXT' }),
      ...spread(acct.id, 17, day - 30 * DAY, HOUR, { qtype: 'NS' }),
    ]);
    const s = await summary(acct);
    expect([s.total_queries_7d, s.total_queries_30d]).toEqual([12, 36]);
    expect((await summary(acct, '?window=7d')).query_types).toEqual([
      { type: 'AAAA', query_count: 7 },
      { type: 'A', query_count: 5 },
    ]);
    expect((await summary(acct, '?window=30d')).query_types.map((t: { type: string }) => t.type)).toEqual([
      'TXT',
      'MX',
      'AAAA',
      'A',
    ]);
  });

  it('shows recent queries of the current month only, newest first, 10 to 100', async () => {
    const acct = await registerAndLogin(app.http, { plan: 'pro' });
    clock.set('2026-04-01T00:10:00Z');
    const monthStart = Date.parse('2026-04-01T00:00:00Z');
    await store.append([
      ...Array.from({ length: 5 }, (_, i) =>
        row(acct.id, monthStart - 1000 * (i + 1), { qname: `march-${i}.hist.test` }),
      ),
      ...Array.from({ length: 120 }, (_, i) => row(acct.id, monthStart + 1000 * i, { qname: `april-${i}.hist.test` })),
    ]);
    const def = (await get(acct, '/dns-analytics/queries')).body.queries;
    expect(def).toHaveLength(50);
    expect(def[0]).toMatchObject({ qname: 'april-119.hist.test', timestamp: '2026-04-01T00:01:59.000Z' });
    const max = (await get(acct, '/dns-analytics/queries?limit=100')).body.queries;
    expect(max.map((q: { qname: string }) => q.qname)).toEqual(
      Array.from({ length: 100 }, (_, i) => `april-${119 - i}.hist.test`),
    );
    const min = (await get(acct, '/dns-analytics/queries?limit=10')).body.queries;
    expect(min).toHaveLength(10);

    // Fewer of this month than the limit: last month's rows still never fill the page.
    const few = await registerAndLogin(app.http, { plan: 'pro' });
    await store.append([
      ...Array.from({ length: 5 }, (_, i) =>
        row(few.id, monthStart - 1000 * (i + 1), { qname: `march-${i}.hist.test` }),
      ),
      ...Array.from({ length: 12 }, (_, i) => row(few.id, monthStart + 1000 * i, { qname: `april-${i}.hist.test` })),
    ]);
    const page = (await get(few, '/dns-analytics/queries?limit=100')).body.queries;
    expect(page.map((q: { qname: string }) => q.qname)).toEqual(
      Array.from({ length: 12 }, (_, i) => `april-${11 - i}.hist.test`),
    );
  });

  it('prunes raw rows older than the previous month and rollups older than about 12 months', async () => {
    const acct = await registerAndLogin(app.http, { plan: 'elite' });
    clock.set('2026-06-15T12:00:00Z');
    const now = clock.now().getTime();
    await store.append([
      row(acct.id, Date.parse('2026-04-30T23:59:59Z'), { qname: 'april.hist.test' }),
      row(acct.id, Date.parse('2026-05-01T00:00:00Z'), { qname: 'may.hist.test' }),
      row(acct.id, now - 400 * DAY, { qname: 'old.hist.test' }),
    ]);
    const exportOf = async (start: string, end: string) =>
      (await get(acct, `/dns-analytics/export?format=json&start=${start}&end=${end}`)).body;
    expect(await exportOf('2026-04-30', '2026-05-01')).toHaveLength(2);
    const pruned = await app.running.app.get(QueryLogRetention).run();
    expect(pruned.rows).toBeGreaterThanOrEqual(2);
    expect((await exportOf('2026-04-30', '2026-05-01')).map((r: { qname: string }) => r.qname)).toEqual([
      'may.hist.test',
    ]);
    // The year-old day rollup is gone, the May one stays (in the 30d window only if within 30 days: it is not).
    expect(await store.sumRollups(acct.id, '', 'day', now - 500 * DAY, now - 300 * DAY)).toMatchObject({ total: 0 });
    expect(
      await store.sumRollups(
        acct.id,
        '',
        'day',
        Date.parse('2026-05-01T00:00:00Z'),
        Date.parse('2026-05-01T00:00:00Z'),
      ),
    ).toMatchObject({ total: 1 });
  });
});
