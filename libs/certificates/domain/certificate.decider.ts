import { Plan } from '../../accounts/domain/account.events';
import { Decider, unreachable } from '../../shared/decider';
import { conflict } from '../../shared/errors';
import { certificateNotFound, requireAutoRenewPlan, requirePaid } from './certificate-rules';
import { CertificateEvent, ChallengeRecord, RENEW_BEFORE_MS } from './certificate.events';

export type CertificateStatus =
  'none' | 'pending' | 'validating' | 'issued' | 'failed' | 'expired' | 'revoked' | 'deleted';

export interface IssuedCertificate {
  serial: string;
  certificatePem: string;
  chainPem: string;
  sealedPrivateKey: string;
  issuedAt: string;
  expiresAt: string;
}

/** Progress of the current attempt (one ACME order). */
export interface AttemptProgress {
  orderRequested: boolean;
  order: { url: string; finalizeUrl: string; challenges: ChallengeRecord[] } | null;
  publishedAt: string | null;
  answered: boolean;
  authorized: boolean;
  /** Authorization polls that found them still pending. */
  polls: number;
  key: { sealedPrivateKey: string; csrPem: string } | null;
}

export interface CertificateState {
  status: CertificateStatus;
  id: string;
  accountId: number;
  zoneId: string;
  zone: string;
  domain: string;
  names: string[];
  isWildcard: boolean;
  autoRenew: boolean;
  attempt: number;
  /** When the current attempt began (request or renewal), for the issuance-duration metric. */
  attemptStartedAt: string;
  progress: AttemptProgress;
  /** Challenge records (possibly) published and not yet removed, by attempt: the cleanup still owed. */
  liveRecords: Map<number, ChallengeRecord[]>;
  current: IssuedCertificate | null;
  nextRenewalAt: string | null;
  /** The step that met outages in a row (and how many), until any other step's outcome is recorded. */
  deferral: { attempt: number; step: string; tries: number } | null;
}

const NO_PROGRESS: AttemptProgress = {
  orderRequested: false,
  order: null,
  publishedAt: null,
  answered: false,
  authorized: false,
  polls: 0,
  key: null,
};

/** Commands from the API and the renewal job. */
export type CertificateCommand =
  | {
      type: 'RequestCertificate';
      certificateId: string;
      accountId: number;
      zoneId: string;
      zone: string;
      domain: string;
      sans: string[];
      names: string[];
      isWildcard: boolean;
      autoRenew: boolean;
      at: string;
    }
  | { type: 'RenewCertificate'; accountId: number | null; plan: Plan; trigger: 'manual' | 'automatic'; at: string }
  | { type: 'SetAutoRenew'; accountId: number; plan: Plan; autoRenew: boolean; at: string }
  | { type: 'ExpireCertificate'; at: string }
  | { type: 'DeleteCertificate'; accountId: number; revokedSerial: string | null; at: string }
  | IssuanceCommand;

/** Commands of the issuance process manager: each records one step's outcome for one attempt. */
export type IssuanceCommand =
  | { type: 'RecordOrderRequested'; attempt: number; at: string }
  | {
      type: 'RecordOrderPlaced';
      attempt: number;
      orderUrl: string;
      finalizeUrl: string;
      challenges: ChallengeRecord[];
      at: string;
    }
  | { type: 'RecordRecordsPublished'; attempt: number; at: string }
  | { type: 'RecordChallengesAnswered'; attempt: number; at: string }
  | { type: 'RecordAuthorizationsPending'; attempt: number; nextPollAt: string; at: string }
  | { type: 'RecordStepDeferred'; attempt: number; step: string; error: string; retryAt: string; at: string }
  | { type: 'RecordAuthorized'; attempt: number; at: string }
  | { type: 'RecordKeyGenerated'; attempt: number; sealedPrivateKey: string; csrPem: string; at: string }
  | {
      type: 'RecordIssued';
      attempt: number;
      serial: string;
      certificatePem: string;
      chainPem: string;
      issuedAt: string;
      expiresAt: string;
      at: string;
    }
  | { type: 'RecordFailed'; attempt: number; step: string; error: string; at: string }
  | { type: 'RecordRecordsRemoved'; attempt: number; at: string };

const inFlight = (s: CertificateState) => s.status === 'pending' || s.status === 'validating';
const exists = (s: CertificateState) => s.status !== 'none' && s.status !== 'deleted';
const renewalDate = (expiresAt: string) => new Date(Date.parse(expiresAt) - RENEW_BEFORE_MS).toISOString();

function requireOwned(s: CertificateState, accountId: number | null): void {
  if (!exists(s) || (accountId !== null && s.accountId !== accountId)) throw certificateNotFound();
}

/** A process step is recorded once, for the attempt it belongs to; a late or repeated report records nothing. */
const forCurrentAttempt = (s: CertificateState, attempt: number) => inFlight(s) && s.attempt === attempt;

