import { namesKey } from '../libs/certificates/domain/ca-limits';
import { CertificateEvent, CERTIFICATE_EVENT_TYPES } from '../libs/certificates/domain/certificate.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { Collection } from '../libs/readstore/read-store.port';

export interface CertificateLog {
  at: string;
  level: 'info' | 'warn' | 'error';
  message: string;
}

/** A live certificate: what the API lists and the renewal job's due dates; no PEMs, no keys. */
export interface CertificateDoc {
  _id: string;
  id: string;
  account_id: number;
  zone: string;
  domain: string;
  sans: string[];
  names: string[];
  is_wildcard: boolean;
  auto_renew: boolean;
  status: 'pending' | 'validating' | 'issued' | 'failed' | 'expired' | 'revoked';
  serial: string | null;
  issued_at: string | null;
  expires_at: string | null;
  next_renewal_at: string | null;
  /** Challenge records may still be published: the process manager owes a cleanup. */
  cleanup_pending: boolean;
  created_at: string;
  updated_at: string;
  logs: CertificateLog[];
  /** Deleted, kept (hidden from the API) until its challenge records are removed. */
  deleted?: boolean;
  _pos?: number;
}

/** One issuance of the last weeks, all accounts: the local copy of the CA's rate-limit counters. */
export interface IssuanceDoc {
  _id: string;
  registered_domain: string;
  names_key: string;
  issued_at: string;
}

export const CERTIFICATES = defineReadModel<CertificateDoc>('certificates', 'certificates', [
  { keys: { account_id: 1 } },
  { keys: { status: 1 } },
]);
export const CERTIFICATE_ISSUANCES = defineReadModel<IssuanceDoc>('certificates', 'certificate_issuances', [
  { keys: { registered_domain: 1 } },
  { keys: { names_key: 1 } },
]);

/** Keeps the logs endpoint bounded for a certificate renewed for years. */
const MAX_LOGS = 200;

const log = (at: string, message: string, level: CertificateLog['level'] = 'info'): CertificateLog => ({
  at,
  level,
  message,
});

/** What the logs endpoint says about each step; the CA's own words where it refused. */
function logOf(e: CertificateEvent): CertificateLog | null {
  switch (e.type) {
    case 'CertificateRequested':
      return log(e.data.at, `Certificate requested for ${e.data.names.join(', ')}`);
    case 'RenewalRequested':
      return log(
        e.data.at,
        `${e.data.trigger === 'manual' ? 'Manual' : 'Automatic'} renewal requested (attempt ${e.data.attempt})`,
      );
    case 'AcmeOrderPlaced':
      return log(
        e.data.at,
        `ACME order placed (${e.data.order_url}) with ${e.data.challenges.length} dns-01 challenge(s)`,
      );
    case 'ChallengeRecordsPublished':
      return log(e.data.at, `Challenge TXT records published in DNS; waiting for propagation`);
    case 'ChallengesAnswered':
      return log(e.data.at, 'Challenges submitted; the CA is validating');
    case 'AuthorizationsValidated':
      return log(e.data.at, 'All authorizations are valid');
    case 'AuthorizationsPending':
      // Polls are routine: only the first is logged, not every 2-second look.
      return e.data.poll === 1 ? log(e.data.at, 'Authorizations still pending; polling the CA') : null;
    case 'IssuanceStepDeferred':
      return log(e.data.at, `Step ${e.data.step} will be retried at ${e.data.retry_at}: ${e.data.error}`, 'warn');
    case 'CertificateKeyGenerated':
      return log(e.data.at, 'RSA 2048 key and CSR generated; finalizing the order');
    case 'CertificateIssued':
      return log(e.data.at, `Certificate issued (serial ${e.data.serial}), valid until ${e.data.expires_at}`);
    case 'IssuanceFailed':
      return log(e.data.at, `Issuance failed at ${e.data.step}: ${e.data.error}`, 'error');
    case 'ChallengeRecordsRemoved':
      return log(e.data.at, 'Challenge TXT records removed');
    case 'AutoRenewChanged':
      return log(e.data.at, `Auto-renewal ${e.data.auto_renew ? 'enabled' : 'disabled'}`);
    case 'CertificateExpired':
      return log(e.data.at, 'Certificate expired', 'warn');
    case 'CertificateRevoked':
      return log(e.data.at, `Certificate revoked at the CA (serial ${e.data.serial})`, 'warn');
    default:
      return null;
  }
}

