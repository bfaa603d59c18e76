import { DomainEvent } from '../../shared/decider';

/**
 * One certificate's life, on its own stream `certificate-<uuid>`. The issuance process
 * manager keeps its progress in the same stream: every ACME step it has taken is an
 * event here, numbered by `attempt` (1 for the first order, +1 per renewal or retry),
 * so after a crash the next step follows from the stream alone.
 */

/** One `_acme-challenge` TXT value the CA expects, and where it is published. */
export interface ChallengeRecord {
  /** Identifier the authorization is for (`*.example.com` for the wildcard). */
  identifier: string;
  authz_url: string;
  challenge_url: string;
  /** Owner relative to the zone, e.g. `_acme-challenge.www`. */
  subname: string;
  /** The DNS-01 digest (public: it is published in DNS). */
  value: string;
}

export type CertificateRequested = DomainEvent<
  'CertificateRequested',
  {
    certificate_id: string;
    account_id: number;
    zone_id: string;
    zone: string;
    domain: string;
    sans: string[];
    /** Every name the certificate covers, primary first (`*.<domain>` added for a wildcard). */
    names: string[];
    is_wildcard: boolean;
    auto_renew: boolean;
    at: string;
  }
>;
export type RenewalRequested = DomainEvent<
  'RenewalRequested',
  { certificate_id: string; attempt: number; trigger: 'manual' | 'automatic'; at: string }
>;
/** Written before the CA is asked for an order: a resumed process then looks for that order before placing one. */
export type AcmeOrderRequested = DomainEvent<
  'AcmeOrderRequested',
  { certificate_id: string; attempt: number; at: string }
>;
export type AcmeOrderPlaced = DomainEvent<
  'AcmeOrderPlaced',
  {
    certificate_id: string;
    attempt: number;
    order_url: string;
    finalize_url: string;
    challenges: ChallengeRecord[];
    at: string;
  }
>;
export type ChallengeRecordsPublished = DomainEvent<
  'ChallengeRecordsPublished',
  { certificate_id: string; attempt: number; at: string }
>;
export type ChallengesAnswered = DomainEvent<
  'ChallengesAnswered',
  { certificate_id: string; attempt: number; at: string }
>;
/** A poll found the authorizations still pending; the process manager looks again at `next_poll_at`. */
export type AuthorizationsPending = DomainEvent<
  'AuthorizationsPending',
  { certificate_id: string; attempt: number; poll: number; next_poll_at: string; at: string }
>;
/**
 * A step met an outage (no answer from the CA or DNS, the CA busy or rate limiting): the
 * process manager runs it again at `retry_at` (the CA's Retry-After, else a backoff);
 * `tries` counts the outages of this step in a row.
 */
export type IssuanceStepDeferred = DomainEvent<
  'IssuanceStepDeferred',
  { certificate_id: string; attempt: number; step: string; tries: number; error: string; retry_at: string; at: string }
>;
export type AuthorizationsValidated = DomainEvent<
  'AuthorizationsValidated',
  { certificate_id: string; attempt: number; at: string }
>;
/** The server-generated RSA 2048 key, sealed (SecretBox, purpose `certificate-key`), and its CSR. */
export type CertificateKeyGenerated = DomainEvent<
  'CertificateKeyGenerated',
  { certificate_id: string; attempt: number; sealed_private_key: string; csr_pem: string; at: string }
>;
export type CertificateIssued = DomainEvent<
  'CertificateIssued',
  {
    certificate_id: string;
    attempt: number;
    serial: string;
    certificate_pem: string;
    chain_pem: string;
    issued_at: string;
    expires_at: string;
    next_renewal_at: string | null;
    at: string;
  }
>;
export type IssuanceFailed = DomainEvent<
  'IssuanceFailed',
  { certificate_id: string; attempt: number; step: string; error: string; at: string }
>;
export type ChallengeRecordsRemoved = DomainEvent<
  'ChallengeRecordsRemoved',
  { certificate_id: string; attempt: number; at: string }
>;
export type AutoRenewChanged = DomainEvent<
  'AutoRenewChanged',
  { certificate_id: string; auto_renew: boolean; next_renewal_at: string | null; at: string }
>;
export type CertificateExpired = DomainEvent<'CertificateExpired', { certificate_id: string; at: string }>;
export type CertificateRevoked = DomainEvent<
  'CertificateRevoked',
  { certificate_id: string; serial: string; at: string }
>;
export type CertificateDeleted = DomainEvent<
  'CertificateDeleted',
  { certificate_id: string; account_id: number; domain: string; at: string }
>;

export type CertificateEvent =
  | CertificateRequested
  | RenewalRequested
  | AcmeOrderRequested
  | AcmeOrderPlaced
  | ChallengeRecordsPublished
  | ChallengesAnswered
  | AuthorizationsPending
  | IssuanceStepDeferred
  | AuthorizationsValidated
  | CertificateKeyGenerated
  | CertificateIssued
  | IssuanceFailed
  | ChallengeRecordsRemoved
  | AutoRenewChanged
  | CertificateExpired
  | CertificateRevoked
  | CertificateDeleted;

export const CERTIFICATE_EVENT_TYPES: readonly CertificateEvent['type'][] = [
  'CertificateRequested',
  'RenewalRequested',
  'AcmeOrderRequested',
  'AcmeOrderPlaced',
  'ChallengeRecordsPublished',
  'ChallengesAnswered',
  'AuthorizationsPending',
  'IssuanceStepDeferred',
  'AuthorizationsValidated',
  'CertificateKeyGenerated',
  'CertificateIssued',
  'IssuanceFailed',
  'ChallengeRecordsRemoved',
  'AutoRenewChanged',
  'CertificateExpired',
  'CertificateRevoked',
  'CertificateDeleted',
];

/**
 * A certificate's life as its owner sees it: the milestones the audit log records and the
 * certificate's history shows; the issuance steps between them are the process's own log.
 */
export const CERTIFICATE_MILESTONE_TYPES = [
  'CertificateRequested',
  'RenewalRequested',
  'CertificateIssued',
  'IssuanceFailed',
  'AutoRenewChanged',
  'CertificateExpired',
  'CertificateRevoked',
  'CertificateDeleted',
] as const satisfies readonly CertificateEvent['type'][];

export const certificateStream = (id: string) => `certificate-${id}`;
export const CERTIFICATE_KEY_PURPOSE = 'certificate-key';
/** Renewal starts this long before expiry (seed limits). */
export const RENEW_BEFORE_MS = 30 * 86_400_000;
