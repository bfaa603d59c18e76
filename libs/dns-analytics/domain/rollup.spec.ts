import type { QueryRow } from './query-row';
import {
  accumulateHourly,
  ALL_DOMAINS,
  bucketStart,
  capNxdomain,
  emptyCounts,
  expandRollups,
  LATENCY_BOUNDS_MS,
  latencyPercentile,
  MAX_NXDOMAIN_NAMES,
  mergeCounts,
  rollupsOf,
  topEntries,
  type RollupCounts,
} from './rollup';
import { buildSummary, trendOf } from './summary';

const q = (over: Partial<QueryRow> = {}): QueryRow => ({
  ts: Date.parse('2026-03-10T10:15:00Z'),
  accountId: 1,
  domain: 'example.com',
  qname: 'www.example.com',
  qtype: 'A',
  rcode: 'NOERROR',
  clientIp: '192.0.2.1',
  country: 'US',
  asn: 'AS64500',
  asOrg: 'Example Net',
  transport: 'udp',
  dnssecOk: false,
  edns: false,
  responseMs: 0.3,
  ...over,
});

/** One query added to a bucket, field by field: what accumulateHourly must amount to. */
function addQuery(c: RollupCounts, q: QueryRow): void {
  const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  c.total++;
  c.latencySumMs += q.responseMs;
  const slot = LATENCY_BOUNDS_MS.findIndex((b) => q.responseMs <= b);
  c.latency[slot === -1 ? LATENCY_BOUNDS_MS.length : slot]++;
  bump(c.rcodes, q.rcode);
  bump(c.qtypes, q.qtype);
  if (q.transport === 'tcp') c.tcp++;
  if (q.dnssecOk) c.dnssecOk++;
  if (q.edns) c.edns++;
  if (q.clientIp.includes(':') && !q.clientIp.startsWith('::ffff:')) c.ipv6++;
  bump(c.countries, q.country);
  bump(c.asns, q.asn);
  c.asOrgs[q.asn] = q.asOrg;
  if (q.rcode === 'NXDOMAIN') bump(c.nxdomain, q.qname);
}

