/**
 * For the report projections' specs: reports as intake records them (the domain's own
 * event builders), so the specs project the events the service really appends.
 */
import { AggregateRecord, AggregateReport } from '../libs/dmarc-reports/domain/aggregate-report';
import { aggregateReportEvents, ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';

export const OWNER = { zone: 'example.com', account_id: 7 };

export const aggregateRecord = (source_ip: string, count: number, dkim: string, spf: string, envelope_from?: string): AggregateRecord => ({
  source_ip,
  count,
  disposition: dkim === 'pass' || spf === 'pass' ? 'none' : 'quarantine',
  dkim,
  spf,
  header_from: 'example.com',
  ...(envelope_from ? { envelope_from } : {}),
  dkim_results: [{ domain: 'example.com', selector: 's1', result: dkim }],
  spf_results: [],
});

/** An aggregate report's events (header, then its record chunks) for the period starting `begin`. */
export const aggregateReportReceived = (key: string, begin: string, records: AggregateRecord[]): ReportEvent[] => {
  const report: AggregateReport = {
    kind: 'aggregate',
    org_name: 'Google.com',
    email: 'noreply@google.com',
    report_id: `id-${key}`,
    begin,
    end: begin.replace('T00:00:00', 'T23:59:59'),
    policy: { domain: 'example.com', p: 'quarantine', pct: 50 },
    records,
  };
  return aggregateReportEvents(report, key, OWNER, '2026-03-05T08:00:00.000Z', 'smtp');
};

export const retentionApplied = (cutoff: string): ReportRetentionApplied => ({ type: 'DmarcReportRetentionApplied', data: { cutoff, applied_at: '2029-03-03T00:00:00.000Z' } });
