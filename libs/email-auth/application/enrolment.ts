import { Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { conflict, forbidden } from '../../shared/errors';
import { ZoneQueries } from '../../zones/application/zone.queries';

export const ADDON_REQUIRED = 'DMARC management requires the Email Authentication add-on';

export const normalizeZone = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * Who may manage a zone's email authentication: the owner of the zone (others get 404,
 * as if it did not exist), with the zone in the account's Email Authentication
 * subscription (403 `addon_required`), once the zone is verified (409).
 */
@Injectable()
export class Enrolment {
  constructor(
    private readonly zones: ZoneQueries,
    private readonly accounts: AccountDirectory,
  ) {}

  async check(accountId: number, rawZone: string): Promise<string> {
    const doc = await this.zones.get(accountId, normalizeZone(rawZone));
    const zone = doc.name;
    const { state } = await this.accounts.load(accountId);
    if (state.emailAuth.tier === 'none' || !state.emailAuth.domains.includes(zone))
      throw forbidden('addon_required', ADDON_REQUIRED);
    if (doc.status !== 'verified')
      throw conflict('zone_not_verified', `Verify the zone ${zone} before managing its email authentication`);
    return zone;
  }
}
