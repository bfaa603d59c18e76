/** Shapes of the certificates API (contract §10) as the dashboard uses them. */
export type CertificateStatus = 'pending' | 'validating' | 'issued' | 'failed' | 'expired' | 'revoked';

export interface Certificate {
  id: string;
  zone: string;
  domain: string;
  sans: string[];
  is_wildcard: boolean;
  auto_renew: boolean;
  status: CertificateStatus;
  issued_at: string | null;
  expires_at: string | null;
  next_renewal_at: string | null;
  serial: string | null;
  created_at: string;
}

export interface CertificateLimits {
  max_certificates: number;
  current_count: number;
  wildcard_enabled: boolean;
  auto_renew_enabled: boolean;
}

export interface CertificateLog {
  at: string;
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface CertificateFiles {
  certificate_pem: string;
  chain_pem: string;
  private_key_pem: string;
}