export const certificateDecider: Decider<CertificateState, CertificateCommand, CertificateEvent> = {
  initialState: () => ({
    status: 'none',
    id: '',
    accountId: 0,
    zoneId: '',
    zone: '',
    domain: '',
    names: [],
    isWildcard: false,
    autoRenew: false,
    attempt: 0,
    attemptStartedAt: '',
    progress: NO_PROGRESS,
    liveRecords: new Map(),
    current: null,
    nextRenewalAt: null,
    deferral: null,
  }),

  evolve(prev, e) {
    // Any recorded outcome other than an outage ends a run of outages.
    const s = prev.deferral && e.type !== 'IssuanceStepDeferred' ? { ...prev, deferral: null } : prev;
    switch (e.type) {
      case 'CertificateRequested': {
        const d = e.data;
        return {
          ...s,
          status: 'pending',
          id: d.certificate_id,
          accountId: d.account_id,
          zoneId: d.zone_id,
          zone: d.zone,
          domain: d.domain,
          names: d.names,
          isWildcard: d.is_wildcard,
          autoRenew: d.auto_renew,
          attempt: 1,
          attemptStartedAt: d.at,
          progress: NO_PROGRESS,
        };
      }
      case 'RenewalRequested':
        return {
          ...s,
          status: 'validating',
          attempt: e.data.attempt,
          attemptStartedAt: e.data.at,
          progress: NO_PROGRESS,
        };
      case 'AcmeOrderRequested':
        return { ...s, progress: { ...s.progress, orderRequested: true } };
      case 'AcmeOrderPlaced':
        return {
          ...s,
          status: 'validating',
          // Cleanup is owed from here on: publication may begin at any moment after the order exists.
          liveRecords: new Map(s.liveRecords).set(e.data.attempt, e.data.challenges),
          progress: {
            ...s.progress,
            order: { url: e.data.order_url, finalizeUrl: e.data.finalize_url, challenges: e.data.challenges },
          },
        };
      case 'ChallengeRecordsPublished':
        return { ...s, progress: { ...s.progress, publishedAt: e.data.at } };
      case 'ChallengesAnswered':
        return { ...s, progress: { ...s.progress, answered: true } };
      case 'AuthorizationsPending':
        return { ...s, progress: { ...s.progress, polls: e.data.poll } };
      case 'IssuanceStepDeferred':
        return { ...s, deferral: { attempt: e.data.attempt, step: e.data.step, tries: e.data.tries } };
      case 'AuthorizationsValidated':
        return { ...s, progress: { ...s.progress, authorized: true } };
      case 'CertificateKeyGenerated':
        return {
          ...s,
          progress: { ...s.progress, key: { sealedPrivateKey: e.data.sealed_private_key, csrPem: e.data.csr_pem } },
        };
      case 'CertificateIssued': {
        const d = e.data;
        return {
          ...s,
          status: 'issued',
          current: {
            serial: d.serial,
            certificatePem: d.certificate_pem,
            chainPem: d.chain_pem,
            sealedPrivateKey: s.progress.key?.sealedPrivateKey ?? '',
            issuedAt: d.issued_at,
            expiresAt: d.expires_at,
          },
          nextRenewalAt: d.next_renewal_at,
        };
      }
      case 'IssuanceFailed':
        return { ...s, status: 'failed' };
      case 'ChallengeRecordsRemoved': {
        const liveRecords = new Map(s.liveRecords);
        liveRecords.delete(e.data.attempt);
        return { ...s, liveRecords };
      }
      case 'AutoRenewChanged':
        return { ...s, autoRenew: e.data.auto_renew, nextRenewalAt: e.data.next_renewal_at };
      case 'CertificateExpired':
        return { ...s, status: 'expired', nextRenewalAt: null };
      case 'CertificateRevoked':
        return { ...s, status: 'revoked' };
      case 'CertificateDeleted':
        return { ...s, status: 'deleted' };
      default:
        return unreachable(e);
    }
  },

  decide(c, s) {
    const id = s.id;
    switch (c.type) {
      case 'RequestCertificate':
        if (s.status !== 'none') throw conflict('certificate_exists', 'Certificate id already used');
        return [
          {
            type: 'CertificateRequested',
            data: {
              certificate_id: c.certificateId,
              account_id: c.accountId,
              zone_id: c.zoneId,
              zone: c.zone,
              domain: c.domain,
              sans: c.sans,
              names: c.names,
              is_wildcard: c.isWildcard,
              auto_renew: c.autoRenew,
              at: c.at,
            },
          },
        ];
      case 'RenewCertificate':
        requireOwned(s, c.accountId);
        requirePaid(c.plan);
        if (s.status === 'revoked') throw certificateNotFound();
        if (inFlight(s)) throw conflict('issuance_in_progress', 'The certificate is already being issued');
        // Recovery: renewal from failed or expired re-runs the order, like a renewal of an issued one.
        return [
          {
            type: 'RenewalRequested',
            data: { certificate_id: id, attempt: s.attempt + 1, trigger: c.trigger, at: c.at },
          },
        ];
      case 'SetAutoRenew': {
        requireOwned(s, c.accountId);
        requirePaid(c.plan);
        if (c.autoRenew) requireAutoRenewPlan(c.plan);
        if (s.autoRenew === c.autoRenew) return [];
        const next = c.autoRenew && s.current && s.status !== 'expired' ? renewalDate(s.current.expiresAt) : null;
        return [
          {
            type: 'AutoRenewChanged',
            data: { certificate_id: id, auto_renew: c.autoRenew, next_renewal_at: next, at: c.at },
          },
        ];
      }
      case 'ExpireCertificate':
        if (s.status !== 'issued' || !s.current || Date.parse(s.current.expiresAt) > Date.parse(c.at)) return [];
        return [{ type: 'CertificateExpired', data: { certificate_id: id, at: c.at } }];
      case 'DeleteCertificate': {
        requireOwned(s, c.accountId);
        const deleted: CertificateEvent = {
          type: 'CertificateDeleted',
          data: { certificate_id: id, account_id: s.accountId, domain: s.domain, at: c.at },
        };
        if (c.revokedSerial === null) return [deleted];
        if (!s.current || s.current.serial !== c.revokedSerial)
          throw conflict('not_issued', 'The certificate has not been issued');
        return [
          { type: 'CertificateRevoked', data: { certificate_id: id, serial: c.revokedSerial, at: c.at } },
          deleted,
        ];
      }
      case 'RecordOrderRequested':
        if (!forCurrentAttempt(s, c.attempt) || s.progress.orderRequested) return [];
        return [{ type: 'AcmeOrderRequested', data: { certificate_id: id, attempt: c.attempt, at: c.at } }];
      case 'RecordOrderPlaced':
        if (!forCurrentAttempt(s, c.attempt) || s.progress.order) return [];
        return [
          {
            type: 'AcmeOrderPlaced',
            data: {
              certificate_id: id,
              attempt: c.attempt,
              order_url: c.orderUrl,
              finalize_url: c.finalizeUrl,
              challenges: c.challenges,
              at: c.at,
            },
          },
        ];
      case 'RecordRecordsPublished':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.order || s.progress.publishedAt) return [];
        return [{ type: 'ChallengeRecordsPublished', data: { certificate_id: id, attempt: c.attempt, at: c.at } }];
      case 'RecordChallengesAnswered':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.publishedAt || s.progress.answered) return [];
        return [{ type: 'ChallengesAnswered', data: { certificate_id: id, attempt: c.attempt, at: c.at } }];
      case 'RecordAuthorizationsPending':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.answered || s.progress.authorized) return [];
        return [
          {
            type: 'AuthorizationsPending',
            data: {
              certificate_id: id,
              attempt: c.attempt,
              poll: s.progress.polls + 1,
              next_poll_at: c.nextPollAt,
              at: c.at,
            },
          },
        ];
      case 'RecordStepDeferred': {
        // The current attempt's steps, or the cleanup an earlier attempt still owes.
        if (!forCurrentAttempt(s, c.attempt) && !s.liveRecords.has(c.attempt)) return [];
        const d = s.deferral;
        const tries = (d && d.attempt === c.attempt && d.step === c.step ? d.tries : 0) + 1;
        return [
          {
            type: 'IssuanceStepDeferred',
            data: {
              certificate_id: id,
              attempt: c.attempt,
              step: c.step,
              tries,
              error: c.error,
              retry_at: c.retryAt,
              at: c.at,
            },
          },
        ];
      }
      case 'RecordAuthorized':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.answered || s.progress.authorized) return [];
        return [{ type: 'AuthorizationsValidated', data: { certificate_id: id, attempt: c.attempt, at: c.at } }];
      case 'RecordKeyGenerated':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.authorized || s.progress.key) return [];
        return [
          {
            type: 'CertificateKeyGenerated',
            data: {
              certificate_id: id,
              attempt: c.attempt,
              sealed_private_key: c.sealedPrivateKey,
              csr_pem: c.csrPem,
              at: c.at,
            },
          },
        ];
      case 'RecordIssued':
        if (!forCurrentAttempt(s, c.attempt) || !s.progress.key) return [];
        return [
          {
            type: 'CertificateIssued',
            data: {
              certificate_id: id,
              attempt: c.attempt,
              serial: c.serial,
              certificate_pem: c.certificatePem,
              chain_pem: c.chainPem,
              issued_at: c.issuedAt,
              expires_at: c.expiresAt,
              next_renewal_at: s.autoRenew ? renewalDate(c.expiresAt) : null,
              at: c.at,
            },
          },
        ];
      case 'RecordFailed':
        if (!forCurrentAttempt(s, c.attempt)) return [];
        return [
          {
            type: 'IssuanceFailed',
            data: { certificate_id: id, attempt: c.attempt, step: c.step, error: c.error, at: c.at },
          },
        ];
      case 'RecordRecordsRemoved':
        if (!s.liveRecords.has(c.attempt)) return [];
        return [{ type: 'ChallengeRecordsRemoved', data: { certificate_id: id, attempt: c.attempt, at: c.at } }];
      default:
        return unreachable(c);
    }
  },
};
