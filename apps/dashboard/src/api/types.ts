/**
 * Shapes of the management API (contract §2–§6, §11, §15) as the dashboard uses them. Those the
 * service's /openapi.json describes come from it (./schema.ts); the rest are declared here until
 * the document describes them.
 */
import type { Schema } from './schema';

export type Account = Schema<'AccountView'>;
export type Plan = Account['plan'];

/** `POST /auth/login`: a session (a cookie with `X-Session-Transport: cookie`), or the 2FA challenge. */
export type LoginAnswer = Schema<'LoginAnswer'>;

export type TwoFactorSetup = Schema<'TwoFactorSetup'>;
export type TwoFactorStatus = Schema<'TwoFactorStatus'>;
/** `POST /2fa/verify`: set-up confirmed; the backup codes, shown once. */
export type TwoFactorEnabled = Schema<'TwoFactorEnabled'>;
export type BackupCodes = Schema<'BackupCodes'>;

/** A key as listed; `key` (the secret) only in the creation answer. */
export type ApiKey = Schema<'ApiKeyView'> & { key?: Schema<'CreatedApiKey'>['key'] };

export type DdnsHost = Schema<'DdnsHost'>;

export type RRset = Schema<'RRset'>;

/** A zone as listed; `records` in its GET. */
export type Zone = Schema<'ZoneView'> & { records?: RRset[] };

export type DnssecKey = Schema<'DnssecKey'>;

/** GET/PUT /zones/{zone}/dnssec (contract §17). */
export type Dnssec = Schema<'Dnssec'>;

export type UptimeRecord = Schema<'UptimeRecord'>;
export type UptimeDashboard = Schema<'UptimeDashboard'>;
export type UptimeLimits = Schema<'UptimeLimits'>;

export type UptimeHistory = Schema<'UptimeHistory'>;
export type HistoryWindow = UptimeHistory['window'];
export type UptimeIncident = Schema<'UptimeIncident'>;
/** `GET /uptime/domain/{id}/checks`: minutes-level series and incidents from the raw checks. */
export type UptimeChecks = Schema<'UptimeChecks'>;
export type CheckWindow = UptimeChecks['window'];

export type AuditEntry = Schema<'AuditEntry'>;
