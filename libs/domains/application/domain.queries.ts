import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { DomainDoc, DOMAINS } from '../../../projections/domains.projection';
import { notFound } from '../../shared/errors';
import { familyOfType } from '../domain/addresses';
import { DOMAIN_NOT_FOUND } from '../domain/domain.decider';
import { normalizeFqdn } from '../../shared/fqdn';

/** The contract's domain object (§4) plus `addresses` (ddns.md, dual stack); `record_ip` is the record type's address. */
export const domainView = (d: DomainDoc) => ({
  id: d.id,
  fqdn: d.fqdn,
  record_type: d.record_type,
  record_ip: d.addresses[familyOfType(d.record_type)],
  ttl: d.ttl,
  monitor_enabled: d.monitor_enabled,
  addresses: { ipv4: d.addresses.ipv4, ipv6: d.addresses.ipv6 },
  created_at: d.created_at,
  updated_at: d.updated_at,
});

@Injectable()
export class DomainQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  private get domains() {
    return this.projections.readModel(DOMAINS);
  }

  async list(accountId: number) {
    return (await this.domains.find({ account_id: accountId }, { sort: { id: 1 } })).map(domainView);
  }

  async get(accountId: number, fqdn: string) {
    // By fqdn alone (unique among live hosts, served by its index), then ownership: a foreign host is not found.
    const doc = await this.domains.findOne({ fqdn: normalizeFqdn(fqdn) });
    if (!doc || doc.account_id !== accountId) throw notFound(DOMAIN_NOT_FOUND);
    return domainView(doc);
  }
}
