import type { AnsweredQuery } from '../../dns-server';
import { IpIntel } from './ip-intel';
import { MAX_TABLE_SIZE, type LoggedQuery } from './query-batch';
import { newControl, QueryLogChannel } from './query-log-channel';
import { newQueryRing, QueryRingReader, WireStrings } from './query-ring';
import { QueryLogWriter } from './query-log-writer';
import { receiptOrder, toRow } from './delivered-rows';
import type { QueryLogStore } from './query-log.store';
import type { QueryRow } from '../domain/query-row';
import { rollupsOf, type Rollup } from '../domain/rollup';
import type { IpInfo } from '../domain/query-row';
import { asQueryRows, type QueryRows } from '../domain/query-rows';
import { specMetrics } from '../../shared/testing/spec-metrics';

const newMetrics = specMetrics();

/** What a store was handed, as objects. */
const objects = (given: QueryRows | QueryRow[]): QueryRow[] => {
  const rows = asQueryRows(given);
  return Array.from({ length: rows.count }, (_, i) => rows.row(i));
};

const answered = (over: Partial<AnsweredQuery> = {}): AnsweredQuery => ({
  name: 'www.home.dyn.example.net',
  type: 'A',
  rcode: 'NOERROR',
  clientIp: '::ffff:1.1.1.1',
  transport: 'udp',
  dnssecOk: true,
  edns: true,
  ednsUdpSize: 1232,
  truncated: false,
  responseBytes: 80,
  durationMs: 0.12345,
  timestamp: 1_700_000_000_000,
  zone: 'dyn.example.net',
  domain: 'home.dyn.example.net',
  accountId: '42',
  ...over,
});

const info = { country: 'AU', asn: 'AS13335', asOrg: 'Cloudflare, Inc.' };

describe('query attribution', () => {
  it('belongs to the account and domain the DNS server matched (longest zone or host)', () => {
    expect(toRow(answered(), info)).toEqual({
      ts: 1_700_000_000_000,
      accountId: 42,
      domain: 'home.dyn.example.net',
      qname: 'www.home.dyn.example.net',
      qtype: 'A',
      rcode: 'NOERROR',
      clientIp: '1.1.1.1',
      country: 'AU',
      asn: 'AS13335',
      asOrg: 'Cloudflare, Inc.',
      transport: 'udp',
      dnssecOk: true,
      edns: true,
      responseMs: 0.123,
    });
  });

  it('drops queries no account owns (REFUSED outside the zones, unreadable packets)', () => {
    expect(toRow(answered({ accountId: null, domain: null, zone: null, rcode: 'REFUSED' }), info)).toBeNull();
    expect(toRow(answered({ accountId: null, domain: 'dyn.example.net' }), info)).toBeNull();
  });
});

describe('IP enrichment from the shipped databases', () => {
  const intel = new IpIntel();
  beforeAll(() => intel.ready(), 60_000);

  it('resolves public addresses of both families and leaves private ones Unknown', () => {
    expect(intel.lookup('1.1.1.1')).toMatchObject({ asn: 'AS13335', asOrg: expect.stringMatching(/cloudflare/i) });
    expect(intel.lookup('8.8.8.8')).toMatchObject({ country: 'US', asn: 'AS15169' });
    expect(intel.lookup('::ffff:8.8.8.8')).toMatchObject({ country: 'US', asn: 'AS15169' });
    expect(intel.lookup('2001:4860:4860::8888')).toMatchObject({ country: 'US', asn: 'AS15169' });
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', 'not-an-ip'])
      expect(intel.lookup(ip)).toEqual({ country: 'Unknown', asn: 'Unknown', asOrg: 'Unknown' });
    expect(intel.countryName('DE')).toBe('Germany');
    expect(intel.countryName('Unknown')).toBe('Unknown');
  });
});

describe('query-log writer backpressure', () => {
  it('drops beyond its queue and counts the drops in /metrics instead of waiting', async () => {
    // A store stuck until the gate opens, then as fast as can be.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const stored: QueryRow[] = [];
    const store = {
      append: async (rows: QueryRows) => {
        await gate;
        stored.push(...objects(rows));
      },
    } as unknown as QueryLogStore;
    const metrics = newMetrics();
    const enricher = { ready: async () => undefined, lookup: () => info };
    const writer = new QueryLogWriter(store, enricher, metrics, () => undefined, {
      maxBatch: 10,
      maxPending: 10,
      flushIntervalMs: 10,
    });
    for (let i = 0; i < 10; i++) writer.record(answered());
    await new Promise((r) => setTimeout(r, 30));
    // The first batch is held by the slow store: 10 more fill the queue, 5 beyond are dropped.
    for (let i = 0; i < 15; i++) writer.record(answered());
    expect(writer.dropped).toBe(5);
    expect(await metrics.registry.metrics()).toMatch(/dns_query_log_dropped_total 5/);
    open();
    await writer.flush();
    expect(stored).toHaveLength(20);
    await writer.close();
  });
});

