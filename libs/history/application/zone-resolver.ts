import { Inject, Injectable } from '@nestjs/common';
import { canonicalName, Explained, ZoneIndex } from '../../dns-server';
import { servedZoneDefinition } from '../../dns-role/dns-index-feeder';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { validationFailed } from '../../shared/errors';
import { isAtOrUnder } from '../../shared/fqdn';
import { Logger, LOGGER } from '../../shared/logger';
import { HistoryQueries, ZoneAt } from './history.queries';

/**
 * `GET /zones/{zone}/resolve`: what the DNS server answered (or would have) at an instant.
 * The zone as it was is loaded into a ZoneIndex, the DNS server's own structure, the way the
 * index feeder serves a zone (its SOA and NS, the records, the account's hosts under it), and
 * asked through the same route the server answers from (`ZoneIndex.explain`): no second
 * implementation of DNS semantics (decision 0077).
 */
@Injectable()
export class ZoneResolver {
  constructor(
    private readonly queries: HistoryQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async resolve(accountId: number, zone: ZoneAt, name: string, type: string, at: number): Promise<Explained> {
    const zoneName = zone.subject.name;
    const qname = canonicalName(name);
    if (!isAtOrUnder(qname, zoneName)) throw validationFailed(`name ${qname} is outside the zone ${zoneName}`);
    const index = new ZoneIndex();
    const hosts = [];
    for (const h of await this.queries.hostsUnder(accountId, zoneName)) {
      if (h.created_at > at) continue;
      const state = await this.queries.hostAt(h, at);
      if (state) hosts.push({ fqdn: h.name, ...state });
    }
    const changedAt = Math.max(zone.changedAt, zone.subject.created_at, ...hosts.map((h) => h.changedAt));
    index.putZone(
      servedZoneDefinition(zoneName, String(accountId), Math.floor(changedAt / 1000), this.config.nameservers),
    );
    const put = (owner: string, type: string, ttl: number, records: string[]) => {
      try {
        index.setRRset(zoneName, owner, type, ttl, records);
      } catch (e) {
        // As the index feeder does: a record the index refuses is not served, the rest is.
        this.log.warn('resolve: record not served', { zone: zoneName, owner, type, error: (e as Error).message });
      }
    };
    for (const r of zone.records) put(r.subname, r.type, r.ttl, r.records);
    // A host's own addresses win over zone records at the same name (the feeder places hosts last).
    for (const h of hosts) {
      put(`${h.fqdn}.`, 'A', h.host.ttl ?? 60, h.host.ipv4 ? [h.host.ipv4] : []);
      put(`${h.fqdn}.`, 'AAAA', h.host.ttl ?? 60, h.host.ipv6 ? [h.host.ipv6] : []);
    }
    try {
      return index.explain(qname, type);
    } catch (e) {
      throw validationFailed(`cannot resolve ${qname} ${type}: ${(e as Error).message}`);
    }
  }
}
