import type { AnsweredQuery } from '../../dns-server';
import { Metrics } from '../../shared/metrics';
import { IpIntel } from './ip-intel';
import type { LoggedQuery } from './query-batch';
import { newControl, QueryLogChannel } from './query-log-channel';
import { newQueryRing, QueryRingReader, WireStrings } from './query-ring';
import { QueryLogWriter, toRow } from './query-log-writer';
import type { QueryLogStore } from './query-log.store';
import type { QueryRow } from '../domain/query-row';
import type { Rollup } from '../domain/rollup';

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
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', 'not-an-ip']) expect(intel.lookup(ip)).toEqual({ country: 'Unknown', asn: 'Unknown', asOrg: 'Unknown' });
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
      append: async (rows: QueryRow[]) => {
        await gate;
        stored.push(...rows);
      },
    } as unknown as QueryLogStore;
    const metrics = new Metrics();
    const enricher = { ready: async () => undefined, lookup: () => info };
    const writer = new QueryLogWriter(store, enricher, metrics, () => undefined, { maxBatch: 10, maxPending: 10, flushIntervalMs: 10 });
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
    const store = { append: async (rows: QueryRow[]) => void stored.push(...rows) } as unknown as QueryLogStore;
    const writer = new QueryLogWriter(store, { ready: async () => undefined, lookup: () => info }, new Metrics(), () => undefined, {
      maxBatch: 100,
      maxPending: 5,
      flushIntervalMs: 10_000,
    });
    const ring = newQueryRing(64 * 1024);
    const channel = new QueryLogChannel({ ring, control: newControl() });
    const reader = new QueryRingReader(ring, new WireStrings());
    const send = (queries: LoggedQuery[]) => {
      for (const q of queries) channel.record(q);
      writer.recordBatch(reader.drain()!);
    };
    const t0 = 1_700_000_000_000;
    // Two answering threads' batches overlap in time.
    send([answered({ timestamp: t0 + 1, name: 'one.example.com' }), answered({ timestamp: t0 + 3, name: 'three.example.com' })]);
    send([answered({ timestamp: t0 + 2, name: 'two.example.com' }), answered({ timestamp: t0 + 4, name: 'four.example.com' })]);
    expect(writer.pending).toBe(4);
    send([answered({ timestamp: t0 + 5 }), answered({ timestamp: t0 + 6 })]);
    expect(writer.dropped).toBe(2);
    await writer.flush();
    expect(stored.map((r) => r.qname)).toEqual(['one.example.com', 'two.example.com', 'three.example.com', 'four.example.com']);
    expect(writer.written).toBe(4);
    await writer.close();
  });
});

describe('query-log writer rollups', () => {
  it('stores many busy buckets in chunks of at most 256 (short event-loop stalls), losing none', async () => {
    const calls: Array<{ rows: number; rollups: Rollup[] }> = [];
    const store = {
      append: async (rows: QueryRow[], rollups: Rollup[]) => {
        calls.push({ rows: rows.length, rollups });
      },
    } as unknown as QueryLogStore;
    const writer = new QueryLogWriter(store, { ready: async () => undefined, lookup: () => info }, new Metrics(), () => undefined, {
      maxBatch: 5000,
      flushIntervalMs: 10,
    });
    // 600 hosts of one account, one query each: an hourly and a daily bucket per host and for the account.
    for (let i = 0; i < 600; i++) writer.record(answered({ name: `h${i}.dyn.example.net`, domain: `h${i}.dyn.example.net` }));
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
