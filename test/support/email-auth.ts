import { Global, Module } from '@nestjs/common';
import Database from 'better-sqlite3';
import { DMARC_AGGREGATE_STATS, DmarcAggregateStats, DmarcAggregateTotals } from '../../libs/email-auth/application/aggregate-stats.port';
import { DnsServer, ZoneIndex } from '../../libs/dns-server';
import { HttpClient } from './http-client';

/**
 * Aggregate-report rows for the DMARC nightly job in tests: a real (in-memory SQLite)
 * store the test fills, queried like the ingestion context's implementation is meant
 * to be, so the job's window arithmetic is what is tested, not a canned answer.
 */
export class SqliteAggregateStats implements DmarcAggregateStats {
  private readonly db = new Database(':memory:');

  constructor() {
    this.db.exec('CREATE TABLE rows (zone TEXT NOT NULL, begin_ms INTEGER NOT NULL, count INTEGER NOT NULL, dmarc_pass INTEGER NOT NULL)');
  }

  /** One report row: `count` messages whose report period began at `begin`, `passing` of them passing DMARC. */
  add(zone: string, begin: Date | string, count: number, passing: number): void {
    const insert = this.db.prepare('INSERT INTO rows VALUES (?, ?, ?, ?)');
    const at = new Date(begin).getTime();
    if (passing > 0) insert.run(zone, at, passing, 1);
    if (count - passing > 0) insert.run(zone, at, count - passing, 0);
  }

  clear(): void {
    this.db.exec('DELETE FROM rows');
  }

  async totals(zone: string, from: Date, to: Date): Promise<DmarcAggregateTotals> {
    const row = this.db
      .prepare('SELECT COALESCE(SUM(count), 0) AS messages, COALESCE(SUM(CASE WHEN dmarc_pass = 1 THEN count ELSE 0 END), 0) AS passing FROM rows WHERE zone = ? AND begin_ms >= ? AND begin_ms < ?')
      .get(zone, from.getTime(), to.getTime()) as { messages: number; passing: number };
    return { messages: row.messages, passing: row.passing };
  }
}

/** A global module binding DMARC_AGGREGATE_STATS, as the ingestion context will. */
export function aggregateStatsModule(stats: DmarcAggregateStats) {
  @Global()
  @Module({ providers: [{ provide: DMARC_AGGREGATE_STATS, useValue: stats }], exports: [DMARC_AGGREGATE_STATS] })
  class TestAggregateStatsModule {}
  return TestAggregateStatsModule;
}

/** "The world" for zone verification: a second DNS server delegating zones to the service's name servers. */
export async function startWorld(): Promise<{ world: ZoneIndex; server: DnsServer; port: number }> {
  const world = new ZoneIndex();
  const server = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
  const { port } = await server.start();
  return { world, server, port };
}

/** Imports and verifies `zone` for the account and puts it in the account's Email Authentication add-on. */
export async function enrolZone(
  http: HttpClient,
  world: ZoneIndex,
  owner: { id: number; token: string },
  zone: string,
  options: { zoneFile?: string; addOnDomains?: string[] } = {},
): Promise<void> {
  const created = await http.post('/zones', { name: zone, zone_file: options.zoneFile }, owner.token);
  if (created.status !== 201) throw new Error(`import ${zone}: ${created.status} ${created.text}`);
  world.putZone({
    name: zone,
    ownerAccountId: null,
    soa: { mname: 'ns1.example.net', rname: `hostmaster.${zone}`, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
    ttl: 60,
    nameservers: created.body.nameservers,
  });
  const verified = await http.post(`/zones/${zone}/verify`, undefined, owner.token);
  if (verified.body.status !== 'verified') throw new Error(`verify ${zone}: ${verified.text}`);
  const sub = await http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, { email_auth: { tier: 'standard', domains: options.addOnDomains ?? [zone] } });
  if (sub.status !== 200) throw new Error(`subscription: ${sub.text}`);
}
