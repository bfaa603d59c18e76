import { Injectable } from '@nestjs/common';
import { DOMAINS } from '../../../projections/domains.projection';
import { ZONES } from '../../../projections/zones.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { isAtOrUnder, longestZoneOf } from '../../shared/fqdn';
import { RRset } from '../domain/zone.events';

/**
 * The account's dynamic-DNS hosts that the DNS server places in a zone (the longest of the
 * account's zones holding them, as dns-index-feeder.ts does), as A/AAAA RRsets with names
 * relative to the zone: what an RFC 2136 UPDATE's prerequisites must see. Read from the
 * read models (an account has at most a few hundred hosts, contract §16).
 */
@Injectable()
export class ZoneHosts {
  constructor(private readonly projections: ProjectionEngine) {}

  async addressRRsets(accountId: number, zone: string): Promise<RRset[]> {
    const [hosts, zones] = await Promise.all([
      this.projections.readModel(DOMAINS).find({ account_id: accountId }),
      this.projections.readModel(ZONES).find({ account_id: accountId }),
    ]);
    const zoneNames = zones.map((z) => z.name);
    const rrsets: RRset[] = [];
    for (const host of hosts) {
      if (!isAtOrUnder(host.fqdn, zone) || longestZoneOf(host.fqdn, zoneNames) !== zone) continue;
      const subname = host.fqdn === zone ? '' : host.fqdn.slice(0, -zone.length - 1);
      const { ipv4, ipv6 } = host.addresses;
      if (ipv4) rrsets.push({ subname, type: 'A', ttl: host.ttl, records: [ipv4] });
      if (ipv6) rrsets.push({ subname, type: 'AAAA', ttl: host.ttl, records: [ipv6] });
    }
    return rrsets;
  }
}
