import { Injectable } from '@nestjs/common';
import { Plan } from '../../accounts/domain/account.events';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { autoRenewAllowed, certificateNotFound, MAX_CERTIFICATES, wildcardAllowed } from '../domain/certificate-rules';
import { certificateView, COUNTED_STATUSES } from './certificate-read-model';
import { CertificateDoc, CERTIFICATES } from '../../../projections/certificates.projection';

const LIVE = { deleted: { $ne: true } };

@Injectable()
export class CertificateQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  private get docs() {
    return this.projections.readModel(CERTIFICATES);
  }

  async list(accountId: number, plan: Plan) {
    const docs = await this.docs.find({ account_id: accountId, ...LIVE }, { sort: { created_at: 1 } });
    return {
      certificates: docs.map(certificateView),
      limits: {
        max_certificates: MAX_CERTIFICATES[plan],
        current_count: docs.filter((d) => (COUNTED_STATUSES as readonly string[]).includes(d.status)).length,
        wildcard_enabled: wildcardAllowed(plan),
        auto_renew_enabled: autoRenewAllowed(plan),
      },
    };
  }

  async doc(accountId: number, id: string): Promise<CertificateDoc> {
    const doc = await this.docs.findOne({ _id: id, account_id: accountId, ...LIVE });
    if (!doc) throw certificateNotFound();
    return doc;
  }

  async get(accountId: number, id: string) {
    return certificateView(await this.doc(accountId, id));
  }

  async logs(accountId: number, id: string) {
    return { logs: (await this.doc(accountId, id)).logs };
  }

  /** Certificates whose automatic renewal is due (issued, or failed on a previous renewal). */
  dueForRenewal(now: Date): Promise<CertificateDoc[]> {
    return this.docs.find({ status: { $in: ['issued', 'failed'] }, auto_renew: true, next_renewal_at: { $lte: now.toISOString() }, ...LIVE });
  }

  pastExpiry(now: Date): Promise<CertificateDoc[]> {
    return this.docs.find({ status: 'issued', expires_at: { $lte: now.toISOString() }, ...LIVE });
  }
}