function patchOf(e: CertificateEvent, doc: CertificateDoc): Partial<CertificateDoc> {
  switch (e.type) {
    case 'RenewalRequested':
      return { status: 'validating' };
    case 'AcmeOrderPlaced':
      return { status: 'validating', cleanup_pending: true };
    case 'CertificateIssued':
      return {
        status: 'issued',
        serial: e.data.serial,
        issued_at: e.data.issued_at,
        expires_at: e.data.expires_at,
        next_renewal_at: e.data.next_renewal_at,
      };
    case 'IssuanceFailed':
      return { status: 'failed' };
    case 'ChallengeRecordsRemoved':
      return { cleanup_pending: false };
    case 'AutoRenewChanged':
      return { auto_renew: e.data.auto_renew, next_renewal_at: e.data.next_renewal_at };
    case 'CertificateExpired':
      return { status: 'expired', next_renewal_at: null };
    case 'CertificateRevoked':
      return { status: 'revoked' };
    default:
      return { status: doc.status };
  }
}

/**
 * certificates: one document per live certificate (list, get, logs, the renewal job's
 * due dates) and the issuance history used for the
 * CA's rate limits. A deleted certificate whose challenge records are still owed stays
 * (hidden from the API) until they are removed.
 */
export const certificatesProjection = defineProjection<CertificateEvent>({
  name: 'certificates',
  version: 1,
  readModels: [CERTIFICATES, CERTIFICATE_ISSUANCES],
  handles: CERTIFICATE_EVENT_TYPES,
  async apply(event, ctx) {
    const docs = ctx.collection(CERTIFICATES);
    const id = event.data.certificate_id;
    if (event.type === 'CertificateRequested') {
      const d = event.data;
      if (await docs.findOne({ _id: id })) return;
      await docs.insertOne({
        _id: id,
        id,
        account_id: d.account_id,
        zone: d.zone,
        domain: d.domain,
        sans: d.sans,
        names: d.names,
        is_wildcard: d.is_wildcard,
        auto_renew: d.auto_renew,
        status: 'pending',
        serial: null,
        issued_at: null,
        expires_at: null,
        next_renewal_at: null,
        cleanup_pending: false,
        created_at: d.at,
        updated_at: d.at,
        logs: [log(d.at, `Certificate requested for ${d.names.join(', ')}`)],
        _pos: ctx.position,
      });
      return;
    }
    const doc = await docs.findOne({ _id: id });
    if (!doc || (doc._pos ?? -1) >= ctx.position) return;
    if (event.type === 'CertificateIssued')
      await recordIssuance(ctx.collection(CERTIFICATE_ISSUANCES), doc, event.data.attempt, event.data.at);
    const deleted = event.type === 'CertificateDeleted' || doc.deleted === true;
    const patch = event.type === 'CertificateDeleted' ? {} : patchOf(event, doc);
    const next = { ...doc, ...patch, deleted, updated_at: event.data.at, _pos: ctx.position };
    const entry = logOf(event);
    if (entry) next.logs = [...doc.logs, entry].slice(-MAX_LOGS);
    if (next.deleted && !next.cleanup_pending) await docs.deleteOne({ _id: id });
    else await docs.replaceOne({ _id: id }, next);
  },
});

async function recordIssuance(
  issuances: Collection<IssuanceDoc>,
  doc: CertificateDoc,
  attempt: number,
  at: string,
): Promise<void> {
  // The zone stands for the registered domain: the service knows no public-suffix list.
  await issuances.updateOne(
    { _id: `${doc.id}:${attempt}` },
    { $set: { registered_domain: doc.zone, names_key: namesKey(doc.names), issued_at: at } },
    { upsert: true },
  );
}
