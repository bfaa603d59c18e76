import { CertificateEvent } from '../../certificates/domain/certificate.events';

/** A certificate as GET /certificates/{id} shows it, folded from its stream (no PEM, no key). */
export interface CertificateView {
  id: string;
  account_id: number;
  zone: string;
  domain: string;
  sans: string[];
  is_wildcard: boolean;
  auto_renew: boolean;
  status: string;
  issued_at: string | null;
  expires_at: string | null;
  next_renewal_at: string | null;
  serial: string | null;
  created_at: string;
}

export function foldCertificate(view: CertificateView | null, e: CertificateEvent): CertificateView | null {
  if (e.type === 'CertificateRequested') {
    const d = e.data;
    return {
      id: d.certificate_id,
      account_id: d.account_id,
      zone: d.zone,
      domain: d.domain,
      sans: d.sans,
      is_wildcard: d.is_wildcard,
      auto_renew: d.auto_renew,
      status: 'pending',
      issued_at: null,
      expires_at: null,
      next_renewal_at: null,
      serial: null,
      created_at: d.at,
    };
  }
  if (!view) return null;
  switch (e.type) {
    case 'RenewalRequested':
      return { ...view, status: 'validating' };
    case 'CertificateIssued':
      return {
        ...view,
        status: 'issued',
        issued_at: e.data.issued_at,
        expires_at: e.data.expires_at,
        next_renewal_at: e.data.next_renewal_at,
        serial: e.data.serial,
      };
    case 'IssuanceFailed':
      return { ...view, status: 'failed' };
    case 'AutoRenewChanged':
      return { ...view, auto_renew: e.data.auto_renew, next_renewal_at: e.data.next_renewal_at };
    case 'CertificateExpired':
      return { ...view, status: 'expired' };
    case 'CertificateRevoked':
      return { ...view, status: 'revoked' };
    default:
      return view;
  }
}

/** A certificate stream's events folded into the view (null before its request). */
export const foldCertificateEvents = (events: readonly { type: string; data: unknown }[]): CertificateView | null =>
  events.reduce<CertificateView | null>(
    (view, r) => foldCertificate(view, { type: r.type, data: r.data } as CertificateEvent),
    null,
  );
