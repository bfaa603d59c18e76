import { ACCOUNT_EVENT_TYPES } from '../libs/accounts/domain/account.events';
import { API_KEY_EVENT_TYPES } from '../libs/api-keys/domain/api-key.events';
import { CERTIFICATE_EVENT_TYPES } from '../libs/certificates/domain/certificate.events';
import { EMAIL_AUTH_EVENT_TYPES } from '../libs/email-auth/domain/email-auth.events';
import { DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { TWO_FACTOR_EVENT_TYPES } from '../libs/two-factor/domain/two-factor.events';
import { MONITOR_EVENT_TYPES } from '../libs/uptime/domain/uptime.events';
import { ZONE_EVENT_TYPES } from '../libs/zones/domain/zone.events';
import { ZONE_OWNERSHIP_EVENT_TYPES } from '../libs/zones/domain/zone-ownership';
import { DNSSEC_EVENT_TYPES } from '../libs/dnssec/domain/dnssec.events';
import { WEBHOOK_ENDPOINT_EVENT_TYPES } from '../libs/webhooks/domain/webhook.events';
import { defineProjection, defineReadModel, EventShape } from '../libs/projection-engine/read-model';
import { redact } from '../libs/shared/redact';

/**
 * The event types the audit log lists: account state changes only (contract §15). An
 * allow-list, not a deny-list, so a new telemetry type (uptime checks, key uses, query
 * rows, report rows) never leaks into the log by default: a bounded context that adds
 * state-change events adds its type list here. `CheckRecorded` is deliberately absent
 * (MONITOR_EVENT_TYPES holds only the monitor switches). DDNS address changes stay in:
 * each is a change of what the host answers, made by a named key from an IP, and only
 * changing updates are events (a client repeating its address gets `nochg`, no event).
 */
const CERTIFICATE_MILESTONES = new Set<string>([
  'CertificateRequested',
  'RenewalRequested',
  'CertificateIssued',
  'IssuanceFailed',
  'AutoRenewChanged',
  'CertificateExpired',
  'CertificateRevoked',
  'CertificateDeleted',
]);

export const AUDITED_EVENT_TYPES: readonly string[] = [
  ...ACCOUNT_EVENT_TYPES,
  ...API_KEY_EVENT_TYPES,
  ...TWO_FACTOR_EVENT_TYPES,
  ...DOMAIN_EVENT_TYPES,
  ...ZONE_EVENT_TYPES,
  // An operator's allowance for the account to hold an overlapping zone (no such event predates this type).
  ...ZONE_OWNERSHIP_EVENT_TYPES,
  ...MONITOR_EVENT_TYPES,
  // The nightly wizard metrics are the job's telemetry, not a change anyone made.
  ...EMAIL_AUTH_EVENT_TYPES.filter((t) => t !== 'DmarcStageMetricsRecorded'),
  // DNSSEC turned on or off and rollovers the user started (sealed private keys redacted); the
  // process manager's steps carry no account and stay out.
  ...DNSSEC_EVENT_TYPES,
  // A certificate's life as its owner sees it; the issuance steps in between are the process's own log.
  ...CERTIFICATE_EVENT_TYPES.filter((t) => CERTIFICATE_MILESTONES.has(t)),
  // Webhook endpoints (sealed secrets redacted); `WebhookDisabled` with reason `failing` is the notice of an automatic disable.
  ...WEBHOOK_ENDPOINT_EVENT_TYPES,
];

/** One state change of an account, as `/account/audit` lists it (secrets redacted). */
export interface AuditEventDoc {
  /** The event's id. */
  _id: string;
  account_id: number;
  position: number;
  stream: string;
  revision: number;
  type: string;
  occurred_at: string;
  actor: string | null;
  source_ip: string | null;
  correlation_id: string | null;
  data: unknown;
}

export const AUDIT_EVENTS = defineReadModel<AuditEventDoc>('audit', 'audit_events', [
  { keys: { account_id: 1 } },
  // The audit page (newest first, by position, per account) reads only its page, however long the log.
  { keys: { account_id: 1, position: -1 } },
]);

/**
 * audit_events: the account's state changes, newest-first per account, for
 * `/account/audit`, each with actor, source IP and correlation id. Secrets (hashes,
 * sealed secrets) are redacted on the way in. Every audited event is stored alike, so
 * the events are taken by their common shape.
 */
export const auditProjection = defineProjection<EventShape>({
  name: 'audit',
  // 2: allow-list of state-change types; the rebuild drops the uptime checks v1 listed.
  version: 2,
  readModels: [AUDIT_EVENTS],
  handles: AUDITED_EVENT_TYPES,
  async apply(event, ctx) {
    const accountId = event.metadata.account_id;
    if (accountId === undefined) return;
    await ctx.collection(AUDIT_EVENTS).replaceOne(
      { _id: event.id },
      {
        _id: event.id,
        account_id: accountId,
        position: ctx.position,
        stream: event.streamId,
        revision: event.revision,
        type: event.type,
        occurred_at: event.created.toISOString(),
        actor: event.metadata.actor ?? null,
        source_ip: event.metadata.source_ip ?? null,
        correlation_id: event.metadata.correlation_id ?? null,
        data: redact(event.data),
      },
      // Keyed by the event: at its first delivery there is no document to look for.
      { upsert: true, unseen: ctx.firstDelivery },
    );
  },
});
