import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { autoRenewAllowed } from '../domain/certificate-rules';
import { ExpireCertificate, RenewCertificate } from './certificate.commands';
import { CERTIFICATES } from '../../../projections/certificates.projection';
import { CertificateQueries } from './certificate.queries';

export interface RenewalJobResult {
  now: string;
  renewals_started: string[];
  expired: string[];
  skipped: Array<{ id: string; reason: string }>;
}

/**
 * The daily certificate job: starts the automatic renewals that are due (next_renewal_at
 * passed, auto-renew on, the plan still allows it) and moves issued certificates past
 * their expiry to expired. The `certificate-renewals` process manager runs it each day
 * (renewal.process.ts); operators run it with an explicit `now` through
 * `POST /admin/jobs/certificate-renewals` or `jobs:certificate-renewals`.
 */
@Injectable()
export class CertificateRenewalJob {
  constructor(
    private readonly queries: CertificateQueries,
    private readonly commands: CommandBus,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async run(now: Date): Promise<RenewalJobResult> {
    // Due dates come from the read model: let it catch up with everything appended so far.
    await this.projections.waitFor(await this.store.headPosition(), 5000, [CERTIFICATES.projection]);
    const result: RenewalJobResult = { now: now.toISOString(), renewals_started: [], expired: [], skipped: [] };
    for (const doc of await this.queries.dueForRenewal(now)) {
      try {
        if (!autoRenewAllowed(await this.queries.planOf(doc.account_id))) {
          result.skipped.push({ id: doc.id, reason: 'plan no longer includes auto-renewal' });
          continue;
        }
        await this.commands.execute(new RenewCertificate(null, doc.id, 'automatic', now));
        result.renewals_started.push(doc.id);
      } catch (e) {
        result.skipped.push({ id: doc.id, reason: e instanceof AppError ? e.message : String(e) });
      }
    }
    for (const doc of await this.queries.pastExpiry(now)) {
      if (await this.commands.execute<ExpireCertificate, boolean>(new ExpireCertificate(doc.id, now)))
        result.expired.push(doc.id);
    }
    return result;
  }
}
