import { Injectable } from '@nestjs/common';
import { ZONES } from '../../../projections/zones.projection';
import { Principal } from '../../auth/principal';
import { normalizeZone } from '../../email-auth/application/enrolment';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { notFound } from '../../shared/errors';

export const DOMAIN_NOT_FOUND = 'No Email Authentication domain by that name on this key.';

export interface VisibleZone {
  name: string;
  verified_by: 'ns' | 'txt' | null;
}

/**
 * Which domains a key sees: zones the account owns and has verified, in its Email
 * Authentication subscription, and in the key's selection (empty: all). Anything else
 * answers the seed's 404, whether it exists elsewhere or not.
 */
@Injectable()
export class VisibleDomains {
  constructor(private readonly projections: ProjectionEngine) {}

  async list(p: Principal): Promise<VisibleZone[]> {
    const subscribed = new Set(p.emailAuthDomains ?? []);
    const selected = p.keyDomains?.length ? new Set(p.keyDomains) : null;
    const zones = await this.projections.readModel(ZONES).find({ account_id: p.accountId, status: 'verified' }, { sort: { name: 1 } });
    return zones.filter((z) => subscribed.has(z.name) && (!selected || selected.has(z.name))).map((z) => ({ name: z.name, verified_by: z.verified_by ?? null }));
  }

  async get(p: Principal, raw: string | undefined): Promise<VisibleZone> {
    const name = normalizeZone(raw ?? '');
    const zone = (await this.list(p)).find((z) => z.name === name);
    if (!zone) throw notFound(DOMAIN_NOT_FOUND, 'domain_not_found');
    return zone;
  }
}
