import { normalizeDomain } from './aggregate-report';
import { refuse } from './report-refusal';

export interface TlsFailureDetail {
  result_type: string;
  sending_mta_ip: string | null;
  receiving_mx_hostname: string | null;
  receiving_ip: string | null;
  failed_session_count: number;
  failure_reason_code: string | null;
}

export interface TlsPolicyResult {
  policy_type: string;
  policy_domain: string;
  policy_string: string[];
  mx_host: string[];
  successful_sessions: number;
  failed_sessions: number;
  failure_details: TlsFailureDetail[];
}

/** An SMTP TLS report (RFC 8460 section 4) as kept. */
export interface TlsReport {
  kind: 'tls';
  org_name: string;
  contact_info: string;
  report_id: string;
  begin: string;
  end: string;
  policies: TlsPolicyResult[];
}

type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const count = (v: unknown, field: string): number => {
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw refuse('malformed', `${field} must be a non-negative integer`);
  return v;
};
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [];
const time = (v: unknown, field: string): string => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw refuse('malformed', `date-range ${field} must be an RFC 3339 date-time`);
  return new Date(t).toISOString();
};

/**
 * The report from its JSON. Reporters use both the RFC example's field names
 * (`mx-host`, `additional-information`) and the schema's (`mx-host-pattern`,
 * `additional-info-uri`); both are read.
 */
export function tlsReportFrom(json: unknown): TlsReport {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw refuse('malformed', 'TLS report must be a JSON object');
  const body = json as Json;
  const range = (body['date-range'] ?? {}) as Json;
  const org = str(body['organization-name']);
  const reportId = str(body['report-id']);
  if (!org) throw refuse('malformed', 'organization-name is required');
  if (!reportId || reportId.length > 256) throw refuse('malformed', 'report-id is required (at most 256 characters)');
  if (!Array.isArray(body.policies) || body.policies.length === 0)
    throw refuse('malformed', 'policies must be a non-empty array');
  const policies = body.policies.map((raw, i): TlsPolicyResult => {
    const entry = (raw ?? {}) as Json;
    const policy = (entry.policy ?? {}) as Json;
    const summary = (entry.summary ?? {}) as Json;
    const domain = normalizeDomain(str(policy['policy-domain']) ?? '');
    if (!domain) throw refuse('malformed', `policies[${i}].policy.policy-domain is required`);
    const details = Array.isArray(entry['failure-details']) ? (entry['failure-details'] as Json[]) : [];
    return {
      policy_type: (str(policy['policy-type']) ?? 'no-policy-found').toLowerCase(),
      policy_domain: domain,
      policy_string: strings(policy['policy-string']),
      mx_host: strings(policy['mx-host'] ?? policy['mx-host-pattern']),
      successful_sessions: count(summary['total-successful-session-count'], 'total-successful-session-count'),
      failed_sessions: count(summary['total-failure-session-count'], 'total-failure-session-count'),
      failure_details: details.map((d) => ({
        result_type: (str(d['result-type']) ?? 'unknown').toLowerCase(),
        sending_mta_ip: str(d['sending-mta-ip']),
        receiving_mx_hostname: str(d['receiving-mx-hostname']),
        receiving_ip: str(d['receiving-ip']),
        failed_session_count: count(d['failed-session-count'], 'failed-session-count'),
        failure_reason_code: str(d['failure-reason-code']),
      })),
    };
  });
  return {
    kind: 'tls',
    org_name: org,
    contact_info: str(body['contact-info']) ?? '',
    report_id: reportId,
    begin: time(range['start-datetime'], 'start-datetime'),
    end: time(range['end-datetime'], 'end-datetime'),
    policies,
  };
}