describe('rollups', () => {
  it('count every key of every row, whatever runs of equal keys, changes of bucket and distinct types the rows come in', () => {
    let seed = 7;
    const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length];
    const types = ['TXT', 'NS', 'SOA', 'CAA', 'SRV', 'PTR', 'HTTPS', 'TYPE65534', 'DS'];
    const rows = Array.from({ length: 400 }, (_, i) => {
      const client = pick([
        { clientIp: '192.0.2.1', country: 'US', asn: 'AS64500', asOrg: 'Example Net' },
        { clientIp: '2001:db8::2', country: 'DE', asn: 'AS64501', asOrg: 'Other' },
      ]);
      // Runs: a key often repeats the row before's.
      return q({
        ts: Date.parse('2026-03-10T10:00:00Z') + (i % 7) * 1_800_000,
        domain: pick(['a.test', 'a.test', 'b.test']),
        rcode: pick(['NOERROR', 'NOERROR', 'NXDOMAIN']),
        // More distinct types and codes than a bucket's first tally holds (CodeCounts grows).
        qtype: i % 3 ? pick(['A', 'A', 'AAAA', 'MX']) : types[(i / 3) % types.length],
        qname: `n${i % 5}.a.test`,
        ...client,
      });
    });
    const direct = new Map<string, RollupCounts>();
    for (const row of rows) {
      const key = `${row.accountId}|${row.domain}|${bucketStart(row.ts, 'hour')}`;
      if (!direct.has(key)) direct.set(key, emptyCounts());
      addQuery(direct.get(key)!, row);
    }
    const hourly = accumulateHourly(accumulateHourly(new Map(), rows.slice(0, 123)), rows.slice(123));
    expect(new Map([...hourly].map(([key, r]) => [key, r.counts]))).toEqual(direct);
  });

  it('derives day and account-wide buckets from hourly domain buckets exactly as adding each row to all four', () => {
    const rows = [
      q(),
      q({
        rcode: 'NXDOMAIN',
        qname: 'gone.example.com',
        transport: 'tcp',
        clientIp: '2001:db8::1',
        country: 'DE',
        asn: 'AS64501',
        asOrg: 'Other',
      }),
      q({
        ts: Date.parse('2026-03-10T23:30:00Z'),
        domain: 'home.dyn.example.net',
        qtype: 'AAAA',
        dnssecOk: true,
        edns: true,
        responseMs: 4,
      }),
      q({ ts: Date.parse('2026-03-11T00:00:00Z'), accountId: 2 }),
    ];
    // Two writer batches accumulated into one map, expanded once.
    const hourly = accumulateHourly(accumulateHourly(new Map(), rows.slice(0, 2)), rows.slice(2));
    const expanded = new Map(
      expandRollups(hourly.values()).map((r) => [`${r.accountId}|${r.domain}|${r.granularity}|${r.start}`, r.counts]),
    );
    const direct = new Map<string, ReturnType<typeof emptyCounts>>();
    for (const row of rows) {
      for (const granularity of ['hour', 'day'] as const) {
        for (const domain of [row.domain, ALL_DOMAINS]) {
          const key = `${row.accountId}|${domain}|${granularity}|${bucketStart(row.ts, granularity)}`;
          if (!direct.has(key)) direct.set(key, emptyCounts());
          addQuery(direct.get(key)!, row);
        }
      }
    }
    expect(expanded).toEqual(direct);
  });

  it('adds each query to its hour and day, for its domain and for the whole account', () => {
    const rows = [
      q(),
      q({ ts: Date.parse('2026-03-10T11:59:59Z'), domain: 'home.dyn.example.net' }),
      q({ ts: Date.parse('2026-03-11T00:00:00Z') }),
    ];
    const byKey = new Map(
      rollupsOf(rows).map((r) => [`${r.domain}|${r.granularity}|${new Date(r.start).toISOString()}`, r.counts.total]),
    );
    expect(byKey).toEqual(
      new Map([
        ['example.com|hour|2026-03-10T10:00:00.000Z', 1],
        [`${ALL_DOMAINS}|hour|2026-03-10T10:00:00.000Z`, 1],
        ['example.com|day|2026-03-10T00:00:00.000Z', 1],
        [`${ALL_DOMAINS}|day|2026-03-10T00:00:00.000Z`, 2],
        ['home.dyn.example.net|hour|2026-03-10T11:00:00.000Z', 1],
        [`${ALL_DOMAINS}|hour|2026-03-10T11:00:00.000Z`, 1],
        ['home.dyn.example.net|day|2026-03-10T00:00:00.000Z', 1],
        ['example.com|hour|2026-03-11T00:00:00.000Z', 1],
        [`${ALL_DOMAINS}|hour|2026-03-11T00:00:00.000Z`, 1],
        ['example.com|day|2026-03-11T00:00:00.000Z', 1],
        [`${ALL_DOMAINS}|day|2026-03-11T00:00:00.000Z`, 1],
      ]),
    );
    expect(bucketStart(Date.parse('2026-03-10T23:59:59.999Z'), 'day')).toBe(Date.parse('2026-03-10T00:00:00Z'));
  });

  it('counts every dimension, and merging in any split gives the same sums', () => {
    const rows = [
      q(),
      q({
        rcode: 'NXDOMAIN',
        qname: 'nx.example.com',
        transport: 'tcp',
        dnssecOk: true,
        edns: true,
        clientIp: '2001:db8::1',
        country: 'DE',
        asn: 'AS64501',
        asOrg: 'Other',
        responseMs: 4,
      }),
      q({
        rcode: 'NXDOMAIN',
        qname: 'nx.example.com',
        qtype: 'AAAA',
        edns: true,
        clientIp: '::ffff:192.0.2.9',
        responseMs: 2000,
      }),
    ];
    const whole = rollupsOf(rows).find((r) => r.domain === ALL_DOMAINS && r.granularity === 'day')!.counts;
    expect(whole).toMatchObject({
      total: 3,
      rcodes: { NOERROR: 1, NXDOMAIN: 2 },
      qtypes: { A: 2, AAAA: 1 },
      tcp: 1,
      dnssecOk: 1,
      edns: 2,
      ipv6: 1,
      countries: { US: 2, DE: 1 },
      asns: { AS64500: 2, AS64501: 1 },
      asOrgs: { AS64500: 'Example Net', AS64501: 'Other' },
      nxdomain: { 'nx.example.com': 2 },
    });
    expect(whole.latencySumMs).toBeCloseTo(2004.3);
    const split = mergeCounts(
      mergeCounts(emptyCounts(), rollupsOf(rows.slice(0, 1))[0].counts),
      rollupsOf(rows.slice(1))[0].counts,
    );
    expect(split).toEqual(rollupsOf(rows)[0].counts);
  });

  it("reads latency percentiles from the histogram as the upper bound of the rank's slot", () => {
    const c = emptyCounts();
    const rows = [
      ...Array.from({ length: 95 }, () => q({ responseMs: 0.2 })),
      ...Array.from({ length: 4 }, () => q({ responseMs: 3 })),
      q({ responseMs: 40 }),
    ];
    for (const r of rollupsOf(rows)) if (r.domain === ALL_DOMAINS && r.granularity === 'hour') mergeCounts(c, r.counts);
    expect(latencyPercentile(c, 0.95)).toBe(0.25);
    expect(latencyPercentile(c, 0.99)).toBe(5);
    expect(latencyPercentile(c, 1)).toBe(50);
    expect(latencyPercentile(emptyCounts(), 0.99)).toBe(0);
  });

  it('keeps only the heaviest NXDOMAIN names of a bucket', () => {
    const c = emptyCounts();
    for (let i = 0; i < MAX_NXDOMAIN_NAMES + 50; i++) c.nxdomain[`n${i}.example.com`] = i;
    capNxdomain(c);
    expect(Object.keys(c.nxdomain)).toHaveLength(MAX_NXDOMAIN_NAMES);
    expect(c.nxdomain['n0.example.com']).toBeUndefined();
    expect(c.nxdomain[`n${MAX_NXDOMAIN_NAMES + 49}.example.com`]).toBe(MAX_NXDOMAIN_NAMES + 49);
  });

  it('cuts an increment to its heaviest NXDOMAIN names before adding it to the day and account buckets', () => {
    const flood: QueryRow[] = [];
    for (let i = 0; i < 3 * MAX_NXDOMAIN_NAMES; i++) flood.push(q({ rcode: 'NXDOMAIN', qname: `r${i}.example.com` }));
    for (let i = 0; i < 3; i++) flood.push(q({ rcode: 'NXDOMAIN', qname: 'typo.example.com' }));
    const buckets = rollupsOf(flood);
    expect(buckets).toHaveLength(4);
    for (const b of buckets) {
      expect(Object.keys(b.counts.nxdomain)).toHaveLength(MAX_NXDOMAIN_NAMES);
      expect(b.counts.nxdomain['typo.example.com']).toBe(3);
      // Every query is still counted: only the list of names is cut.
      expect(b.counts.total).toBe(flood.length);
    }
  });

  it('keeps, of a flood of names mostly seen once, the heaviest and then the first by name, in order', () => {
    // Many more entries than kept: the heap path, checked against a full sort.
    const entries: Array<[string, number]> = [];
    for (let i = 0; i < 5000; i++) entries.push([`r${(i * 7919) % 5000}.example.com`, i % 97 === 0 ? 1 + (i % 5) : 1]);
    const sorted = [...entries].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    expect(topEntries(entries, MAX_NXDOMAIN_NAMES)).toEqual(sorted.slice(0, MAX_NXDOMAIN_NAMES));
    expect(topEntries(entries, 5)).toEqual(sorted.slice(0, 5));
    expect(topEntries(entries, 0)).toEqual([]);
  });
});

