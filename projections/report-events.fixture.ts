/**
 * For the report projections' specs: reports as intake records them (the domain's own
 * event builders), so the specs project the events the service really appends.
 */
import { AggregateRecord, AggregateReport } from '../libs/dmarc-reports/domain/aggregate-report';
import { PackedRecordList } from '../libs/dmarc-reports/domain/packed-records';
import {
  AggregateRecordsAdded,
  AggregateRecordsAddedV1,
  aggregateReportEvents,
  chunkRecords,
  FailureReportReceived,
  ReportEvent,
  ReportRetentionApplied,
  TlsReportReceived,
} from '../libs/dmarc-reports/domain/report.events';
import { upcast } from '../libs/eventstore/upcasters';

export const OWNER = { zone: 'example.com', account_id: 7 };

export const aggregateRecord = (
  source_ip: string,
  count: number,
  dkim: string,
  spf: string,
  envelope_from?: string,
): AggregateRecord => ({
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
    records: PackedRecordList.of(records),
  };
  return aggregateReportEvents(report, key, OWNER, '2026-03-05T08:00:00.000Z', 'smtp');
};

/**
 * The same events as consumers get them from a store written before version 2: each
 * chunk stored with its records as objects (version 1), then lifted by the upcaster.
 */
export const readFromVersion1 = (events: ReportEvent[]): ReportEvent[] =>
  events.map((e, i) => {
    if (e.type !== 'DmarcAggregateRecordsAdded') return e;
    const { strings: _strings, values: _values, ...chunk } = e.data;
    const v1: AggregateRecordsAddedV1['data'] = { ...chunk, records: chunkRecords(e.data) };
    const stored = {
      id: `v1-${i}`,
      streamId: 'stream',
      revision: i,
      type: e.type,
      data: v1,
      metadata: { version: 1 },
      position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
      created: new Date(0),
    };
    // upcast keeps the type it is given; what it returns is the version 2 shape.
    return { type: e.type, data: upcast(stored).data as unknown as AggregateRecordsAdded['data'] };
  });

export const retentionApplied = (cutoff: string): ReportRetentionApplied => ({
  type: 'DmarcReportRetentionApplied',
  data: { cutoff, applied_at: '2029-03-03T00:00:00.000Z' },
});

/** A failure report as intake records it: subject and mail-from sealed (here stand-in ciphertexts). */
export const failureReportReceived = (key: string, received_at: string): FailureReportReceived => ({
  type: 'DmarcFailureReportReceived',
  data: {
    report_key: key,
    ...OWNER,
    received_at,
    source: 'smtp',
    reporter: 'abuse@mail.example.net',
    reported_domain: 'example.com',
    feedback_type: 'auth-failure',
    arrival_date: '2026-03-01T10:00:00.000Z',
    source_ip: '198.51.100.2',
    auth_failure: 'dmarc',
    delivery_result: 'reject',
    authentication_results: 'mx.example.net; dmarc=fail header.from=example.com',
    dkim_domain: null,
    dkim_selector: null,
    mail_from_domain: 'bounce.example.net',
    rcpt_domain: 'example.org',
    subject_sealed: 'sealed-subject',
    mail_from_sealed: null,
  },
});

/** An SMTP TLS report as intake records it, one policy with one failure detail. */
export const tlsReportReceived = (key: string, begin: string): TlsReportReceived => ({
  type: 'TlsReportReceived',
  data: {
    report_key: key,
    ...OWNER,
    received_at: '2026-03-05T08:00:00.000Z',
    source: 'https',
    org_name: 'Microsoft',
    contact_info: 'tlsrpt@microsoft.com',
    report_id: `id-${key}`,
    begin,
    end: begin.replace('T00:00:00', 'T23:59:59'),
    policies: [
      {
        policy_type: 'sts',
        policy_domain: 'example.com',
        policy_string: ['version: STSv1', 'mode: enforce'],
        mx_host: ['mx.example.com'],
        successful_sessions: 20,
        failed_sessions: 2,
        failure_details: [
          {
            result_type: 'certificate-expired',
            sending_mta_ip: '203.0.113.5',
            receiving_mx_hostname: 'mx.example.com',
            receiving_ip: null,
            failed_session_count: 2,
            failure_reason_code: null,
          },
        ],
      },
    ],
    successful_sessions: 20,
    failed_sessions: 2,
  },
});
