import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZoneOwner } from '../domain/report.events';

/** A domain and its parents, longest first: `a.b.example.com` → itself, `b.example.com`, `example.com`. */
export const domainAndParents = (domain: string): string[] => {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
};

/**
 * Which account's Email Authentication add-on covers a report's domain, read from the
 * accounts read model (`email_auth.domains`). A report for a subdomain belongs to the
 * enrolled zone above it; the longest enrolled match wins.
 */
@Injectable()
export class EnrolledZones {
  constructor(private readonly projections: ProjectionEngine) {}

  async owner(domain: string): Promise<ZoneOwner | null> {
    const candidates = domainAndParents(domain);
    if (candidates.length === 0) return null;
    const accounts = await this.projections
      .collection<{ _id: number; id: number; disabled?: boolean; email_auth?: { tier: string; domains: string[] } }>('accounts', 'accounts')
      .find({ 'email_auth.domains': { $in: candidates } });
    let best: ZoneOwner | null = null;
    for (const account of accounts) {
      if (!account.email_auth || account.email_auth.tier === 'none') continue;
      for (const zone of account.email_auth.domains) {
        if (candidates.includes(zone) && (!best || zone.length > best.zone.length)) best = { zone, account_id: account.id };
      }
    }
    return best;
  }
}
