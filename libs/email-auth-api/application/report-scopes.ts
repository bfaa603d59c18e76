import { Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { Principal } from '../../auth/principal';
import { normalizeZone } from '../../email-auth/application/enrolment';
import { notFound } from '../../shared/errors';
import { ZONE_NOT_FOUND } from '../../zones/domain/zone.decider';
import { ReportAccess, ReportScope } from './report-reads';
import { DOMAIN_NOT_FOUND, VisibleDomains } from './visible-domains';

/** A caller's report scope plus how it names one of its zones (404 in its own words otherwise). */
export interface ScopedCaller {
  scope: ReportScope;
  zone(raw: string | undefined): string;
  /** The zones a list covers: the one asked for, or all visible. */
  zones(raw: string | undefined): string[];
}

/**
 * Who sees which reports. Email-auth keys: the key's selection within the add-on, with the
 * seed's 404 message and subjects per the key's flag. Dashboard callers (session or account
 * key, contract §7): every verified zone of the account in its add-on, the management
 * API's zone 404, and subjects shown, as to the account owner.
 */
@Injectable()
export class ReportScopes {
  constructor(
    private readonly visible: VisibleDomains,
    private readonly accounts: AccountDirectory,
  ) {}

  forKey(p: Principal): Promise<ScopedCaller> {
    return this.scoped(p, p, !!p.failureReportSubjects, DOMAIN_NOT_FOUND, 'domain_not_found');
  }

  /** A key's access to single reports: only the report's own zone is looked at, when the report is found. */
  keyAccess(p: Principal): ReportAccess {
    return { accountId: p.accountId, sees: (zone) => this.visible.sees(p, zone) };
  }

  async forAccount(p: Principal): Promise<ScopedCaller> {
    return this.scoped(p, await this.accountView(p), true, ZONE_NOT_FOUND, 'not_found');
  }

  /** The account owner seen as a key selecting every zone of the account's add-on. */
  async accountView(p: Principal): Promise<Principal> {
    const { state } = await this.accounts.load(p.accountId);
    const addOn = state.emailAuth.tier === 'none' ? [] : state.emailAuth.domains;
    return { ...p, emailAuthDomains: addOn, keyDomains: undefined };
  }

  private async scoped(
    p: Principal,
    view: Principal,
    subjects: boolean,
    message: string,
    code: string,
  ): Promise<ScopedCaller> {
    const zones = (await this.visible.list(view)).map((z) => z.name);
    const zone = (raw: string | undefined) => {
      const name = normalizeZone(raw ?? '');
      if (!zones.includes(name)) throw notFound(message, code);
      return name;
    };
    return {
      scope: { accountId: p.accountId, zones, subjects },
      zone,
      zones: (raw) => (raw === undefined || raw === '' ? zones : [zone(raw)]),
    };
  }
}
