/**
 * What the certificates API shows of the `certificates` read model, whose documents and
 * collections (no PEMs, no keys) are declared by projections/certificates.projection.ts.
 */
import type { CertificateDoc } from '../../../projections/certificates.projection';

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
