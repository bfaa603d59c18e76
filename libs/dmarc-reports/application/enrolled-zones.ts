import { Injectable } from '@nestjs/common';
import { EMAIL_AUTH_ENROLMENTS } from '../../../projections/email-auth-enrolments.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZoneOwner } from '../domain/report.events';

/** A domain and its parents, longest first: `a.b.example.com` → itself, `b.example.com`, `example.com`. */
export const domainAndParents = (domain: string): string[] => {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
};

/**
 * Which account's Email Authentication add-on covers a report's domain, read from the
 * enrolments read model (one document per enrolled zone, indexed by zone; projected from
 * the subscriptions' `email_auth.domains`, tier not `none`). A report for a subdomain
 * belongs to the enrolled zone above it; the longest enrolled match wins, and of two
 * accounts listing the same zone the older (lower id) one.
 */
@Injectable()
export class EnrolledZones {
  constructor(private readonly projections: ProjectionEngine) {}

  async owner(domain: string): Promise<ZoneOwner | null> {
    const candidates = domainAndParents(domain);
    if (candidates.length === 0) return null;
    const enrolments = await this.projections.readModel(EMAIL_AUTH_ENROLMENTS).find({ zone: { $in: candidates } });
    let best: ZoneOwner | null = null;
    for (const e of enrolments) {
      if (e.tier === 'none') continue;
      const longer = !best || e.zone.length > best.zone.length;
      const older = best && e.zone === best.zone && e.account_id < best.account_id;
      if (longer || older) best = { zone: e.zone, account_id: e.account_id };
    }
    return best;
  }
}
