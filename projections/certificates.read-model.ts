/** The `certificates` read model (projections/certificates.projection.ts): no PEMs, no keys. */
export const CERTIFICATES_PROJECTION = 'certificates';
export const CERTIFICATES = 'certificates';
/** Issuances of the last weeks, all accounts: the local copy of the CA's rate-limit counters. */
export const CERTIFICATE_ISSUANCES = 'certificate_issuances';

export interface CertificateLog {
  at: string;
  level: 'info' | 'warn' | 'error';
  message: string;
}

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
  _pos?: number;
}

export interface IssuanceDoc {
  _id: string;
  registered_domain: string;
  names_key: string;
  issued_at: string;
}

export const certificateView = (d: CertificateDoc) => ({
  id: d.id,
  zone: d.zone,
  domain: d.domain,
  sans: d.sans,
  is_wildcard: d.is_wildcard,
  auto_renew: d.auto_renew,
  status: d.status,
  issued_at: d.issued_at,
  expires_at: d.expires_at,
  next_renewal_at: d.next_renewal_at,
  serial: d.serial,
  created_at: d.created_at,
});

/** Statuses that hold a plan slot (contract §10). */
export const COUNTED_STATUSES = ['pending', 'validating', 'issued', 'failed'] as const;
