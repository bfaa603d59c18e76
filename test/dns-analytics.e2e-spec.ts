/**
 * DNS analytics from the service's own query log (contract §12): real DNS queries (raw
 * packets over UDP and TCP, and dig) to the DNS server of the running app, from 127.0.0.1
 * and ::1, then every field of the summary, the recent queries and the exports checked
 * against what was sent.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from './support/server-process';
import { exchange, WireQuery } from './support/dns-wire';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);
const digInstalled = spawnSync('dig', ['-v']).status === 0;

const ZONE_FILE = [
  '$TTL 300',
  'www IN A 192.0.2.80',
  'www IN AAAA 2001:db8::80',
  '@ IN MX 10 mail.analytics.test.',
  'txt IN TXT "hello"',
].join('\n');

interface Sent extends WireQuery {
  rcode: string;
}

const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;
const pct = (n: number, total: number) => round((n / total) * 100, 2);

/** Polls until `check` passes or 10 s went by: the log writer stores rollups every 2 s. */
async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await fn();
    if (check(v) || Date.now() - started > 10_000) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function parseCsv(text: string): string[][] {
  return text
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(','));
}

describe('DNS analytics over real DNS traffic', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: { id: number; token: string };
  let pro: { token: string };
  let free: { token: string };
  let other: { token: string };
  const sent: Sent[] = [];
  // The log orders queries by answer time to the millisecond, and two DNS threads answer:
  // queries answered within the same millisecond by different threads have no defined order,
  // so the suite leaves a few milliseconds between the queries whose order it checks.
  const pause = () => new Promise((r) => setTimeout(r, 3));

  async function send(q: WireQuery): Promise<void> {
    const answer = await exchange(dnsPort, q);
    sent.push({ ...q, rcode: answer.rcode });
    await pause();
  }

  /** dig as the client: `+tcp`/`+notcp`, `+dnssec` (EDNS with DO) or `+noedns`. */
  async function dig(q: WireQuery): Promise<void> {
    const args = [
      `@${q.host}`,
      '-p',
      String(dnsPort),
      q.name,
      q.type,
      '+time=2',
      '+tries=1',
      q.transport === 'tcp' ? '+tcp' : '+notcp',
    ];
    args.push(q.edns ? (q.dnssecOk ? '+dnssec' : '+edns=0') : '+noedns', '+nocookie');
    const { stdout } = await run('dig', args);
    const rcode = /status: ([A-Z]+)/.exec(stdout)?.[1];
    if (!rcode) throw new Error(`dig gave no status: ${stdout}`);
    sent.push({ ...q, rcode });
    await pause();
  }

  beforeAll(async () => {
    dnsPort = await freePort();
    // "::" takes both families on one socket: the server sees 127.0.0.1 and ::1 clients.
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DNS_HOST: '::', DDNS_ZONES: 'dyn.example.net' } });
    owner = await registerAndLogin(app.http, { plan: 'elite' });
    pro = await registerAndLogin(app.http, { plan: 'pro' });
    free = await registerAndLogin(app.http);
    other = await registerAndLogin(app.http, { plan: 'pro' });
    expect((await app.http.post('/zones', { name: 'analytics.test', zone_file: ZONE_FILE }, owner.token)).status).toBe(
      201,
    );
    expect(
      (await app.http.post('/zones', { name: 'other.test', zone_file: 'www IN A 192.0.2.1' }, other.token)).status,
    ).toBe(201);
    // Served once the DNS index caught up with both imports (in order: the owner's zone first);
    // the warm-up asks the other account's zone so the owner's analytics hold only what the test sends.
    for (
      let i = 0;
      i < 50 &&
      (
        await exchange(dnsPort, {
          name: 'www.other.test',
          type: 'A',
          transport: 'udp',
          host: '127.0.0.1',
          edns: false,
          dnssecOk: false,
        })
      ).rcode !== 'NOERROR';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(async () => {
    await app?.close();
  });

  it('counts every query sent in the summary, field by field', async () => {
    const u4 = { transport: 'udp', host: '127.0.0.1' } as const;
    const u6 = { transport: 'udp', host: '::1' } as const;
    const t4 = { transport: 'tcp', host: '127.0.0.1' } as const;
    const t6 = { transport: 'tcp', host: '::1' } as const;
    await send({ name: 'www.analytics.test', type: 'A', ...u4, edns: false, dnssecOk: false });
    await send({ name: 'www.analytics.test', type: 'AAAA', ...u4, edns: true, dnssecOk: false });
    await send({ name: 'www.analytics.test', type: 'A', ...u6, edns: true, dnssecOk: true });
    await send({ name: 'analytics.test', type: 'MX', ...t4, edns: false, dnssecOk: false });
    await send({ name: 'analytics.test', type: 'SOA', ...t6, edns: true, dnssecOk: true });
    await send({ name: 'missing.analytics.test', type: 'A', ...u4, edns: true, dnssecOk: false });
    await send({ name: 'missing.analytics.test', type: 'TXT', ...u6, edns: false, dnssecOk: false });
    await send({ name: 'gone.analytics.test', type: 'A', ...t4, edns: true, dnssecOk: true });
    await send({ name: 'www.analytics.test', type: 'MX', ...u4, edns: false, dnssecOk: false });
    if (digInstalled) {
      await dig({ name: 'txt.analytics.test', type: 'TXT', ...t4, edns: true, dnssecOk: true });
      await dig({ name: 'www.analytics.test', type: 'AAAA', ...u6, edns: false, dnssecOk: false });
      await dig({ name: 'nothere.analytics.test', type: 'AAAA', ...u4, edns: true, dnssecOk: false });
    }
    // Other accounts' and unserved names never reach this account's analytics.
    await send({ name: 'www.other.test', type: 'A', ...u4, edns: false, dnssecOk: false });
    await send({ name: 'example.org', type: 'A', ...u4, edns: false, dnssecOk: false });
    const mine = sent.filter((q) => q.name.endsWith('analytics.test'));
    expect(mine.map((q) => q.rcode)).toContain('NXDOMAIN');
    expect(sent.at(-1)!.rcode).toBe('REFUSED');

    const total = mine.length;
    const res = await eventually(
      () => app.http.get('/dns-analytics/summary', owner.token),
      (r) => r.body.total_queries_24h === total,
    );
    expect(res.status).toBe(200);
    const s = res.body;
    const all = mine;
    const count = (f: (q: Sent) => boolean) => all.filter(f).length;
    expect(s.total_queries_24h).toBe(total);
    expect(s.total_queries_7d).toBe(total);
    expect(s.total_queries_30d).toBe(total);
    expect(s.response_codes).toEqual({
      NOERROR: count((q) => q.rcode === 'NOERROR'),
      NXDOMAIN: count((q) => q.rcode === 'NXDOMAIN'),
      SERVFAIL: 0,
      REFUSED: 0,
    });
    expect(s.error_rate).toBe(round(count((q) => q.rcode === 'NXDOMAIN') / total, 4));
    expect(s.protocol_posture).toEqual({
      dnssec_pct: pct(
        count((q) => q.dnssecOk),
        total,
      ),
      ipv6_pct: pct(
        count((q) => q.host === '::1'),
        total,
      ),
      edns_pct: pct(
        count((q) => q.edns),
        total,
      ),
      tcp_fallback_pct: pct(
        count((q) => q.transport === 'tcp'),
        total,
      ),
      p95_ms: expect.any(Number),
      p99_ms: expect.any(Number),
    });
    expect(s.protocol_posture.p95_ms).toBeGreaterThan(0);
    expect(s.protocol_posture.p99_ms).toBeGreaterThanOrEqual(s.protocol_posture.p95_ms);
    expect(s.avg_response_ms).toBeGreaterThan(0);
    expect(s.avg_response_ms).toBeLessThanOrEqual(s.protocol_posture.p99_ms);
    const types = new Map<string, number>();
    for (const q of all) types.set(q.type, (types.get(q.type) ?? 0) + 1);
    expect(new Map(s.query_types.map((t: { type: string; query_count: number }) => [t.type, t.query_count]))).toEqual(
      types,
    );
    expect(s.query_types.map((t: { query_count: number }) => t.query_count)).toEqual(
      [...types.values()].sort((a, b) => b - a),
    );
    // Loopback clients are in no IP database.
    expect(s.top_countries).toEqual([{ country_code: 'Unknown', country_name: 'Unknown', query_count: total }]);
    expect(s.top_asns).toEqual([{ asn: 'Unknown', organization: 'Unknown', query_count: total }]);
    const nx = new Map<string, number>();
    for (const q of all.filter((q) => q.rcode === 'NXDOMAIN')) nx.set(q.name, (nx.get(q.name) ?? 0) + 1);
    expect(
      new Map(s.top_nxdomain.map((n: { qname: string; query_count: number }) => [n.qname, n.query_count])),
    ).toEqual(nx);
    // No history before today: no alarm.
    expect(s.query_trend).toBe('up');
    expect(s.health_signal.status).toBe('normal');

    // The domain filter: the zone's own queries; other accounts' zones do not exist for the caller.
    const byZone = await app.http.get('/dns-analytics/summary?domain=analytics.test&window=7d', owner.token);
    expect(byZone.status).toBe(200);
    expect(byZone.body.total_queries_7d).toBe(total);
    const foreign = await app.http.get('/dns-analytics/summary?domain=other.test', owner.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toEqual({ code: 'not_found', message: 'Domain not found' });
    expect((await app.http.get('/dns-analytics/summary', other.token)).body.total_queries_24h).toBeGreaterThanOrEqual(
      1,
    );
    expect((await app.http.get('/dns-analytics/summary', pro.token)).body.total_queries_24h).toBe(0);
  });

  it('lists recent queries newest first with what each query was', async () => {
    const res = await app.http.get('/dns-analytics/queries?limit=10', owner.token);
    expect(res.status).toBe(200);
    const mine = sent.filter((q) => q.name.endsWith('analytics.test'));
    const expected = mine.slice(-10).reverse();
    expect(res.body.queries).toHaveLength(10);
    res.body.queries.forEach((r: Record<string, unknown>, i: number) => {
      const q = expected[i];
      expect(r).toEqual({
        qname: q.name,
        qtype: q.type,
        rcode: q.rcode,
        client_ip: q.host,
        country_code: 'Unknown',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        response_ms: expect.any(Number),
        domain: 'analytics.test',
      });
    });
    const stamps = res.body.queries.map((r: { timestamp: string }) => r.timestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    expect((await app.http.get('/dns-analytics/queries', owner.token)).body.queries.length).toBe(
      Math.min(50, (await app.http.get('/dns-analytics/summary', owner.token)).body.total_queries_24h),
    );
    for (const bad of ['9', '101', 'ten', '']) {
      const r = await app.http.get(`/dns-analytics/queries?limit=${bad}`, owner.token);
      if (bad === '') expect(r.status).toBe(200);
      else expect(r.body.error.code).toBe('validation_failed');
    }
    expect((await app.http.get('/dns-analytics/queries?domain=other.test', owner.token)).status).toBe(404);
  });

  it('exports the log row by row as CSV and JSON (Elite)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const mine = sent.filter((q) => q.name.endsWith('analytics.test'));
    const csv = await app.http.get(`/dns-analytics/export?format=csv&start=${today}&end=${today}`, owner.token);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual([
      'timestamp',
      'domain',
      'qname',
      'qtype',
      'rcode',
      'client_ip',
      'country_code',
      'asn',
      'as_organization',
      'transport',
      'dnssec_ok',
      'edns',
      'response_ms',
    ]);
    const tail = rows.slice(-mine.length);
    tail.forEach((r, i) => {
      const q = mine[i];
      expect(r.slice(1, 12)).toEqual([
        'analytics.test',
        q.name,
        q.type,
        q.rcode,
        q.host,
        'Unknown',
        'Unknown',
        'Unknown',
        q.transport,
        String(q.dnssecOk),
        String(q.edns),
      ]);
      expect(Number(r[12])).toBeGreaterThan(0);
    });
    const json = await app.http.get(`/dns-analytics/export?format=json&start=${today}&end=${today}`, owner.token);
    expect(json.status).toBe(200);
    expect(json.body).toHaveLength(rows.length);
    json.body.slice(-mine.length).forEach((r: Record<string, unknown>, i: number) => {
      const q = mine[i];
      expect(r).toMatchObject({
        domain: 'analytics.test',
        qname: q.name,
        qtype: q.type,
        rcode: q.rcode,
        client_ip: q.host,
        transport: q.transport,
        dnssec_ok: q.dnssecOk,
        edns: q.edns,
        asn: 'Unknown',
      });
      expect(r.timestamp).toBe(tail[i][0]);
    });
    const byDomain = await app.http.get(
      `/dns-analytics/export?format=json&start=${today}&end=${today}&domain=analytics.test`,
      owner.token,
    );
    expect(byDomain.body).toHaveLength(rows.length);
  });

  it('refuses what the plan or the input does not allow, with the seed messages', async () => {
    const summary = await app.http.get('/dns-analytics/summary', free.token);
    expect(summary.status).toBe(403);
    expect(summary.body.error).toEqual({ code: 'plan_required', message: 'DNS Analytics requires Pro or Elite' });
    expect((await app.http.get('/dns-analytics/queries', free.token)).body.error).toEqual({
      code: 'plan_required',
      message: 'Recent query data requires Pro or Elite',
    });
    const exp = await app.http.get('/dns-analytics/export?format=csv&start=2026-01-01&end=2026-01-02', pro.token);
    expect(exp.status).toBe(403);
    expect(exp.body.error).toEqual({ code: 'plan_required', message: 'Data export requires Elite' });
    for (const q of [
      'format=xml&start=2026-01-01&end=2026-01-02',
      'format=csv&start=2026-01-01&end=2026-04-01',
      'format=csv&start=2026-02-30&end=2026-03-01',
      'format=csv&start=2026-03-02&end=2026-03-01',
      'format=csv',
    ]) {
      const r = await app.http.get(`/dns-analytics/export?${q}`, owner.token);
      expect([r.status, r.body.error.code]).toEqual([400, 'validation_failed']);
    }
    // 90 days, both ends included, is the limit.
    expect(
      (await app.http.get('/dns-analytics/export?format=csv&start=2026-01-01&end=2026-03-31', owner.token)).status,
    ).toBe(200);
    expect(
      (await app.http.get('/dns-analytics/export?format=csv&start=2026-01-01&end=2026-04-01', owner.token)).status,
    ).toBe(400);
    for (const w of ['1h', '90d', '']) {
      const r = await app.http.get(`/dns-analytics/summary?window=${w}`, owner.token);
      expect([r.status, r.body.error.code]).toEqual([400, 'validation_failed']);
    }
    expect((await app.http.get('/dns-analytics/summary?bogus=1', owner.token)).status).toBe(400);
    expect((await app.http.get('/dns-analytics/summary')).status).toBe(401);
  });

  it('counts the query log in /metrics', async () => {
    // The query-log thread reports its counts every 250 ms, so the count may trail the rows.
    const text = await eventually(
      async () => (await app.http.get('/metrics')).text,
      (t) => /dns_query_log_written_total [1-9]/.test(t),
    );
    expect(text).toMatch(/dns_query_log_written_total [1-9]/);
    expect(text).toMatch(/dns_query_log_dropped_total 0/);
  });
});
