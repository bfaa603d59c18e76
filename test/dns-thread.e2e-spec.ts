import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnsweredQuery } from '../libs/dns-server';
import { domainStream } from '../libs/domains/domain/domain.events';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { Metrics } from '../libs/shared/metrics';
import { DnsMetricsSink } from '../libs/dns-role/dns-metrics.sink';
import { dnsThreadScript, ThreadedDns } from '../libs/dns-role/threaded-dns';
import { answerData, queryDns } from './support/dns-client';

/** The `dns` role in its own thread, against a real event store file and real DNS packets. */
describe('DNS role in a worker thread', () => {
  let dir: string;
  let store: SqliteEventStore;
  let dns: ThreadedDns;
  let port: number;
  const forwarded: AnsweredQuery[] = [];
  const metrics = new Metrics();
  const logs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dns-thread-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db') });
    const script = dnsThreadScript();
    expect(script).not.toBeNull();
    const sink = new DnsMetricsSink(metrics, { record: (q) => forwarded.push(q) });
    const settings = { dnsHost: '127.0.0.1', dnsPort: 0, ddnsZones: ['dyn.test'], nameservers: ['ns1.test'] };
    // Polling for other processes' commits is off for the test: only the main thread's wake-up can serve a new host.
    dns = new ThreadedDns(script!, store, settings, sink, (msg) => logs.push(msg), { pollIntervalMs: 3_600_000 });
    port = await dns.start();
  });

  afterAll(async () => {
    await dns.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a host appended on the main thread, woken by the commit (polling is off)', async () => {
    expect((await queryDns(port, 'h1.dyn.test', 'A')).rcode).toBe('NXDOMAIN');
    // Idle for a while, the thread sleeps until woken: the commit must wake it.
    await new Promise((r) => setTimeout(r, 300));
    const created = {
      domain_id: 1,
      account_id: 7,
      fqdn: 'h1.dyn.test',
      record_type: 'A',
      record_ip: '192.0.2.10',
      ttl: 60,
      created_at: new Date().toISOString(),
    };
    await store.appendToStream(domainStream(1), [{ type: 'DomainCreated', data: created }], 'no_stream');
    const started = Date.now();
    let answer = await queryDns(port, 'h1.dyn.test', 'A');
    while (answerData(answer, 'A').length === 0 && Date.now() - started < 5000)
      answer = await queryDns(port, 'h1.dyn.test', 'A');
    expect(answerData(answer, 'A')).toEqual(['192.0.2.10']);
  });

  it('reports answered queries to the metrics and forwards each to the plugged-in sink', async () => {
    await queryDns(port, 'dyn.test', 'SOA');
    for (let i = 0; i < 50 && !forwarded.some((q) => q.name === 'dyn.test' && q.type === 'SOA'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const soa = forwarded.find((q) => q.name === 'dyn.test' && q.type === 'SOA');
    expect(soa).toMatchObject({ rcode: 'NOERROR', transport: 'udp', clientIp: '127.0.0.1', zone: 'dyn.test' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/dns_queries_total\{transport="udp",rcode="NXDOMAIN"\} [1-9]/);
    expect(text).toMatch(/dns_queries_total\{transport="udp",rcode="NOERROR"\} [1-9]/);
    expect(logs).toEqual([]);
  });
});
