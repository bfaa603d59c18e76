import { ACCOUNT_EVENT_TYPES } from '../libs/accounts/domain/account.events';
import { API_KEY_EVENT_TYPES } from '../libs/api-keys/domain/api-key.events';
import { CERTIFICATE_MILESTONE_TYPES } from '../libs/certificates/domain/certificate.events';
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
import { AuditEntry, chainHash } from '../libs/accounts/domain/audit-chain';
import type { RecordedEvent } from '../libs/eventstore/event-store.port';

/**
 * The event types the audit log lists: account state changes only (contract §15). An
 * allow-list, not a deny-list, so a new telemetry type (uptime checks, key uses, query
 * rows, report rows) never leaks into the log by default: a bounded context that adds
 * state-change events adds its type list here. `CheckRecorded` is deliberately absent
 * (MONITOR_EVENT_TYPES holds only the monitor switches). DDNS address changes stay in:
 * each is a change of what the host answers, made by a named key from an IP, and only
 * changing updates are events (a client repeating its address gets `nochg`, no event).
 */

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
  ...CERTIFICATE_MILESTONE_TYPES,
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
  /** The account's previous entry's `hash` (null for its first ever): the chain of decision 0080. */
  prev_hash: string | null;
  /** SHA-256 of this entry with `prev_hash` (libs/accounts/domain/audit-chain.ts). */
  hash: string;
}

export const AUDIT_EVENTS = defineReadModel<AuditEventDoc>('audit', 'audit_events', [
  // Every query names the account and a position or a time: no index on `account_id` alone (the two below
  // begin with it), one index fewer kept up per entry (decision 0122).
  // The audit page (newest first, by position, per account) reads only its page, however long the log.
  { keys: { account_id: 1, position: -1 } },
  // The export's window: its ends are found by seeking `occurred_at`, and each page's time filter is pushed to SQL (only indexed fields are).
  { keys: { account_id: 1, occurred_at: 1 } },
]);

/** Each account's last entry: what the next one links to, without a sorted query per event. */
export interface AuditChainHeadDoc {
  /** The account id. */
  _id: number;
  /** Global position of the account's last entry. */
  position: number;
  hash: string;
}

export const AUDIT_CHAIN_HEADS = defineReadModel<AuditChainHeadDoc>('audit', 'audit_chain_heads');

/** An audited event as its entry (secrets redacted): what the projection stores and the verifier rebuilds from the store. */
export const auditEntryOfEvent = (
  event: Pick<RecordedEvent, 'id' | 'type' | 'created' | 'streamId' | 'revision' | 'metadata' | 'data'>,
): AuditEntry => ({
  id: event.id,
  type: event.type,
  occurred_at: event.created.toISOString(),
  stream: event.streamId,
  revision: event.revision,
  actor: event.metadata.actor ?? null,
  source_ip: event.metadata.source_ip ?? null,
  correlation_id: event.metadata.correlation_id ?? null,
  data: redact(event.data),
});

/**
 * audit_events: the account's state changes, newest-first per account, for
 * `/account/audit`, each with actor, source IP and correlation id. Secrets (hashes,
 * sealed secrets) are redacted on the way in. Every audited event is stored alike, so
 * the events are taken by their common shape.
 */
export const auditProjection = defineProjection<EventShape>({
  name: 'audit',
  // 2: allow-list of state-change types; the rebuild drops the uptime checks v1 listed.
  // 3: the hash chain (prev_hash, hash) and each account's chain head.
  // 4: no index on `account_id` alone (decision 0122); the same entries and hashes.
  version: 4,
  readModels: [AUDIT_EVENTS, AUDIT_CHAIN_HEADS],
  handles: AUDITED_EVENT_TYPES,
  async apply(event, ctx) {
    const accountId = event.metadata.account_id;
    if (accountId === undefined) return;
    const heads = ctx.collection(AUDIT_CHAIN_HEADS);
    const head = await heads.findOne({ _id: accountId });
    // Redelivered after a crash: the entry was written before the head moved past it, so it is in place
    // with its hash, and linking it again would chain it to itself.
    if (head !== null && head.position >= ctx.position) return;
    const entry = auditEntryOfEvent(event);
    const prevHash = head?.hash ?? null;
    const hash = chainHash(entry, prevHash);
    await ctx.collection(AUDIT_EVENTS).replaceOne(
      { _id: entry.id },
      // The entry's fields in its order, written out (no rest and spread copies per event).
      {
        _id: entry.id,
        account_id: accountId,
        position: ctx.position,
        type: entry.type,
        occurred_at: entry.occurred_at,
        stream: entry.stream,
        revision: entry.revision,
        actor: entry.actor,
        source_ip: entry.source_ip,
        correlation_id: entry.correlation_id,
        data: entry.data,
        prev_hash: prevHash,
        hash,
      },
      // Keyed by the event: at its first delivery there is no document to look for.
      { upsert: true, unseen: ctx.firstDelivery },
    );
    // After the entry, so a head never points past an entry that is not stored (the stores write in order).
    await heads.replaceOne({ _id: accountId }, { _id: accountId, position: ctx.position, hash }, { upsert: true });
  },
});
