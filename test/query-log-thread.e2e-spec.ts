import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryLogThreadScript, ThreadedQueryLog } from '../libs/dns-analytics/application/threaded-query-log';
import { ALL_DOMAINS } from '../libs/dns-analytics/domain/rollup';
import { SqliteQueryLogStore } from '../libs/dns-analytics/infrastructure/sqlite-query-log.store';
import { domainStream } from '../libs/domains/domain/domain.events';
import { SqliteEventStore } from '../libs/eventstore/sqlite/sqlite-event-store';
import { Metrics } from '../libs/shared/metrics';
import { DnsMetricsSink } from '../libs/dns-role/dns-metrics.sink';
import { DnsRole } from '../libs/dns-role/dns-role';
import { dnsThreadScript, ThreadedDns } from '../libs/dns-role/threaded-dns';
import { answerData, queryDns } from './support/dns-client';

/**
 * The query log in a thread of its own: real DNS packets to a DNS thread (and to a DNS
 * server on this thread), answered queries posted as encoded batches straight to the
 * query-log thread, rows and counters checked in the SQLite file and /metrics.
 */
describe('query-log thread', () => {
  let dir: string;
  let events: SqliteEventStore;
  let log: ThreadedQueryLog;
  let reader: SqliteQueryLogStore;
  const metrics = new Metrics();
  const errors: string[] = [];

  const settings = { dnsHost: '127.0.0.1', dnsPort: 0, ddnsZones: ['dyn.test'], nameservers: ['ns1.test'] };

  async function rowsOf(accountId: number, expected: number) {
    const until = Date.now() + 10_000;
    for (;;) {
      await log.flush();
      const rows = await reader.recent({ accountId, domain: null }, 0, 100);
      if (rows.length >= expected || Date.now() > until) return rows;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function served(port: number, fqdn: string): Promise<void> {
    const started = Date.now();
    while (answerData(await queryDns(port, fqdn, 'A'), 'A').length === 0 && Date.now() - started < 5000)
      await new Promise((r) => setTimeout(r, 20));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-log-thread-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db') });
    const file = join(dir, 'dns-query-log.db');
    const script = queryLogThreadScript();
    expect(script).not.toBeNull();
    log = await ThreadedQueryLog.start(script!, { kind: 'sqlite', file }, metrics, (e) => errors.push(e), {
      rollupIntervalMs: 100,
    });
    reader = new SqliteQueryLogStore(file);
    const now = new Date().toISOString();
    for (const [id, account, fqdn] of [
      [1, 7, 'h1.dyn.test'],
      [2, 8, 'h2.dyn.test'],
    ] as const) {
      const created = {
        domain_id: id,
        account_id: account,
        fqdn,
        record_type: 'A',
        record_ip: '192.0.2.10',
        ttl: 60,
        created_at: now,
      };
      await events.appendToStream(domainStream(id), [{ type: 'DomainCreated', data: created }], 'no_stream');
    }
  });

  afterAll(async () => {
    await log.close();
    await reader.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs what a DNS thread answered without a query passing through the main thread', async () => {
    const sink = new DnsMetricsSink(metrics, log);
    const onMain = jest.spyOn(log, 'record');
    const dns = new ThreadedDns(dnsThreadScript()!, events, settings, sink, (msg) => errors.push(msg));
    const port = await dns.start();
    try {
      await served(port, 'h1.dyn.test');
      await queryDns(port, 'h1.dyn.test', 'AAAA');
      await queryDns(port, 'missing.h1.dyn.test', 'TXT');
      // No account owns it: answered REFUSED, counted in /metrics, never logged.
      await queryDns(port, 'example.org', 'A');
      const rows = await rowsOf(7, 3);
      // Newest first: the two last queries, then the A queries that waited for the host.
      expect(rows.slice(2).every((r) => r.qname === 'h1.dyn.test' && r.qtype === 'A' && r.rcode === 'NOERROR')).toBe(
        true,
      );
      expect(
        rows.slice(0, 2).map((r) => [r.domain, r.qname, r.qtype, r.rcode, r.clientIp, r.transport, r.edns, r.country]),
      ).toEqual([
        ['h1.dyn.test', 'missing.h1.dyn.test', 'TXT', 'NXDOMAIN', '127.0.0.1', 'udp', false, 'Unknown'],
        ['h1.dyn.test', 'h1.dyn.test', 'AAAA', 'NOERROR', '127.0.0.1', 'udp', false, 'Unknown'],
      ]);
      expect(rows.every((r) => r.accountId === 7 && r.responseMs > 0)).toBe(true);
      expect(onMain).not.toHaveBeenCalled();
      // The summary reads rollups: the thread wrote them too.
      const day = await reader.sumRollups(7, ALL_DOMAINS, 'day', 0, Date.now());
      expect(day.total).toBe(rows.length);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/dns_queries_total\{transport="udp",rcode="REFUSED"\} 1/);
      expect(text).toMatch(new RegExp(`dns_query_log_written_total ${rows.length}\\b`));
      expect(text).toMatch(/dns_query_log_dropped_total 0/);
      expect(text).toMatch(/dns_query_log_backlog 0/);
    } finally {
      await dns.stop();
      onMain.mockRestore();
    }
  });

  it('logs what a DNS server on this thread answered (DNS inline) through a channel of its own', async () => {
    const role = new DnsRole(events, settings, new DnsMetricsSink(metrics, log), (msg) => errors.push(msg));
    const port = await role.start();
    try {
      await served(port, 'h2.dyn.test');
      await queryDns(port, 'h2.dyn.test', 'MX');
      const rows = await rowsOf(8, 2);
      expect(rows[0]).toMatchObject({
        accountId: 8,
        domain: 'h2.dyn.test',
        qname: 'h2.dyn.test',
        qtype: 'MX',
        rcode: 'NOERROR',
      });
      expect(errors).toEqual([]);
    } finally {
      await role.stop();
    }
  });
});
