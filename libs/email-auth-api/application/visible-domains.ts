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
    const zones = await this.projections
      .readModel(ZONES)
      .find({ account_id: p.accountId, status: 'verified' }, { sort: { name: 1 } });
    return zones.filter((z) => admits(p, z.name)).map((z) => ({ name: z.name, verified_by: z.verified_by ?? null }));
  }

  /**
   * Whether one zone (by normalised name) is visible: what `list` would say of it, reading
   * only that zone. By name alone first (the read store remembers where a name's document
   * is, so no query runs); names are not unique across accounts, so when that document is
   * not this account's verified zone, the full query decides.
   */
  async sees(p: Principal, name: string): Promise<boolean> {
    if (!admits(p, name)) return false;
    const zones = this.projections.readModel(ZONES);
    const byName = await zones.findOne({ name });
    if (byName?.account_id === p.accountId && byName.status === 'verified') return true;
    return (await zones.findOne({ name, account_id: p.accountId, status: 'verified' })) !== null;
  }

  async get(p: Principal, raw: string | undefined): Promise<VisibleZone> {
    const name = normalizeZone(raw ?? '');
    const zone = (await this.list(p)).find((z) => z.name === name);
    if (!zone) throw notFound(DOMAIN_NOT_FOUND, 'domain_not_found');
    return zone;
  }
}

/** In the account's add-on and in the key's selection (none: every domain of the add-on). */
const admits = (p: Principal, name: string): boolean =>
  (p.emailAuthDomains ?? []).includes(name) && (!p.keyDomains?.length || p.keyDomains.includes(name));
