/** Bodies of the dashboard's report reads (`/email-auth/domains/{zone}/...`), as the OpenAPI document describes them. */
export type Counts = Record<string, number>;

export interface PublishedPolicy {
  domain: string;
  p: string;
  sp: string | null;
  pct: number | null;
}

export interface DmarcSummary {
  domain: string;
  days: number;
  reports: number;
  messages: number;
  passing: number;
  pass_rate: number | null;
  published_policy: PublishedPolicy | null;
  disposition: Counts;
  dkim: Counts;
  spf: Counts;
  daily: { date: string; messages: number; passing: number; pass_rate: number | null }[];
}

export interface Network {
  asn: string;
  org: string;
}

export interface DmarcSources {
  messages: number;
  identified_messages: number;
  unidentified_messages: number;
  services: {
    id: string;
    name: string;
    messages: number;
    passing: number;
    pass_rate: number | null;
    source_ips: number;
  }[];
  unidentified_sources: {
    source_ip: string;
    ptr: string | null;
    country: string;
    network: Network;
    messages: number;
    pass_rate: number | null;
    sending_domains: string[];
  }[];
  unidentified_source_count: number;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface AggregateReport {
  id: string;
  domain: string;
  org_name: string;
  email: string;
  report_id: string;
  begin: string;
  end: string;
  received_at: string;
  policy_published: PublishedPolicy;
  record_count: number;
  messages: number;
  passing: number;
  pass_rate: number | null;
}

export interface ReportRow {
  index: number;
  source_ip: string;
  country: string;
  network: Network;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  header_from: string;
  envelope_from: string | null;
}

export type AggregateReportDetail = AggregateReport & { rows: Page<ReportRow> };

export interface FailureReport {
  id: string;
  reporter: string;
  received_at: string;
  arrival_date: string | null;
  feedback_type: string;
  source_ip: string | null;
  country: string | null;
  auth_failure: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  mail_from_domain: string | null;
  rcpt_domain: string | null;
  subject?: string | null;
  mail_from?: string | null;
}

export interface EmailAuthEvent {
  id: string;
  type: 'dmarc.report.received' | 'tls.report.received' | 'dmarc.policy.changed' | 'alert.raised' | 'alert.resolved';
  occurred_at: string;
  domain: string;
  severity: 'info' | 'warning' | 'critical';
  title: string;
}

export interface TlsSummary {
  reports: number;
  successful_sessions: number;
  failed_sessions: number;
  success_rate: number | null;
  failure_types: { result_type: string; failed_sessions: number }[];
  failing_senders: { sending_mta_ip: string; failed_sessions: number; result_types: string[] }[];
  policy_types: { policy_type: string; sessions: number }[];
  daily: { date: string; successful_sessions: number; failed_sessions: number }[];
}
