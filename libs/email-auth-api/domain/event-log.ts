import { RecordedEvent } from '../../eventstore/event-store.port';
import { DmarcPolicyChanged } from '../../email-auth/domain/email-auth.events';
import {
  AggregateReportReceived,
  FailureReportReceived,
  SEED_EVENT_NAME,
  TlsReportReceived,
} from '../../dmarc-reports/domain/report.events';
import { ALERT_LOG_SOURCE_TYPES, alertLogEntryOf } from '../../email-auth-alerts/domain/alert-log';
import { AlertRaised, AlertResolved } from '../../email-auth-alerts/domain/alert.events';

/**
 * The email-auth event log (seed: Event (email-authentication API)): the same shape the
 * integrations push. Recorded whatever the account's alert settings.
 */
export const EVENT_LOG_TYPES = [
  'dmarc.report.received',
  'tls.report.received',
  'dmarc.policy.changed',
  'alert.raised',
  'alert.resolved',
] as const;
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

const describe = (p: { policy: string; percentage: number }) =>
  p.policy === 'none' || p.percentage === 100 ? p.policy : `${p.policy} (${p.percentage}%)`;

/**
 * Maps a domain fact to its log entry, or null when it is not one. Report and alert facts
 * (report ingestion, alert rules) are added here as their contexts land; the id is the
 * source event's id, so a projection rebuild yields the same ids and cursors stay valid.
 */
export function logEntryOf(event: LoggedFact): EventLogDoc | null {
  switch (event.type) {
    case 'DmarcAggregateReportReceived':
    case 'DmarcFailureReportReceived':
    case 'TlsReportReceived':
      return reportEntryOf(event);
    case 'AlertRaised':
    case 'AlertResolved':
      return alertLogEntryOf(event);
    case 'DmarcPolicyChanged': {
      const d = event.data;
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

/** Share of messages passing DMARC, to four decimals (null without messages). */
const ratio = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null;

/**
 * An accepted report as a log entry: who sent it, which report, its period and its
 * counts. Never a failure report's subject, addresses or message ids (they are sealed or
 * not kept), so the entry may go to any integration.
 */
function reportEntryOf(event: LoggedFact & { type: ReportFact['type'] }): EventLogDoc {
  const head = (d: { zone: string; account_id: number; received_at: string; source: string }) => ({
    _id: event.id,
    id: event.id,
    account_id: d.account_id,
    type: SEED_EVENT_NAME[event.type]!,
    occurred_at: d.received_at,
    domain: d.zone,
  });
  switch (event.type) {
    case 'DmarcAggregateReportReceived': {
      const d = event.data;
      return {
        ...head(d),
        severity: 'info',
        title: `DMARC aggregate report for ${d.zone} from ${d.org_name}`,
        data: {
          kind: 'aggregate',
          reporter: d.org_name,
          report_id: d.report_id,
          begin: d.begin,
          end: d.end,
          record_count: d.record_count,
          message_count: d.message_count,
          passing_count: d.passing_count,
          pass_rate: ratio(d.passing_count, d.message_count),
          source: d.source,
        },
      };
    }
    case 'DmarcFailureReportReceived': {
      const d = event.data;
      return {
        ...head(d),
        severity: 'warning',
        title: `DMARC failure report for ${d.zone} from ${d.reporter}`,
        data: {
          kind: 'failure',
          reporter: d.reporter,
          feedback_type: d.feedback_type,
          auth_failure: d.auth_failure,
          arrival_date: d.arrival_date,
          source_ip: d.source_ip,
          delivery_result: d.delivery_result,
          source: d.source,
        },
      };
    }
    case 'TlsReportReceived': {
      const d = event.data;
      const sessions = d.successful_sessions + d.failed_sessions;
      return {
        ...head(d),
        severity: 'info',
        title: `TLS report for ${d.zone} from ${d.org_name}`,
        data: {
          reporter: d.org_name,
          report_id: d.report_id,
          begin: d.begin,
          end: d.end,
          policy_count: d.policies.length,
          successful_sessions: d.successful_sessions,
          failed_sessions: d.failed_sessions,
          failure_rate: ratio(d.failed_sessions, sessions),
          source: d.source,
        },
      };
    }
  }
}

/** Event-log types each source fact becomes (the projection's `handles`). */
export const EVENT_LOG_SOURCE_TYPES = [
  'DmarcPolicyChanged',
  'DmarcAggregateReportReceived',
  'DmarcFailureReportReceived',
  'TlsReportReceived',
  ...ALERT_LOG_SOURCE_TYPES,
] as const satisfies readonly EventLogSource['type'][];

type ReportFact = AggregateReportReceived | FailureReportReceived | TlsReportReceived;

/** The domain facts the event log is made of. */
export type EventLogSource = DmarcPolicyChanged | ReportFact | AlertRaised | AlertResolved;

/** One of those facts as recorded: its event id becomes the entry's id. */
export type LoggedFact = EventLogSource & Pick<RecordedEvent, 'id'>;

export const entryView = (d: EventLogDoc): EventLogEntry => ({
  id: d.id,
  type: d.type,
  occurred_at: d.occurred_at,
  domain: d.domain,
  severity: d.severity,
  title: d.title,
  data: d.data,
});
