import { Injectable } from '@nestjs/common';
import { parseRecord } from '../../dns-server';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZONES } from '../../../projections/zones.projection';
import { txtInFamily } from '../../zones/domain/zone.decider';
import { SPF_FAMILY } from '../domain/records';

/**
 * SPF records of the zones the service serves, read from the zones read model: the
 * includes whose lookups the SPF check can count (contract §7). Records elsewhere on the
 * Internet are not fetched: a settings write does not depend on outside resolvers.
 */
@Injectable()
export class ServedSpfRecords {
  constructor(private readonly projections: ProjectionEngine) {}

  async at(domain: string): Promise<string | null> {
    const labels = domain.split('.');
    const candidates = labels.map((_, i) => labels.slice(i).join('.')).filter((n) => n.includes('.'));
    const zones = await this.projections.readModel(ZONES).find({ name: { $in: candidates } });
    const zone = zones.sort((a, b) => b.name.length - a.name.length)[0];
    if (!zone) return null;
    const subname = domain === zone.name ? '' : domain.slice(0, -(zone.name.length + 1));
    const txt = zone.rrsets.find((r) => r.type === 'TXT' && r.subname === subname);
    const record = txt?.records.find((r) => txtInFamily(r, SPF_FAMILY));
    if (!record) return null;
    return Buffer.concat(parseRecord('TXT', record) as Buffer[]).toString('utf8');
  }
}
