import { Inject, Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { Plan } from '../../accounts/domain/account.events';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { conflict, notFound } from '../../shared/errors';
import { certificateDecider } from '../domain/certificate.decider';
import { CERTIFICATE_KEY_PURPOSE, certificateStream } from '../domain/certificate.events';
import { autoRenewAllowed, certificateNotFound, MAX_CERTIFICATES, wildcardAllowed } from '../domain/certificate-rules';
import { certificateView, COUNTED_STATUSES } from './certificate-read-model';
import { CertificateDoc, CERTIFICATES } from '../../../projections/certificates.projection';

const LIVE = { deleted: { $ne: true } };

/** The certificates' reads: lists and logs from the read model; the plan, and the PEMs of a download, from their streams. */
@Injectable()
export class CertificateQueries {
  constructor(
    private readonly projections: ProjectionEngine,
    private readonly streams: EventStreams,
    private readonly directory: AccountDirectory,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async planOf(accountId: number): Promise<Plan> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    return state.plan;
  }

  /** PEMs from the certificate's stream (the read model holds none); the key is unsealed only for this answer. */
  async download(accountId: number, certificateId: string) {
    if (!/^[0-9a-f-]{36}$/.test(certificateId)) throw certificateNotFound();
    const { state } = await this.streams.loadState(certificateStream(certificateId), certificateDecider);
    if (state.status === 'none' || state.status === 'deleted' || state.accountId !== accountId)
      throw certificateNotFound();
    if (!state.current || state.status === 'revoked')
      throw conflict('not_issued', 'The certificate has not been issued yet');
    return {
      certificate_pem: state.current.certificatePem,
      chain_pem: state.current.chainPem,
      private_key_pem: this.box.openString(state.current.sealedPrivateKey, CERTIFICATE_KEY_PURPOSE),
    };
  }

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
    return this.docs.find({
      status: { $in: ['issued', 'failed'] },
      auto_renew: true,
      next_renewal_at: { $lte: now.toISOString() },
      ...LIVE,
    });
  }

  pastExpiry(now: Date): Promise<CertificateDoc[]> {
    return this.docs.find({ status: 'issued', expires_at: { $lte: now.toISOString() }, ...LIVE });
  }
}
