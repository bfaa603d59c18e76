/**
 * Shapes of the management API (contract §2–§6, §11, §15) as the dashboard uses them. Those the
 * service's /openapi.json describes come from it (./schema.ts); the rest are declared here until
 * the document describes them.
 */
import type { Schema } from './schema';

export type Account = Schema<'AccountView'>;
export type Plan = Account['plan'];

export type LoginAnswer =
  { token_type: 'cookie'; expires_in: number } | { requires_2fa: true; login_token: string; expires_in: number };

export interface TwoFactorSetup {
  secret: string;
  qr_code: string;
  setup_token: string;
  otpauth_url: string;
}

/** A key as listed; `key` (the secret) only in the creation answer. */
export type ApiKey = Schema<'ApiKeyView'> & { key?: Schema<'CreatedApiKey'>['key'] };

export type DdnsHost = Schema<'DdnsHost'>;

export type RRset = Schema<'RRset'>;

/** A zone as listed; `records` in its GET. */
export type Zone = Schema<'ZoneView'> & { records?: RRset[] };

export interface DnssecKey {
  key_tag: number;
  algorithm: number;
  flags: number;
  role: 'csk' | 'ksk' | 'zsk';
  state: 'published' | 'active' | 'retired' | 'removed';
  created_at: string;
}

/** GET/PUT /zones/{zone}/dnssec (contract §17). */
export interface Dnssec {
  zone: string;
  enabled: boolean;
  state: 'unsigned' | 'signed' | 'rolling' | 'unsigning';
  algorithm: number;
  keys: DnssecKey[];
  ds: string[];
  dnskey: string[];
  cds_published: boolean;
  next_rollover_at: string | null;
}

export type UptimeRecord = Schema<'UptimeRecord'>;
export type UptimeDashboard = Schema<'UptimeDashboard'>;
export type UptimeLimits = Schema<'UptimeLimits'>;

export type HistoryWindow = '24h' | '7d' | '30d';
export type CheckWindow = '1h' | '6h' | '24h';
export interface UptimeIncident {
  started_at: string;
  ended_at: string | null;
  duration_seconds: number;
  failed_checks: number;
  error: string | null;
}
/** `GET /uptime/domain/{id}/checks`: minutes-level series and incidents from the raw checks. */
export interface UptimeChecks {
  domain_id: number;
  fqdn: string;
  window: CheckWindow;
  bucket_seconds: number;
  ports: number[];
  last_port: number | null;
  points: UptimeHistory['points'];
  incidents: UptimeIncident[];
  complete: boolean;
}
export interface UptimeHistory {
  domain_id: number;
  fqdn: string;
  window: HistoryWindow;
  bucket_seconds: number;
  points: { at: string; checks: number; uptime_percentage: number | null; avg_response_time_ms: number | null }[];
}

export type AuditEntry = Schema<'AuditEntry'>;