describe('trend and health signal', () => {
  it('is stable within ±5 %, up or down beyond, and signals beyond ±50 %', () => {
    expect(trendOf(105, 700)).toMatchObject({
      query_trend: 'stable',
      trend_percent: 5,
      health_signal: { status: 'normal' },
    });
    expect(trendOf(94, 700)).toMatchObject({
      query_trend: 'down',
      trend_percent: -6,
      health_signal: { status: 'normal' },
    });
    expect(trendOf(150, 700)).toMatchObject({
      query_trend: 'up',
      trend_percent: 50,
      health_signal: { status: 'normal' },
    });
    expect(trendOf(151, 700)).toMatchObject({
      query_trend: 'up',
      trend_percent: 51,
      health_signal: { status: 'spike' },
    });
    expect(trendOf(49, 700)).toMatchObject({
      query_trend: 'down',
      trend_percent: -51,
      health_signal: { status: 'drop' },
    });
    expect(trendOf(0, 0)).toMatchObject({
      query_trend: 'stable',
      trend_percent: 0,
      health_signal: { status: 'normal' },
    });
  });

  it('builds the seed summary with top lists capped and ordered', () => {
    const rows = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: i + 1 }, () =>
        q({ country: `C${String.fromCharCode(65 + i)}`, asn: `AS${i}`, asOrg: `Org ${i}` }),
      ),
    ).flat();
    const counts = rollupsOf(rows).find((r) => r.domain === ALL_DOMAINS && r.granularity === 'day')!.counts;
    const s = buildSummary(
      { window: counts, total24h: 78, total7d: 78, total30d: 78, previous7d: 0 },
      (c) => `name of ${c}`,
    );
    expect(s.top_countries).toHaveLength(10);
    expect(s.top_countries[0]).toEqual({ country_code: 'CL', country_name: 'name of CL', query_count: 12 });
    expect(s.top_asns.map((a) => a.asn)).toEqual(['AS11', 'AS10', 'AS9', 'AS8', 'AS7']);
    expect(s.top_asns[0].organization).toBe('Org 11');
    expect(s.response_codes).toEqual({ NOERROR: 78, NXDOMAIN: 0, SERVFAIL: 0, REFUSED: 0 });
    expect(s.error_rate).toBe(0);
  });
});