describe('query-log writer with deferred batches (the query-log thread)', () => {
  it('writes every query of received batches, in time order across batches, and drops whole batches beyond its queue', async () => {
    const stored: QueryRow[] = [];
    const store = { append: async (rows: QueryRows) => void stored.push(...objects(rows)) } as unknown as QueryLogStore;
    const writer = new QueryLogWriter(
      store,
      { ready: async () => undefined, lookup: () => info },
      newMetrics(),
      () => undefined,
      {
        maxBatch: 100,
        maxPending: 5,
        flushIntervalMs: 10_000,
      },
    );
    const ring = newQueryRing(64 * 1024);
    const channel = new QueryLogChannel({ ring, control: newControl() });
    const reader = new QueryRingReader(ring, new WireStrings());
    const send = (queries: LoggedQuery[]) => {
      for (const q of queries) channel.record(q);
      writer.recordBatch(reader.drain()!);
    };
    const t0 = 1_700_000_000_000;
    // Two answering threads' batches overlap in time.
    send([
      answered({ timestamp: t0 + 1, name: 'one.example.com' }),
      answered({ timestamp: t0 + 3, name: 'three.example.com' }),
    ]);
    send([
      answered({ timestamp: t0 + 2, name: 'two.example.com' }),
      answered({ timestamp: t0 + 4, name: 'four.example.com' }),
    ]);
    expect(writer.pending).toBe(4);
    send([answered({ timestamp: t0 + 5 }), answered({ timestamp: t0 + 6 })]);
    expect(writer.dropped).toBe(2);
    await writer.flush();
    expect(stored.map((r) => r.qname)).toEqual([
      'one.example.com',
      'two.example.com',
      'three.example.com',
      'four.example.com',
    ]);
    // Columns from the rings make the same rows as the object path (the IPv4-mapped client logged as IPv4).
    expect(stored[0]).toEqual(toRow(answered({ timestamp: t0 + 1, name: 'one.example.com' }), info));
    expect(stored[0].clientIp).toBe('1.1.1.1');
    expect(writer.written).toBe(4);
    await writer.close();
  });

  it('writes columns as the object path would: accounts that are no number left out, each client enriched once per run', async () => {
    const batches: QueryRows[] = [];
    const store = { append: async (rows: QueryRows) => void batches.push(rows) } as unknown as QueryLogStore;
    const lookups: string[] = [];
    const infos: Record<string, IpInfo> = {
      '192.0.2.1': { country: 'DE', asn: 'AS3320', asOrg: 'DTAG' },
      '2001:db8::9': { country: 'NL', asn: 'AS1136', asOrg: 'KPN' },
    };
    const enricher = { ready: async () => undefined, lookup: (ip: string) => (lookups.push(ip), infos[ip]) };
    const writer = new QueryLogWriter(store, enricher, newMetrics(), () => undefined, {
      maxBatch: 100,
      flushIntervalMs: 10_000,
    });
    const ring = newQueryRing(64 * 1024);
    const channel = new QueryLogChannel({ ring, control: newControl() });
    const reader = new QueryRingReader(ring, new WireStrings());
    const t0 = 1_700_000_000_000;
    const sent = [
      answered({ timestamp: t0, clientIp: '::ffff:192.0.2.1' }),
      answered({
        timestamp: t0 + 1,
        clientIp: '::ffff:192.0.2.1',
        rcode: 'NXDOMAIN',
        name: 'gone.home.dyn.example.net',
      }),
      answered({ timestamp: t0 + 2, clientIp: '::ffff:192.0.2.1', accountId: 'not-a-number' }),
      answered({ timestamp: t0 + 3, clientIp: '2001:db8::9', transport: 'tcp' }),
      answered({ timestamp: t0 + 4, clientIp: '2001:db8::9' }),
    ];
    for (const q of sent) channel.record(q);
    writer.recordBatch(reader.drain()!);
    await writer.flush();
    const stored = batches.flatMap(objects);
    const expected = sent.map((q) => toRow(q, infos[q.clientIp.replace('::ffff:', '')])).filter((r) => r !== null);
    expect(stored).toEqual(expected);
    expect(stored).toHaveLength(4);
    // One lookup per run of queries from one client (the account row between breaks no run).
    expect(lookups).toEqual(['192.0.2.1', '2001:db8::9']);
    // The batch's rollups count the shared enrichment once per query.
    const [hourly] = rollupsOf(batches[0]).filter((r) => r.granularity === 'hour' && r.domain !== '');
    expect(hourly.counts).toMatchObject({
      total: 4,
      tcp: 1,
      ipv6: 2,
      countries: { DE: 2, NL: 2 },
      asns: { AS3320: 2, AS1136: 2 },
      nxdomain: { 'gone.home.dyn.example.net': 1 },
    });
    await writer.close();
  });

  it('writes batches numbered in two string tables (the table started afresh between drains) as one delivery, in time order', async () => {
    const stored: QueryRow[] = [];
    const appends: number[] = [];
    const store = {
      append: async (rows: QueryRows) => {
        appends.push(rows.count);
        stored.push(...objects(rows));
      },
    } as unknown as QueryLogStore;
    const writer = new QueryLogWriter(
      store,
      { ready: async () => undefined, lookup: () => info },
      newMetrics(),
      () => undefined,
      { maxBatch: 100, flushIntervalMs: 10_000 },
    );
    const ring = newQueryRing(64 * 1024);
    const channel = new QueryLogChannel({ ring, control: newControl() });
    const strings = new WireStrings();
    const reader = new QueryRingReader(ring, strings);
    const t0 = 1_700_000_000_000;
    channel.record(answered({ timestamp: t0 + 1, name: 'a.example.com', clientIp: '2001:db8::1' }));
    writer.recordBatch(reader.drain()!);
    // The table is full: the next drain numbers its strings in a fresh one.
    while (strings.table.length < MAX_TABLE_SIZE) strings.table.push('');
    strings.renewIfFull();
    // Same account, domain and client as the record before: the ring does not repeat them.
    channel.record(answered({ timestamp: t0 + 2, name: 'b.example.com', clientIp: '2001:db8::1', rcode: 'NXDOMAIN' }));
    writer.recordBatch(reader.drain()!);
    await writer.flush();
    expect(appends).toEqual([1, 1]);
    expect(stored).toEqual([
      toRow(answered({ timestamp: t0 + 1, name: 'a.example.com', clientIp: '2001:db8::1' }), info),
      toRow(answered({ timestamp: t0 + 2, name: 'b.example.com', clientIp: '2001:db8::1', rcode: 'NXDOMAIN' }), info),
    ]);
    await writer.close();
  });
});

