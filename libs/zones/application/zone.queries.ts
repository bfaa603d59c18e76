import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZoneDoc, ZONES } from '../../../projections/zones.projection';
import { notFound } from '../../shared/errors';
import { ZONE_NOT_FOUND } from '../domain/zone.decider';
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

export const recordsView = (z: ZoneDoc) => [...z.rrsets].sort(byOwner).map((r) => ({ subname: r.subname, type: r.type, ttl: r.ttl, records: r.records }));

@Injectable()
export class ZoneQueries {
  constructor(private readonly projections: ProjectionEngine) {}

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

  /** Zones under which the account may create dynamic-DNS hosts (contract §4). */
  async verifiedZoneNames(accountId: number): Promise<string[]> {
    return (await this.zones.find({ account_id: accountId, status: 'verified' })).map((z) => z.name);
  }
}
