import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../shared/clock';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZoneDoc, ZONES } from '../../../projections/zones.projection';
import { notFound } from '../../shared/errors';
import { ZONE_NOT_FOUND } from '../domain/zone.decider';
import { formatMasterFile } from '../domain/master-file-writer';
import { RRset } from '../domain/zone.events';

const byOwner = (a: RRset, b: RRset) => a.subname.localeCompare(b.subname) || a.type.localeCompare(b.type);

export const zoneView = (z: ZoneDoc) => ({
  id: z.id,
  name: z.name,
  status: z.status,
  verification: z.verification,
  nameservers: z.nameservers,
  created_at: z.created_at,
  verified_at: z.verified_at,
});

export const recordsView = (z: ZoneDoc) =>
  [...z.rrsets].sort(byOwner).map((r) => ({ subname: r.subname, type: r.type, ttl: r.ttl, records: r.records }));

@Injectable()
export class ZoneQueries {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private get zones() {
    return this.projections.readModel(ZONES);
  }

  async list(accountId: number) {
    return (await this.zones.find({ account_id: accountId }, { sort: { name: 1 } })).map(zoneView);
  }

  async get(accountId: number, name: string): Promise<ZoneDoc> {
    const doc = await this.zones.findOne({ name: name.toLowerCase().replace(/\.$/, ''), account_id: accountId });
    if (!doc) throw notFound(ZONE_NOT_FOUND);
    return doc;
  }

  /**
   * The zone as a BIND master file. The SOA serial printed is the time of the export in
   * seconds: informational only (the import regenerates the SOA, and the served serial is
   * the DNS role's, see docs/dns-transfers.md).
   */
  async exportZone(accountId: number, name: string): Promise<string> {
    const doc = await this.get(accountId, name);
    return formatMasterFile(
      { zone: doc.name, nameservers: doc.nameservers, serial: Math.floor(this.clock.now().getTime() / 1000) },
      doc.rrsets,
    );
  }

  /** Zones under which the account may create dynamic-DNS hosts (contract §4). */
  async verifiedZoneNames(accountId: number): Promise<string[]> {
    return (await this.zones.find({ account_id: accountId, status: 'verified' })).map((z) => z.name);
  }
}
