import { AggregateReportReceived, TlsReportReceived } from '../../dmarc-reports/domain/report.events';
import { AlertRaised, AlertResolved } from '../../email-auth-alerts/domain/alert.events';
import { CheckRecorded } from '../../uptime/domain/uptime.events';
import { WebhookEventType } from './event-types';

/**
 * The domain events each webhook event type comes from (contract §19), in the contexts
 * that own them. `CertificateExpiring` is this context's own (certificate-expiry.process-manager.ts):
 * no other context marks the moment a certificate nears its end.
 */
export const SOURCE_TYPES: Readonly<Record<string, readonly WebhookEventType[]>> = {
  ZoneImported: ['zone.changed'],
  ZoneRRsetsChanged: ['zone.changed'],
  ZoneDeleted: ['zone.changed'],
  DomainAddressesChanged: ['ddns.host.address_changed'],
  CheckRecorded: ['uptime.down', 'uptime.up'],
  CertificateIssued: ['certificate.issued'],
  IssuanceFailed: ['certificate.failed'],
  CertificateExpiring: ['certificate.expiring'],
  DmarcAggregateReportReceived: ['dmarc.report.received'],
  TlsReportReceived: ['tls.report.received'],
  AlertRaised: ['email_auth.alert.raised'],
  AlertResolved: ['email_auth.alert.resolved'],
};

export const SOURCE_EVENT_TYPES: readonly string[] = Object.keys(SOURCE_TYPES);

/** The account an event belongs to, where its data names it (certificate steps do not: their stream does). */
export const accountInData = (data: unknown): number | null => {
  const id = (data as { account_id?: unknown } | null)?.account_id;
  return typeof id === 'number' ? id : null;
};

/**
 * A check is news only when it changes the domain's state: down after up (or after no
 * check at all: the monitor's first answer), up after down.
 */
export function uptimeTransition(
  previous: CheckRecorded['data'] | null,
  check: CheckRecorded['data'],
): 'uptime.down' | 'uptime.up' | null {
  if (!check.is_up) return previous === null || previous.is_up ? 'uptime.down' : null;
  return previous !== null && !previous.is_up ? 'uptime.up' : null;
}

/** The monitor's status as GET /uptime/domains/{id} names its fields. */
export const uptimeData = (check: CheckRecorded['data'], fqdn: string | null) => ({
  domain_id: check.domain_id,
  fqdn,
  is_up: check.is_up,
  current_status: check.is_up ? 'operational' : 'down',
  last_check_time: check.checked_at,
  last_response_time_ms: check.is_up ? check.response_time_ms : null,
  error: check.is_up ? null : check.error,
  ip: check.ip,
  port: check.port,
});

/** The report summary as the email-auth reports API lists it (records stay behind their own endpoint). */
export const dmarcReportData = (d: AggregateReportReceived['data']) => ({
  id: d.report_key,
  domain: d.zone,
  org_name: d.org_name,
  email: d.email,
  report_id: d.report_id,
  begin: d.begin,
  end: d.end,
  received_at: d.received_at,
  record_count: d.record_count,
  messages: d.message_count,
  passing: d.passing_count,
  pass_rate: d.message_count ? Math.round((d.passing_count / d.message_count) * 10_000) / 100 : null,
});

export const tlsReportData = (d: TlsReportReceived['data']) => ({
  id: d.report_key,
  domain: d.zone,
  org_name: d.org_name,
  report_id: d.report_id,
  begin: d.begin,
  end: d.end,
  received_at: d.received_at,
  successful_sessions: d.successful_sessions,
  failed_sessions: d.failed_sessions,
  policies: d.policies,
});

export const alertData = (e: AlertRaised | AlertResolved) => ({
  zone: e.data.zone,
  rule: e.data.rule,
  state: e.type === 'AlertRaised' ? 'raised' : 'resolved',
  severity: e.data.severity,
  occurred_at: e.data.occurred_at,
  raised_at: e.type === 'AlertResolved' ? e.data.raised_at : e.data.occurred_at,
  figures: e.data.figures,
  threshold: e.data.threshold,
});
