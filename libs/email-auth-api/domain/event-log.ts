import { RecordedEvent } from '../../eventstore/event-store.port';
import { DmarcPolicyChanged } from '../../email-auth/domain/email-auth.events';

/**
 * The email-auth event log (seed: Event (email-authentication API)): the same shape the
 * integrations push. Recorded whatever the account's alert settings.
 */
export const EVENT_LOG_TYPES = ['dmarc.report.received', 'tls.report.received', 'dmarc.policy.changed', 'alert.raised', 'alert.resolved'] as const;
export type EventLogType = (typeof EVENT_LOG_TYPES)[number];
export type Severity = 'info' | 'warning' | 'critical';

export interface EventLogEntry {
  id: string;
  type: EventLogType;
  occurred_at: string;
  domain: string;
  severity: Severity;
  title: string;
  data: Record<string, unknown>;
}

/** Stored form: owner for scoping, `_id` = `id` for the (occurred_at, id) sort key. */
export type EventLogDoc = EventLogEntry & { _id: string; account_id: number };

const describe = (p: { policy: string; percentage: number }) => (p.policy === 'none' || p.percentage === 100 ? p.policy : `${p.policy} (${p.percentage}%)`);

/**
 * Maps a domain fact to its log entry, or null when it is not one. Report and alert facts
 * (report ingestion, alert rules) are added here as their contexts land; the id is the
 * source event's id, so a projection rebuild yields the same ids and cursors stay valid.
 */
export function logEntryOf(event: RecordedEvent): EventLogDoc | null {
  switch (event.type) {
    case 'DmarcPolicyChanged': {
      const d = (event as unknown as DmarcPolicyChanged).data;
      return {
        _id: event.id,
        id: event.id,
        account_id: d.account_id,
        type: 'dmarc.policy.changed',
        occurred_at: d.at,
        domain: d.zone,
        severity: 'info',
        title: d.from
          ? `DMARC policy of ${d.zone} changed from ${describe(d.from)} to ${describe(d.to)}`
          : `DMARC policy of ${d.zone} published as ${describe(d.to)}`,
        data: { source: d.source, from: d.from, to: d.to, stage: d.stage },
      };
    }
    default:
      return null;
  }
}

/** Event-log types each source fact becomes (the projection's `handles`). */
export const EVENT_LOG_SOURCE_TYPES = ['DmarcPolicyChanged'];

export const entryView = (d: EventLogDoc): EventLogEntry => ({
  id: d.id,
  type: d.type,
  occurred_at: d.occurred_at,
  domain: d.domain,
  severity: d.severity,
  title: d.title,
  data: d.data,
});