describe('query-log writer rollups', () => {
  it('stores many busy buckets in chunks of at most 256 (short event-loop stalls), losing none', async () => {
    const calls: Array<{ rows: number; rollups: Rollup[] }> = [];
    const store = {
      append: async (rows: QueryRows | [], rollups: Rollup[]) => {
        calls.push({ rows: asQueryRows(rows).count, rollups });
      },
    } as unknown as QueryLogStore;
    const writer = new QueryLogWriter(
      store,
      { ready: async () => undefined, lookup: () => info },
      newMetrics(),
      () => undefined,
      {
        maxBatch: 5000,
        flushIntervalMs: 10,
      },
    );
    // 600 hosts of one account, one query each: an hourly and a daily bucket per host and for the account.
    for (let i = 0; i < 600; i++)
      writer.record(answered({ name: `h${i}.dyn.example.net`, domain: `h${i}.dyn.example.net` }));
    await writer.flush();
    await writer.close();
    const buckets = calls.flatMap((c) => c.rollups);
    expect(calls.every((c) => c.rollups.length <= 256)).toBe(true);
    expect(calls.filter((c) => c.rollups.length > 0).length).toBeGreaterThan(1);
    expect(calls.reduce((n, c) => n + c.rows, 0)).toBe(600);
    // Every query is counted once in each granularity of its own domain's buckets.
    const perDomainHourly = buckets.filter((b) => b.granularity === 'hour' && b.domain.startsWith('h'));
    expect(new Set(perDomainHourly.map((b) => b.domain)).size).toBe(600);
    expect(perDomainHourly.reduce((n, b) => n + b.counts.total, 0)).toBe(600);
  });
});

describe('order of receipt across answering threads', () => {
  it('merges runs in time order, stable for equal times, and leaves rows in order alone', () => {
    expect(receiptOrder(Float64Array.of(1, 2, 2, 5))).toBeNull();
    // Three chunks (runs): [1 4 9] [2 4 4] [0 9].
    const ts = Float64Array.of(1, 4, 9, 2, 4, 4, 0, 9);
    expect(Array.from(receiptOrder(ts)!)).toEqual([6, 0, 3, 1, 4, 5, 2, 7]);
    // Against a stable sort, on random runs.
    // A fixed linear congruential sequence: the same runs every time.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const random = Float64Array.from({ length: 500 }, (_, i) => Math.floor(i / 37) * 3 + Math.floor(next() * 40));
    const expected = Array.from(random.keys()).sort((a, b) => random[a] - random[b] || a - b);
    expect(Array.from(receiptOrder(random) ?? random.keys())).toEqual(expected);
  });
});
